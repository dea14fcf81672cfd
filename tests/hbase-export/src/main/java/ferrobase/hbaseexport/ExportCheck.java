package ferrobase.hbaseexport;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.Export;
import org.apache.hadoop.hbase.mapreduce.ExportUtils;
import org.apache.hadoop.hbase.mapreduce.Import;
import org.apache.hadoop.hbase.mapreduce.ResultSerialization;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.Job;

/**
 * Apache HBase 2.6.1's own Export and Import, in Hadoop's local job runner, against the oracle
 * (issue 47), and a dump of cells in one canonical text form for both sides:
 *
 * <pre>
 *   load TABLE ROWS        create TABLE (cf1 VERSIONS 10, cf2 VERSIONS 3, cf3 VERSIONS 1) and fill it:
 *                          many versions, binary rows and values, every delete-marker type; flush
 *   create TABLE           create TABLE with the same families, empty
 *   flush TABLE            flush TABLE's memstores
 *   export TABLE DIR [none|record|block]
 *                          HBase's Export: every version, raw (delete markers), into DIR,
 *                          uncompressed or compressed with DefaultCodec
 *   import TABLE DIR       HBase's Import of DIR into TABLE
 *   importtsv TABLE INPUT COLUMNS TS
 *                          HBase's ImportTsv of INPUT into TABLE (importtsv.columns=COLUMNS,
 *                          importtsv.timestamp=TS), printing its "Bad Lines" counter
 *   dump-table TABLE OUT   every cell of a raw scan of every version, one line each, sorted
 *   dump-live TABLE OUT    the same of a plain scan: what a reader sees (no markers, no masked cells)
 *   dump-files DIR OUT     every cell of DIR's part files read by Hadoop's SequenceFile.Reader with
 *                          HBase's ResultSerialization, same form
 * </pre>
 *
 * Several commands run in one JVM when separated by "+". A line: row, family, qualifier, timestamp, type, value (bytes as Bytes.toStringBinary), tab
 * separated. HBASE_ORACLE_ZOOKEEPER (host:port or port) names the cluster.
 */
public final class ExportCheck {
  private static final byte[][] FAMILIES = {Bytes.toBytes("cf1"), Bytes.toBytes("cf2"),
    Bytes.toBytes("cf3")};
  private static final int[] VERSIONS = {10, 3, 1};

  /** Runs the commands given, separated by "+" (one JVM start for several steps). */
  public static void main(String[] argv) throws Exception {
    List<String> cur = new ArrayList<>();
    for (String a : argv) {
      if (a.equals("+")) {
        run(cur.toArray(new String[0]));
        cur.clear();
      } else {
        cur.add(a);
      }
    }
    if (!cur.isEmpty()) {
      run(cur.toArray(new String[0]));
    }
  }

