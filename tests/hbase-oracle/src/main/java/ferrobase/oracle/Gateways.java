package ferrobase.oracle;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.thrift.ThriftServer;
import org.apache.hadoop.hbase.thrift.generated.Hbase;
import org.apache.hadoop.hbase.thrift2.generated.THBaseService;
import org.apache.hadoop.hbase.thrift2.generated.TTableName;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;

/**
 * HBase's Thrift1 and Thrift2 gateways in this JVM, each with the binary protocol and the
 * buffered (unframed) transport, as happybase connects by default. Each serves from its own
 * thread; {@link #awaitAnswers} returns once each has answered a real call.
 */
final class Gateways {
  private final Configuration conf;
  private ThriftServer thrift1;
  private ThriftServer thrift2;
  private int thrift1Port;
  private int thrift2Port;
  private volatile Throwable failure;

  Gateways(Configuration conf) {
    this.conf = conf;
  }

  void start(int port1, int port2) {
    thrift1Port = port1;
    thrift2Port = port2;
    thrift1 = new ThriftServer(withPort(port1));
    thrift2 = new org.apache.hadoop.hbase.thrift2.ThriftServer(withPort(port2));
    serve(thrift1, "thrift1");
    serve(thrift2, "thrift2");
  }

  private Configuration withPort(int port) {
    Configuration c = new Configuration(conf);
    c.setInt("hbase.regionserver.thrift.port", port);
    c.set("hbase.regionserver.thrift.ipaddress", "127.0.0.1");
    c.setBoolean("hbase.regionserver.thrift.framed", false);
    c.setBoolean("hbase.regionserver.thrift.compact", false);
    return c;
  }

  private void serve(ThriftServer server, String name) {
    Thread t = new Thread(() -> {
      try {
        server.run();
      } catch (Throwable e) {
        failure = e;
      }
    }, "hbase-oracle-" + name);
    t.setDaemon(true);
    t.start();
  }

  /** Waits until Thrift1 lists tables and Thrift2 answers tableExists(hbase:meta). */
  void awaitAnswers() throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    Exception last = null;
    while (System.nanoTime() < deadline) {
      if (failure != null) {
        throw new IllegalStateException("a Thrift gateway failed to start", failure);
      }
      try (TSocket s1 = new TSocket("127.0.0.1", thrift1Port);
          TSocket s2 = new TSocket("127.0.0.1", thrift2Port)) {
        s1.open();
        new Hbase.Client(new TBinaryProtocol(s1)).getTableNames();
        s2.open();
        boolean meta = new THBaseService.Client(new TBinaryProtocol(s2))
            .tableExists(new TTableName().setNs("hbase".getBytes()).setQualifier("meta".getBytes()));
        if (meta) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new IOException("the Thrift gateways did not answer within 120 s", last);
  }

  int thrift1Port() {
    return thrift1Port;
  }

  int thrift2Port() {
    return thrift2Port;
  }

  void stop() {
    if (thrift1 != null) {
      thrift1.stop();
    }
    if (thrift2 != null) {
      thrift2.stop();
    }
  }
}
