package ferrobase.javaclient;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * Connects and lists the tables once, retrying little: prints {@code tables: N} or, when the server
 * refuses the client, {@code refused: Class: message} of the innermost cause and exits 1. How a
 * client configured wrongly for the server sees it, e.g. plaintext on ferrobase's TLS-only native
 * port (scripts/native-tls-test.sh). The client's settings beyond these come from hbase-site.xml.
 *
 * <pre>ListTables --bootstrap HOST:PORT</pre>
 */
public final class ListTables {
  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", args[1]);
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 5_000);
    conf.setInt("hbase.client.operation.timeout", 5_000);
    conf.setInt("hbase.client.meta.operation.timeout", 5_000);
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      TableName[] tables = admin.listTableNames();
      System.out.println("tables: " + tables.length);
    } catch (Exception e) {
      Throwable c = e;
      while (c.getCause() != null) {
        c = c.getCause();
      }
      String msg = String.valueOf(c.getMessage());
      int nl = msg.indexOf('\n');
      System.out.println("refused: " + c.getClass().getName() + ": "
          + (nl < 0 ? msg : msg.substring(0, nl)));
      System.exit(1);
    }
  }
}
