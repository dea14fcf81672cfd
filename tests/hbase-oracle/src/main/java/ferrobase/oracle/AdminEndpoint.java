package ferrobase.oracle;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.regionserver.HRegion;

/**
 * The administration Thrift1 lacks, over HTTP on 127.0.0.1, acting directly on the regions of
 * the one region server, synchronously:
 *
 * <ul>
 *   <li>{@code POST /flush?table=T}: flush every region of T (memstore to a new store file).
 *   <li>{@code POST /major_compact?table=T}: major-compact every store of every region of T and
 *       return when done. Like HBase's {@code Admin.majorCompact}, it rewrites the store files
 *       only: what is still in the memstore is left alone.
 *   <li>{@code POST /compact?table=T}: the same, minor (a selection the policy makes, if any).
 *   <li>{@code GET /status}: {@code ok}.
 * </ul>
 *
 * Answers: 200 with {@code ok}, 404 with a message for an unknown table, 500 with the exception.
 */
final class AdminEndpoint {
  private final LocalHBaseCluster cluster;
  private HttpServer server;

  AdminEndpoint(LocalHBaseCluster cluster) {
    this.cluster = cluster;
  }

  void start(int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "hbase-oracle-admin");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", this::handle);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** Waits until a client connection can list tables (meta online, client path ready). */
  void awaitTables(Configuration conf) throws IOException {
    try (Connection c = ConnectionFactory.createConnection(conf); Admin admin = c.getAdmin()) {
      admin.listTableNames();
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    int code = 200;
    String body = "ok\n";
    try {
      String path = ex.getRequestURI().getPath();
      Map<String, String> q = query(ex.getRequestURI().getRawQuery());
      switch (path) {
        case "/status" -> { }
        case "/flush" -> {
          for (HRegion r : regions(q)) {
            r.flush(true);
          }
        }
        case "/major_compact", "/compact" -> {
          boolean major = path.equals("/major_compact");
          for (HRegion r : regions(q)) {
            r.compact(major);
          }
        }
        default -> {
          code = 404;
          body = "unknown operation " + path + "\n";
        }
      }
    } catch (NoSuchTable e) {
      code = 404;
      body = e.getMessage() + "\n";
    } catch (Exception e) {
      code = 500;
      body = e + "\n";
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private List<HRegion> regions(Map<String, String> q) throws NoSuchTable {
    String table = q.get("table");
    if (table == null || table.isEmpty()) {
      throw new NoSuchTable("missing ?table=NAME");
    }
    List<HRegion> regions = new ArrayList<>(
        cluster.getRegionServer(0).getRegions(TableName.valueOf(table)));
    if (regions.isEmpty()) {
      throw new NoSuchTable("no online region of table " + table);
    }
    return regions;
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) {
      return out;
    }
    for (String kv : raw.split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        out.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  private static final class NoSuchTable extends Exception {
    NoSuchTable(String message) {
      super(message);
    }
  }
}
