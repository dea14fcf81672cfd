package ferrobase.oracle;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

/**
 * Apache HBase in one JVM for ferrobase's differential tests: a standalone cluster (one master,
 * one region server, embedded ZooKeeper, local file system under a temporary directory), its
 * Thrift1 gateway (binary protocol, buffered transport), its Thrift2 gateway, and an admin
 * endpoint ({@link AdminEndpoint}) for the operations Thrift1 lacks.
 *
 * <p>Once every service has answered a real call it prints one line to stdout:
 * {@code hbase-oracle ready thrift1=P thrift2=P admin=P zookeeper=P master=P regionserver=P rest=P dir=D}
 * (master and regionserver: the native RPC ports of the HMaster and the one region server, e.g.
 * for the stock Java client's {@code RpcConnectionRegistry} bootstrap). SIGTERM stops the
 * gateways, then the cluster, then ZooKeeper, and deletes the directory (unless --keep).
 *
 * <p>Arguments: {@code [--dir DIR] [--keep] [--bench]}; every port is picked free. {@code --bench}
 * keeps HBase's own defaults for flushes, compactions, splits and handler counts (a server as
 * deployed, for tests/bench) instead of the settings that keep physical state still for tests.
 * {@code --acl} runs HBase's AccessController ({@link #withAccessController}); the JVM's user is
 * the superuser, and {@link AclMatrix} acts as other users.
 */
public final class HBaseOracle {
  private HBaseOracle() {}

