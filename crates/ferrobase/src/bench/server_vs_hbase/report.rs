//! The two tables of `ferrobase bench server-vs-hbase`: ops/s with ratios, then server CPU per
//! operation.

use super::{Options, Runs, Sizes};

pub(super) fn med(v: &[f64]) -> (f64, f64, f64) {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match (v.first(), v.get(v.len() / 2), v.last()) {
        (Some(&lo), Some(&m), Some(&hi)) => (m, lo, hi),
        _ => (f64::NAN, f64::NAN, f64::NAN),
    }
}

pub(super) fn fmt_range(m: (f64, f64, f64)) -> String {
    if m.1 == m.2 {
        format!("{:.0}", m.0)
    } else {
        format!("{:.0} ({:.0}-{:.0})", m.0, m.1, m.2)
    }
}

pub(super) fn print_report(
    o: &Options,
    sizes: &Sizes,
    reps: usize,
    workloads: &[(&str, String)],
    results: &[(Runs, Runs)],
    start: (f64, Option<f64>),
    rss: (Option<f64>, Option<f64>),
) {
    println!(
        "{} client threads in one process (the Rust client's remote backend: Thrift1, binary \
         protocol, buffered transport, a connection per thread); {} rows of 100 bytes; \
         tall-narrow {} users x {}, wide {} rows x {} columns, files {} users x {}; {} \
         repetition(s) alternated, median (min-max) ops/s. Both durable to a process kill, \
         neither to power loss: ferrobase's WAL record is in the OS before the acknowledgement \
         (its default); HBase 2.6.1 standalone (one JVM, {}, local file system) hflushes its WAL \
         (SYNC_WAL) to the OS.{}\n",
        o.threads,
        sizes.rows,
        sizes.users,
        sizes.per_user,
        sizes.wide_rows,
        sizes.wide_columns,
        sizes.file_users,
        sizes.files_per_user,
        reps,
        match &o.hbase {
            Some(a) => format!("the gateway at {a}"),
            None => format!("{} heap", o.hbase_heap),
        },
        if o.quick {
            " Quick mode: sizes too small and JITs too cold to measure anything."
        } else {
            ""
        }
    );
    if o.async_prefetch {
        println!(
            "Full scans prefetch on both servers: the client asks for the next rows as each \
             batch arrives (Scan::async_prefetch, HBase's setAsyncPrefetch).\n"
        );
    }
    if o.buffered_load {
        println!(
            "Loads write through a BufferedMutator on both servers: its thread sends each batch \
             while the next is built (HBase's BufferedMutator).\n"
        );
    }
    println!(
        "| {:<38} | {:>24} | {:>24} | {:>8} |",
        "workload", "ferrobase ops/s", "Apache HBase ops/s", "ratio"
    );
    println!("|{:-<40}|{:->25}:|{:->25}:|{:->9}:|", "", "", "", "");
    for ((_, label), (f, h)) in workloads.iter().zip(results) {
        let fm = med(&f.iter().map(|r| r.0).collect::<Vec<_>>());
        let hm = med(&h.iter().map(|r| r.0).collect::<Vec<_>>());
        println!(
            "| {:<38} | {:>24} | {:>24} | {:>7.2}x |",
            label,
            fmt_range(fm),
            fmt_range(hm),
            fm.0 / hm.0
        );
    }
    let opt = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |x| format!("{x:.p$}"));
    let ratio = |f: Option<f64>, h: Option<f64>| match (f, h) {
        (Some(f), Some(h)) if f > 0.0 => format!("{:.2}x", h / f),
        _ => "-".into(),
    };
    println!(
        "| {:<38} | {:>24} | {:>24} | {:>8} |",
        "start to first answered call (s)",
        opt(Some(start.0), 2),
        opt(start.1, 2),
        ratio(Some(start.0), start.1)
    );
    println!(
        "| {:<38} | {:>24} | {:>24} | {:>8} |",
        "RSS after the loads (MiB)",
        opt(rss.0, 0),
        opt(rss.1, 0),
        ratio(rss.0, rss.1)
    );
    println!(
        "\nServer CPU time per operation (user + system, the whole server process; for HBase the \
         one JVM with its Thrift gateway, region server, master and ZooKeeper), median \
         microseconds:\n"
    );
    println!(
        "| {:<38} | {:>16} | {:>18} | {:>8} |",
        "workload", "ferrobase CPU µs", "Apache HBase CPU µs", "ratio"
    );
    println!("|{:-<40}|{:->17}:|{:->19}:|{:->9}:|", "", "", "", "");
    for ((_, label), (f, h)) in workloads.iter().zip(results) {
        let fc: Vec<f64> = f.iter().filter_map(|r| r.1).collect();
        let hc: Vec<f64> = h.iter().filter_map(|r| r.1).collect();
        let fm = (!fc.is_empty()).then(|| med(&fc).0);
        let hm = (!hc.is_empty()).then(|| med(&hc).0);
        println!(
            "| {:<38} | {:>16} | {:>18} | {:>8} |",
            label,
            opt(fm, cpu_digits(fm)),
            opt(hm, cpu_digits(hm)),
            ratio(fm, hm)
        );
    }
    println!(
        "\nIn the first table the last two rows' ratios are HBase / ferrobase (lower is better \
         there). CPU ratios are HBase / ferrobase."
    );
}

/// Decimals for a CPU time per operation: a batched load's few microseconds a row need two.
fn cpu_digits(us: Option<f64>) -> usize {
    match us {
        Some(x) if x < 100.0 => 2,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_with_range_takes_the_middle_run() {
        assert_eq!(med(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(fmt_range(med(&[5.0])), "5");
        assert_eq!(fmt_range(med(&[30.0, 10.0, 20.0])), "20 (10-30)");
        assert!(med(&[]).0.is_nan());
    }
}
