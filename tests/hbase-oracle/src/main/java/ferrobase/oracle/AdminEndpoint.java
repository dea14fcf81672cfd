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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;

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
 *   <li>{@code POST /create?table=T&families=..&splits=..&attrs=..}: create T with split keys
 *       and family attributes Thrift1 cannot set ({@link #create}).
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
        case "/create" -> create(q);
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

  /**
   * {@code POST /create?table=T&families=F1,F2&splits=HEX1,HEX2&attrs=F1.KEY=V;F2.KEY=V}: creates
   * T through the master (what Thrift1's createTable cannot: split keys, and any family
   * attribute by its descriptor key, such as NEW_VERSION_BEHAVIOR), returning once its regions
   * are online. Split keys are hex-encoded bytes.
   */
  private void create(Map<String, String> q) throws IOException, NoSuchTable {
    String table = q.get("table");
    String families = q.get("families");
    if (table == null || table.isEmpty() || families == null || families.isEmpty()) {
      throw new NoSuchTable("create needs ?table=NAME&families=F1,F2");
    }
    Map<String, ColumnFamilyDescriptorBuilder> builders = new LinkedHashMap<>();
    for (String f : families.split(",")) {
      builders.put(f, ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(f)));
    }
    String attrs = q.getOrDefault("attrs", "");
    for (String a : attrs.split(";")) {
      if (a.isEmpty()) {
        continue;
      }
      int eq = a.indexOf('=');
      // The family ends at the first dot: keys may hold dots (hbase.hstore.compaction.min).
      int dot = eq < 0 ? -1 : a.indexOf('.');
      if (dot > eq) {
        dot = -1;
      }
      ColumnFamilyDescriptorBuilder b = dot < 0 ? null : builders.get(a.substring(0, dot));
      if (b == null) {
        throw new NoSuchTable("attribute " + a + " is not FAMILY.KEY=VALUE of a listed family");
      }
      b.setValue(a.substring(dot + 1, eq), a.substring(eq + 1));
    }
    TableDescriptorBuilder desc = TableDescriptorBuilder.newBuilder(TableName.valueOf(table));
    for (ColumnFamilyDescriptorBuilder b : builders.values()) {
      desc.setColumnFamily(b.build());
    }
    List<byte[]> splits = new ArrayList<>();
    for (String hex : q.getOrDefault("splits", "").split(",")) {
      if (!hex.isEmpty()) {
        splits.add(Bytes.fromHex(hex));
      }
    }
    try (Connection c = ConnectionFactory.createConnection(cluster.getConfiguration()); Admin admin = c.getAdmin()) {
      if (splits.isEmpty()) {
        admin.createTable(desc.build());
      } else {
        admin.createTable(desc.build(), splits.toArray(new byte[0][]));
      }
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
