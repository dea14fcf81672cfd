package ferrobase.aclattack;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.access.GetUserPermissionsRequest;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The world the attack runs in, kept by the superuser: two tables with known cells, a namespace,
 * the users' grants of the current epoch. After each operation that may change something, {@link
 * #changes} reports what changed (cells, tables and families, namespaces, grants) against the
 * baseline and {@link #repair} puts the baseline back, so each operation starts from the same
 * state and a difference between two servers does not spread to the operations after it.
 */
final class World {
  /** Every name the attack makes starts with this, so a cluster's other tables are left alone. */
  static final String P = "aa_";
  static final String NS = P + "ns";
  static final TableName T1 = TableName.valueOf(P + "t1");
  static final TableName T2 = TableName.valueOf(NS + ":t2");
  static final TableName[] TABLES = {T1, T2};
  static final String[] ROWS = {"r0", "r1", "r2", "r3", "r4"};
  /** The cells of each row: family, qualifier (a:n holds a counter). */
  static final String[][] COLUMNS = {{"a", "q1"}, {"a", "q2"}, {"a", "n"}, {"b", "q1"},
      {"b", "q2"}, {"c", "q1"}};
  /** The hbase:acl row the attack's writes to hbase:acl use (a grant on a table never made). */
  static final String ACL_JUNK_ROW = P + "junk";

  final Connection su;
  final Admin admin;
  final String superuser;
  /** The grants of the epoch: user, then the permissions. */
  final List<UserPermission> grants = new ArrayList<>();

  World(Connection su, String superuser) throws IOException {
    this.su = su;
    this.admin = su.getAdmin();
    this.superuser = superuser;
  }

  static String[] families(TableName t) {
    return t.equals(T1) ? new String[] {"a", "b", "c"} : new String[] {"a", "b"};
  }

  static String value(TableName t, String row, String f, String q) {
    return "v_" + t.getQualifierAsString() + "_" + row + "_" + f + q;
  }

  static byte[] cellValue(TableName t, String row, String f, String q) {
    return q.equals("n") ? Bytes.toBytes(10L) : Bytes.toBytes(value(t, row, f, q));
  }

  /** The baseline cells of a table: row/f:q to value. */
  static TreeMap<String, String> baseline(TableName t) {
    TreeMap<String, String> out = new TreeMap<>();
    Set<String> fams = Set.of(families(t));
    for (String row : ROWS) {
      for (String[] c : COLUMNS) {
        if (fams.contains(c[0])) {
          out.put(row + "/" + c[0] + ":" + c[1], show(cellValue(t, row, c[0], c[1])));
        }
      }
    }
    return out;
  }

  /** A value as text: a counter as #N, anything else as HBase's printable bytes. */
  static String show(byte[] v) {
    if (v.length == 8 && v[0] == 0 && v[1] == 0 && v[2] == 0) {
      return "#" + Bytes.toLong(v);
    }
    return Bytes.toStringBinary(v);
  }

  static String cell(Cell c) {
    return Bytes.toStringBinary(CellUtil.cloneRow(c)) + "/"
        + Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":"
        + Bytes.toStringBinary(CellUtil.cloneQualifier(c)) + "=" + show(CellUtil.cloneValue(c));
  }

  /** A fresh start: the attack's tables, namespaces and grants of an earlier run go. */
  void setUp() throws IOException {
    for (TableName t : admin.listTableNames()) {
      if (t.getNameAsString().startsWith(P)) {
        drop(t);
      }
    }
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      if (d.getName().startsWith(P)) {
        for (TableName t : admin.listTableNamesByNamespace(d.getName())) {
          drop(t);
        }
        admin.deleteNamespace(d.getName());
      }
    }
    for (UserPermission p : allGrants()) {
      if (p.getUser().startsWith(P)) {
        revoke(p);
      }
    }
    admin.createNamespace(NamespaceDescriptor.create(NS).build());
    for (TableName t : TABLES) {
      create(t);
    }
  }

  void drop(TableName t) throws IOException {
    if (admin.isTableEnabled(t)) {
      admin.disableTable(t);
    }
    admin.deleteTable(t);
  }

  void create(TableName t) throws IOException {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(t)
        .setRegionSplitPolicyClassName(
            "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy");
    for (String f : families(t)) {
      b.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f));
    }
    admin.createTable(b.build());
    seed(t);
  }

  void seed(TableName t) throws IOException {
    Set<String> fams = Set.of(families(t));
    try (Table table = su.getTable(t)) {
      for (String row : ROWS) {
        Put p = new Put(Bytes.toBytes(row));
        for (String[] c : COLUMNS) {
          if (fams.contains(c[0])) {
            p.addColumn(Bytes.toBytes(c[0]), Bytes.toBytes(c[1]), cellValue(t, row, c[0], c[1]));
          }
        }
        table.put(p);
      }
    }
  }

  /** The cells of a table now, as the superuser reads them (latest versions). */
  TreeMap<String, String> cells(TableName t) throws IOException {
    TreeMap<String, String> out = new TreeMap<>();
    try (Table table = su.getTable(t); ResultScanner s = table.getScanner(new Scan())) {
      for (Result r : s) {
        for (Cell c : r.rawCells()) {
          String k = cell(c);
          int eq = k.indexOf('=');
          out.put(k.substring(0, eq), k.substring(eq + 1));
        }
      }
    }
    return out;
  }

  /** The attack's tables with their families and state, e.g. {@code aa_t1[a,b,c]} or {@code off}. */
  TreeSet<String> schema() throws IOException {
    TreeSet<String> out = new TreeSet<>();
    for (TableDescriptor d : admin.listTableDescriptors(java.util.regex.Pattern.compile(".*"), true)) {
      String name = d.getTableName().getNameAsString();
      if (!name.startsWith(P) && !name.startsWith("hbase:" + P)) {
        continue;
      }
      TreeSet<String> fams = new TreeSet<>();
      for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
        fams.add(f.getNameAsString() + (f.getMaxVersions() != 1 ? "/v" + f.getMaxVersions() : ""));
      }
      String owner = d.getOwnerString();
      out.add("table " + name + fams + (admin.isTableDisabled(d.getTableName()) ? " off" : "")
          + (owner != null && !owner.equals(superuser) ? " owner=" + owner : ""));
    }
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      if (d.getName().startsWith(P)) {
        out.add("namespace " + d.getName());
      }
    }
    return out;
  }

  /** Every grant at the scopes the attack touches (the superuser's own included). */
  List<UserPermission> allGrants() throws IOException {
    List<UserPermission> out = new ArrayList<>(
        admin.getUserPermissions(GetUserPermissionsRequest.newBuilder().build()));
    TreeSet<String> namespaces = new TreeSet<>(List.of("default", "hbase"));
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      if (d.getName().startsWith(P)) {
        namespaces.add(d.getName());
      }
    }
    for (String ns : namespaces) {
      out.addAll(admin.getUserPermissions(GetUserPermissionsRequest.newBuilder(ns).build()));
    }
    for (TableDescriptor d : admin.listTableDescriptors(java.util.regex.Pattern.compile(".*"), true)) {
      String name = d.getTableName().getNameAsString();
      if (name.startsWith(P) || name.startsWith(NS + ":") || name.equals("hbase:acl")) {
        out.addAll(admin.getUserPermissions(
            GetUserPermissionsRequest.newBuilder(d.getTableName()).build()));
      }
    }
    return out;
  }

  /** The grants of the attack's users and of the superuser, as text. */
  TreeMap<String, UserPermission> grantSet() throws IOException {
    TreeMap<String, UserPermission> out = new TreeMap<>();
    for (UserPermission p : allGrants()) {
      if (p.getUser().startsWith(P) || p.getUser().equals(superuser)) {
        out.put(Grants.text(p, superuser), p);
      }
    }
    return out;
  }

  void revoke(UserPermission p) throws IOException {
    try {
      admin.revoke(p);
    } catch (Throwable e) {
      throw new IOException("revoke " + p, e);
    }
  }

  /** The epoch's grants given, every other grant of the attack's users revoked. */
  void setGrants(List<UserPermission> next) throws IOException {
    for (UserPermission p : allGrants()) {
      if (p.getUser().startsWith(P)) {
        try {
          admin.revoke(new UserPermission(p.getUser(), withoutActions(p.getPermission())));
        } catch (IOException ignored) {
          // Refused: the revoke with the actions below.
        }
      }
    }
    for (UserPermission p : allGrants()) {
      if (p.getUser().startsWith(P)) {
        revoke(p);
      }
    }
    grants.clear();
    grants.addAll(next);
    for (UserPermission p : next) {
      grant(p);
    }
  }

  void grant(UserPermission p) throws IOException {
    try {
      admin.grant(p, false);
    } catch (Throwable e) {
      throw new IOException("grant " + p, e);
    }
  }

  /** State before an operation: what {@link #changes} compares with. */
  record Snapshot(Map<TableName, TreeMap<String, String>> cells, TreeSet<String> schema,
      TreeMap<String, UserPermission> grants) {}

  Snapshot snapshot() throws IOException {
    Map<TableName, TreeMap<String, String>> cells = new TreeMap<>();
    for (TableName t : TABLES) {
      cells.put(t, baseline(t));
    }
    return new Snapshot(cells, schema(), grantSet());
  }

  /** What changed since {@code before}: one line each, e.g. {@code cells aa_t1 +r1/a:x=v -r2/b:q1}. */
  List<String> changes(Snapshot before, boolean ddl, boolean grants) throws IOException {
    List<String> out = new ArrayList<>();
    TreeSet<String> schema = ddl ? schema() : before.schema();
    for (TableName t : TABLES) {
      if (!schema.stream().anyMatch(s -> s.startsWith("table " + t.getNameAsString() + "["))
          || (ddl && admin.isTableDisabled(t))) {
        continue;
      }
      String d = diff(before.cells().get(t), cells(t));
      if (!d.isEmpty()) {
        out.add("cells " + t.getNameAsString() + d);
      }
    }
    String s = diff(before.schema(), schema);
    if (!s.isEmpty()) {
      out.add("schema" + s);
    }
    if (grants) {
      String g = diff(new TreeSet<>(before.grants().keySet()), new TreeSet<>(grantSet().keySet()));
      if (!g.isEmpty()) {
        out.add("grants" + g);
      }
    }
    return out;
  }

  static String diff(TreeMap<String, String> a, TreeMap<String, String> b) {
    StringBuilder out = new StringBuilder();
    TreeSet<String> keys = new TreeSet<>(a.keySet());
    keys.addAll(b.keySet());
    for (String k : keys) {
      String x = a.get(k);
      String y = b.get(k);
      if (x == null) {
        out.append(" +").append(k).append('=').append(y);
      } else if (y == null) {
        out.append(" -").append(k);
      } else if (!x.equals(y)) {
        out.append(" ~").append(k).append('=').append(y);
      }
    }
    return out.toString();
  }

  static String diff(TreeSet<String> a, TreeSet<String> b) {
    StringBuilder out = new StringBuilder();
    for (String k : a) {
      if (!b.contains(k)) {
        out.append(" -[").append(k).append(']');
      }
    }
    for (String k : b) {
      if (!a.contains(k)) {
        out.append(" +[").append(k).append(']');
      }
    }
    return out.toString();
  }

  /** The baseline back: tables, families, namespaces, cells and the epoch's grants. */
  void repair(Snapshot base, boolean ddl, boolean grants) throws IOException {
    if (!ddl) {
      for (TableName t : TABLES) {
        TreeMap<String, String> now = cells(t);
        if (!now.equals(base.cells().get(t))) {
          restore(t, now, base.cells().get(t));
        }
      }
      if (grants) {
        regrant(base);
      }
      return;
    }
    for (TableName t : admin.listTableNames()) {
      String n = t.getNameAsString();
      if ((n.startsWith(P) || n.startsWith("hbase:" + P)) && !List.of(TABLES).contains(t)) {
        drop(t);
      }
    }
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      if (d.getName().startsWith(P) && !d.getName().equals(NS)) {
        for (TableName t : admin.listTableNamesByNamespace(d.getName())) {
          drop(t);
        }
        admin.deleteNamespace(d.getName());
      }
    }
    if (!admin.listNamespaceDescriptors().toString().contains("'" + NS + "'")) {
      boolean found = false;
      for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
        found |= d.getName().equals(NS);
      }
      if (!found) {
        admin.createNamespace(NamespaceDescriptor.create(NS).build());
      }
    }
    for (TableName t : TABLES) {
      if (!admin.tableExists(t)) {
        create(t);
        continue;
      }
      if (admin.isTableDisabled(t)) {
        admin.enableTable(t);
      }
      TableDescriptor d = admin.getDescriptor(t);
      Set<String> want = Set.of(families(t));
      boolean sameFamilies = d.getColumnFamilyCount() == want.size();
      for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
        sameFamilies &= want.contains(f.getNameAsString()) && f.getMaxVersions() == 1;
      }
      if (!sameFamilies || d.getOwnerString() != null && !d.getOwnerString().equals(superuser)) {
        // A table whose families or owner changed is made again (a family dropped and added
        // back would keep no cells on either server, but the owner grant would stay).
        drop(t);
        create(t);
        continue;
      }
      TreeMap<String, String> now = cells(t);
      TreeMap<String, String> want2 = base.cells().get(t);
      if (!now.equals(want2)) {
        restore(t, now, want2);
      }
    }
    regrant(base);
  }

  /** The snapshot's grants back: extra ones revoked, missing or changed ones given again. */
  void regrant(Snapshot base) throws IOException {
    TreeMap<String, UserPermission> now = grantSet();
    // HBase's revoke of some actions edits the first grant of the user in the row (the table's,
    // a family's or a qualifier's alike); a revoke without actions removes exactly the grant at
    // the scope. ferrobase removes what the actions name: both are tried.
    for (Map.Entry<String, UserPermission> e : now.entrySet()) {
      if (!base.grants().containsKey(e.getKey())) {
        try {
          admin.revoke(new UserPermission(e.getValue().getUser(), withoutActions(
              e.getValue().getPermission())));
        } catch (IOException ignored) {
          // Refused: the revoke with the actions below.
        }
      }
    }
    now = grantSet();
    for (Map.Entry<String, UserPermission> e : now.entrySet()) {
      if (!base.grants().containsKey(e.getKey())) {
        revoke(e.getValue());
      }
    }
    now = grantSet();
    for (Map.Entry<String, UserPermission> e : base.grants().entrySet()) {
      if (!now.containsKey(e.getKey())) {
        grant(e.getValue());
      }
    }
  }

  static Permission withoutActions(Permission p) {
    if (p instanceof org.apache.hadoop.hbase.security.access.TablePermission tp) {
      return Permission.newBuilder(tp.getTableName()).withFamily(tp.getFamily())
          .withQualifier(tp.getQualifier()).build();
    }
    if (p instanceof org.apache.hadoop.hbase.security.access.NamespacePermission np) {
      return Permission.newBuilder(np.getNamespace()).build();
    }
    return Permission.newBuilder().build();
  }

  /** Cells put back: extra columns deleted, missing or changed ones put again. */
  void restore(TableName t, TreeMap<String, String> now, TreeMap<String, String> want)
      throws IOException {
    List<Delete> deletes = new ArrayList<>();
    List<Put> puts = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(now.keySet());
    keys.addAll(want.keySet());
    for (String k : keys) {
      String v = want.get(k);
      if (v != null && v.equals(now.get(k))) {
        continue;
      }
      String[] rc = k.split("/", 2);
      String[] fq = rc[1].split(":", 2);
      byte[] row = Bytes.toBytesBinary(rc[0]);
      byte[] f = Bytes.toBytesBinary(fq[0]);
      byte[] q = Bytes.toBytesBinary(fq[1]);
      deletes.add(new Delete(row).addColumns(f, q));
      if (v != null) {
        byte[] value = v.startsWith("#") ? Bytes.toBytes(Long.parseLong(v.substring(1)))
            : Bytes.toBytesBinary(v);
        puts.add(new Put(row).addColumn(f, q, value));
      }
    }
    try (Table table = su.getTable(t)) {
      table.delete(deletes);
      // A delete marker hides puts of its millisecond (and a user's family or row delete
      // hides every older cell): the puts come in a later one.
      sleep(3);
      table.put(puts);
    }
    sleep(2);
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

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
}