  public static void main(String[] args) throws Exception {
    Path dir = null;
    boolean keep = false;
    boolean bench = false;
    boolean acl = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--dir" -> dir = Path.of(args[++i]).toAbsolutePath();
        case "--keep" -> keep = true;
        case "--bench" -> bench = true;
        case "--acl" -> acl = true;
        default -> {
          System.err.println("usage: HBaseOracle [--dir DIR] [--keep] [--bench] [--acl]");
          System.exit(2);
        }
      }
    }
    if (dir == null) {
      dir = Files.createTempDirectory("hbase-oracle-");
    }
    Files.createDirectories(dir);
    int zkPort = freePort();
    Configuration conf = smallBoxConfiguration(dir, zkPort, bench);
    if (acl) {
      withAccessController(conf);
    }

    DefaultMetricsSystem.setMiniClusterMode(true);
    MiniZooKeeperCluster zk = new MiniZooKeeperCluster(conf);
    zk.setDefaultClientPort(zkPort);
    int started = zk.startup(new File(dir.toFile(), "zookeeper"));
    if (started != zkPort) {
      throw new IOException("ZooKeeper started on " + started + ", not " + zkPort);
    }
    LocalHBaseCluster cluster =
        new LocalHBaseCluster(conf, 1, 1, HMaster.class, HRegionServer.class);
    cluster.startup();

    Gateways gateways = new Gateways(conf);
    RestGateway rest = new RestGateway(conf);
    AdminEndpoint admin = new AdminEndpoint(cluster);
    final Path dataDir = dir;
    final boolean keepDir = keep;
    Thread stopper = new Thread(() -> stop(gateways, rest, admin, cluster, zk, dataDir, keepDir),
        "hbase-oracle-stop");
    Runtime.getRuntime().addShutdownHook(stopper);

    waitForMaster(cluster);
    gateways.start(freePort(), freePort());
    admin.start(freePort());
    rest.start();
    gateways.awaitAnswers();
    rest.awaitAnswers();
    admin.awaitTables(conf);
    System.out.printf(
        "hbase-oracle ready thrift1=%d thrift2=%d admin=%d zookeeper=%d master=%d regionserver=%d"
            + " rest=%d dir=%s%n",
        gateways.thrift1Port(), gateways.thrift2Port(), admin.port(), zkPort,
        cluster.getActiveMaster().getServerName().getPort(),
        cluster.getRegionServer(0).getServerName().getPort(), rest.port(), dir);
    System.out.flush();
    cluster.join();
  }

  /**
   * HBase's standalone settings, tuned for a 2-core machine and deterministic tests; with
   * {@code bench}, HBase's defaults for handlers, flushes, compactions and splits stay.
   */
  static Configuration smallBoxConfiguration(Path dir, int zkPort, boolean bench) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.cluster.distributed", "false");
    conf.set("hbase.rootdir", dir.resolve("hbase").toUri().toString());
    conf.set("hbase.tmp.dir", dir.resolve("tmp").toString());
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    conf.set("hbase.zookeeper.property.dataDir", dir.resolve("zookeeper").toString());
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    conf.set("hbase.wal.provider", "filesystem");
    conf.setBoolean("fs.automatic.close", false);
    // Ports: RPC on free ports, no web UIs.
    conf.setInt("hbase.master.port", 0);
    conf.setInt("hbase.regionserver.port", 0);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setInt("hbase.thrift.info.port", -1);
    conf.set("hbase.master.hostname", "127.0.0.1");
    conf.set("hbase.regionserver.hostname", "127.0.0.1");
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 50);
    // A quick start: the master waits for one region server only.
    conf.setInt("hbase.master.wait.on.regionservers.mintostart", 1);
    conf.setInt("hbase.master.wait.on.regionservers.timeout", 500);
    conf.setInt("hbase.master.wait.on.regionservers.interval", 100);
    conf.setInt("hbase.regionserver.msginterval", 500);
    conf.setInt("hbase.thrift.server.socket.read.timeout", 3_600_000);
    if (bench) {
      return conf;
    }
    // Few threads.
    conf.setInt("hbase.regionserver.handler.count", 8);
    conf.setInt("hbase.master.handler.count", 4);
    conf.setInt("hbase.regionserver.metahandler.count", 2);
    conf.setInt("hbase.thrift.minWorkerThreads", 2);
    conf.setInt("hbase.thrift.maxWorkerThreads", 64);
    // Physical state changes only when a test asks: no periodic major compactions, no automatic
    // minor compactions, no splits, no flushes by size in any realistic test.
    conf.setLong("hbase.hregion.majorcompaction", 0);
    conf.setInt("hbase.hstore.compactionThreshold", 1000);
    // A 16 KiB row-size limit (default 1 GiB), so that the differential suite can check
    // RowTooBigException on small rows; the suite starts ferrobase with --max-row-size to match.
    conf.setLong("hbase.table.max.rowsize", 16L << 10);
    conf.setInt("hbase.hstore.compaction.max", 1000);
    conf.setInt("hbase.hstore.blockingStoreFiles", 10_000);
    conf.set("hbase.regionserver.region.split.policy",
        "org.apache.hadoop.hbase.regionserver.DisabledRegionSplitPolicy");
    conf.setBoolean("hbase.balancer.tablesOnMaster", false);
    conf.setBoolean("hbase.master.balancer.stochastic.runMaxSteps", false);
    conf.setInt("hbase.balancer.period", 3_600_000);
    conf.setBoolean("hbase.normalizer.enabled", false);
    return conf;
  }

  /**
   * Authorization on, as a secure cluster runs it without Kerberos: simple authentication (the
   * client names its user), and HBase's AccessController on the master, the region servers and
   * every region. The process's user (the one that starts the cluster) is a superuser.
   */
  static void withAccessController(Configuration conf) {
    String ac = "org.apache.hadoop.hbase.security.access.AccessController";
    conf.set("hbase.security.authentication", "simple");
    conf.setBoolean("hbase.security.authorization", true);
    conf.set("hbase.coprocessor.master.classes", ac);
    conf.set("hbase.coprocessor.region.classes", ac);
    conf.set("hbase.coprocessor.regionserver.classes", ac);
  }

  private static void waitForMaster(LocalHBaseCluster cluster) throws InterruptedException {
    long deadline = System.nanoTime() + 300_000_000_000L;
    while (System.nanoTime() < deadline) {
      HMaster master = cluster.getActiveMaster();
      if (master != null && master.isAborted()) {
        throw new IllegalStateException("the HBase master aborted while starting (see the log)");
      }
      if (master != null && master.isInitialized()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the HBase master did not initialize within 300 s");
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  private static void stop(Gateways gateways, RestGateway rest, AdminEndpoint admin, LocalHBaseCluster cluster,
      MiniZooKeeperCluster zk, Path dir, boolean keep) {
    // A cluster that will not stop must not keep the process alive.
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(60_000);
        System.err.println("hbase-oracle: shutdown took over 60 s; halting");
        Runtime.getRuntime().halt(1);
      } catch (InterruptedException e) {
        // stopped in time
      }
    }, "hbase-oracle-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    System.err.println("hbase-oracle: stopping");
    admin.stop();
    rest.stop();
    gateways.stop();
    cluster.shutdown();
    cluster.join();
    try {
      zk.shutdown();
    } catch (IOException e) {
      System.err.println("hbase-oracle: ZooKeeper shutdown: " + e);
    }
    if (!keep) {
      try (Stream<Path> paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      } catch (IOException e) {
        System.err.println("hbase-oracle: could not delete " + dir + ": " + e);
      }
    }
    System.err.println("hbase-oracle: stopped");
    watchdog.interrupt();
  }
}
