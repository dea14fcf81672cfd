package ferrobase.javaclient;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
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
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.BitComparator;
import org.apache.hadoop.hbase.filter.ByteArrayComparable;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.NullComparator;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;

/**
 * The breadth of the stock HBase Java client beyond the seed articles (issue 48's test list):
 * every error case with the exception class the client sees, a pre-split table scanned across
 * its regions, a table that splits while a scan runs, {@code Table.batch} of mixed actions across
 * regions, checkAndMutate with every {@link CompareOperator}, RowMutations, a BufferedMutator
 * load, and scans with every option and every filter class of the issue.
 *
 * <p>Same transcript style as {@link SeedArticles}: one {@code step: answer} line per answer,
 * then {@code answers: K of N}. An expected failure is an answer ({@code threw Class}); only the
 * exception classes are printed, never messages (HBase's carry server stack traces).
 *
 * <pre>
 * ClientBreadth (--bootstrap HOST:PORT | --zk HOST:PORT) [--prefix P] [--rows N]
 *               [--split-shell COMMAND]
 * </pre>
 * {@code --rows} (default 2000): the BufferedMutator load (its time goes to stderr).
 * {@code --split-shell COMMAND}: split a region by piping {@code split 'TABLE', 'KEY'} to this
 * command (e.g. {@code ferrobase shell -n --connect thrift://HOST:PORT}) instead of
 * {@code Admin.split}; the program waits until the table has the new region either way.
 */
public final class ClientBreadth {
  private static final byte[] CF = Bytes.toBytes("cf");
  private final PrintStream out;
  private final String prefix;
  private final int rows;
  private final String splitShell;
  private Connection conn;
  private Admin admin;
  private int total;
  private int ok;

