package ferrobase.oracle;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.rest.RESTServer;

/**
 * HBase's REST server (Stargate, {@code hbase-rest}) in this JVM, on a free port of 127.0.0.1,
 * without its info server. {@link #awaitAnswers} returns once it answers {@code GET /version}.
 */
final class RestGateway {
  private final Configuration conf;
  private RESTServer server;
  private int port;

  RestGateway(Configuration conf) {
    this.conf = conf;
  }

  void start() throws Exception {
    Configuration c = new Configuration(conf);
    c.setInt("hbase.rest.port", 0);
    c.set("hbase.rest.host", "127.0.0.1");
    c.setInt("hbase.rest.info.port", -1);
    server = new RESTServer(c);
    server.run();
    port = server.getPort();
  }

  /** Waits until {@code GET /version/cluster} answers 200 (the cluster reached through it). */
  void awaitAnswers() throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        HttpURLConnection c = (HttpURLConnection) new URL(
            "http://127.0.0.1:" + port + "/version/cluster").openConnection();
        c.setRequestProperty("Accept", "text/plain");
        int status = c.getResponseCode();
        c.disconnect();
        if (status == 200) {
          return;
        }
        last = new IOException("GET /version/cluster answered " + status);
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new IOException("the REST server did not answer within 120 s", last);
  }

  int port() {
    return port;
  }

  void stop() {
    if (server != null) {
      try {
        server.stop();
      } catch (Exception e) {
        System.err.println("hbase-oracle: REST server stop: " + e);
      }
    }
  }
}
