package ferrobase.javaclient;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The five seed articles' programs on the stock HBase Java client (issue 48): table design with
 * every column-family attribute of article 004, the tall-narrow and wide-row user histories of
 * articles 000 and 002, the game log of 002, the file table of 001 (answer: files 1,2,3,4,5,7),
 * the microblog of 003 (follow, post and a VERSIONS 1000 inbox), 004's shop, animal and purchase
 * tables with every kind of mutation, and a BufferedMutator load.
 *
 * <p>It prints one line per answer, {@code step: value}, then {@code answers: K of N}. A step that
 * throws prints {@code step: ERROR Class: first line of the message}; the program goes on, and
 * exits 1 if any step failed. Every timestamp that reaches the output is fixed, so the transcript
 * is the same on every run and every server.
 *
 * <pre>
 * SeedArticles (--bootstrap HOST:PORT[,HOST:PORT] | --zk HOST:PORT) [--prefix P] [--rows N]
 *              [--trace FILE]
 * </pre>
 * {@code --bootstrap}: HBase 2.6's RpcConnectionRegistry (master or region server RPC port, no
 * ZooKeeper); {@code --zk}: the classic ZooKeeper registry. {@code --prefix} (default
 * {@code seed_}) names the tables, dropped first if they exist. {@code --rows} (default 10000):
 * the BufferedMutator load. {@code --trace FILE}: every RPC of the run, decoded ({@link RpcTap}).
 */
public final class SeedArticles {
  private final PrintStream out;
  private final String prefix;
  private final int rows;
  private Connection conn;
  private Admin admin;
  private int total;
  private int ok;

