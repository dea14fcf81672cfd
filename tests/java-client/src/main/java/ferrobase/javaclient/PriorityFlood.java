package ferrobase.javaclient;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Call priorities as the stock client meets them (issue 48): many connections flood the server
 * with slow gets (a costly regex value filter, each cut at its 2 s rpc timeout), filling its
 * handlers and its call queue, while a separate connection times meta lookups
 * ({@code RegionLocator.getRegionLocation(row, true)}: a scan of hbase:meta at SYSTEMTABLE_QOS) and
 * {@code Admin.listTableNames} (MasterService). Prints the slowest of each and how many flood calls
 * failed meanwhile (CallQueueTooBigException or their timeout). Run against a server with few
 * handlers, e.g. {@code ferrobase serve --rpc-port 0 --handlers 2 --max-queued-calls 4}.
 *
 * <pre>PriorityFlood --bootstrap HOST:PORT [--connections N] [--probes N]</pre>
 */
public final class PriorityFlood {
  public static void main(String[] args) throws Exception {
    String bootstrap = null;
    int connections = 12;
    int probes = 5;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--bootstrap" -> bootstrap = args[++i];
        case "--connections" -> connections = Integer.parseInt(args[++i]);
        case "--probes" -> probes = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    TableName name = TableName.valueOf("prio_slow");
    byte[] cf = Bytes.toBytes("cf");
    byte[] row = Bytes.toBytes("r");
    try (Connection setup = ConnectionFactory.createConnection(conf(bootstrap, 20_000, 5));
        Admin admin = setup.getAdmin()) {
      if (admin.tableExists(name)) {
        admin.disableTable(name);
        admin.deleteTable(name);
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(cf)).build());
      try (Table t = setup.getTable(name)) {
        Put p = new Put(row);
        byte[] value = Bytes.toBytes("a".repeat(5 * 1024));
        for (int q = 0; q < 100; q++) {
          p.addColumn(cf, Bytes.toBytes("q" + q), value);
        }
        t.put(p);
      }
    }

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong failed = new AtomicLong();
    AtomicLong served = new AtomicLong();
    List<Thread> flood = new ArrayList<>();
    List<Connection> floodConns = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      Connection c = ConnectionFactory.createConnection(conf(bootstrap, 2_000, 1));
      floodConns.add(c);
      Thread th = new Thread(() -> {
        Get g = new Get(row).setFilter(new ValueFilter(CompareOperator.EQUAL,
            new RegexStringComparator(".{0,1000}.{0,1000}.{0,1000}b")));
        try (Table t = c.getTable(name)) {
          while (!stop.get()) {
            try {
              t.get(g);
              served.incrementAndGet();
            } catch (Exception e) {
              failed.incrementAndGet();
            }
          }
        } catch (Exception e) {
          failed.incrementAndGet();
        }
      });
      th.setDaemon(true);
      th.start();
      flood.add(th);
    }
    Thread.sleep(3_000);

    long worstMeta = 0;
    long worstList = 0;
    long failedBefore = failed.get();
    try (Connection probe = ConnectionFactory.createConnection(conf(bootstrap, 60_000, 35));
        RegionLocator locator = probe.getRegionLocator(name); Admin admin = probe.getAdmin()) {
      for (int i = 0; i < probes; i++) {
        long t0 = System.nanoTime();
        locator.getRegionLocation(row, true);
        worstMeta = Math.max(worstMeta, (System.nanoTime() - t0) / 1_000_000);
        t0 = System.nanoTime();
        admin.listTableNames();
        worstList = Math.max(worstList, (System.nanoTime() - t0) / 1_000_000);
      }
    }
    long failedDuring = failed.get() - failedBefore;
    stop.set(true);
    for (Thread th : flood) {
      th.join(10_000);
    }
    for (Connection c : floodConns) {
      c.close();
    }
    System.out.println("meta lookup (slowest of " + probes + "): " + worstMeta + " ms");
    System.out.println("Admin.listTableNames (slowest of " + probes + "): " + worstList + " ms");
    System.out.println("flood gets failed while probing: " + failedDuring + " (served in all: "
        + served.get() + ")");
  }

  private static Configuration conf(String bootstrap, int rpcTimeoutMs, int retries) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrap);
    conf.setInt("hbase.rpc.timeout", rpcTimeoutMs);
    conf.setInt("hbase.client.retries.number", retries);
    conf.setInt("hbase.client.operation.timeout", Math.max(rpcTimeoutMs, 60_000));
    conf.setInt("hbase.client.meta.operation.timeout", 60_000);
    return conf;
  }
}