  private ClientBreadth(PrintStream out, String prefix, int rows, String splitShell) {
    this.out = out;
    this.prefix = prefix;
    this.rows = rows;
    this.splitShell = splitShell;
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = null;
    String zk = null;
    String prefix = "breadth_";
    String splitShell = null;
    int rows = 2000;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--bootstrap" -> bootstrap = args[++i];
        case "--zk" -> zk = args[++i];
        case "--prefix" -> prefix = args[++i];
        case "--rows" -> rows = Integer.parseInt(args[++i]);
        case "--split-shell" -> splitShell = args[++i];
        default -> usage();
      }
    }
    if ((bootstrap == null) == (zk == null)) {
      usage();
    }
    Configuration conf = HBaseConfiguration.create();
    if (bootstrap != null) {
      conf.set("hbase.client.registry.impl",
          "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
      conf.set("hbase.client.bootstrap.servers", bootstrap);
    } else {
      int colon = zk.lastIndexOf(':');
      conf.set("hbase.zookeeper.quorum", zk.substring(0, colon));
      conf.set("hbase.zookeeper.property.clientPort", zk.substring(colon + 1));
      conf.setInt("zookeeper.recovery.retry", 1);
    }
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 20_000);
    conf.setInt("hbase.client.operation.timeout", 20_000);
    conf.setInt("hbase.client.meta.operation.timeout", 20_000);
    conf.setInt("hbase.client.scanner.timeout.period", 20_000);
    conf.setInt("hbase.client.sync.wait.timeout.msec", 60_000);
    conf.setInt("hbase.client.start.log.errors.counter", 0);
    PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    int failed = new ClientBreadth(stdout, prefix, rows, splitShell).run(conf);
    System.exit(failed == 0 ? 0 : 1);
  }

  private static void usage() {
    System.err.println("usage: ClientBreadth (--bootstrap HOST:PORT | --zk HOST:PORT)"
        + " [--prefix P] [--rows N] [--split-shell COMMAND]");
    System.exit(2);
  }

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
    step("drop-old-tables", () -> {
      dropAllWithPrefix();
      return admin.listTableNames(Pattern.compile(Pattern.quote(prefix) + ".*")).length + " left";
    });
    errors();
    preSplit();
    splitWhileScanning();
    batch();
    checkAndMutate();
    rowMutations();
    load();
    scans();
    filters();
    step("drop-all", () -> dropAllWithPrefix() + " tables dropped");
    try {
      admin.close();
      conn.close();
    } catch (Exception e) {
      // closing is not an answer
    }
    out.printf("answers: %d of %d%n", ok, total);
    return total - ok;
  }

  // ---------------------------------------------------------------- steps and helpers

  interface Body {
    String run() throws Exception;
  }

  private void step(String name, Body body) {
    total++;
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
  }

  /** The answer of a call that must fail: the exception class and its causes' classes. */
  private static String threw(Body body) {
    try {
      return "no exception: " + body.run();
    } catch (Throwable e) {
      StringBuilder sb = new StringBuilder("threw ").append(e.getClass().getSimpleName());
      Set<Throwable> seen = new HashSet<>();
      for (Throwable c = e.getCause(); c != null && seen.add(c); c = c.getCause()) {
        sb.append(" <- ").append(c.getClass().getSimpleName());
      }
      return sb.toString();
    }
  }

  private TableName t(String name) {
    return TableName.valueOf(prefix + name);
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

  private void create(String name, byte[][] splits, String... families) throws Exception {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(t(name));
    for (String f : families) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b(f)).setMaxVersions(3).build());
    }
    if (splits == null) {
      admin.createTable(b.build());
    } else {
      admin.createTable(b.build(), splits);
    }
  }

  private static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  private static String s(byte[] b) {
    return b == null ? "null" : Bytes.toStringBinary(b);
  }

  private static String cell(Cell c) {
    return s(CellUtil.cloneRow(c)) + "/" + s(CellUtil.cloneFamily(c)) + ":"
        + s(CellUtil.cloneQualifier(c)) + "=" + s(CellUtil.cloneValue(c));
  }

  private static String cells(Result r) {
    if (r == null) {
      return "null";
    }
    if (r.isEmpty()) {
      return "(empty)";
    }
    return Arrays.stream(r.rawCells()).map(ClientBreadth::cell).collect(Collectors.joining(" "));
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
    return rs.size() + " " + rs.stream().map(r -> s(r.getRow())).collect(Collectors.joining(","));
  }

  /** Results with their cell counts and partial marks: {@code row=N} ({@code +}: partial). */
  private static String shapes(List<Result> rs) {
    return rs.size() + " " + rs.stream()
        .map(r -> s(r.getRow()) + "=" + r.size() + (r.mayHaveMoreCellsInRow() ? "+" : ""))
        .collect(Collectors.joining(","));
  }

  // ---------------------------------------------------------------- errors

  private void errors() {
    TableName missing = t("missing");
    TableName err = t("err");
    step("err-setup", () -> {
      create("err", null, "cf");
      try (Table table = conn.getTable(err)) {
        table.put(new Put(b("text")).addColumn(CF, b("q"), 1L, b("abc")));
        Put big = new Put(b("big"));
        for (int i = 0; i < 20; i++) {
          big.addColumn(CF, b(String.format("q%02d", i)), 1L, new byte[1024]);
        }
        table.put(big);
      }
      return "ok";
    });
    step("err-get-missing-table", () -> threw(() -> {
      try (Table table = conn.getTable(missing)) {
        return cells(table.get(new Get(b("r"))));
      }
    }));
    step("err-put-missing-table", () -> threw(() -> {
      try (Table table = conn.getTable(missing)) {
        table.put(new Put(b("r")).addColumn(CF, b("q"), b("v")));
        return "put";
      }
    }));
    step("err-scan-missing-table", () -> threw(() -> {
      try (Table table = conn.getTable(missing)) {
        return rowsOf(scanAll(table, new Scan()));
      }
    }));
    step("err-admin-missing-table", () -> String.join("; ",
        "getDescriptor " + threw(() -> admin.getDescriptor(missing).toString()),
        "disable " + threw(() -> { admin.disableTable(missing); return "disabled"; }),
        "enable " + threw(() -> { admin.enableTable(missing); return "enabled"; }),
        "delete " + threw(() -> { admin.deleteTable(missing); return "deleted"; }),
        "isEnabled " + threw(() -> "" + admin.isTableEnabled(missing)),
        "exists " + admin.tableExists(missing)));
    step("err-no-such-family", () -> {
      try (Table table = conn.getTable(err)) {
        return String.join("; ",
            "put " + threw(() -> {
              table.put(new Put(b("r")).addColumn(b("nope"), b("q"), b("v")));
              return "put";
            }),
            "get " + threw(() -> cells(table.get(new Get(b("text")).addFamily(b("nope"))))),
            "scan " + threw(() -> rowsOf(scanAll(table, new Scan().addFamily(b("nope"))))),
            "delete " + threw(() -> {
              table.delete(new Delete(b("text")).addFamily(b("nope")));
              return "deleted";
            }));
      }
    });
    step("err-table-exists", () -> threw(() -> {
      create("err", null, "cf");
      return "created";
    }));
    step("err-enable-enabled", () -> threw(() -> {
      admin.enableTable(err);
      return "enabled";
    }));
    step("err-delete-enabled", () -> threw(() -> {
      admin.deleteTable(err);
      return "deleted";
    }));
    step("err-row-too-big", () -> {
      try (Table table = conn.getTable(err)) {
        return "get " + threw(() -> cells(table.get(new Get(b("big")))).length() + " chars")
            + "; scan " + threw(() -> rowsOf(scanAll(table, new Scan().withStartRow(b("big"))
                .withStopRow(b("big"), true))))
            + "; one column " + table.get(new Get(b("big")).addColumn(CF, b("q07"))).size();
      }
    });
    step("err-unknown-filter-class", () -> {
      try (Table table = conn.getTable(err)) {
        return threw(() -> rowsOf(scanAll(table, new Scan().setFilter(new StrangeFilter()))));
      }
    });
    step("err-unknown-comparator-class", () -> {
      try (Table table = conn.getTable(err)) {
        return threw(() -> rowsOf(scanAll(table,
            new Scan().setFilter(new RowFilter(CompareOperator.EQUAL, new StrangeComparator())))));
      }
    });
    step("err-increment-not-a-long", () -> {
      try (Table table = conn.getTable(err)) {
        return threw(() -> cells(table.increment(new Increment(b("text")).addColumn(CF, b("q"), 1))))
            + "; value " + s(table.get(new Get(b("text"))).getValue(CF, b("q")));
      }
    });
    step("err-disabled-table", () -> {
      admin.disableTable(err);
      try (Table table = conn.getTable(err)) {
        return String.join("; ",
            "disable again " + threw(() -> { admin.disableTable(err); return "disabled"; }),
            "get " + threw(() -> cells(table.get(new Get(b("text"))))),
            "put " + threw(() -> {
              table.put(new Put(b("text")).addColumn(CF, b("q"), b("v")));
              return "put";
            }),
            "scan " + threw(() -> rowsOf(scanAll(table, new Scan()))),
            "isEnabled " + admin.isTableEnabled(err) + " isDisabled " + admin.isTableDisabled(err));
      }
    });
  }

  /** A filter class the server does not have. */
  public static final class StrangeFilter extends FilterBase {
    @Override
    public byte[] toByteArray() {
      return new byte[] { 1, 2, 3 };
    }

    public static StrangeFilter parseFrom(byte[] bytes) throws DeserializationException {
      return new StrangeFilter();
    }
  }

  /** A comparator class the server does not have. */
  public static final class StrangeComparator extends ByteArrayComparable {
    public StrangeComparator() {
      super(new byte[] { 'x' });
    }

    @Override
    public byte[] toByteArray() {
      return new byte[] { 9, 9, 9 };
    }

    @Override
    public int compareTo(byte[] value, int offset, int length) {
      return 0;
    }
  }

  // ---------------------------------------------------------------- a pre-split table

  private static final byte[][] SPLITS = { Bytes.toBytes("g"), Bytes.toBytes("n"), Bytes.toBytes("t") };

  private void preSplit() {
    TableName tn = t("presplit");
    step("presplit-create", () -> {
      create("presplit", SPLITS, "cf");
      try (RegionLocator loc = conn.getRegionLocator(tn)) {
        return admin.getRegions(tn).size() + " regions, start keys "
            + Arrays.stream(loc.getStartKeys()).map(ClientBreadth::s).collect(Collectors.joining(","));
      }
    });
    step("presplit-load", () -> {
      try (Table table = conn.getTable(tn)) {
        List<Put> puts = new ArrayList<>();
        for (char c = 'a'; c <= 'z'; c++) {
          for (int i = 0; i < 2; i++) {
            puts.add(new Put(b(c + "" + i)).addColumn(CF, b("v"), 1L, b(c + "-" + i)));
          }
        }
        table.put(puts);
        return puts.size() + " rows";
      }
    });
    Object[][] scans = {
      { "all", new Scan() },
      { "all-reversed", new Scan().setReversed(true) },
      { "inside-one-region", new Scan().withStartRow(b("h0")).withStopRow(b("k1")) },
      { "across-regions", new Scan().withStartRow(b("f1")).withStopRow(b("u0")) },
      { "across-inclusive", new Scan().withStartRow(b("g0"), false).withStopRow(b("t0"), true) },
      { "reversed-inside", new Scan().setReversed(true).withStartRow(b("m1")).withStopRow(b("h0")) },
      { "reversed-across", new Scan().setReversed(true).withStartRow(b("u0")).withStopRow(b("f1")) },
      { "reversed-from-split-key", new Scan().setReversed(true).withStartRow(b("n")).withStopRow(b("e")) },
      { "limit-across", new Scan().withStartRow(b("e0")).setLimit(9) },
      { "reversed-limit-across", new Scan().setReversed(true).withStartRow(b("p0")).setLimit(7) },
      { "caching-2", new Scan().setCaching(2).withStartRow(b("f0")).withStopRow(b("i0")) },
      { "caching-3-limit-10", new Scan().setCaching(3).setLimit(10).withStartRow(b("l0")) },
      { "stop-at-split-key", new Scan().withStartRow(b("m0")).withStopRow(b("n")) },
      { "start-at-split-key", new Scan().withStartRow(b("t")).withStopRow(b("u")) },
    };
    for (Object[] sc : scans) {
      step("presplit-scan-" + sc[0], () -> {
        try (Table table = conn.getTable(tn)) {
          return rowsOf(scanAll(table, (Scan) sc[1]));
        }
      });
    }
  }

  // ---------------------------------------------------------------- a split during a scan

  private void splitWhileScanning() {
    TableName tn = t("splitscan");
    step("splitscan-setup", () -> {
      // HBase splits only tables whose split policy allows it (the oracle's default forbids).
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF))
          .setRegionSplitPolicyClassName(
              "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy")
          .build());
      try (Table table = conn.getTable(tn)) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          puts.add(new Put(b(String.format("%03d", i))).addColumn(CF, b("v"), 1L, b("v" + i)));
        }
        table.put(puts);
        return puts.size() + " rows in " + admin.getRegions(tn).size() + " region";
      }
    });
    step("splitscan-scan", () -> {
      List<String> seen = new ArrayList<>();
      try (Table table = conn.getTable(tn);
          ResultScanner scanner = table.getScanner(new Scan().setCaching(10))) {
        for (int i = 0; i < 50; i++) {
          seen.add(s(scanner.next().getRow()));
        }
        split(tn, "150");
        for (Result r : scanner) {
          seen.add(s(r.getRow()));
        }
      }
      Set<String> distinct = new HashSet<>(seen);
      List<String> sorted = new ArrayList<>(seen);
      sorted.sort(null);
      return seen.size() + " rows, " + distinct.size() + " distinct, in order " + sorted.equals(seen)
          + ", regions now " + admin.getRegions(tn).size();
    });
    step("splitscan-after", () -> {
      try (Table table = conn.getTable(tn)) {
        // The client's cached location is the parent region: it must find the daughters.
        String got = cells(table.get(new Get(b("180"))));
        table.put(new Put(b("199")).addColumn(CF, b("w"), 1L, b("after")));
        List<Result> rs = scanAll(table, new Scan().withStartRow(b("148")).withStopRow(b("152")));
        List<Result> rev = scanAll(table, new Scan().setReversed(true).withStartRow(b("152"))
            .withStopRow(b("148")));
        try (RegionLocator loc = conn.getRegionLocator(tn)) {
          loc.clearRegionLocationCache();
          return got + "; " + rowsOf(rs) + "; reversed " + rowsOf(rev) + "; start keys "
              + Arrays.stream(loc.getStartKeys()).map(ClientBreadth::s)
                  .collect(Collectors.joining(","))
              + "; count " + scanAll(table, new Scan()).size();
        }
      }
    });
  }

  /** Splits tn at key and waits until the table has one more region. */
  private void split(TableName tn, String key) throws Exception {
    int before = admin.getRegions(tn).size();
    if (splitShell == null) {
      admin.split(tn, b(key));
    } else {
      Process p = new ProcessBuilder("bash", "-c", splitShell).redirectErrorStream(true).start();
      try (OutputStream in = p.getOutputStream()) {
        in.write(("split '" + tn.getNameAsString() + "', '" + key + "'\n")
            .getBytes(StandardCharsets.UTF_8));
      }
      String shellOut = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IOException("split shell failed: " + shellOut);
      }
    }
    long deadline = System.currentTimeMillis() + 30_000;
    while (admin.getRegions(tn).size() <= before) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the split of " + tn + " did not happen in 30 s");
      }
      Thread.sleep(100);
    }
  }

  // ---------------------------------------------------------------- batch

  private void batch() {
    TableName tn = t("presplit");
    step("batch-mixed", () -> {
      try (Table table = conn.getTable(tn)) {
        List<Row> actions = new ArrayList<>();
        actions.add(new Put(b("a5")).addColumn(CF, b("v"), 1L, b("new-a5")));
        actions.add(new Get(b("h1")));
        actions.add(new Delete(b("o0")));
        actions.add(new Increment(b("u9")).addColumn(CF, b("n"), 5));
        actions.add(new Append(b("z1")).addColumn(CF, b("v"), b("+z")));
        actions.add(new Get(b("o0")));
        actions.add(new Put(b("m5")).addColumn(b("nope"), b("v"), b("x")));
        actions.add(new Get(b("g0")).addColumn(CF, b("v")));
        Object[] results = new Object[actions.size()];
        String outcome = threw(() -> {
          table.batch(actions, results);
          return "ok";
        });
        List<String> parts = new ArrayList<>();
        for (Object r : results) {
          parts.add(r instanceof Result res ? cells(res)
              : r == null ? "null" : r.getClass().getSimpleName());
        }
        return outcome + "; " + String.join(" | ", parts) + "; after: a5 "
            + cells(table.get(new Get(b("a5")))) + " o0 exists " + table.exists(new Get(b("o0")));
      }
    });
    step("batch-gets-across-regions", () -> {
      try (Table table = conn.getTable(tn)) {
        List<Get> gets = new ArrayList<>();
        for (String r : new String[] { "z0", "a0", "m1", "nope", "t0", "g1" }) {
          gets.add(new Get(b(r)));
        }
        return Arrays.stream(table.get(gets)).map(ClientBreadth::cells)
            .collect(Collectors.joining(" | "))
            + "; exists " + Arrays.toString(table.exists(gets));
      }
    });
  }

  // ---------------------------------------------------------------- checkAndMutate

  private void checkAndMutate() {
    TableName tn = t("cam");
    step("cam-setup", () -> {
      create("cam", null, "cf");
      try (Table table = conn.getTable(tn)) {
        table.put(new Put(b("r")).addColumn(CF, b("q"), 1L, b("5")));
      }
      return "ok";
    });
    step("cam-operators", () -> {
      List<String> parts = new ArrayList<>();
      try (Table table = conn.getTable(tn)) {
        for (CompareOperator op : CompareOperator.values()) {
          StringBuilder sb = new StringBuilder(op.name()).append("(");
          for (String v : new String[] { "3", "5", "7" }) {
            if (op == CompareOperator.NO_OP && !v.equals("3")) {
              continue;
            }
            String answer = threw(() -> "" + table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
                .ifMatches(CF, b("q"), op, b(v))
                .build(new Put(b("r")).addColumn(CF, b("hit-" + op.name() + "-" + v), 1L, b("y"))))
                .isSuccess());
            sb.append(v).append("=").append(answer.startsWith("no exception: ")
                ? answer.substring(14) : answer).append(" ");
          }
          parts.add(sb.toString().trim() + ")");
        }
        return String.join(" ", parts) + "; cells " + table.get(new Get(b("r"))).size();
      }
    });
    step("cam-if-not-exists", () -> {
      try (Table table = conn.getTable(tn)) {
        boolean first = table.checkAndMutate(CheckAndMutate.newBuilder(b("r")).ifNotExists(CF, b("new"))
            .build(new Put(b("r")).addColumn(CF, b("new"), 1L, b("1")))).isSuccess();
        boolean second = table.checkAndMutate(CheckAndMutate.newBuilder(b("r")).ifNotExists(CF, b("new"))
            .build(new Put(b("r")).addColumn(CF, b("new"), 1L, b("2")))).isSuccess();
        boolean rowMissing = table.checkAndMutate(CheckAndMutate.newBuilder(b("other"))
            .ifNotExists(CF, b("q")).build(new Put(b("other")).addColumn(CF, b("q"), 1L, b("o"))))
            .isSuccess();
        return first + " " + second + " " + rowMissing + " new=" + s(table.get(new Get(b("r")))
            .getValue(CF, b("new")));
      }
    });
    step("cam-delete", () -> {
      try (Table table = conn.getTable(tn)) {
        boolean del = table.checkAndMutate(CheckAndMutate.newBuilder(b("other"))
            .ifEquals(CF, b("q"), b("o")).build(new Delete(b("other")))).isSuccess();
        return del + " exists(other)=" + table.exists(new Get(b("other")));
      }
    });
    step("cam-filter", () -> {
      try (Table table = conn.getTable(tn)) {
        boolean filtered = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifMatches(new SingleColumnValueFilter(CF, b("q"), CompareOperator.EQUAL, b("5")))
            .build(new Put(b("r")).addColumn(CF, b("f"), 1L, b("by-filter")))).isSuccess();
        boolean missed = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifMatches(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("nine"))))
            .build(new Put(b("r")).addColumn(CF, b("g"), 1L, b("no")))).isSuccess();
        return filtered + "," + missed + " " + cells(table.get(new Get(b("r")).addColumn(CF, b("f"))
            .addColumn(CF, b("g"))));
      }
    });
    step("cam-time-range", () -> {
      try (Table table = conn.getTable(tn)) {
        table.put(new Put(b("r")).addColumn(CF, b("tr"), 10L, b("old"))
            .addColumn(CF, b("tr"), 20L, b("new")));
        boolean inRange = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifEquals(CF, b("tr"), b("old")).timeRange(TimeRange.between(0L, 15L))
            .build(new Put(b("r")).addColumn(CF, b("t1"), 1L, b("a")))).isSuccess();
        boolean newest = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifEquals(CF, b("tr"), b("old"))
            .build(new Put(b("r")).addColumn(CF, b("t2"), 1L, b("b")))).isSuccess();
        boolean filterInRange = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifMatches(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("old"))))
            .timeRange(TimeRange.between(0L, 15L))
            .build(new Put(b("r")).addColumn(CF, b("t3"), 1L, b("c")))).isSuccess();
        boolean filterAbove = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifMatches(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("new"))))
            .timeRange(TimeRange.between(0L, 15L))
            .build(new Put(b("r")).addColumn(CF, b("t4"), 1L, b("d")))).isSuccess();
        boolean absentInRange = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifNotExists(CF, b("tr")).timeRange(TimeRange.between(30L, 40L))
            .build(new Delete(b("r")).addColumns(CF, b("t1")))).isSuccess();
        return inRange + "," + newest + "," + filterInRange + "," + filterAbove + ","
            + absentInRange + " " + cells(table.get(new Get(b("r")).addColumn(CF, b("t1"))
            .addColumn(CF, b("t2")).addColumn(CF, b("t3")).addColumn(CF, b("t4"))));
      }
    });
    step("cam-filter-list", () -> {
      try (Table table = conn.getTable(tn)) {
        FilterList both = new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new SingleColumnValueFilter(CF, b("q"), CompareOperator.EQUAL, b("5")),
            new SingleColumnValueFilter(CF, b("tr"), CompareOperator.EQUAL, b("new")));
        boolean yes = table.checkAndMutate(CheckAndMutate.newBuilder(b("r")).ifMatches(both)
            .build(RowMutations.of(List.of(new Put(b("r")).addColumn(CF, b("fl"), 1L, b("x")),
                new Delete(b("r")).addColumns(CF, b("t3")))))).isSuccess();
        boolean other = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifMatches(new PrefixFilter(b("nope")))
            .build(new Put(b("r")).addColumn(CF, b("fl2"), 1L, b("y")))).isSuccess();
        return yes + "," + other + " " + cells(table.get(new Get(b("r")).addColumn(CF, b("fl"))
            .addColumn(CF, b("fl2")).addColumn(CF, b("t3"))));
      }
    });
    step("cam-increment", () -> {
      try (Table table = conn.getTable(tn)) {
        CheckAndMutateResult inc = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifEquals(CF, b("q"), b("5")).build(new Increment(b("r")).addColumn(CF, b("cnt"), 3)));
        return inc.isSuccess() + " " + cells(inc.getResult());
      }
    });
    step("cam-row-mutations", () -> {
      try (Table table = conn.getTable(tn)) {
        table.put(new Put(b("r")).addColumn(CF, b("f2"), 1L, b("gone soon")));
        CheckAndMutateResult rm = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifEquals(CF, b("q"), b("5")).build(RowMutations.of(List.of(
                new Put(b("r")).addColumn(CF, b("rm"), 1L, b("x")),
                new Delete(b("r")).addColumns(CF, b("f2"))))));
        CheckAndMutateResult miss = table.checkAndMutate(CheckAndMutate.newBuilder(b("r"))
            .ifEquals(CF, b("q"), b("6")).build(RowMutations.of(List.of(
                new Put(b("r")).addColumn(CF, b("rm2"), 1L, b("x"))))));
        return rm.isSuccess() + " " + miss.isSuccess() + " " + cells(table.get(new Get(b("r"))
            .addColumn(CF, b("f2")).addColumn(CF, b("rm")).addColumn(CF, b("rm2"))));
      }
    });
  }

  // ---------------------------------------------------------------- RowMutations

  private void rowMutations() {
    TableName tn = t("cam");
    step("mutate-row", () -> {
      try (Table table = conn.getTable(tn)) {
        table.put(new Put(b("mr")).addColumn(CF, b("a"), 1L, b("1")).addColumn(CF, b("b"), 1L, b("2")));
        table.mutateRow(RowMutations.of(List.of(
            new Put(b("mr")).addColumn(CF, b("c"), 1L, b("3")),
            new Delete(b("mr")).addColumns(CF, b("a")))));
        String bad = threw(() -> {
          table.mutateRow(RowMutations.of(List.of(
              new Put(b("mr")).addColumn(b("nope"), b("c"), 1L, b("3")),
              new Delete(b("mr")).addColumns(CF, b("b")))));
          return "mutated";
        });
        return cells(table.get(new Get(b("mr")))) + "; bad family " + bad + "; after "
            + cells(table.get(new Get(b("mr"))));
      }
    });
  }

  // ---------------------------------------------------------------- BufferedMutator

  private void load() {
    TableName tn = t("load");
    step("load-buffered-mutator", () -> {
      create("load", null, "cf");
      long t0 = System.nanoTime();
      try (BufferedMutator m = conn.getBufferedMutator(tn)) {
        for (int i = 0; i < rows; i++) {
          m.mutate(new Put(b(String.format("row%08d", i))).addColumn(CF, b("v"), 1L,
              b("value-" + i)));
        }
        m.flush();
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      System.err.printf("load-buffered-mutator: %d rows in %d ms (%.0f rows/s)%n", rows, ms,
          rows * 1000.0 / Math.max(ms, 1));
      try (Table table = conn.getTable(tn)) {
        long n = 0;
        try (ResultScanner sc = table.getScanner(new Scan().setCaching(5000)
            .setFilter(new FirstKeyOnlyFilter()))) {
          for (Result r : sc) {
            n++;
          }
        }
        return rows + " rows written, " + n + " scanned";
      }
    });
  }

  // ---------------------------------------------------------------- scan options

  private void scans() {
    TableName tn = t("wide");
    step("wide-setup", () -> {
      create("wide", null, "cf", "cg");
      try (Table table = conn.getTable(tn)) {
        List<Put> puts = new ArrayList<>();
        for (int r = 0; r < 12; r++) {
          Put p = new Put(b(String.format("w%02d", r)));
          for (int c = 0; c < 7; c++) {
            p.addColumn(CF, b("c" + c), 1L, b("v" + r + "." + c));
          }
          p.addColumn(b("cg"), b("c"), 1L, b(r % 3 == 0 ? "red" : "blue"));
          p.addColumn(b("cg"), b("x"), 1L, b("v1-" + r));
          p.addColumn(b("cg"), b("n"), 1L, Bytes.toBytes((long) r));
          p.addColumn(b("cg"), b("x"), 2L, b("v2-" + r));
          puts.add(p);
        }
        table.put(puts);
        return puts.size() + " rows";
      }
    });
    Object[][] scans = {
      { "caching-1", new Scan().setCaching(1).withStopRow(b("w03")) },
      { "caching-5", new Scan().setCaching(5) },
      { "batch-3", new Scan().setBatch(3).withStopRow(b("w02")) },
      { "batch-3-caching-2", new Scan().setBatch(3).setCaching(2).withStopRow(b("w02")) },
      { "limit-4", new Scan().setLimit(4) },
      { "limit-4-caching-3", new Scan().setLimit(4).setCaching(3) },
      { "reversed", new Scan().setReversed(true) },
      { "reversed-limit-3", new Scan().setReversed(true).setLimit(3).withStartRow(b("w08")) },
      { "reversed-batch-4", new Scan().setReversed(true).setBatch(4).withStartRow(b("w01")) },
      { "max-result-size-1", new Scan().setMaxResultSize(1).withStopRow(b("w03")) },
      { "partial-1", new Scan().setAllowPartialResults(true).setMaxResultSize(1).withStopRow(b("w02")) },
      { "partial-batch", new Scan().setAllowPartialResults(true).setBatch(5).withStopRow(b("w02")) },
      // A limit counts rows, not batches: a row's last batch may say more cells follow (an older
      // version of cg:x is still in the store) and the next batch is another row's.
      { "batch-5-limit-2", new Scan().setBatch(5).setLimit(2) },
      { "batch-10-limit-1", new Scan().setBatch(10).setLimit(1) },
      { "batch-5-limit-3-caching-2", new Scan().setBatch(5).setLimit(3).setCaching(2) },
      { "reversed-batch-5-limit-2", new Scan().setReversed(true).setBatch(5).setLimit(2) },
      // The row's last batch ends just before cells the filter drops: the row is complete when
      // the next batch is another row's.
      { "batch-3-filtered-tail-limit-2", new Scan().setBatch(3).setLimit(2)
          .setFilter(new QualifierFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("x")))) },
      { "partial-1-limit-2",
        new Scan().setAllowPartialResults(true).setMaxResultSize(1).setLimit(2) },
      { "versions-2", new Scan().readVersions(2).addColumn(b("cg"), b("x")).withStopRow(b("w02")) },
      { "time-range", timeRange(new Scan().withStopRow(b("w03")), 2L, 3L) },
      { "family", new Scan().addFamily(b("cg")).withStopRow(b("w02")) },
      { "columns", new Scan().addColumn(CF, b("c6")).addColumn(b("cg"), b("x")).withStopRow(b("w02")) },
    };
    for (Object[] sc : scans) {
      step("scan-" + sc[0], () -> {
        try (Table table = conn.getTable(tn)) {
          return shapes(scanAll(table, (Scan) sc[1]));
        }
      });
    }
    step("scan-next-n", () -> {
      try (Table table = conn.getTable(tn);
          ResultScanner scanner = table.getScanner(new Scan().setCaching(4))) {
        Result[] a = scanner.next(3);
        Result[] b2 = scanner.next(6);
        Result[] c = scanner.next(10);
        Result[] d = scanner.next(1);
        return a.length + "," + b2.length + "," + c.length + "," + d.length + " first "
            + s(a[0].getRow()) + " last " + s(c[c.length - 1].getRow());
      }
    });
  }

  private static Scan timeRange(Scan scan, long min, long max) {
    try {
      return scan.setTimeRange(min, max);
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  // ---------------------------------------------------------------- filters

  private void filters() {
    TableName tn = t("wide");
    byte[] cg = b("cg");
    List<Pair<String, Supplier<Filter>>> fs = new ArrayList<>();
    fs.add(new Pair<>("filterlist-nested", () -> new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new PrefixFilter(b("w0")),
        new FilterList(FilterList.Operator.MUST_PASS_ONE,
            new SingleColumnValueFilter(cg, b("c"), CompareOperator.EQUAL, b("red")),
            new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("w05")))),
        new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new QualifierFilter(CompareOperator.LESS, new BinaryComparator(b("c2")))))));
    fs.add(new Pair<>("scvf-binary", () -> new SingleColumnValueFilter(cg, b("c"),
        CompareOperator.EQUAL, new BinaryComparator(b("red")))));
    fs.add(new Pair<>("scvf-binary-prefix", () -> new SingleColumnValueFilter(CF, b("c1"),
        CompareOperator.EQUAL, new BinaryPrefixComparator(b("v1")))));
    fs.add(new Pair<>("scvf-substring", () -> new SingleColumnValueFilter(CF, b("c0"),
        CompareOperator.EQUAL, new SubstringComparator("1."))));
    fs.add(new Pair<>("scvf-regex", () -> new SingleColumnValueFilter(CF, b("c0"),
        CompareOperator.EQUAL, new RegexStringComparator("^v[0-3]\\.0$"))));
    fs.add(new Pair<>("scvf-long", () -> new SingleColumnValueFilter(cg, b("n"),
        CompareOperator.GREATER_OR_EQUAL, new LongComparator(9))));
    fs.add(new Pair<>("scvf-null", () -> new SingleColumnValueFilter(cg, b("missing"),
        CompareOperator.EQUAL, new NullComparator())));
    fs.add(new Pair<>("scvf-bit-and", () -> new SingleColumnValueFilter(cg, b("n"),
        CompareOperator.NOT_EQUAL, new BitComparator(Bytes.toBytes(1L), BitComparator.BitwiseOp.AND))));
    fs.add(new Pair<>("scvf-not-equal-filter-if-missing", () -> {
      SingleColumnValueFilter f = new SingleColumnValueFilter(cg, b("c"), CompareOperator.NOT_EQUAL,
          b("blue"));
      f.setFilterIfMissing(true);
      f.setLatestVersionOnly(false);
      return f;
    }));
    fs.add(new Pair<>("scvf-missing-column-kept", () -> new SingleColumnValueFilter(cg, b("nope"),
        CompareOperator.EQUAL, b("x"))));
    fs.add(new Pair<>("scvf-exclude", () -> new SingleColumnValueExcludeFilter(cg, b("c"),
        CompareOperator.EQUAL, b("red"))));
    fs.add(new Pair<>("page-5", () -> new PageFilter(5)));
    fs.add(new Pair<>("column-count-get-3", () -> new ColumnCountGetFilter(3)));
    fs.add(new Pair<>("fuzzy-row", () -> new FuzzyRowFilter(List.of(
        new Pair<>(b("w?3"), new byte[] { 0, 1, 0 }), new Pair<>(b("w1?"), new byte[] { 0, 0, 1 })))));
    fs.add(new Pair<>("multi-row-range", () -> new MultiRowRangeFilter(new ArrayList<>(List.of(
        new MultiRowRangeFilter.RowRange(b("w01"), true, b("w03"), false),
        new MultiRowRangeFilter.RowRange(b("w07"), false, b("w09"), true),
        new MultiRowRangeFilter.RowRange(b("w02"), true, b("w04"), true))))));
    fs.add(new Pair<>("column-pagination-2-1", () -> new ColumnPaginationFilter(2, 1)));
    fs.add(new Pair<>("column-pagination-column-offset", () -> new ColumnPaginationFilter(2, b("c4"))));
    fs.add(new Pair<>("skip", () -> new SkipFilter(new ValueFilter(CompareOperator.NOT_EQUAL,
        new SubstringComparator("blue")))));
    fs.add(new Pair<>("while-match", () -> new WhileMatchFilter(new RowFilter(CompareOperator.LESS,
        new BinaryComparator(b("w04"))))));
    fs.add(new Pair<>("row-regex", () -> new RowFilter(CompareOperator.EQUAL,
        new RegexStringComparator("w(0[2468]|1[01])"))));
    fs.add(new Pair<>("row-regex-not-equal", () -> new RowFilter(CompareOperator.NOT_EQUAL,
        new RegexStringComparator("w0.*"))));
    fs.add(new Pair<>("family", () -> new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(cg))));
    fs.add(new Pair<>("qualifier-greater", () -> new QualifierFilter(CompareOperator.GREATER,
        new BinaryComparator(b("c4")))));
    fs.add(new Pair<>("value-substring", () -> new ValueFilter(CompareOperator.EQUAL,
        new SubstringComparator("11."))));
    fs.add(new Pair<>("column-prefix", () -> new ColumnPrefixFilter(b("c3"))));
    fs.add(new Pair<>("multiple-column-prefix", () -> new MultipleColumnPrefixFilter(
        new byte[][] { b("c1"), b("x"), b("c5") })));
    fs.add(new Pair<>("column-range", () -> new ColumnRangeFilter(b("c2"), true, b("c4"), false)));
    fs.add(new Pair<>("key-only", () -> new KeyOnlyFilter()));
    fs.add(new Pair<>("key-only-lengths", () -> new KeyOnlyFilter(true)));
    fs.add(new Pair<>("first-key-only", () -> new FirstKeyOnlyFilter()));
    fs.add(new Pair<>("inclusive-stop", () -> new InclusiveStopFilter(b("w03"))));
    fs.add(new Pair<>("timestamps", () -> new TimestampsFilter(List.of(2L))));
    fs.add(new Pair<>("dependent-column", () -> new DependentColumnFilter(cg, b("c"), true,
        CompareOperator.EQUAL, new BinaryComparator(b("red")))));
    fs.add(new Pair<>("column-value", () -> new ColumnValueFilter(cg, b("c"), CompareOperator.EQUAL,
        b("red"))));
    fs.add(new Pair<>("prefix", () -> new PrefixFilter(b("w1"))));
    for (Pair<String, Supplier<Filter>> f : fs) {
      step("filter-" + f.getFirst(), () -> {
        try (Table table = conn.getTable(tn)) {
          List<Result> rs = scanAll(table, new Scan().setFilter(f.getSecond().get()));
          String first = rs.isEmpty() ? "" : " first " + cells(rs.get(0));
          return shapes(rs) + first;
        }
      });
    }
    step("filter-on-get", () -> {
      try (Table table = conn.getTable(tn)) {
        return cells(table.get(new Get(b("w03")).setFilter(new ColumnPaginationFilter(2, 3))))
            + " | " + cells(table.get(new Get(b("w03")).setFilter(new ColumnCountGetFilter(2))))
            + " | " + cells(table.get(new Get(b("w04")).setFilter(new SingleColumnValueFilter(
                cg, b("c"), CompareOperator.EQUAL, b("red")))));
      }
    });
  }
}
