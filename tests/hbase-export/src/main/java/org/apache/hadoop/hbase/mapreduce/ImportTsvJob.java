package org.apache.hadoop.hbase.mapreduce;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Job;

/**
 * Runs HBase's own ImportTsv job and returns its "Bad Lines" counter. In ImportTsv's package only
 * because its job factory is package-visible (ImportTsv.run would exit without the counter); the
 * job is HBase's, unchanged.
 */
public final class ImportTsvJob {
  private ImportTsvJob() {
  }

  /** Loads INPUT into TABLE with the -D properties already in conf; returns the bad lines. */
  public static long run(Configuration conf, String table, String input) throws Exception {
    Job job = ImportTsv.createSubmittableJob(conf, new String[] {table, input});
    if (!job.waitForCompletion(false)) {
      throw new IOException("HBase ImportTsv failed");
    }
    return job.getCounters().findCounter("ImportTsv", "Bad Lines").getValue();
  }
}
