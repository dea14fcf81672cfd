package ferrobase.javaclient;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The server benchmark's Java workloads (issue 48): a BufferedMutator load, random gets,
 * 100-row scans and full scans (the client's default caching; N threads each scanning their Nth
 * of the table), each with 1 and N threads sharing one connection, as a Java application runs
 * them. Prints one line per workload: {@code workload threads ops seconds}. A benchmark, not a
 * test: tests/bench/java_vs_hbase.py runs it against ferrobase and Apache HBase alternately.
 *
 * <pre>LoadBench --bootstrap HOST:PORT --table NAME --rows N --ops M --threads T</pre>
 */
public final class LoadBench {
  private static final byte[] CF = Bytes.toBytes("cf");
  private static final byte[] Q = Bytes.toBytes("q");

  private static byte[] row(long i) {
    return Bytes.toBytes(String.format("row%010d", i));
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = null;
    String table = "javabench";
    long rows = 100_000;
    long ops = 20_000;
    int threads = 8;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--bootstrap": bootstrap = args[i + 1]; break;
        case "--table": table = args[i + 1]; break;
        case "--rows": rows = Long.parseLong(args[i + 1]); break;
        case "--ops": ops = Long.parseLong(args[i + 1]); break;
        case "--threads": threads = Integer.parseInt(args[i + 1]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrap);
    TableName tn = TableName.valueOf(table);
    byte[] value = new byte[100];
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      if (admin.tableExists(tn)) {
        admin.disableTable(tn);
        admin.deleteTable(tn);
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build());
      for (int t : new int[] {1, threads}) {
        final long perThread = rows / t;
        final int n = t;
        report("load", t, perThread * t, timed(t, k -> {
          try (BufferedMutator m = conn.getBufferedMutator(tn)) {
            for (long i = 0; i < perThread; i++) {
              long r = i * n + k;
              m.mutate(new Put(row(r)).addColumn(CF, Q, value));
            }
          }
        }));
      }
      final long loaded = rows;
      for (int t : new int[] {1, threads}) {
        final long perThread = ops / t;
        AtomicLong found = new AtomicLong();
        report("get", t, perThread * t, timed(t, k -> {
          SplittableRandom rnd = new SplittableRandom(k);
          try (Table tb = conn.getTable(tn)) {
            for (long i = 0; i < perThread; i++) {
              Result r = tb.get(new Get(row(rnd.nextLong(loaded))));
              if (!r.isEmpty()) {
                found.incrementAndGet();
              }
            }
          }
        }));
        if (found.get() != perThread * t) {
          throw new IllegalStateException("gets found " + found.get() + " of " + perThread * t);
        }
      }
      for (int t : new int[] {1, threads}) {
        final long perThread = Math.max(1, ops / 100 / t);
        report("scan100", t, perThread * t, timed(t, k -> {
          SplittableRandom rnd = new SplittableRandom(k + 1000);
          try (Table tb = conn.getTable(tn)) {
            for (long i = 0; i < perThread; i++) {
              long start = rnd.nextLong(Math.max(1, loaded - 100));
              int seen = 0;
              try (ResultScanner s = tb.getScanner(new Scan().withStartRow(row(start))
                  .setLimit(100).setCaching(100))) {
                for (Result r : s) {
                  seen++;
                }
              }
              if (seen != 100) {
                throw new IllegalStateException("a scan read " + seen + " rows");
              }
            }
          }
        }));
      }
      // Full scans with the client's default caching (rows by the 2 MiB result size): N threads
      // each scan their Nth of the table, three times over.
      for (int t : new int[] {1, threads}) {
        final int n = t;
        final int passes = 3;
        report("fullscan", t, loaded * passes, timed(t, k -> {
          try (Table tb = conn.getTable(tn)) {
            long from = loaded * k / n;
            long to = loaded * (k + 1) / n;
            for (int p = 0; p < passes; p++) {
              long seen = 0;
              try (ResultScanner s = tb.getScanner(new Scan().withStartRow(row(from))
                  .withStopRow(row(to)))) {
                for (Result r : s) {
                  seen++;
                }
              }
              if (seen != to - from) {
                throw new IllegalStateException("a full scan read " + seen + " of " + (to - from));
              }
            }
          }
        }));
      }
      admin.disableTable(tn);
      admin.deleteTable(tn);
    }
  }

  private interface Work {
    void run(int thread) throws Exception;
  }

  private static double timed(int threads, Work work) throws Exception {
    List<Thread> all = new ArrayList<>();
    List<Exception> failed = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int k = 0; k < threads; k++) {
      final int id = k;
      Thread th = new Thread(() -> {
        try {
          work.run(id);
        } catch (Exception e) {
          synchronized (failed) {
            failed.add(e);
          }
        }
      });
      th.start();
      all.add(th);
    }
    for (Thread th : all) {
      th.join();
    }
    if (!failed.isEmpty()) {
      throw failed.get(0);
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void report(String workload, int threads, long ops, double seconds) {
    System.out.printf("%s %d %d %.3f%n", workload, threads, ops, seconds);
  }
}