  private SeedArticles(PrintStream out, String prefix, int rows) {
    this.out = out;
    this.prefix = prefix;
    this.rows = rows;
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = null;
    String zk = null;
    String thrift2 = null;
    String prefix = "seed_";
    String trace = null;
    int rows = 10_000;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--bootstrap" -> bootstrap = args[++i];
        case "--zk" -> zk = args[++i];
        case "--thrift2" -> thrift2 = args[++i];
        case "--prefix" -> prefix = args[++i];
        case "--rows" -> rows = Integer.parseInt(args[++i]);
        case "--trace" -> trace = args[++i];
        default -> usage();
      }
    }
    if ((bootstrap != null ? 1 : 0) + (zk != null ? 1 : 0) + (thrift2 != null ? 1 : 0) != 1) {
      usage();
    }
    Configuration conf = HBaseConfiguration.create();
    if (thrift2 != null) {
      // HBase's own Connection over Thrift2 (hbase-thrift's ThriftConnection), switched on by
      // configuration alone, as an unmodified application would be.
      int colon = thrift2.lastIndexOf(':');
      conf.set("hbase.client.connection.impl",
          "org.apache.hadoop.hbase.thrift2.client.ThriftConnection");
      conf.set("hbase.thrift.server.name", thrift2.substring(0, colon));
      conf.setInt("hbase.thrift.server.port", Integer.parseInt(thrift2.substring(colon + 1)));
    } else if (bootstrap != null) {
      conf.set("hbase.client.registry.impl",
          "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
      conf.set("hbase.client.bootstrap.servers", bootstrap);
    } else {
      int colon = zk.lastIndexOf(':');
      conf.set("hbase.zookeeper.quorum", zk.substring(0, colon));
      conf.set("hbase.zookeeper.property.clientPort", zk.substring(colon + 1));
      conf.setInt("zookeeper.recovery.retry", 1);
      conf.setInt("zookeeper.session.timeout", 20_000);
    }
    // A broken server fails fast: few retries, short pauses, 20 s timeouts.
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 20_000);
    conf.setInt("hbase.client.operation.timeout", 20_000);
    conf.setInt("hbase.client.meta.operation.timeout", 20_000);
    conf.setInt("hbase.client.scanner.timeout.period", 20_000);
    conf.setInt("hbase.client.sync.wait.timeout.msec", 60_000);
    conf.setInt("hbase.client.start.log.errors.counter", 0);
    if (trace != null) {
      RpcTap.start(trace);
      conf.set("hbase.rpc.client.impl", "org.apache.hadoop.hbase.ipc.BlockingRpcClient");
      conf.set("hadoop.rpc.socket.factory.class.default", TapSocketFactory.class.getName());
    }
    PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    SeedArticles app = new SeedArticles(stdout, prefix, rows);
    int failed = app.run(conf);
    System.exit(failed == 0 ? 0 : 1);
  }

  private static void usage() {
    System.err.println("usage: SeedArticles (--bootstrap HOST:PORT | --zk HOST:PORT | --thrift2 HOST:PORT)"
        + " [--prefix P] [--rows N] [--trace FILE]");
    System.exit(2);
  }

  /** Runs every step; returns the number that failed. */
  private int run(Configuration conf) {
    step("connect", () -> {
      conn = ConnectionFactory.createConnection(conf);
      admin = conn.getAdmin();
      return "ok";
    });
    if (admin == null) {
      out.printf("answers: %d of %d%n", ok, total);
      return 1;
    }
    step("drop-old-tables", this::dropOld);
    schema();
    histories();
    gameLog();
    files();
    microblog();
    shopAnimalPurchase();
    load();
    step("drop-all", () -> {
      int n = dropAllWithPrefix();
      return n + " tables dropped, tableExists(file)=" + admin.tableExists(t("file"));
    });
    try {
      admin.close();
      conn.close();
    } catch (Exception e) {
      // closing is not an answer
    }
    out.printf("answers: %d of %d%n", ok, total);
    return total - ok;
  }

  // ---------------------------------------------------------------- steps

  interface Body {
    String run() throws Exception;
  }

  private void step(String name, Body body) {
    total++;
    RpcTap.marker("step " + name);
    String line;
    try {
      line = name + ": " + body.run();
      ok++;
    } catch (Throwable e) {
      String msg = String.valueOf(e.getMessage());
      int nl = msg.indexOf('\n');
      line = name + ": ERROR " + e.getClass().getName() + ": " + (nl < 0 ? msg : msg.substring(0, nl));
    }
    out.println(line);
    RpcTap.marker("answer " + line);
  }

  private TableName t(String name) {
    return TableName.valueOf(prefix + name);
  }

  /** Drops what an earlier run left; the answer does not depend on what was there. */
  private String dropOld() throws Exception {
    dropAllWithPrefix();
    return admin.listTableNames(Pattern.compile(Pattern.quote(prefix) + ".*")).length + " left";
  }

  private int dropAllWithPrefix() throws Exception {
    int n = 0;
    for (TableName tn : admin.listTableNames(Pattern.compile(Pattern.quote(prefix) + ".*"))) {
      if (admin.isTableEnabled(tn)) {
        admin.disableTable(tn);
      }
      admin.deleteTable(tn);
      n++;
    }
    return n;
  }

  private void create(String name, ColumnFamilyDescriptor... families) throws Exception {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(t(name));
    for (ColumnFamilyDescriptor f : families) {
      b.setColumnFamily(f);
    }
    admin.createTable(b.build());
  }

  private static ColumnFamilyDescriptor family(String name) {
    return ColumnFamilyDescriptorBuilder.of(name);
  }

  private static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  private static String s(byte[] b) {
    return b == null ? "null" : Bytes.toString(b);
  }

  /** {@code Long.MAX_VALUE - ts} as 19 decimal digits: newer sorts first. */
  private static String reverse(long ts) {
    return String.format("%019d", Long.MAX_VALUE - ts);
  }

  private static String values(Result r) {
    if (r.isEmpty()) {
      return "(empty)";
    }
    return Arrays.stream(r.rawCells()).map(c -> s(CellUtil.cloneValue(c)))
        .collect(Collectors.joining(","));
  }

  private static String cells(Result r) {
    if (r.isEmpty()) {
      return "(empty)";
    }
    return Arrays.stream(r.rawCells()).map(SeedArticles::cell).collect(Collectors.joining(" "));
  }

  private static String cell(Cell c) {
    return s(CellUtil.cloneFamily(c)) + ":" + s(CellUtil.cloneQualifier(c)) + "=" + s(CellUtil.cloneValue(c));
  }

  private static List<Result> scanAll(Table table, Scan scan) throws Exception {
    List<Result> rs = new ArrayList<>();
    try (ResultScanner scanner = table.getScanner(scan)) {
      for (Result r : scanner) {
        rs.add(r);
      }
    }
    return rs;
  }

  private static String rowsOf(List<Result> rs) {
    return rs.stream().map(r -> s(r.getRow())).collect(Collectors.joining(","));
  }

  // ---------------------------------------------------------------- article 004: schema

  private static final String[] SCHEMA_FAMILIES =
      { "bs", "nocache", "inmem", "bloomrow", "bloomrowcol", "gz", "v1", "ttl", "mv", "mvttl" };

  private static String describe(ColumnFamilyDescriptor f) {
    return f.getNameAsString() + "{VERSIONS=" + f.getMaxVersions() + ",MIN_VERSIONS="
        + f.getMinVersions() + ",TTL=" + f.getTimeToLive() + ",BLOCKSIZE=" + f.getBlocksize()
        + ",BLOOMFILTER=" + f.getBloomFilterType() + ",COMPRESSION=" + f.getCompressionType()
        + ",BLOCKCACHE=" + f.isBlockCacheEnabled() + ",IN_MEMORY=" + f.isInMemory() + "}";
  }

  private String describeFamilies(TableName tn, String... names) throws Exception {
    TableDescriptor d = admin.getDescriptor(tn);
    List<String> parts = new ArrayList<>();
    for (String n : names) {
      ColumnFamilyDescriptor f = d.getColumnFamily(b(n));
      parts.add(f == null ? n + "{absent}" : describe(f));
    }
    return String.join(" ", parts);
  }

  private void schema() {
    TableName mytable = t("mytable");
    step("create-mytable", () -> {
      create("mytable",
          ColumnFamilyDescriptorBuilder.newBuilder(b("bs")).setBlocksize(65536).build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("nocache")).setBlockCacheEnabled(false).build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("inmem")).setInMemory(true).build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("bloomrow")).setBloomFilterType(BloomType.ROW)
              .build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("bloomrowcol"))
              .setBloomFilterType(BloomType.ROWCOL).build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("gz"))
              .setCompressionType(Compression.Algorithm.GZ).build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("v1")).setMaxVersions(1).build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("ttl")).setMaxVersions(1).setTimeToLive(18000)
              .build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("mv")).setMaxVersions(5).setMinVersions(1)
              .build(),
          ColumnFamilyDescriptorBuilder.newBuilder(b("mvttl")).setMaxVersions(5).setMinVersions(1)
              .setTimeToLive(18000).build());
      return "tableExists=" + admin.tableExists(mytable) + " enabled=" + admin.isTableEnabled(mytable);
    });
    step("describe-mytable", () -> {
      TableDescriptor d = admin.getDescriptor(mytable);
      return d.getTableName().getQualifierAsString().substring(prefix.length()) + " families="
          + d.getColumnFamilyCount() + " " + describeFamilies(mytable, SCHEMA_FAMILIES);
    });
    step("versions", () -> {
      try (Table table = conn.getTable(mytable)) {
        for (long ts = 1000; ts <= 3000; ts += 1000) {
          table.put(new Put(b("r1")).addColumn(b("v1"), b("c"), ts, b("c" + ts / 1000))
              .addColumn(b("mv"), b("c"), ts, b("c" + ts / 1000))
              .addColumn(b("gz"), b("c"), ts, b("c" + ts / 1000)));
        }
        Result r = table.get(new Get(b("r1")).addFamily(b("v1")).addFamily(b("mv"))
            .addFamily(b("gz")).readVersions(5));
        return cells(r);
      }
    });
    step("ttl-and-min-versions", () -> {
      try (Table table = conn.getTable(mytable)) {
        // 2012 timestamps: older than the 18000 s TTL, so expired when read.
        List<Put> puts = new ArrayList<>();
        for (long k = 1; k <= 3; k++) {
          long ts = 1349049600000L + k * 1000;
          puts.add(new Put(b("r2")).addColumn(b("ttl"), b("old"), ts, b("old" + k))
              .addColumn(b("mvttl"), b("old"), ts, b("old" + k))
              .addColumn(b("mv"), b("old"), ts, b("old" + k)));
        }
        table.put(puts);
        // Written now (server time): alive.
        table.put(new Put(b("r2")).addColumn(b("ttl"), b("new"), b("new")));
        Result r = table.get(new Get(b("r2")).readVersions(5));
        return cells(r);
      }
    });
    step("alter-mytable", () -> {
      admin.modifyColumnFamily(mytable,
          ColumnFamilyDescriptorBuilder.newBuilder(admin.getDescriptor(mytable).getColumnFamily(b("v1")))
              .setMaxVersions(3).setBlocksize(32768).build());
      admin.addColumnFamily(mytable, ColumnFamilyDescriptorBuilder.newBuilder(b("added"))
          .setBloomFilterType(BloomType.NONE).setCompressionType(Compression.Algorithm.NONE).build());
      return "families=" + admin.getDescriptor(mytable).getColumnFamilyCount() + " "
          + describeFamilies(mytable, "v1", "added");
    });
    step("versions-after-alter", () -> {
      try (Table table = conn.getTable(mytable)) {
        for (long ts = 1; ts <= 4; ts++) {
          table.put(new Put(b("r3")).addColumn(b("v1"), b("e"), ts, b("e" + ts))
              .addColumn(b("added"), b("a"), ts, b("a" + ts)));
        }
        return cells(table.get(new Get(b("r3")).readVersions(10)));
      }
    });
    step("list-tables", () -> {
      create("scratch", family("cf"));
      return admin.listTableNames(Pattern.compile(Pattern.quote(prefix) + ".*")).length + " "
          + Arrays.stream(admin.listTableNames(Pattern.compile(Pattern.quote(prefix) + ".*")))
              .map(tn -> tn.getNameAsString().substring(prefix.length())).sorted()
              .collect(Collectors.joining(","));
    });
    step("disable-delete", () -> {
      TableName scratch = t("scratch");
      admin.disableTable(scratch);
      boolean disabled = admin.isTableDisabled(scratch);
      admin.deleteTable(scratch);
      return "disabled=" + disabled + " tableExists(scratch)=" + admin.tableExists(scratch)
          + " tableExists(mytable)=" + admin.tableExists(mytable);
    });
  }

  // ---------------------------------------------------------------- articles 000 and 002: histories

  /** 2012-10-01 00:00:00 UTC in ms; visit k happens a minute after visit k-1. */
  private static final long T0 = 1349049600000L;

  private static long visitTime(int k) {
    return T0 + k * 60_000L;
  }

  private void histories() {
    TableName tall = t("history_tall");
    TableName wide = t("history_wide");
    step("history-setup", () -> {
      create("history_tall", family("cf"));
      create("history_wide", family("cf"));
      int n = 0;
      try (Table tt = conn.getTable(tall); Table wt = conn.getTable(wide)) {
        for (String uid : List.of("1001", "1002")) {
          int visits = uid.equals("1001") ? 5 : 2;
          for (int k = 1; k <= visits; k++) {
            long ts = visitTime(k);
            String url = "http://example.com/" + uid + "/page" + k;
            tt.put(new Put(b(uid + reverse(ts))).addColumn(b("cf"), b(""), ts, b(url)));
            wt.put(new Put(b(uid)).addColumn(b("cf"), b(reverse(ts)), ts, b(url)));
            n++;
          }
        }
      }
      return n + " visits in each table";
    });
    step("tall-get-one", () -> {
      try (Table table = conn.getTable(tall)) {
        Result r = table.get(new Get(b("1001" + reverse(visitTime(3)))));
        return s(r.getRow()) + " " + values(r);
      }
    });
    step("tall-scan-user", () -> {
      try (Table table = conn.getTable(tall)) {
        List<Result> rs =
            scanAll(table, new Scan().withStartRow(b("1001")).withStopRow(b("1002")));
        return rs.size() + " " + rs.stream().map(SeedArticles::values).collect(Collectors.joining(" "));
      }
    });
    step("tall-newest-n", () -> {
      try (Table table = conn.getTable(tall);
          ResultScanner scanner = table.getScanner(
              new Scan().withStartRow(b("1001")).withStopRow(b("1002")).setCaching(3))) {
        Result[] rs = scanner.next(3);
        return rs.length + " " + Arrays.stream(rs).map(SeedArticles::values)
            .collect(Collectors.joining(" "));
      }
    });
    step("tall-reversed", () -> {
      try (Table table = conn.getTable(tall)) {
        List<Result> rs = scanAll(table,
            new Scan().withStartRow(b("1001~")).withStopRow(b("1001")).setReversed(true));
        return rs.size() + " " + rs.stream().map(SeedArticles::values).collect(Collectors.joining(" "));
      }
    });
    step("tall-limit", () -> {
      try (Table table = conn.getTable(tall)) {
        List<Result> rs = scanAll(table, new Scan().setLimit(2));
        return rs.size() + " " + rowsOf(rs);
      }
    });
    step("wide-get-one", () -> {
      try (Table table = conn.getTable(wide)) {
        return values(table.get(new Get(b("1001")).addColumn(b("cf"), b(reverse(visitTime(3))))));
      }
    });
    step("wide-get-all", () -> {
      try (Table table = conn.getTable(wide)) {
        Result r = table.get(new Get(b("1001")).addFamily(b("cf")));
        return r.size() + " " + values(r);
      }
    });
    step("wide-newest-n", () -> {
      try (Table table = conn.getTable(wide)) {
        Result r = table.get(new Get(b("1001")).addFamily(b("cf")).setFilter(new ColumnCountGetFilter(3)));
        return r.size() + " " + values(r);
      }
    });
    step("wide-scan-batch", () -> {
      try (Table table = conn.getTable(wide)) {
        List<Result> rs = scanAll(table, new Scan().addFamily(b("cf")).setBatch(2));
        return rs.size() + " results, cells per result "
            + rs.stream().map(r -> s(r.getRow()) + "=" + r.size()).collect(Collectors.joining(","));
      }
    });
    step("wide-scan-partial", () -> {
      try (Table table = conn.getTable(wide)) {
        List<Result> rs = scanAll(table,
            new Scan().setMaxResultSize(1).setAllowPartialResults(true));
        return rs.size() + " results, cells per result "
            + rs.stream().map(r -> s(r.getRow()) + "=" + r.size() + (r.mayHaveMoreCellsInRow() ? "+" : ""))
                .collect(Collectors.joining(","));
      }
    });
    step("wide-scan-max-result-size", () -> {
      try (Table table = conn.getTable(wide)) {
        List<Result> rs = scanAll(table, new Scan().setMaxResultSize(1).setCaching(100));
        return rs.size() + " rows, cells per row "
            + rs.stream().map(r -> s(r.getRow()) + "=" + r.size()).collect(Collectors.joining(","));
      }
    });
  }

  // ---------------------------------------------------------------- article 002: the game log

  private void gameLog() {
    TableName log = t("hbase_gameCenter_log");
    step("gamelog-setup", () -> {
      create("hbase_gameCenter_log", family("oneline"));
      List<Put> puts = new ArrayList<>();
      String[] accounts = { "u52fa532aae9dc", "u7c3e0b1d22f4a" };
      long ts = 1364774400000L; // 2013-04-01
      for (String account : accounts) {
        for (String action : List.of("login", "logout")) {
          for (int year = 2012; year <= 2016; year++) {
            for (int month : new int[] { 1, 4, 7, 10 }) {
              String time = String.format("%d-%02d-01 00:00:00", year, month);
              String row = account + "_" + action + "_" + time;
              puts.add(new Put(b(row))
                  .addColumn(b("oneline"), b("guid"), ts, b("g-" + account.substring(1, 5) + "-" + year + month))
                  .addColumn(b("oneline"), b("report"), ts, b(action + "@" + time.substring(0, 7)))
                  .addColumn(b("oneline"), b("ip"), ts, b("10.0." + year % 100 + "." + month)));
            }
          }
        }
      }
      try (Table table = conn.getTable(log)) {
        table.put(puts);
      }
      return puts.size() + " rows";
    });
    step("gamelog-scan", () -> {
      try (Table table = conn.getTable(log)) {
        // scan 'hbase_gameCenter_log', {COLUMNS => ['oneline:guid','oneline:report'], LIMIT => 10,
        //   STARTROW => 'u52fa532aae9dc_login_2013-04-01 00:00:00',
        //   STOPROW => 'u52fa532aae9dc_login_2016-04-01 00:00:00'}
        Scan scan = new Scan().addColumn(b("oneline"), b("guid")).addColumn(b("oneline"), b("report"))
            .setLimit(10).withStartRow(b("u52fa532aae9dc_login_2013-04-01 00:00:00"))
            .withStopRow(b("u52fa532aae9dc_login_2016-04-01 00:00:00"));
        List<Result> rs = scanAll(table, scan);
        return rs.size() + " rows " + s(rs.get(0).getRow()) + " .. " + s(rs.get(rs.size() - 1).getRow())
            + " columns " + rs.stream().map(r -> String.valueOf(r.size())).distinct()
                .collect(Collectors.joining(",")) + " first " + cells(rs.get(0));
      }
    });
    step("gamelog-scan-all-in-range", () -> {
      try (Table table = conn.getTable(log)) {
        Scan scan = new Scan().addColumn(b("oneline"), b("report"))
            .withStartRow(b("u52fa532aae9dc_login_2013-04-01 00:00:00"))
            .withStopRow(b("u52fa532aae9dc_login_2016-04-01 00:00:00"));
        List<Result> rs = scanAll(table, scan);
        return rs.size() + " rows " + rs.stream().map(SeedArticles::values).collect(Collectors.joining(" "));
      }
    });
  }

  // ---------------------------------------------------------------- article 001: the file table

  private static final Object[][] FILES = {
      { 1, "20120902", "中国好声音第1期", "综艺", 1 },
      { 2, "20120904", "中国好声音第2期", "综艺", 1 },
      { 3, "20120906", "中国好声音外卡赛", "综艺", 1 },
      { 4, "20120908", "中国好声音第3期", "综艺", 1 },
      { 5, "20120910", "中国好声音第4期", "综艺", 1 },
      { 6, "20120912", "中国好声音选手采访", "综艺花絮", 2 },
      { 7, "20120914", "中国好声音第5期", "综艺", 1 },
      { 8, "20120916", "中国好声音录制花絮", "综艺花絮", 2 },
      { 9, "20120918", "张玮独家专访", "花絮", 3 },
      { 10, "20120920", "加多宝凉茶广告", "综艺广告", 4 },
  };

  private static final String[] USERS = { "", "浙江卫视", "好声音剧组", "XX微博", "赞助商" };

  /** The prefix's upper bound: the prefix with its last byte incremented (no 0xff ends here). */
  private static byte[] successor(String prefix) {
    byte[] p = b(prefix);
    byte[] r = Arrays.copyOf(p, p.length);
    r[r.length - 1]++;
    return r;
  }

  /** The article's four SingleColumnValueFilters: name and category prefixes as bounds. */
  private static FilterList prefixFilters(String name, String category) {
    FilterList list = new FilterList(FilterList.Operator.MUST_PASS_ALL);
    for (String[] c : new String[][] { { "name", name }, { "category", category } }) {
      SingleColumnValueFilter lo = new SingleColumnValueFilter(b("f"), b(c[0]),
          CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b(c[1])));
      SingleColumnValueFilter hi = new SingleColumnValueFilter(b("f"), b(c[0]),
          CompareOperator.LESS, new BinaryComparator(successor(c[1])));
      lo.setFilterIfMissing(true);
      hi.setFilterIfMissing(true);
      list.addFilter(lo);
      list.addFilter(hi);
    }
    return list;
  }

  private static String fileIds(List<Result> rs) {
    return rs.stream().map(r -> s(r.getValue(b("f"), b("id")))).collect(Collectors.joining(","));
  }

  private void files() {
    TableName file = t("file");
    step("file-setup", () -> {
      create("file", family("f"));
      List<Put> puts = new ArrayList<>();
      for (Object[] f : FILES) {
        int id = (Integer) f[0];
        int user = (Integer) f[4];
        String key = String.format("%06d%s%06d", user, f[1], id);
        long ts = 1346457600000L; // 2012-09-01
        puts.add(new Put(b(key)).addColumn(b("f"), b("id"), ts, b(String.valueOf(id)))
            .addColumn(b("f"), b("created"), ts, b((String) f[1]))
            .addColumn(b("f"), b("name"), ts, b((String) f[2]))
            .addColumn(b("f"), b("category"), ts, b((String) f[3]))
            .addColumn(b("f"), b("owner"), ts, b(USERS[user])));
      }
      try (Table table = conn.getTable(file)) {
        table.put(puts);
        return puts.size() + " files, rows " + rowsOf(scanAll(table, new Scan()));
      }
    });
    step("file-query", () -> {
      // find(20120901, 20121001, "中国好声音", "综艺", "浙江卫视") -> files 1,2,3,4,5,7
      try (Table table = conn.getTable(file)) {
        Scan scan = new Scan().withStartRow(b("00000120120901")).withStopRow(b("00000120121001"))
            .setFilter(prefixFilters("中国好声音", "综艺"));
        return fileIds(scanAll(table, scan));
      }
    });
    step("file-query-article-stop-row", () -> {
      // The article's literal setStopRow(00000120120914) is exclusive: file 7 (20120914) is out.
      try (Table table = conn.getTable(file)) {
        Scan scan = new Scan().withStartRow(b("00000120120901")).withStopRow(b("00000120120914"))
            .setFilter(prefixFilters("中国好声音", "综艺"));
        return fileIds(scanAll(table, scan));
      }
    });
    step("file-page-1", () -> {
      try (Table table = conn.getTable(file)) {
        FilterList f = prefixFilters("中国好声音", "综艺");
        f.addFilter(new PageFilter(4));
        List<Result> rs = scanAll(table, new Scan().withStartRow(b("00000120120901"))
            .withStopRow(b("00000120121001")).setFilter(f));
        return fileIds(rs) + " last=" + s(rs.get(rs.size() - 1).getRow());
      }
    });
    step("file-page-2", () -> {
      try (Table table = conn.getTable(file)) {
        FilterList f = prefixFilters("中国好声音", "综艺");
        f.addFilter(new PageFilter(4));
        // Resume after page 1's last row (exclusive start).
        List<Result> rs = scanAll(table, new Scan().withStartRow(b("00000120120908000004"), false)
            .withStopRow(b("00000120121001")).setFilter(f));
        return fileIds(rs);
      }
    });
    step("file-any-user-by-date", () -> {
      // The reader's question: no user given, so a full scan filtered on the created column.
      try (Table table = conn.getTable(file)) {
        FilterList f = new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new SingleColumnValueFilter(b("f"), b("created"), CompareOperator.GREATER_OR_EQUAL,
                new BinaryComparator(b("20120910"))),
            new SingleColumnValueFilter(b("f"), b("created"), CompareOperator.LESS_OR_EQUAL,
                new BinaryComparator(b("20120916"))));
        List<Result> rs = scanAll(table, new Scan().setFilter(f));
        return fileIds(rs) + " owners " + rs.stream().map(r -> s(r.getValue(b("f"), b("owner"))))
            .collect(Collectors.joining(","));
      }
    });
  }

  // ---------------------------------------------------------------- article 003: the microblog

  private static final String[][] BLOG_USERS = { { "0001", "alice" }, { "0002", "bob" },
      { "0003", "carol" }, { "0004", "dave" } };

  private void microblog() {
    TableName follow = t("follow");
    TableName post = t("post");
    TableName inbox = t("inbox");
    step("blog-setup", () -> {
      create("follow", family("cf1"), family("cf2"));
      create("post", family("cf1"));
      create("inbox", ColumnFamilyDescriptorBuilder.newBuilder(b("cf1")).setMaxVersions(1000).build());
      // carol follows alice and bob; alice follows bob; dave follows alice.
      String[][] follows = { { "0003", "0001" }, { "0003", "0002" }, { "0001", "0002" }, { "0004", "0001" } };
      try (Table table = conn.getTable(follow)) {
        for (String[] f : follows) {
          String fan = f[0];
          String star = f[1];
          table.put(new Put(b(fan)).addColumn(b("cf1"), b(star), 1L, b(name(star))));
          table.put(new Put(b(star)).addColumn(b("cf2"), b(fan), 1L, b(name(fan))));
        }
      }
      return follows.length + " follows";
    });
    step("blog-following", () -> {
      try (Table table = conn.getTable(follow)) {
        return values(table.get(new Get(b("0003")).addFamily(b("cf1"))));
      }
    });
    step("blog-fans", () -> {
      try (Table table = conn.getTable(follow)) {
        return values(table.get(new Get(b("0001")).addFamily(b("cf2"))));
      }
    });
    step("blog-post-and-fan-out", () -> {
      // Posts at minutes 1..6 alternating alice and bob; each post goes to the post table and,
      // by the fan-out worker, to every fan's inbox as a new version of cf1:id.
      int inboxWrites = 0;
      try (Table f = conn.getTable(follow); Table p = conn.getTable(post); Table in = conn.getTable(inbox)) {
        for (int k = 1; k <= 6; k++) {
          String uid = k % 2 == 1 ? "0001" : "0002";
          long ts = T0 + k * 60_000L;
          String postId = uid + "_" + reverse(ts);
          p.put(new Put(b(postId)).addColumn(b("cf1"), b("content"), ts,
              b(name(uid) + " says hello #" + k)));
          Result fans = f.get(new Get(b(uid)).addFamily(b("cf2")));
          for (Cell c : fans.rawCells()) {
            in.put(new Put(CellUtil.cloneQualifier(c)).addColumn(b("cf1"), b("id"), ts, b(postId)));
            inboxWrites++;
          }
        }
      }
      return "6 posts, " + inboxWrites + " inbox writes";
    });
    step("blog-own-posts", () -> {
      try (Table table = conn.getTable(post)) {
        List<Result> rs = scanAll(table, new Scan().setFilter(new PrefixFilter(b("0001_"))));
        return rs.size() + " " + rs.stream().map(SeedArticles::values).collect(Collectors.joining(" | "));
      }
    });
    step("blog-home-timeline", () -> {
      try (Table in = conn.getTable(inbox); Table p = conn.getTable(post)) {
        Result r = in.get(new Get(b("0003")).addColumn(b("cf1"), b("id")).readVersions(1000));
        List<String> shown = new ArrayList<>();
        for (Cell c : r.getColumnCells(b("cf1"), b("id"))) {
          shown.add(values(p.get(new Get(CellUtil.cloneValue(c)))));
        }
        return shown.size() + " " + String.join(" | ", shown);
      }
    });
    step("blog-inbox-latest-only", () -> {
      try (Table in = conn.getTable(inbox)) {
        Result r = in.get(new Get(b("0004")).addColumn(b("cf1"), b("id")));
        return r.size() + " " + values(r);
      }
    });
    step("blog-inbox-many-versions", () -> {
      // 300 versions of one cell in the VERSIONS => 1000 family, read newest first. (Not past
      // 1000: the oracle's 16 KiB hbase.table.max.rowsize, set for the differential suite,
      // refuses a Get of 1000 versions with RowTooBigException.)
      try (Table in = conn.getTable(inbox)) {
        List<Put> puts = new ArrayList<>();
        for (int k = 1; k <= 300; k++) {
          puts.add(new Put(b("0002")).addColumn(b("cf1"), b("id"), k, b("p" + k)));
        }
        in.put(puts);
        Result r = in.get(new Get(b("0002")).addColumn(b("cf1"), b("id")).readVersions(1000));
        List<Cell> cs = r.getColumnCells(b("cf1"), b("id"));
        NavigableMap<Long, byte[]> versions = r.getMap().get(b("cf1")).get(b("id"));
        Result three = in.get(new Get(b("0002")).addColumn(b("cf1"), b("id")).readVersions(3));
        return cs.size() + " versions newest=" + s(CellUtil.cloneValue(cs.get(0))) + "@"
            + cs.get(0).getTimestamp() + " oldest=" + s(CellUtil.cloneValue(cs.get(cs.size() - 1)))
            + "@" + cs.get(cs.size() - 1).getTimestamp() + " map=" + versions.size()
            + "; readVersions(3)=" + values(three);
      }
    });
  }

  private static String name(String uid) {
    for (String[] u : BLOG_USERS) {
      if (u[0].equals(uid)) {
        return u[1];
      }
    }
    return uid;
  }

  // ---------------------------------------------------------------- article 004: shop, animal, sale

  private void shopAnimalPurchase() {
    TableName shop = t("shop");
    TableName animal = t("animal");
    TableName sale = t("sale");
    step("animal-children", () -> {
      create("animal", family("name"), family("parent"), family("child"));
      try (Table table = conn.getTable(animal)) {
        String[][] tree = { { "1", "animal", "" }, { "2", "pig", "1" }, { "3", "cat", "1" },
            { "4", "monkey", "1" }, { "5", "dog", "1" }, { "6", "tiger", "1" },
            { "7", "red dog", "5" }, { "8", "black dog", "5" }, { "9", "tiger of northeast", "6" } };
        for (String[] n : tree) {
          Put put = new Put(b(n[0])).addColumn(b("name"), b(""), 1L, b(n[1]));
          if (!n[2].isEmpty()) {
            put.addColumn(b("parent"), b(n[2]), 1L, b(tree[Integer.parseInt(n[2]) - 1][1]));
            table.put(new Put(b(n[2])).addColumn(b("child"), b(n[0]), 1L, b(n[1])));
          }
          table.put(put);
        }
        return "dog's children " + values(table.get(new Get(b("5")).addFamily(b("child"))))
            + "; tiger of northeast's parent "
            + values(table.get(new Get(b("9")).addFamily(b("parent"))));
      }
    });
    step("shop-items", () -> {
      create("shop", family("info"), family("item"));
      try (Table table = conn.getTable(shop)) {
        table.put(new Put(b("s1")).addColumn(b("info"), b("name"), 1L, b("fruit shop"))
            .addColumn(b("info"), b("owner"), 1L, b("alice"))
            .addColumn(b("item"), b("i1"), 1L, b("sale"))
            .addColumn(b("item"), b("i2"), 1L, b("new"))
            .addColumn(b("item"), b("i3"), 1L, b("sale")));
        return cells(table.get(new Get(b("s1")).addFamily(b("item"))));
      }
    });
    step("increment", () -> {
      try (Table table = conn.getTable(shop)) {
        table.increment(new Increment(b("s1")).addColumn(b("info"), b("visits"), 5));
        Result r = table.increment(new Increment(b("s1")).addColumn(b("info"), b("visits"), 5));
        long viaGet = Bytes.toLong(table.get(new Get(b("s1")).addColumn(b("info"), b("visits")))
            .getValue(b("info"), b("visits")));
        return Bytes.toLong(r.getValue(b("info"), b("visits"))) + " get=" + viaGet
            + " incrementColumnValue=" + table.incrementColumnValue(b("s1"), b("info"), b("visits"), -3);
      }
    });
    step("append", () -> {
      try (Table table = conn.getTable(shop)) {
        table.append(new Append(b("s1")).addColumn(b("info"), b("tags"), b("fresh")));
        Result r = table.append(new Append(b("s1")).addColumn(b("info"), b("tags"), b(",cheap")));
        return s(r.getValue(b("info"), b("tags")));
      }
    });
    step("check-and-mutate", () -> {
      try (Table table = conn.getTable(shop)) {
        boolean hit = table.checkAndMutate(CheckAndMutate.newBuilder(b("s1"))
            .ifEquals(b("info"), b("owner"), b("alice"))
            .build(new Put(b("s1")).addColumn(b("info"), b("status"), 1L, b("open")))).isSuccess();
        boolean miss = table.checkAndMutate(CheckAndMutate.newBuilder(b("s1"))
            .ifEquals(b("info"), b("owner"), b("bob"))
            .build(new Put(b("s1")).addColumn(b("info"), b("status"), 2L, b("closed")))).isSuccess();
        boolean absent = table.checkAndMutate(CheckAndMutate.newBuilder(b("s2"))
            .ifNotExists(b("info"), b("name"))
            .build(new Put(b("s2")).addColumn(b("info"), b("name"), 1L, b("book shop")))).isSuccess();
        Result r = table.get(new Get(b("s1")).addColumn(b("info"), b("status")));
        return "hit=" + hit + " miss=" + miss + " ifNotExists=" + absent + " status=" + values(r);
      }
    });
    step("batch", () -> {
      try (Table table = conn.getTable(shop)) {
        List<Row> actions = new ArrayList<>();
        actions.add(new Put(b("s3")).addColumn(b("info"), b("name"), 1L, b("toy shop")));
        actions.add(new Get(b("s1")).addColumn(b("info"), b("name")));
        actions.add(new Delete(b("s2")));
        actions.add(new Increment(b("s1")).addColumn(b("info"), b("visits"), 100));
        actions.add(new Get(b("nosuchrow")));
        Object[] results = new Object[actions.size()];
        table.batch(actions, results);
        List<String> parts = new ArrayList<>();
        for (Object o : results) {
          Result r = (Result) o;
          parts.add(r.isEmpty() ? "empty" : r.containsColumn(b("info"), b("visits"))
              ? String.valueOf(Bytes.toLong(r.getValue(b("info"), b("visits")))) : values(r));
        }
        return String.join(" ", parts) + "; s2 exists=" + table.exists(new Get(b("s2")))
            + " s3=" + values(table.get(new Get(b("s3"))));
      }
    });
    step("delete-column", () -> {
      try (Table table = conn.getTable(shop)) {
        table.delete(new Delete(b("s1")).addColumns(b("item"), b("i2")));
        return cells(table.get(new Get(b("s1")).addFamily(b("item"))));
      }
    });
    step("delete-family", () -> {
      try (Table table = conn.getTable(shop)) {
        table.delete(new Delete(b("s1")).addFamily(b("item")));
        Result r = table.get(new Get(b("s1")));
        return "families left " + r.getNoVersionMap().keySet().stream().map(SeedArticles::s)
            .collect(Collectors.joining(",")) + " cells=" + r.size();
      }
    });
    step("delete-row", () -> {
      try (Table table = conn.getTable(shop)) {
        table.delete(new Delete(b("s1")));
        return "exists=" + table.exists(new Get(b("s1"))) + " rows left "
            + rowsOf(scanAll(table, new Scan()));
      }
    });
    step("purchase-recent", () -> {
      create("sale", family("cf"));
      try (Table table = conn.getTable(sale)) {
        List<Put> puts = new ArrayList<>();
        String[][] buys = { { "u001", "1", "p0007" }, { "u001", "2", "p0003" }, { "u002", "3", "p0001" },
            { "u001", "4", "p0009" }, { "u002", "5", "p0004" } };
        for (String[] buy : buys) {
          long ts = T0 + Long.parseLong(buy[1]) * 3_600_000L;
          puts.add(new Put(b(buy[0] + reverse(ts) + buy[2])).addColumn(b("cf"), b("product"), ts, b(buy[2])));
        }
        table.put(puts);
        List<Result> rs = scanAll(table, new Scan().withStartRow(b("u001")).withStopRow(b("u002")));
        return rs.size() + " newest first " + rs.stream().map(SeedArticles::values)
            .collect(Collectors.joining(","));
      }
    });
    step("purchase-oldest-first", () -> {
      try (Table table = conn.getTable(sale)) {
        List<Result> rs = scanAll(table,
            new Scan().withStartRow(b("u002")).withStopRow(b("u001")).setReversed(true));
        return rs.size() + " " + rs.stream().map(SeedArticles::values).collect(Collectors.joining(","));
      }
    });
  }

  // ---------------------------------------------------------------- the BufferedMutator load

  private void load() {
    TableName load = t("load");
    step("load-buffered-mutator", () -> {
      create("load", family("cf"));
      try (BufferedMutator m = conn.getBufferedMutator(load)) {
        for (int i = 0; i < rows; i++) {
          m.mutate(new Put(b(String.format("row%08d", i))).addColumn(b("cf"), b("v"), 1L,
              b("value-" + i)));
        }
        m.flush();
      }
      return rows + " rows";
    });
    step("load-scan", () -> {
      try (Table table = conn.getTable(load);
          ResultScanner scanner = table.getScanner(new Scan().setCaching(1000))) {
        long n = 0;
        long bytes = 0;
        String first = null;
        String last = null;
        for (Result r : scanner) {
          if (first == null) {
            first = s(r.getRow());
          }
          last = s(r.getRow());
          bytes += r.getValue(b("cf"), b("v")).length;
          n++;
        }
        return n + " rows first=" + first + " last=" + last + " value bytes=" + bytes;
      }
    });
    step("load-get", () -> {
      try (Table table = conn.getTable(load)) {
        int mid = rows / 2;
        return values(table.get(new Get(b(String.format("row%08d", mid))))) + " exists(row-1)="
            + table.exists(new Get(b("row-1")));
      }
    });
  }
}
