package ferrobase.aclattack;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.security.access.NamespacePermission;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.TablePermission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;

/** Random grants and their text. */
final class Grants {
  private Grants() {}

  /** The attack's users; the superuser is the process's user. */
  static final String[] USERS = {World.P + "u0", World.P + "u1", World.P + "u2", World.P + "u3"};

  /** A grant as text: {@code user@scope=ACTIONS}, the superuser named {@code SU}. */
  static String text(UserPermission p, String superuser) {
    String user = p.getUser().equals(superuser) ? "SU" : p.getUser();
    return user + "@" + scope(p.getPermission()) + "=" + letters(p.getPermission());
  }

  static String scope(Permission perm) {
    if (perm instanceof TablePermission tp) {
      StringBuilder s = new StringBuilder(tp.getTableName().getNameAsString());
      if (tp.getFamily() != null) {
        s.append(':').append(Bytes.toStringBinary(tp.getFamily()));
        if (tp.getQualifier() != null) {
          s.append(':').append(Bytes.toStringBinary(tp.getQualifier()));
        }
      }
      return s.toString();
    }
    if (perm instanceof NamespacePermission np) {
      return "@" + np.getNamespace();
    }
    return "global";
  }

  static String letters(Permission perm) {
    TreeSet<Integer> order = new TreeSet<>();
    for (Permission.Action a : perm.getActions()) {
      order.add("RWXCA".indexOf(a.code()));
    }
    StringBuilder s = new StringBuilder();
    for (int i : order) {
      s.append("RWXCA".charAt(i));
    }
    return s.toString();
  }

  /** Random non-empty actions, READ and WRITE most often. */
  static String randomActions(Random rnd) {
    String[] common = {"R", "W", "RW", "R", "W", "RW", "X", "C", "A", "RC", "WA"};
    if (rnd.nextInt(4) > 0) {
      return common[rnd.nextInt(common.length)];
    }
    StringBuilder s = new StringBuilder();
    for (char c : "RWXCA".toCharArray()) {
      if (rnd.nextBoolean()) {
        s.append(c);
      }
    }
    return s.length() == 0 ? "R" : s.toString();
  }

  /** A random scope's permission with {@code actions}. */
  static Permission randomPermission(Random rnd, String actions, boolean epoch) {
    Permission.Action[] a = World.actions(actions);
    int k = rnd.nextInt(20);
    if (k == 0) {
      return Permission.newBuilder().withActions(a).build();
    }
    if (k <= 2) {
      String ns = rnd.nextBoolean() ? "default" : World.NS;
      return Permission.newBuilder(ns).withActions(a).build();
    }
    if (k == 3 && epoch) {
      // ferrobase stores no grant on hbase:acl itself (its row holds the global grants).
      return Permission.newBuilder("hbase").withActions(a).build();
    }
    TableName t = k == 3 ? TableName.valueOf("hbase:acl")
        : World.TABLES[rnd.nextInt(World.TABLES.length)];
    int depth = rnd.nextInt(3);
    if (depth == 0 || t.getNamespaceAsString().equals("hbase")) {
      return Permission.newBuilder(t).withActions(a).build();
    }
    String[] fams = World.families(t);
    String f = fams[rnd.nextInt(fams.length)];
    if (depth == 1) {
      return Permission.newBuilder(t).withFamily(Bytes.toBytes(f)).withActions(a).build();
    }
    String q = rnd.nextBoolean() ? "q1" : (rnd.nextBoolean() ? "q2" : "n");
    return Permission.newBuilder(t).withFamily(Bytes.toBytes(f)).withQualifier(Bytes.toBytes(q))
        .withActions(a).build();
  }

  /** An epoch's grants: one to four for each user. */
  static List<UserPermission> randomEpoch(Random rnd) {
    List<UserPermission> out = new ArrayList<>();
    for (String u : USERS) {
      int n = 1 + rnd.nextInt(4);
      for (int i = 0; i < n; i++) {
        out.add(new UserPermission(u, randomPermission(rnd, randomActions(rnd), true)));
      }
    }
    return out;
  }
}
