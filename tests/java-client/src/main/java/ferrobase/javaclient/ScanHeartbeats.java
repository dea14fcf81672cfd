package ferrobase.javaclient;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Scan heartbeats and read points as the stock client meets them (issue 48). Prints one
 * {@code step: answer} line per answer, the same on ferrobase and Apache HBase 2.6.1
 * (scripts/native-scan-test.sh compares them).
 *
 * <p>Heartbeats: a pre-split table of {@code --rows} rows (default 300,000), scanned with filters
 * that keep one row in a hundred thousand (one a region), through a connection whose scan calls time out after
 * {@code --timeout} ms (default 200: hbase.rpc.read.timeout and hbase.client.scanner.timeout.period),
 * so a region server must answer with heartbeats (half the call's time) long before a region is
 * read; the scans ask for cursors, so the client shows each heartbeat that returned no row as a
 * cursor result. Each scan's rows must equal the same scan's through a connection with HBase's
 * default timeouts. Forward, reversed, a batch of 3 cells (kept rows are 8 cells wide), and a
 * SingleColumnValueFilter (which decides whole rows).
 *
 * <p>Read points: a table split at "m", scanned with caching 2; after the first rows are read,
 * one write lands ahead of the scanner in its region and one in the next region. HBase's scanner
 * reads its region as of its open (its read point), and the client opens the next region with a
 * new one (ClientScanner.moveToNextRegion resets Scan.mvccReadPoint).
 *
 * <pre>ScanHeartbeats --bootstrap HOST:PORT [--rows N] [--timeout MS] [--prefix P]</pre>
 */
public final class ScanHeartbeats {
  private static final byte[] CF = Bytes.toBytes("cf");

  public static void main(String[] args) throws Exception {
    String bootstrap = null;
    int rows = 300_000;
    int timeout = 200;
    String prefix = "hbt_";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--bootstrap" -> bootstrap = args[i + 1];
        case "--rows" -> rows = Integer.parseInt(args[i + 1]);
        case "--timeout" -> timeout = Integer.parseInt(args[i + 1]);
        case "--prefix" -> prefix = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrap);
    conf.setInt("hbase.client.retries.number", 5);
    conf.setInt("hbase.client.pause", 100);
    Configuration fast = new Configuration(conf);
    fast.setInt("hbase.rpc.read.timeout", timeout);
    fast.setInt("hbase.client.scanner.timeout.period", timeout);
    TableName hb = TableName.valueOf(prefix + "heartbeats");
    TableName mv = TableName.valueOf(prefix + "readpoint");
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Connection quick = ConnectionFactory.createConnection(fast);
        Admin admin = conn.getAdmin()) {
      for (TableName t : new TableName[] {hb, mv}) {
        if (admin.tableExists(t)) {
          admin.disableTable(t);
          admin.deleteTable(t);
        }
      }
      heartbeats(conn, quick, admin, hb, rows);
      readPoints(conn, admin, mv);
      for (TableName t : new TableName[] {hb, mv}) {
        admin.disableTable(t);
        admin.deleteTable(t);
      }
    }
  }

  private static String row(int i) {
    return String.format("r%07d", i);
  }

  private static void heartbeats(Connection conn, Connection quick, Admin admin, TableName tn,
      int rows) throws Exception {
    admin.createTable(
        TableDescriptorBuilder.newBuilder(tn).setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF))
            .build(),
        new byte[][] {Bytes.toBytes(row(rows / 3)), Bytes.toBytes(row(2 * rows / 3))});
    long t0 = System.nanoTime();
    try (BufferedMutator m = conn.getBufferedMutator(tn)) {
      for (int i = 0; i < rows; i++) {
        boolean kept = i % 100_000 == 77_777;
        Put p = new Put(Bytes.toBytes(row(i)));
        p.addColumn(CF, Bytes.toBytes("a"), Bytes.toBytes(kept ? "y" : "x"));
        if (kept) {
          for (int q = 0; q < 7; q++) {
            p.addColumn(CF, Bytes.toBytes("q" + q), Bytes.toBytes(i + "-" + q));
          }
        }
        m.mutate(p);
      }
    }
    System.err.printf("loaded %d rows in %d ms%n", rows, (System.nanoTime() - t0) / 1_000_000);
    System.out.println("heartbeat table: " + rows + " rows in "
        + admin.getRegions(tn).size() + " regions");
    for (String name : new String[] {"forward", "reversed", "batch 3", "batch 3 reversed",
        "whole-row filter", "whole-row filter reversed"}) {
      Scan full = scan(name);
      Scan cursors = scan(name).setNeedCursorResult(true);
      List<String> want = read(conn, tn, full, null);
      int[] cursorCount = new int[1];
      long s0 = System.nanoTime();
      List<String> got = read(quick, tn, cursors, cursorCount);
      System.err.printf("%s: %d results, %d cursor results, %d ms%n", name, got.size(),
          cursorCount[0], (System.nanoTime() - s0) / 1_000_000);
      System.out.println(name + ": " + got.size() + " results, first " + first(got)
          + ", equal to the full answer: " + (got.equals(want) ? "yes" : "NO " + got + " vs " + want)
          + ", cursors seen: " + (cursorCount[0] > 0 ? "yes" : "no"));
    }
  }

  private static Scan scan(String name) {
    Scan s = new Scan();
    if (name.startsWith("whole-row filter")) {
      SingleColumnValueFilter f = new SingleColumnValueFilter(CF, Bytes.toBytes("a"),
          CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes("y")));
      f.setFilterIfMissing(true);
      s.setFilter(f);
    } else {
      s.setFilter(new RowFilter(CompareOperator.EQUAL, new RegexStringComparator(".*77777$")));
    }
    if (name.startsWith("batch")) {
      s.setBatch(3);
    }
    if (name.endsWith("reversed")) {
      s.setReversed(true);
    }
    return s;
  }

  /** Each result as "row:cells"; cursor results counted, not listed. */
  private static List<String> read(Connection conn, TableName tn, Scan scan, int[] cursors)
      throws Exception {
    List<String> out = new ArrayList<>();
    try (Table t = conn.getTable(tn); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        if (r.isCursor()) {
          if (cursors != null) {
            cursors[0]++;
          }
          continue;
        }
        StringBuilder b = new StringBuilder(Bytes.toString(r.getRow())).append(':');
        for (Cell c : r.rawCells()) {
          b.append(Bytes.toString(CellUtil.cloneQualifier(c))).append('=')
              .append(Bytes.toString(CellUtil.cloneValue(c))).append(',');
        }
        out.add(b.toString());
      }
    }
    return out;
  }

  private static String first(List<String> results) {
    return results.isEmpty() ? "none" : results.get(0);
  }

  private static void readPoints(Connection conn, Admin admin, TableName tn) throws Exception {
    admin.createTable(
        TableDescriptorBuilder.newBuilder(tn).setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF))
            .build(),
        new byte[][] {Bytes.toBytes("m")});
    try (Table t = conn.getTable(tn)) {
      List<Put> puts = new ArrayList<>();
      for (String r : new String[] {"a0", "a2", "a4", "a6", "a8", "n0", "n2", "n4", "n6", "n8"}) {
        puts.add(new Put(Bytes.toBytes(r)).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("v")));
      }
      t.put(puts);
      for (boolean reversed : new boolean[] {false, true}) {
        String tag = reversed ? "rev" : "fwd";
        try (ResultScanner rs = t.getScanner(new Scan().setCaching(2).setReversed(reversed))) {
          List<String> seen = new ArrayList<>();
          seen.add(Bytes.toString(rs.next().getRow()));
          seen.add(Bytes.toString(rs.next().getRow()));
          // Ahead of the scanner in the region it reads, and in the region it reads next.
          String same = reversed ? "n1" + tag : "a5" + tag;
          String next = reversed ? "a5" + tag : "n1" + tag;
          // And one value overwritten ahead of the scanner.
          String over = reversed ? "n2" : "a6";
          t.put(List.of(
              new Put(Bytes.toBytes(same)).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("late")),
              new Put(Bytes.toBytes(next)).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("late")),
              new Put(Bytes.toBytes(over)).addColumn(CF, Bytes.toBytes("q"),
                  Bytes.toBytes("late-" + tag))));
          for (Result r : rs) {
            seen.add(Bytes.toString(r.getRow()) + "=" + Bytes.toString(r.getValue(CF,
                Bytes.toBytes("q"))));
          }
          System.out.println("read point, " + (reversed ? "reversed" : "forward")
              + " scan with writes after its first rows: " + String.join(" ", seen));
        }
      }
    }
  }
}
