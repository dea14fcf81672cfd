package ferrobase.javaclient;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One role of the mutual-TLS ACL run (scripts/native-tls-test.sh): the connection's user is the CN
 * of the client certificate in hbase-site.xml's keystore, not a name the program claims. Prints one
 * {@code step: answer} line per step; a refusal prints the innermost exception's class and the
 * first line of its message.
 *
 * <pre>CertificateUsers --bootstrap HOST:PORT admin|reader|stranger</pre>
 *
 * admin: creates table {@code mtls} (family cf), writes r1, grants user {@code reader} READ on it.
 * reader: reads r1 (allowed), writes r2 (refused), lists tables (sees mtls).
 * stranger: reads r1 (refused), lists tables (sees nothing), grants itself ADMIN (refused).
 */
public final class CertificateUsers {
  private static final TableName T = TableName.valueOf("mtls");
  private static final byte[] CF = Bytes.toBytes("cf");
  private static final byte[] Q = Bytes.toBytes("q");

  interface Step {
    String run() throws Throwable;
  }

  static void step(String name, Step s) {
    String answer;
    try {
      answer = s.run();
    } catch (Throwable e) {
      Throwable c = e;
      while (c.getCause() != null) {
        c = c.getCause();
      }
      String msg = String.valueOf(c.getMessage());
      int nl = msg.indexOf('\n');
      answer = "refused " + c.getClass().getSimpleName() + ": " + (nl < 0 ? msg : msg.substring(0, nl));
    }
    System.out.println(name + ": " + answer);
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", args[1]);
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("hbase.client.pause", 100);
    String role = args[2];
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      switch (role) {
        case "admin" -> {
          step("create", () -> {
            admin.createTable(TableDescriptorBuilder.newBuilder(T)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build());
            return "ok";
          });
          step("put r1", () -> {
            try (Table t = conn.getTable(T)) {
              t.put(new Put(Bytes.toBytes("r1")).addColumn(CF, Q, Bytes.toBytes("v1")));
            }
            return "ok";
          });
          step("grant reader R", () -> {
            AccessControlClient.grant(conn, T, "reader", null, null, Permission.Action.READ);
            return "ok";
          });
        }
        case "reader", "stranger" -> {
          step("get r1", () -> {
            try (Table t = conn.getTable(T)) {
              Result r = t.get(new Get(Bytes.toBytes("r1")));
              return "value " + Bytes.toString(r.getValue(CF, Q));
            }
          });
          step("put r2", () -> {
            try (Table t = conn.getTable(T)) {
              t.put(new Put(Bytes.toBytes("r2")).addColumn(CF, Q, Bytes.toBytes("v2")));
            }
            return "ok";
          });
          step("list tables", () -> {
            List<String> names = new ArrayList<>();
            for (TableName n : admin.listTableNames()) {
              names.add(n.getNameAsString());
            }
            return names.toString();
          });
          step("grant self A", () -> {
            AccessControlClient.grant(conn, role, Permission.Action.ADMIN);
            return "ok";
          });
        }
        default -> throw new IllegalArgumentException("role: admin, reader or stranger");
      }
    }
  }
}
