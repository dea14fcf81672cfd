package ferrobase.aclattack;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.GetUserPermissionsRequest;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The ACL attack (issue 45, through the native door of issue 48): from a seed, random grants to
 * four users (global, namespace, table, family, qualifier; R, W, X, C, A), then random operations
 * as random users through the stock client (gets and scans with columns and filters that look at
 * other columns, puts, deletes, increments, appends, checkAndMutate (a value, absence, a filter,
 * a time range), RowMutations, batches, DDL,
 * grants and revokes, listings, hbase:meta and hbase:acl). One line per operation on stdout:
 *
 * <pre>N TAB USER TAB OPERATION TAB OUTCOME [TAB DETAIL]</pre>
 *
 * OUTCOME is {@code ok [WHAT IT READ]}, {@code denied} (DETAIL: the AccessDeniedException's
 * message) or {@code error CLASS} (DETAIL: its message). After an operation that may change
 * something, the superuser's view of what changed, one line each: {@code N TAB changed TAB WHAT};
 * then the world is put back as it was ({@link World#repair}). A new epoch of grants every 100
 * operations: {@code N TAB epoch TAB GRANTS}.
 *
 * <p>Arguments: the ZooKeeper port, the seed, the number of operations.
 */
public final class AclAttack {
  private AclAttack() {}

  /** The operations that may change tables, families or namespaces. */
  static final java.util.regex.Pattern DDL = java.util.regex.Pattern.compile(
      "createTable|disable\\+|addColumnFamily|deleteColumnFamily|modifyColumnFamily|modifyTable"
          + "|createNamespace|deleteNamespace|flush");

  interface Op {
    String run(Connection c) throws Throwable;
  }

  /** An operation: its text and body, and whether it may change anything. */
  record Attempt(String text, boolean writes, Op op) {}

  public static void main(String[] args) throws Throwable {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", "127.0.0.1");
    conf.setInt("hbase.zookeeper.property.clientPort", Integer.parseInt(args[0]));
    conf.set("hbase.security.authentication", "simple");
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 50);
    conf.setInt("hbase.client.operation.timeout", 60000);
    long seed = Long.parseLong(args[1]);
    int ops = Integer.parseInt(args[2]);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    String superuser = User.getCurrent().getShortName();
    try (Connection su = ConnectionFactory.createConnection(conf)) {
      if (!org.apache.hadoop.hbase.security.access.AccessControlClient
          .isAuthorizationEnabled(su)) {
        System.err.println("AclAttack: the server runs without access control; start the oracle "
            + "with HBASE_ORACLE_PROFILE=acl, ferrobase with --acl");
        System.exit(1);
      }
      World world = new World(su, superuser);
      world.setUp();
      Map<String, Connection> users = new HashMap<>();
      for (String u : Grants.USERS) {
        users.put(u, ConnectionFactory.createConnection(conf,
            User.createUserForTesting(conf, u, new String[0])));
      }
      Random rnd = new Random(seed);
      Attacks attacks = new Attacks(rnd, superuser, su);
      World.Snapshot base = null;
      for (int i = 0; i < ops; i++) {
        if (i % 100 == 0) {
          List<UserPermission> epoch = Grants.randomEpoch(rnd);
          world.setGrants(epoch);
          base = world.snapshot();
          TreeSet<String> text = new TreeSet<>();
          for (UserPermission p : epoch) {
            text.add(Grants.text(p, superuser));
          }
          out.println(i + "\tepoch\t" + String.join(" ", text));
        }
        String user = Grants.USERS[rnd.nextInt(Grants.USERS.length)];
        Attempt a = attacks.next(i, user);
        String outcome;
        long t0 = System.nanoTime();
        try {
          String read = a.op().run(users.get(user));
          outcome = read == null ? "ok" : "ok " + read;
        } catch (Throwable e) {
          outcome = outcome(e);
        }
        out.println(i + "\t" + user + "\t" + a.text() + "\t" + outcome);
        long t1 = System.nanoTime();
        if (a.writes()) {
          boolean ddl = DDL.matcher(a.text()).lookingAt();
          boolean grants = ddl || a.text().startsWith("grant ") || a.text().startsWith("revoke ")
              || a.text().startsWith("put hbase:acl");
          for (String change : world.changes(base, ddl, grants)) {
            out.println(i + "\tchanged\t" + change);
          }
          if (a.text().startsWith("put hbase:acl")) {
            try (Table acl = su.getTable(TableName.valueOf("hbase:acl"))) {
              acl.delete(new Delete(Bytes.toBytes(World.ACL_JUNK_ROW)));
            } catch (org.apache.hadoop.hbase.TableNotFoundException e) {
              // A server that does not serve hbase:acl as a table (ferrobase's native door).
            }
          }
          world.repair(base, ddl, grants);
        }
        System.err.printf("op %d: %d ms, check %d ms%n", i, (t1 - t0) / 1000000,
            (System.nanoTime() - t1) / 1000000);
      }
      for (Connection c : users.values()) {
        c.close();
      }
      world.setGrants(List.of());
    }
  }

  /** {@code denied TAB MESSAGE} or {@code error CLASS TAB MESSAGE}, first lines only. */
  static String outcome(Throwable e) {
    if (e instanceof org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException r
        && r.getNumExceptions() > 0) {
      // A batch-sent call (checkAndMutate of RowMutations): its first action's own error.
      e = r.getCause(0);
    }
    String prefix = AccessDeniedException.class.getName() + ": ";
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      boolean remote = t instanceof org.apache.hadoop.ipc.RemoteException r
          && r.getClassName().equals(AccessDeniedException.class.getName());
      if (t instanceof AccessDeniedException || m.contains(prefix) || remote) {
        int at;
        while ((at = m.indexOf(prefix)) >= 0) {
          m = m.substring(at + prefix.length());
        }
        return "denied\t" + firstLine(m);
      }
    }
    Throwable t = e;
    while (t.getCause() != null && (t.getClass().getSimpleName().startsWith("RetriesExhausted")
        || t instanceof java.util.concurrent.ExecutionException)) {
      t = t.getCause();
    }
    String name = t.getClass().getSimpleName();
    if (t instanceof org.apache.hadoop.hbase.ipc.RemoteWithExtrasException r) {
      name = r.getClassName().substring(r.getClassName().lastIndexOf('.') + 1);
    }
    return "error " + name + "\t" + firstLine(String.valueOf(t.getMessage()));
  }

  static String firstLine(String m) {
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).trim().replace('\t', ' ');
  }

  static String cells(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      out.add(World.cell(c));
    }
    return "[" + String.join(",", out) + "]";
  }

  /** The random operations. */
  static final class Attacks {
    final Random rnd;
    final String superuser;
    final Connection superuserConnection;

    Attacks(Random rnd, String superuser, Connection superuserConnection) {
      this.rnd = rnd;
      this.superuser = superuser;
      this.superuserConnection = superuserConnection;
    }

    <T> T pick(T[] xs) {
      return xs[rnd.nextInt(xs.length)];
    }

    TableName table() {
      return rnd.nextInt(10) < 7 ? World.T1 : World.T2;
    }

    String row() {
      return rnd.nextInt(12) == 0 ? "rx" : pick(World.ROWS);
    }

    /** A family of the table, or now and then one it lacks. */
    String family(TableName t) {
      return rnd.nextInt(15) == 0 ? "c" : pick(World.families(t));
    }

    String qualifier() {
      return pick(new String[] {"q1", "q2", "n", "q1", "q2", "x"});
    }

    String grantee(String user) {
      int k = rnd.nextInt(6);
      return k == 0 ? user : k == 1 ? superuser : pick(Grants.USERS);
    }

    /** A filter that looks at a column the user may or may not read. */
    Filter filter(TableName t) {
      String f = family(t);
      String q = qualifier();
      String row = pick(World.ROWS);
      byte[] v = World.cellValue(t, row, f, q);
      switch (rnd.nextInt(11)) {
        case 9:
          // (No DependentColumnFilter: it compares timestamps, which differ between servers.)
          return new org.apache.hadoop.hbase.filter.FamilyFilter(CompareOperator.EQUAL,
              new BinaryComparator(Bytes.toBytes(f)));
        case 10:
          return new org.apache.hadoop.hbase.filter.ColumnValueFilter(Bytes.toBytes(f),
              Bytes.toBytes(q), CompareOperator.EQUAL, new BinaryComparator(v));
        case 0: {
          SingleColumnValueFilter s = new SingleColumnValueFilter(Bytes.toBytes(f),
              Bytes.toBytes(q), CompareOperator.EQUAL, new BinaryComparator(v));
          s.setFilterIfMissing(rnd.nextBoolean());
          return s;
        }
        case 1: {
          // A guess at a prefix of the secret value.
          SingleColumnValueFilter s = new SingleColumnValueFilter(Bytes.toBytes(f),
              Bytes.toBytes(q), CompareOperator.EQUAL,
              new BinaryPrefixComparator(Bytes.toBytes("v_" + t.getQualifierAsString() + "_r")));
          s.setFilterIfMissing(true);
          return s;
        }
        case 2:
          return new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(v));
        case 3: {
          SingleColumnValueFilter s = new SingleColumnValueFilter(Bytes.toBytes(f),
              Bytes.toBytes(q), CompareOperator.EQUAL, new BinaryComparator(v));
          s.setFilterIfMissing(true);
          return new FilterList(
              rnd.nextBoolean() ? FilterList.Operator.MUST_PASS_ALL
                  : FilterList.Operator.MUST_PASS_ONE,
              s, new PrefixFilter(Bytes.toBytes(row)));
        }
        case 4:
          return new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(Bytes.toBytes(q)));
        case 5: {
          SingleColumnValueExcludeFilter s = new SingleColumnValueExcludeFilter(Bytes.toBytes(f),
              Bytes.toBytes(q), CompareOperator.EQUAL, new BinaryComparator(v));
          s.setFilterIfMissing(true);
          return s;
        }
        case 6:
          return new SkipFilter(new ValueFilter(CompareOperator.NOT_EQUAL,
              new BinaryComparator(v)));
        case 7: {
          SingleColumnValueFilter s = new SingleColumnValueFilter(Bytes.toBytes(f),
              Bytes.toBytes(q), CompareOperator.NOT_EQUAL, new BinaryComparator(v));
          s.setFilterIfMissing(true);
          return new WhileMatchFilter(s);
        }
        default:
          return new PrefixFilter(Bytes.toBytes(row));
      }
    }

    static String describe(Filter f) {
      return f.toString().replace('\t', ' ').replace('\n', ' ');
    }

    /** Columns for a get or scan: none, a family, columns or both; with their text. */
    String columns(TableName t, Get g, Scan s) {
      int k = rnd.nextInt(4);
      List<String> text = new ArrayList<>();
      if (k == 1 || k == 3) {
        String f = family(t);
        if (g != null) {
          g.addFamily(Bytes.toBytes(f));
        } else {
          s.addFamily(Bytes.toBytes(f));
        }
        text.add(f);
      }
      if (k >= 2) {
        int n = 1 + rnd.nextInt(2);
        for (int i = 0; i < n; i++) {
          String f = family(t);
          String q = qualifier();
          if (g != null) {
            g.addColumn(Bytes.toBytes(f), Bytes.toBytes(q));
          } else {
            s.addColumn(Bytes.toBytes(f), Bytes.toBytes(q));
          }
          text.add(f + ":" + q);
        }
      }
      return text.isEmpty() ? "*" : String.join(",", text);
    }

    Attempt next(int i, String user) {
      int k = rnd.nextInt(100);
      if (k < 14) {
        return get();
      }
      if (k < 17) {
        return multiGet();
      }
      if (k < 30) {
        return scan();
      }
      if (k < 33) {
        return meta();
      }
      if (k < 35) {
        return aclScan();
      }
      if (k < 47) {
        return put(i);
      }
      if (k < 54) {
        return delete();
      }
      if (k < 58) {
        return increment();
      }
      if (k < 61) {
        return append(i);
      }
      if (k < 68) {
        return checkAndMutate(i);
      }
      if (k < 71) {
        return rowMutations(i);
      }
      if (k < 76) {
        return batch(i);
      }
      if (k < 77) {
        return aclPut();
      }
      if (k < 86) {
        return ddl(i, user);
      }
      if (k < 92) {
        return grant(user);
      }
      if (k < 94) {
        return hijack();
      }
      return listing();
    }

    Attempt get() {
      TableName t = table();
      String row = row();
      Get g = new Get(Bytes.toBytes(row));
      String cols = columns(t, g, null);
      String text = "get " + t + " " + row + " " + cols;
      if (rnd.nextBoolean()) {
        Filter f = filter(t);
        g.setFilter(f);
        text += " filter " + describe(f);
      }
      if (rnd.nextInt(6) == 0) {
        return new Attempt("exists " + text, false, c -> {
          try (Table tb = c.getTable(t)) {
            return String.valueOf(tb.exists(g));
          }
        });
      }
      return new Attempt(text, false, c -> {
        try (Table tb = c.getTable(t)) {
          return cells(tb.get(g));
        }
      });
    }

    Attempt multiGet() {
      TableName t = table();
      List<Get> gets = new ArrayList<>();
      List<String> text = new ArrayList<>();
      int n = 2 + rnd.nextInt(2);
      for (int j = 0; j < n; j++) {
        String row = row();
        Get g = new Get(Bytes.toBytes(row));
        text.add(row + " " + columns(t, g, null));
        gets.add(g);
      }
      return new Attempt("multiGet " + t + " " + String.join("; ", text), false, c -> {
        try (Table tb = c.getTable(t)) {
          List<String> out = new ArrayList<>();
          for (Result r : tb.get(gets)) {
            out.add(cells(r));
          }
          return String.join(" ", out);
        }
      });
    }

    Attempt scan() {
      TableName t = table();
      Scan s = new Scan();
      StringBuilder text = new StringBuilder("scan " + t + " " + columns(t, null, s));
      if (rnd.nextBoolean()) {
        Filter f = filter(t);
        s.setFilter(f);
        text.append(" filter ").append(describe(f));
      }
      if (rnd.nextInt(4) == 0) {
        s.setReversed(true);
        text.append(" reversed");
      }
      boolean grouped = false;
      if (rnd.nextInt(4) == 0 && (s.getFilter() == null || !s.getFilter().hasFilterRow())) {
        int b = 1 + rnd.nextInt(2);
        s.setBatch(b);
        text.append(" batch ").append(b);
        grouped = true;
      } else if (rnd.nextInt(5) == 0) {
        s.setAllowPartialResults(true);
        s.setMaxResultSize(40);
        text.append(" partial");
      }
      if (rnd.nextInt(3) == 0) {
        String start = pick(World.ROWS);
        s.withStartRow(Bytes.toBytes(start));
        text.append(" from ").append(start);
      }
      if (rnd.nextInt(5) == 0) {
        s.setLimit(2);
        text.append(" limit 2");
      }
      s.setCaching(1 + rnd.nextInt(3));
      boolean groups = grouped;
      return new Attempt(text.toString(), false, c -> {
        List<String> out = new ArrayList<>();
        try (Table tb = c.getTable(t); ResultScanner rs = tb.getScanner(s)) {
          for (Result r : rs) {
            if (groups) {
              out.add(cells(r));
            } else {
              for (Cell cell : r.rawCells()) {
                out.add(World.cell(cell));
              }
            }
          }
        }
        return String.join(groups ? " " : ",", out);
      });
    }

    /**
     * Another user's scanner, by its id, through the raw ClientService: the superuser opens a
     * scanner on a region (nothing read yet), the user asks it for rows, the superuser closes it.
     */
    Attempt hijack() {
      TableName t = table();
      boolean close = rnd.nextInt(4) == 0;
      return new Attempt((close ? "close" : "next on") + " the superuser's scanner of " + t, false,
          c -> {
            org.apache.hadoop.hbase.HRegionLocation loc;
            try (org.apache.hadoop.hbase.client.RegionLocator l = c.getRegionLocator(t)) {
              loc = l.getRegionLocation(Bytes.toBytes("r0"));
            }
            var owner = ((org.apache.hadoop.hbase.client.ClusterConnection) superuserConnection)
                .getClient(loc.getServerName());
            var open = owner.scan(null, org.apache.hadoop.hbase.shaded.protobuf.RequestConverter
                .buildScanRequest(loc.getRegion().getRegionName(), new Scan(), 0, false));
            long id = open.getScannerId();
            try {
              var thief = ((org.apache.hadoop.hbase.client.ClusterConnection) c)
                  .getClient(loc.getServerName());
              var controller = org.apache.hadoop.hbase.ipc.RpcControllerFactory
                  .instantiate(c.getConfiguration()).newController();
              var resp = thief.scan(controller, org.apache.hadoop.hbase.shaded.protobuf
                  .RequestConverter.buildScanRequest(id, 10, close, 0, false, false, -1));
              List<String> out = new ArrayList<>();
              for (Result r : org.apache.hadoop.hbase.shaded.protobuf.ResponseConverter
                  .getResults(controller.cellScanner(), resp)) {
                out.add(cells(r));
              }
              return String.join(" ", out);
            } catch (org.apache.hbase.thirdparty.com.google.protobuf.ServiceException e) {
              throw e.getCause() != null ? e.getCause() : e;
            } finally {
              try {
                owner.scan(null, org.apache.hadoop.hbase.shaded.protobuf.RequestConverter
                    .buildScanRequest(id, 0, true, false));
              } catch (Exception ignored) {
                // Closed by the user already.
              }
            }
          });
    }

    Attempt meta() {
      return new Attempt("scan hbase:meta info:regioninfo", false, c -> {
        TreeSet<String> tables = new TreeSet<>();
        Scan s = new Scan().addColumn(Bytes.toBytes("info"), Bytes.toBytes("regioninfo"));
        try (Table tb = c.getTable(TableName.META_TABLE_NAME); ResultScanner rs = tb.getScanner(s)) {
          for (Result r : rs) {
            String row = Bytes.toStringBinary(r.getRow());
            String table = row.substring(0, Math.max(0, row.indexOf(',')));
            if (table.startsWith(World.P)) {
              tables.add(table);
            }
          }
        }
        return String.join(",", tables);
      });
    }

    Attempt aclScan() {
      return new Attempt("scan hbase:acl", false, c -> {
        try (Table tb = c.getTable(TableName.valueOf("hbase:acl"));
            ResultScanner rs = tb.getScanner(new Scan())) {
          for (Result r : rs) {
            r.size();
          }
        }
        return null;
      });
    }

    Attempt aclPut() {
      return new Attempt("put hbase:acl " + World.ACL_JUNK_ROW + " l:" + Grants.USERS[0] + "=RWXCA",
          true, c -> {
            try (Table tb = c.getTable(TableName.valueOf("hbase:acl"))) {
              tb.put(new Put(Bytes.toBytes(World.ACL_JUNK_ROW)).addColumn(Bytes.toBytes("l"),
                  Bytes.toBytes(Grants.USERS[0]), Bytes.toBytes("RWXCA")));
            }
            return null;
          });
    }

    Put randomPut(TableName t, String row, int i, List<String> text) {
      Put p = new Put(Bytes.toBytes(row));
      int n = 1 + rnd.nextInt(2);
      for (int j = 0; j < n; j++) {
        String f = family(t);
        String q = qualifier();
        p.addColumn(Bytes.toBytes(f), Bytes.toBytes(q), Bytes.toBytes("w" + i + "_" + j));
        text.add("put " + row + "/" + f + ":" + q);
      }
      return p;
    }

    Delete randomDelete(TableName t, String row, List<String> text) {
      Delete d = new Delete(Bytes.toBytes(row));
      String f = family(t);
      String q = qualifier();
      switch (rnd.nextInt(4)) {
        case 0 -> {
          d.addColumn(Bytes.toBytes(f), Bytes.toBytes(q));
          text.add("deleteVersion " + row + "/" + f + ":" + q);
        }
        case 1 -> {
          d.addColumns(Bytes.toBytes(f), Bytes.toBytes(q));
          text.add("deleteColumn " + row + "/" + f + ":" + q);
        }
        case 2 -> {
          d.addFamily(Bytes.toBytes(f));
          text.add("deleteFamily " + row + "/" + f);
        }
        default -> text.add("deleteRow " + row);
      }
      return d;
    }

    Attempt put(int i) {
      TableName t = table();
      List<String> text = new ArrayList<>();
      Put p = randomPut(t, row(), i, text);
      return new Attempt(t + " " + String.join(" ", text), true, c -> {
        try (Table tb = c.getTable(t)) {
          tb.put(p);
        }
        return null;
      });
    }

    Attempt delete() {
      TableName t = table();
      List<String> text = new ArrayList<>();
      Delete d = randomDelete(t, row(), text);
      return new Attempt(t + " " + String.join(" ", text), true, c -> {
        try (Table tb = c.getTable(t)) {
          tb.delete(d);
        }
        return null;
      });
    }

    Attempt increment() {
      TableName t = table();
      String row = row();
      String f = family(t);
      String q = rnd.nextInt(3) == 0 ? "m" : "n";
      return new Attempt("increment " + t + " " + row + "/" + f + ":" + q, true, c -> {
        try (Table tb = c.getTable(t)) {
          return cells(tb.increment(new Increment(Bytes.toBytes(row))
              .addColumn(Bytes.toBytes(f), Bytes.toBytes(q), 1)));
        }
      });
    }

    Attempt append(int i) {
      TableName t = table();
      String row = row();
      String f = family(t);
      String q = qualifier().equals("n") ? "q1" : qualifier();
      return new Attempt("append " + t + " " + row + "/" + f + ":" + q, true, c -> {
        try (Table tb = c.getTable(t)) {
          return cells(tb.append(new Append(Bytes.toBytes(row))
              .addColumn(Bytes.toBytes(f), Bytes.toBytes(q), Bytes.toBytes("+a" + i))));
        }
      });
    }

    Attempt checkAndMutate(int i) {
      TableName t = table();
      String row = pick(World.ROWS);
      String f = family(t);
      String q = qualifier();
      // 0: == the value, 1: == wrong, 2: absent, 3: a filter (which may look at columns the
      // user may not read), 4: == the value within a time range (every cell, or none).
      int cond = rnd.nextInt(5);
      byte[] expected = cond == 0 || cond == 4 ? World.cellValue(t, row, f, q) : Bytes.toBytes("wrong");
      Filter condFilter = cond == 3 ? filter(t) : null;
      boolean everyCell = cond == 4 && rnd.nextBoolean();
      List<String> text = new ArrayList<>();
      int kind = rnd.nextInt(5);
      boolean isPut = kind < 2;
      boolean both = kind == 4;
      Put p = isPut || both ? randomPut(t, row, i, text) : null;
      Delete d = isPut ? null : randomDelete(t, row, text);
      String condText = switch (cond) {
        case 0 -> f + ":" + q + " == value";
        case 1 -> f + ":" + q + " == wrong";
        case 2 -> f + ":" + q + " absent";
        case 3 -> "filter " + describe(condFilter);
        default -> f + ":" + q + " == value in " + (everyCell ? "[1, max)" : "[0, 1)");
      };
      String head = "checkAndMutate " + t + " " + row + " if " + condText + " then ";
      return new Attempt(head + String.join(" ", text), true, c -> {
        try (Table tb = c.getTable(t)) {
          RowMutations rm = null;
          if (both) {
            rm = new RowMutations(Bytes.toBytes(row));
            rm.add(p);
            rm.add(d);
          }
          if (cond >= 3) {
            // CheckAndMutate.newBuilder: the filter condition (ifMatches(Filter)) and the time
            // range, which Table.checkAndMutate's builder does not offer together.
            CheckAndMutate.Builder b = CheckAndMutate.newBuilder(Bytes.toBytes(row));
            if (cond == 3) {
              b = b.ifMatches(condFilter);
            } else {
              b = b.ifEquals(Bytes.toBytes(f), Bytes.toBytes(q), expected)
                  .timeRange(everyCell ? TimeRange.from(1) : TimeRange.between(0, 1));
            }
            CheckAndMutate cam = both ? b.build(rm) : isPut ? b.build(p) : b.build(d);
            CheckAndMutateResult r = tb.checkAndMutate(cam);
            return String.valueOf(r.isSuccess());
          }
          Table.CheckAndMutateBuilder b = tb.checkAndMutate(Bytes.toBytes(row), Bytes.toBytes(f))
              .qualifier(Bytes.toBytes(q));
          boolean done;
          if (cond == 2) {
            b = b.ifNotExists();
          } else {
            b = b.ifEquals(expected);
          }
          if (both) {
            done = b.thenMutate(rm);
          } else {
            done = isPut ? b.thenPut(p) : b.thenDelete(d);
          }
          return String.valueOf(done);
        }
      });
    }

    Attempt rowMutations(int i) {
      TableName t = table();
      String row = pick(World.ROWS);
      List<String> text = new ArrayList<>();
      Put p = randomPut(t, row, i, text);
      Delete d = randomDelete(t, row, text);
      return new Attempt("mutateRow " + t + " " + String.join(" ", text), true, c -> {
        try (Table tb = c.getTable(t)) {
          RowMutations rm = new RowMutations(Bytes.toBytes(row));
          rm.add(p);
          rm.add(d);
          tb.mutateRow(rm);
        }
        return null;
      });
    }

    Attempt batch(int i) {
      TableName t = table();
      List<Row> actions = new ArrayList<>();
      List<String> text = new ArrayList<>();
      int n = 2 + rnd.nextInt(3);
      for (int j = 0; j < n; j++) {
        String row = row();
        List<String> one = new ArrayList<>();
        switch (rnd.nextInt(4)) {
          case 0 -> actions.add(randomPut(t, row, i, one));
          case 1 -> actions.add(randomDelete(t, row, one));
          case 2 -> {
            Get g = new Get(Bytes.toBytes(row));
            one.add("get " + row + " " + columns(t, g, null));
            actions.add(g);
          }
          default -> {
            String f = family(t);
            actions.add(new Increment(Bytes.toBytes(row)).addColumn(Bytes.toBytes(f),
                Bytes.toBytes("n"), 1));
            one.add("increment " + row + "/" + f + ":n");
          }
        }
        text.add(String.join(" ", one));
      }
      return new Attempt("batch " + t + " " + String.join("; ", text), true, c -> {
        Object[] results = new Object[actions.size()];
        try (Table tb = c.getTable(t)) {
          try {
            tb.batch(actions, results);
          } catch (Exception e) {
            // Each action's own outcome is in results.
          }
        }
        List<String> out = new ArrayList<>();
        for (Object r : results) {
          if (r instanceof Result res) {
            out.add(cells(res));
          } else if (r instanceof Throwable e) {
            out.add("{" + outcome(e).replace('\t', ' ') + "}");
          } else {
            out.add(String.valueOf(r));
          }
        }
        return String.join(" ", out);
      });
    }

    Attempt ddl(int i, String user) {
      TableName t = table();
      switch (rnd.nextInt(13)) {
        case 0: {
          String[] names = {World.P + "new", World.NS + ":new", "hbase:" + World.P + "new",
              World.T1.getNameAsString(), World.P + "new"};
          TableName n = TableName.valueOf(pick(names));
          return new Attempt("createTable " + n, true, c -> {
            c.getAdmin().createTable(TableDescriptorBuilder.newBuilder(n)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of("a")).build());
            return null;
          });
        }
        case 1: {
          TableName n = rnd.nextInt(5) == 0 ? TableName.valueOf("hbase:acl") : t;
          return new Attempt("disable+delete " + n, true, c -> {
            String d;
            try {
              c.getAdmin().disableTable(n);
              d = "ok";
            } catch (Throwable e) {
              d = outcome(e).replace('\t', ' ');
            }
            c.getAdmin().deleteTable(n);
            return "(disable " + d + ")";
          });
        }
        case 2:
          return new Attempt("disable+enable " + t, true, c -> {
            c.getAdmin().disableTable(t);
            c.getAdmin().enableTable(t);
            return null;
          });
        case 3: {
          boolean preserve = rnd.nextBoolean();
          TableName n = rnd.nextInt(5) == 0 ? TableName.valueOf("hbase:acl") : t;
          return new Attempt("disable+truncate " + n, true, c -> {
            String d;
            try {
              c.getAdmin().disableTable(n);
              d = "ok";
            } catch (Throwable e) {
              d = outcome(e).replace('\t', ' ');
            }
            c.getAdmin().truncateTable(n, preserve);
            return "(disable " + d + ")";
          });
        }
        case 4:
          return new Attempt("addColumnFamily " + t + " d", true, c -> {
            c.getAdmin().addColumnFamily(t, ColumnFamilyDescriptorBuilder.of("d"));
            return null;
          });
        case 5: {
          String f = pick(World.families(t));
          return new Attempt("deleteColumnFamily " + t + " " + f, true, c -> {
            c.getAdmin().deleteColumnFamily(t, Bytes.toBytes(f));
            return null;
          });
        }
        case 6:
          return new Attempt("modifyColumnFamily " + t + " a VERSIONS 3", true, c -> {
            c.getAdmin().modifyColumnFamily(t, ColumnFamilyDescriptorBuilder
                .newBuilder(Bytes.toBytes("a")).setMaxVersions(3).build());
            return null;
          });
        case 7: {
          String owner = rnd.nextBoolean() ? user : grantee(user);
          return new Attempt("modifyTable " + t + " OWNER " + (owner.equals(superuser) ? "SU"
              : owner), true, c -> {
                TableDescriptor d = c.getAdmin().getDescriptor(t);
                c.getAdmin().modifyTable(TableDescriptorBuilder.newBuilder(d)
                    .setOwnerString(owner).build());
                return null;
              });
        }
        case 8:
          return new Attempt("createNamespace " + World.P + "nsx", true, c -> {
            c.getAdmin().createNamespace(NamespaceDescriptor.create(World.P + "nsx").build());
            return null;
          });
        case 9: {
          String ns = rnd.nextBoolean() ? World.NS : World.P + "nsy";
          return new Attempt("deleteNamespace " + ns, true, c -> {
            c.getAdmin().deleteNamespace(ns);
            return null;
          });
        }
        case 10:
          return new Attempt("flush " + t, true, c -> {
            c.getAdmin().flush(t);
            return null;
          });
        case 11:
          return new Attempt("getDescriptor " + t, false, c -> {
            TreeSet<String> fams = new TreeSet<>();
            for (var f : c.getAdmin().getDescriptor(t).getColumnFamilies()) {
              fams.add(f.getNameAsString());
            }
            return fams.toString();
          });
        default:
          return new Attempt("modifyTable " + t + " MAX_FILESIZE", true, c -> {
            TableDescriptor d = c.getAdmin().getDescriptor(t);
            c.getAdmin().modifyTable(TableDescriptorBuilder.newBuilder(d)
                .setMaxFileSize(1L << 30).build());
            return null;
          });
      }
    }

    Attempt grant(String user) {
      String grantee = grantee(user);
      Permission perm = Grants.randomPermission(rnd, Grants.randomActions(rnd), false);
      String shown = grantee.equals(superuser) ? "SU" : grantee;
      String text = shown + "@" + Grants.scope(perm) + "=" + Grants.letters(perm);
      if (rnd.nextInt(3) == 0) {
        return new Attempt("revoke " + text, true, c -> {
          c.getAdmin().revoke(new UserPermission(grantee, perm));
          return null;
        });
      }
      boolean merge = rnd.nextBoolean();
      return new Attempt("grant " + text + (merge ? " merge" : ""), true, c -> {
        c.getAdmin().grant(new UserPermission(grantee, perm), merge);
        return null;
      });
    }

    static boolean ours(String name) {
      return name.startsWith(World.P) || name.startsWith("hbase:" + World.P)
          || name.equals("hbase:acl");
    }

    Attempt listing() {
      switch (rnd.nextInt(9)) {
        case 5:
          return new Attempt("listTableNamesByNamespace " + World.NS, false, c -> {
            TreeSet<String> out = new TreeSet<>();
            for (TableName n : c.getAdmin().listTableNamesByNamespace(World.NS)) {
              out.add(n.getNameAsString());
            }
            return out.toString();
          });
        case 6:
          return new Attempt("listTableDescriptorsByNamespace " + World.NS, false, c -> {
            TreeSet<String> out = new TreeSet<>();
            for (TableDescriptor d : c.getAdmin().listTableDescriptorsByNamespace(
                Bytes.toBytes(World.NS))) {
              out.add(d.getTableName().getNameAsString());
            }
            return out.toString();
          });
        case 7: {
          String ns = rnd.nextBoolean() ? World.NS : "default";
          return new Attempt("getNamespaceDescriptor " + ns, false, c -> {
            return c.getAdmin().getNamespaceDescriptor(ns).getName();
          });
        }
        case 8: {
          TableName t = table();
          return new Attempt("tableExists+isTableEnabled+getRegions " + t, false, c -> {
            Admin a = c.getAdmin();
            return a.tableExists(t) + " " + a.isTableEnabled(t) + " " + a.getRegions(t).size();
          });
        }
        case 0:
          return new Attempt("listTableNames", false, c -> {
            TreeSet<String> out = new TreeSet<>();
            for (TableName n : c.getAdmin().listTableNames()) {
              if (ours(n.getNameAsString())) {
                out.add(n.getNameAsString());
              }
            }
            return out.toString();
          });
        case 1:
          return new Attempt("listTableDescriptors", false, c -> {
            TreeSet<String> out = new TreeSet<>();
            for (TableDescriptor d : c.getAdmin().listTableDescriptors()) {
              if (ours(d.getTableName().getNameAsString())) {
                out.add(d.getTableName().getNameAsString());
              }
            }
            return out.toString();
          });
        case 2:
          return new Attempt("listNamespaceDescriptors", false, c -> {
            TreeSet<String> out = new TreeSet<>();
            for (NamespaceDescriptor d : c.getAdmin().listNamespaceDescriptors()) {
              String n = d.getName();
              if (n.startsWith(World.P) || n.equals("default") || n.equals("hbase")) {
                out.add(n);
              }
            }
            return out.toString();
          });
        default: {
          int k = rnd.nextInt(4);
          TableName t = table();
          GetUserPermissionsRequest req = k == 0 ? GetUserPermissionsRequest.newBuilder().build()
              : k == 1 ? GetUserPermissionsRequest.newBuilder(World.NS).build()
              : k == 2 ? GetUserPermissionsRequest.newBuilder(t).build()
              : GetUserPermissionsRequest.newBuilder(t).withFamily(Bytes.toBytes("a")).build();
          String scope = k == 0 ? "global" : k == 1 ? "@" + World.NS : k == 2 ? t.toString()
              : t + ":a";
          return new Attempt("getUserPermissions " + scope, false, c -> {
            TreeSet<String> out = new TreeSet<>();
            for (UserPermission p : c.getAdmin().getUserPermissions(req)) {
              if (p.getUser().startsWith(World.P) || p.getUser().equals(superuser)) {
                out.add(Grants.text(p, superuser));
              }
            }
            return out.toString();
          });
        }
      }
    }
  }
}