  private static void run(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: load|create|flush|export|import|dump-table|dump-live|dump-files ...");
    }
    Configuration conf = configuration();
    String cmd = args[0];
    long t0 = System.nanoTime();
    switch (cmd) {
      case "dump-files":
        dumpFiles(conf, args[1], args[2]);
        break;
      case "export": {
        // Export's arguments: TABLE OUTDIR VERSIONS [STARTTIME [ENDTIME]]; raw by property.
        conf.set(ExportUtils.RAW_SCAN, "true");
        if (args.length > 3 && !args[3].equals("none")) {
          // FileOutputFormat's compression: DefaultCodec (zlib), RECORD or BLOCK.
          conf.set("mapreduce.output.fileoutputformat.compress", "true");
          conf.set("mapreduce.output.fileoutputformat.compress.type", args[3].toUpperCase());
          conf.set("mapreduce.output.fileoutputformat.compress.codec",
            "org.apache.hadoop.io.compress.DefaultCodec");
        }
        Job job = Export.createSubmittableJob(conf,
          new String[] {args[1], args[2], String.valueOf(Integer.MAX_VALUE)});
        if (!job.waitForCompletion(false)) {
          throw new IOException("HBase Export failed");
        }
        break;
      }
      case "importtsv": {
        // ImportTsv's properties: the columns, a fixed timestamp for lines without HBASE_TS_KEY.
        conf.set("importtsv.columns", args[3]);
        conf.set("importtsv.timestamp", args[4]);
        long bad = org.apache.hadoop.hbase.mapreduce.ImportTsvJob.run(conf, args[1], args[2]);
        System.err.printf("hbase-export: importtsv bad lines %d%n", bad);
        break;
      }
      case "import": {
        Job job = Import.createSubmittableJob(conf, new String[] {args[1], args[2]});
        if (!job.waitForCompletion(false)) {
          throw new IOException("HBase Import failed");
        }
        break;
      }
      default:
        try (Connection conn = ConnectionFactory.createConnection(conf)) {
          TableName name = TableName.valueOf(args[1]);
          switch (cmd) {
            case "load":
              create(conn, name);
              load(conn, name, Integer.parseInt(args[2]));
              conn.getAdmin().flush(name);
              break;
            case "create":
              create(conn, name);
              break;
            case "flush":
              conn.getAdmin().flush(name);
              break;
            case "dump-table":
              dumpTable(conn, name, args[2], true);
              break;
            case "dump-live":
              dumpTable(conn, name, args[2], false);
              break;
            default:
              throw new IllegalArgumentException("unknown command " + cmd);
          }
        }
    }
    System.err.printf("hbase-export: %s %s in %.1f s%n", cmd, args[1], (System.nanoTime() - t0) / 1e9);
  }

  private static Configuration configuration() throws IOException {
    Configuration conf = HBaseConfiguration.create();
    String zk = System.getenv("HBASE_ORACLE_ZOOKEEPER");
    if (zk != null) {
      int colon = zk.lastIndexOf(':');
      conf.set("hbase.zookeeper.quorum", colon < 0 ? "127.0.0.1" : zk.substring(0, colon));
      conf.set("hbase.zookeeper.property.clientPort", zk.substring(colon + 1));
    }
    conf.setInt("zookeeper.recovery.retry", 1);
    conf.setInt("hbase.client.retries.number", 3);
    // Hadoop's local job runner on the local file system: no cluster, no HDFS.
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    String tmp = System.getenv("HBASE_EXPORT_TMP");
    if (tmp != null) {
      conf.set("hadoop.tmp.dir", tmp);
      conf.set("hbase.fs.tmp.dir", tmp + "/hbase-staging");
    }
    // The SequenceFile reader of dump-files finds Result's deserializer here (Export's job
    // configuration adds it the same way).
    conf.setStrings("io.serializations", conf.get("io.serializations"),
      ResultSerialization.class.getName());
    return conf;
  }

  private static void create(Connection conn, TableName name) throws IOException {
    try (Admin admin = conn.getAdmin()) {
      if (admin.tableExists(name)) {
        if (admin.isTableEnabled(name)) {
          admin.disableTable(name);
        }
        admin.deleteTable(name);
      }
      TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(name);
      for (int i = 0; i < FAMILIES.length; i++) {
        b.setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILIES[i])
          .setMaxVersions(VERSIONS[i]).build());
      }
      admin.createTable(b.build());
    }
  }

  /** ROWS rows; per row 12 + 4 + 1 cells, and delete markers of every type on some rows. */
  private static void load(Connection conn, TableName name, int rows) throws IOException {
    byte[] cf1 = FAMILIES[0], cf2 = FAMILIES[1], cf3 = FAMILIES[2];
    try (Table t = conn.getTable(name)) {
      List<Put> puts = new ArrayList<>();
      List<Delete> deletes = new ArrayList<>();
      for (int r = 0; r < rows; r++) {
        byte[] row = r % 97 == 0 ? new byte[] {(byte) 0xff, 0, (byte) r, (byte) (r >> 8)}
          : Bytes.toBytes(String.format("row-%06d", r));
        Put p = new Put(row);
        for (int q = 0; q < 3; q++) {
          for (int v = 0; v < 4; v++) {
            byte[] value = r % 31 == 0 && q == 0 ? new byte[0]
              : Bytes.toBytes("v" + r + "." + q + "." + v + (r % 5 == 0 ? "\u00e9\u0000\u00ff" : ""));
            p.addColumn(cf1, Bytes.toBytes("q" + q), 1000L + 10 * v, value);
          }
        }
        for (int q = 0; q < 2; q++) {
          for (int v = 0; v < 2; v++) {
            p.addColumn(cf2, Bytes.toBytes("c" + q), 2000L + v, Bytes.toBytes(r * 7 + v));
          }
        }
        p.addColumn(cf3, new byte[0], 3000L + r, Bytes.toBytes("only-" + r));
        puts.add(p);
        if (r % 7 == 0) deletes.add(new Delete(row).addColumns(cf1, Bytes.toBytes("q0"), 1015L));
        if (r % 11 == 0) deletes.add(new Delete(row).addColumn(cf1, Bytes.toBytes("q1"), 1010L));
        if (r % 13 == 0) deletes.add(new Delete(row).addFamily(cf2, 2000L));
        if (r % 17 == 0) deletes.add(new Delete(row).addFamilyVersion(cf1, 1020L));
        if (puts.size() >= 500) {
          t.put(puts);
          puts.clear();
        }
      }
      t.put(puts);
      t.delete(deletes);
    }
  }

  private static String line(Cell c) {
    return Bytes.toStringBinary(CellUtil.cloneRow(c)) + "\t" + Bytes.toStringBinary(CellUtil.cloneFamily(c))
      + "\t" + Bytes.toStringBinary(CellUtil.cloneQualifier(c)) + "\t" + c.getTimestamp() + "\t"
      + c.getType() + "\t" + Bytes.toStringBinary(CellUtil.cloneValue(c));
  }

  private static void write(List<String> lines, String out) throws IOException {
    Collections.sort(lines);
    Path p = Paths.get(out);
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(p, StandardCharsets.UTF_8))) {
      for (String l : lines) {
        w.println(l);
      }
    }
    System.err.printf("hbase-export: %d cells into %s%n", lines.size(), out);
  }

  /** Every version of the table's cells, delete markers too when raw, as sorted lines. */
  private static void dumpTable(Connection conn, TableName name, String out, boolean raw)
    throws IOException {
    List<String> lines = new ArrayList<>();
    Scan scan = new Scan().setRaw(raw).readAllVersions();
    try (Table t = conn.getTable(name); ResultScanner s = t.getScanner(scan)) {
      for (Result r : s) {
        for (Cell c : r.rawCells()) {
          lines.add(line(c));
        }
      }
    }
    write(lines, out);
  }

  private static void dumpFiles(Configuration conf, String dir, String out) throws IOException {
    List<String> lines = new ArrayList<>();
    FileSystem fs = FileSystem.getLocal(conf);
    org.apache.hadoop.fs.Path d = new org.apache.hadoop.fs.Path(Paths.get(dir).toAbsolutePath().toString());
    for (FileStatus st : fs.listStatus(d)) {
      String n = st.getPath().getName();
      if (n.startsWith("_") || n.startsWith(".")) {
        continue;
      }
      try (SequenceFile.Reader r = new SequenceFile.Reader(conf, SequenceFile.Reader.file(st.getPath()))) {
        if (!r.getKeyClassName().equals(ImmutableBytesWritable.class.getName())
          || !r.getValueClassName().equals(Result.class.getName())) {
          throw new IOException(n + ": " + r.getKeyClassName() + " -> " + r.getValueClassName());
        }
        ImmutableBytesWritable key = new ImmutableBytesWritable();
        while (r.next(key)) {
          Result res = (Result) r.getCurrentValue((Object) null);
          for (Cell c : res.rawCells()) {
            if (!Bytes.equals(CellUtil.cloneRow(c), key.copyBytes())) {
              throw new IOException(n + ": a cell of another row than its key");
            }
            lines.add(line(c));
          }
        }
      }
    }
    write(lines, out);
  }
}
