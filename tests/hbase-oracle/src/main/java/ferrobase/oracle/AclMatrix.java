package ferrobase.oracle;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.GetUserPermissionsRequest;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The ACL matrix against an oracle running HBase's AccessController ({@code
 * HBASE_ORACLE_PROFILE=acl}): for each action (R, W, X, C, A, and RW together) granted at each scope (global,
 * namespace {@code default}, table {@code t}, family {@code t:cf}, qualifier {@code t:cf:q}) to
 * a user of its own, each Thrift1-reachable operation performed through the Java client as that
 * user (simple authentication names the user), one line per outcome on stdout:
 *
 * <pre>SCOPE TAB ACTIONS TAB OPERATION TAB allowed [CELLS] | denied TEXT</pre>
 *
 * where CELLS are the columns a read returned ({@code cf:q,cf:q2}) and TEXT the
 * AccessDeniedException's message. The superuser (this process's user, the cluster's) sets the
 * state up before each user: table {@code t} (families cf, cf2) enabled with row {@code r}
 * (cf:q, cf:q2, cf2:q), table {@code victim} disabled, namespace {@code victim_ns}; and around
 * the truncate, table {@code t} disabled (HBase truncates only a disabled table). The grants the
 * users make go to {@code someone}, who never acts. ferrobase's side of the comparison:
 * crates/gateway/tests/access_matrix/, which reads the recorded lines.
 *
 * <p>Argument: the oracle's ZooKeeper port.
 */
public final class AclMatrix {
  static final String[] SCOPES = {"global", "namespace", "table", "family", "qualifier"};
  /** What each user is granted: each action alone, then READ and WRITE together. */
  static final String[] GRANTS = {"R", "W", "X", "C", "A", "RW"};
  static final TableName T = TableName.valueOf("t");
  static final TableName VICTIM = TableName.valueOf("victim");
  static final String VICTIM_NS = "victim_ns";
  /** The user the matrix's users grant to and revoke from. */
  static final String SOMEONE = "someone";
  static final byte[] CF = Bytes.toBytes("cf");
  static final byte[] CF2 = Bytes.toBytes("cf2");
  static final byte[] CF3 = Bytes.toBytes("cf3");
  static final byte[] Q = Bytes.toBytes("q");
  static final byte[] Q2 = Bytes.toBytes("q2");
  static final byte[] N = Bytes.toBytes("n");
  static final byte[] R = Bytes.toBytes("r");
  static final byte[] V = Bytes.toBytes("v");

  private AclMatrix() {}

  /** One operation as the user; returns the cells it read, or null when it reads none. */
  interface Op {
    String run(Connection c) throws Throwable;
  }

