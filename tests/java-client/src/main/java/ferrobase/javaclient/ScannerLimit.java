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
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Holds scanners open on one connection until the server refuses one, and prints how many were
 * opened and the refusal's class and first line: ferrobase's {@code --max-scanners-per-connection}
 * as the client sees it (scripts/native-door-test.sh).
 *
 * <pre>ScannerLimit --bootstrap HOST:PORT --max N</pre>
 */
public final class ScannerLimit {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[1];
    int max = Integer.parseInt(args[3]);
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
    conf.set("hbase.client.bootstrap.servers", bootstrap);
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 100);
    TableName tn = TableName.valueOf("scanner_limit");
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(tn)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build());
      List<ResultScanner> open = new ArrayList<>();
      try (Table table = conn.getTable(tn)) {
        for (int i = 0; i < 10; i++) {
          table.put(new Put(Bytes.toBytes("r" + i)).addColumn(Bytes.toBytes("cf"),
              Bytes.toBytes("q"), Bytes.toBytes("v")));
        }
        String outcome = "no refusal";
        for (int i = 0; i <= max; i++) {
          try {
            ResultScanner s = table.getScanner(new Scan().setCaching(1));
            s.next();
            open.add(s);
          } catch (Exception e) {
            Throwable c = e;
            while (c.getCause() != null && !(c instanceof org.apache.hadoop.hbase.DoNotRetryIOException)) {
              c = c.getCause();
            }
            String msg = String.valueOf(c.getMessage());
            int nl = msg.indexOf('\n');
            outcome = c.getClass().getName() + ": " + (nl < 0 ? msg : msg.substring(0, nl));
            break;
          }
        }
        System.out.println("scanners held: " + open.size() + "; refused: " + outcome);
        for (ResultScanner s : open) {
          s.close();
        }
        ResultScanner again = table.getScanner(new Scan().setCaching(1));
        System.out.println("after closing them: " + (again.next() != null ? "a new scanner reads" : "empty"));
        again.close();
      }
      admin.disableTable(tn);
      admin.deleteTable(tn);
    }
  }
}