  public static void main(String[] args) throws Throwable {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", Integer.parseInt(args[0]));
    conf.set("hbase.security.authentication", "simple");
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 50);
    try (Connection su = ConnectionFactory.createConnection(conf); Admin admin = su.getAdmin()) {
      if (!AccessControlClient.isAuthorizationEnabled(su)) {
        System.err.println("AclMatrix: the oracle runs without HBase's AccessController; "
            + "stop it and start it with HBASE_ORACLE_PROFILE=acl");
        System.exit(1);
      }
      // A fresh start on an oracle that ran the matrix before: its tables (and their grants) go.
      for (TableName old : new TableName[] {T, VICTIM}) {
        if (admin.tableExists(old)) {
          if (admin.isTableEnabled(old)) {
            admin.disableTable(old);
          }
          admin.deleteTable(old);
        }
      }
      // And the global and namespace grants of the matrix's users (a table's went with it).
      List<UserPermission> left = new ArrayList<>(
          admin.getUserPermissions(GetUserPermissionsRequest.newBuilder().build()));
      left.addAll(admin.getUserPermissions(GetUserPermissionsRequest.newBuilder("default").build()));
      for (UserPermission p : left) {
        if (p.getUser().startsWith("u_") || p.getUser().equals(SOMEONE)) {
          admin.revoke(p);
        }
      }
      {
        // Splits on request: the oracle turns automatic splits off for every table.
        admin.createTable(TableDescriptorBuilder.newBuilder(T)
            .setRegionSplitPolicyClassName(
                "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy")
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF2)).build());
      }
      for (String scope : SCOPES) {
        for (String code : GRANTS) {
          String user = ("u_" + scope + "_" + code).toLowerCase(Locale.ROOT);
          grant(su, user, scope, actions(code));
          reset(su, admin);
          User u = User.createUserForTesting(conf, user, new String[0]);
          try (Connection c = ConnectionFactory.createConnection(conf, u)) {
            for (String[] line : perform(c, user, admin)) {
              System.out.println(scope + "\t" + code + "\t" + line[0] + "\t" + line[1]);
            }
          }
          System.out.flush();
        }
      }
    }
  }

  /** The actions of letters such as {@code RW}. */
  static Permission.Action[] actions(String letters) {
    Permission.Action[] out = new Permission.Action[letters.length()];
    for (int i = 0; i < letters.length(); i++) {
      for (Permission.Action a : Permission.Action.values()) {
        if (a.code() == letters.charAt(i)) {
          out[i] = a;
        }
      }
    }
    return out;
  }

  static void grant(Connection su, String user, String scope, Permission.Action... a)
      throws Throwable {
    switch (scope) {
      case "global" -> AccessControlClient.grant(su, user, a);
      case "namespace" -> AccessControlClient.grant(su, "default", user, a);
      case "table" -> AccessControlClient.grant(su, T, user, null, null, a);
      case "family" -> AccessControlClient.grant(su, T, user, CF, null, a);
      default -> AccessControlClient.grant(su, T, user, CF, Q, a);
    }
  }

  static void reset(Connection su, Admin admin) throws IOException {
    if (admin.isTableDisabled(T)) {
      admin.enableTable(T);
    }
    try (Table t = su.getTable(T)) {
      t.put(new Put(R).addColumn(CF, Q, V).addColumn(CF, Q2, V).addColumn(CF2, Q, V));
    }
    if (!admin.tableExists(VICTIM)) {
      admin.createTable(TableDescriptorBuilder.newBuilder(VICTIM)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build());
    }
    if (admin.isTableEnabled(VICTIM)) {
      admin.disableTable(VICTIM);
    }
    boolean ns = false;
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      ns |= d.getName().equals(VICTIM_NS);
    }
    if (!ns) {
      admin.createNamespace(NamespaceDescriptor.create(VICTIM_NS).build());
    }
  }

  /** The operations, in the order ferrobase's side performs them. */
  static List<String[]> perform(Connection c, String user, Admin su) throws IOException {
    List<String[]> out = new ArrayList<>();
    TableName created = TableName.valueOf("c_" + user);
    String createdNs = "n_" + user;
    String superuser = User.getCurrent().getShortName();
    TableDescriptor modified = TableDescriptorBuilder.newBuilder(su.getDescriptor(T))
        .setMaxFileSize(1073741824L).build();
    Object[][] ops = {
      {"get cf:q", (Op) x -> cells(table(x).get(new Get(R).addColumn(CF, Q)))},
      {"getRow", (Op) x -> cells(table(x).get(new Get(R)))},
      {"getRowWithColumns cf", (Op) x -> cells(table(x).get(new Get(R).addFamily(CF)))},
      {"get cf", (Op) x -> table(x).get(new Get(R).addFamily(CF)).rawCells().length + " cells"},
      {"scan", (Op) x -> {
        TreeSet<String> seen = new TreeSet<>();
        try (ResultScanner s = table(x).getScanner(new Scan())) {
          for (Result r : s) {
            seen.addAll(cellSet(r));
          }
        }
        return String.join(",", seen);
      }},
      {"put cf:q", (Op) x -> {
        table(x).put(new Put(R).addColumn(CF, Q, V));
        return null;
      }},
      {"delete cf:q2", (Op) x -> {
        table(x).delete(new Delete(Bytes.toBytes("zz")).addColumns(CF, Q2));
        return null;
      }},
      {"deleteRow", (Op) x -> {
        table(x).delete(new Delete(Bytes.toBytes("zz")));
        return null;
      }},
      {"increment cf:n", (Op) x -> {
        table(x).increment(new Increment(R).addColumn(CF, N, 1));
        return null;
      }},
      {"append cf:q", (Op) x -> {
        table(x).append(new Append(R).addColumn(CF, Q, V));
        return null;
      }},
      {"checkAndPut cf:q", (Op) x -> {
        table(x).checkAndMutate(R, CF).qualifier(Q).ifEquals(V)
            .thenPut(new Put(R).addColumn(CF, Q, V));
        return null;
      }},
      {"getColumnDescriptors", (Op) x -> {
        x.getAdmin().getDescriptor(T);
        return null;
      }},
      {"getTableNames", (Op) x -> {
        TreeSet<String> names = new TreeSet<>();
        for (TableName n : x.getAdmin().listTableNames()) {
          names.add(n.getNameAsString());
        }
        return String.join(",", names);
      }},
      {"isTableEnabled", (Op) x -> {
        x.getAdmin().isTableEnabled(T);
        return null;
      }},
      {"getTableRegions", (Op) x -> {
        x.getAdmin().getRegions(T);
        return null;
      }},
      {"flush", (Op) x -> {
        x.getAdmin().flush(T);
        return null;
      }},
      {"compact", (Op) x -> {
        x.getAdmin().compact(T);
        return null;
      }},
      {"majorCompact", (Op) x -> {
        x.getAdmin().majorCompact(T);
        return null;
      }},
      {"disableTable", (Op) x -> {
        x.getAdmin().disableTable(T);
        return null;
      }},
      {"enableTable", (Op) x -> {
        x.getAdmin().enableTable(T);
        return null;
      }},
      {"deleteTable victim", (Op) x -> {
        x.getAdmin().deleteTable(VICTIM);
        return null;
      }},
      {"createTable", (Op) x -> {
        x.getAdmin().createTable(TableDescriptorBuilder.newBuilder(created)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build());
        return null;
      }},
      {"modifyTable", (Op) x -> {
        x.getAdmin().modifyTable(modified);
        return null;
      }},
      {"addColumnFamily cf3", (Op) x -> {
        x.getAdmin().addColumnFamily(T, ColumnFamilyDescriptorBuilder.of(CF3));
        return null;
      }},
      // The family to delete is there whatever the user before could do (HBase looks for it
      // before its check), and gone again after.
      {"deleteColumnFamily cf3", (Op) x -> {
        if (!su.getDescriptor(T).hasColumnFamily(CF3)) {
          su.addColumnFamily(T, ColumnFamilyDescriptorBuilder.of(CF3));
        }
        try {
          x.getAdmin().deleteColumnFamily(T, CF3);
        } finally {
          if (su.getDescriptor(T).hasColumnFamily(CF3)) {
            su.deleteColumnFamily(T, CF3);
          }
        }
        return null;
      }},
      {"split at s_USER", (Op) x -> {
        x.getAdmin().split(T, Bytes.toBytes("s_" + user));
        return null;
      }},
      {"grant global", (Op) x -> {
        AccessControlClient.grant(x, SOMEONE, Permission.Action.READ);
        return null;
      }},
      {"grant @default", (Op) x -> {
        AccessControlClient.grant(x, "default", SOMEONE, Permission.Action.READ);
        return null;
      }},
      {"grant t", (Op) x -> {
        AccessControlClient.grant(x, T, SOMEONE, null, null, Permission.Action.READ);
        return null;
      }},
      {"grant t:cf", (Op) x -> {
        AccessControlClient.grant(x, T, SOMEONE, CF, null, Permission.Action.READ);
        return null;
      }},
      {"grant t:cf:q", (Op) x -> {
        AccessControlClient.grant(x, T, SOMEONE, CF, Q, Permission.Action.READ);
        return null;
      }},
      {"revoke t", (Op) x -> {
        AccessControlClient.revoke(x, T, SOMEONE, null, null, Permission.Action.READ);
        return null;
      }},
      {"user_permission global", (Op) x -> grants(x.getAdmin().getUserPermissions(
          GetUserPermissionsRequest.newBuilder().build()), superuser)},
      {"user_permission @default", (Op) x -> grants(x.getAdmin().getUserPermissions(
          GetUserPermissionsRequest.newBuilder("default").build()), superuser)},
      {"user_permission t", (Op) x -> grants(x.getAdmin().getUserPermissions(
          GetUserPermissionsRequest.newBuilder(T).build()), superuser)},
      {"createNamespace", (Op) x -> {
        x.getAdmin().createNamespace(NamespaceDescriptor.create(createdNs).build());
        return null;
      }},
      {"modifyNamespace victim_ns", (Op) x -> {
        x.getAdmin().modifyNamespace(
            NamespaceDescriptor.create(VICTIM_NS).addConfiguration("k", "v").build());
        return null;
      }},
      {"deleteNamespace victim_ns", (Op) x -> {
        x.getAdmin().deleteNamespace(VICTIM_NS);
        return null;
      }},
      // HBase truncates a disabled table only: the superuser disables t first (and enables it
      // again after a refusal), so the outcome is the truncate's check.
      {"truncate t", (Op) x -> {
        su.disableTable(T);
        try {
          x.getAdmin().truncateTable(T, true);
        } finally {
          if (su.isTableDisabled(T)) {
            su.enableTable(T);
          }
        }
        return null;
      }},
    };
    for (Object[] op : ops) {
      String outcome;
      try {
        String read = ((Op) op[1]).run(c);
        outcome = read == null ? "allowed" : ("allowed " + read).trim();
      } catch (Throwable e) {
        outcome = denial(e);
      }
      out.add(new String[] {(String) op[0], outcome});
    }
    // The creator's own table goes again (as the superuser would have to otherwise).
    try {
      Admin a = c.getAdmin();
      if (a.tableExists(created)) {
        a.disableTable(created);
        a.deleteTable(created);
      }
    } catch (Throwable e) {
      System.err.println("cleanup of " + created + ": " + e);
    }
    try {
      for (NamespaceDescriptor d : su.listNamespaceDescriptors()) {
        if (d.getName().equals(createdNs)) {
          su.deleteNamespace(createdNs);
        }
      }
    } catch (Throwable e) {
      System.err.println("cleanup of " + createdNs + ": " + e);
    }
    return out;
  }

  /** {@code N grants}: how many grants a listing shows of users other than the superuser. */
  static String grants(List<UserPermission> listed, String superuser) {
    long n = listed.stream().filter(p -> !p.getUser().equals(superuser)).count();
    return n + " grants";
  }

  static Table table(Connection c) throws IOException {
    return c.getTable(T);
  }

  static String cells(Result r) {
    return String.join(",", cellSet(r));
  }

  static TreeSet<String> cellSet(Result r) {
    TreeSet<String> out = new TreeSet<>();
    for (Cell cell : r.rawCells()) {
      out.add(Bytes.toString(CellUtil.cloneFamily(cell)) + ":"
          + Bytes.toString(CellUtil.cloneQualifier(cell)));
    }
    return out;
  }

  /** {@code denied TEXT} for an AccessDeniedException anywhere in the chain, else the error. */
  static String denial(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      String prefix = AccessDeniedException.class.getName() + ": ";
      int at = m.indexOf(prefix);
      if (t instanceof AccessDeniedException || at >= 0) {
        // A remote exception repeats the class name before the text, once or more.
        while ((at = m.indexOf(prefix)) >= 0) {
          m = m.substring(at + prefix.length());
        }
        int nl = m.indexOf('\n');
        return "denied " + (nl < 0 ? m : m.substring(0, nl)).trim();
      }
    }
    String m = String.valueOf(e);
    int nl = m.indexOf('\n');
    return "error " + (nl < 0 ? m : m.substring(0, nl));
  }
}
