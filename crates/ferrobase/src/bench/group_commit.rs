//! The group-commit benchmark (`ferrobase bench group-commit`): single-row puts of 100-byte
//! values from 1, 4 and 16 concurrent writers, at SYNC_WAL (`write(2)`) and FSYNC_WAL
//! (`write(2)` + `fdatasync` per group), on the real file system. It prints ops/s and per-put
//! p50/p99, and the puts per `fdatasync` that group commit achieved. Not a test: it asserts
//! nothing about time.

use super::{print_table, Row};
use anyhow::{Context, Result};
use ferrobase_engine::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Runs `writers` threads putting for about `run` each at `level` on a fresh engine in a new
/// directory under `dir` (no line pays for the dirty pages or flushes of the one before);
/// returns the table row.
fn measure(dir: &Path, writers: usize, level: Durability, run: Duration) -> Result<Row> {
    let tmp = tempfile::tempdir_in(dir)?;
    let engine = Engine::open(tmp.path(), EngineOptions::default())?;
    let table = "t";
    engine.admin().create_table(
        TableDescriptor::new(TableName::parse(table)?)
            .with_family(ColumnFamilyDescriptor::new("cf")),
    )?;
    let value = vec![b'v'; 100];
    let bytes_before = Metrics::get(&engine.metrics().bytes_written_wal);
    let syncs_before = Metrics::get(&engine.metrics().wal_syncs);
    let start = Instant::now();
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let t = engine.table(table)?;
            let value = value.clone();
            Ok(std::thread::spawn(move || -> Result<Vec<Duration>> {
                let mut lat = Vec::new();
                let begin = Instant::now();
                let mut i = 0u64;
                while begin.elapsed() < run {
                    let put = Put::new(format!("w{w:02}-{i:010}"))
                        .add_column("cf", "q", value.clone())
                        .durability(level);
                    let t0 = Instant::now();
                    t.put(put)?;
                    lat.push(t0.elapsed());
                    i += 1;
                }
                Ok(lat)
            }))
        })
        .collect::<Result<_>>()?;
    let mut latencies = Vec::new();
    for h in handles {
        latencies.extend(
            h.join()
                .map_err(|_| anyhow::anyhow!("a writer panicked"))??,
        );
    }
    let elapsed = start.elapsed();
    let wal_mib = (Metrics::get(&engine.metrics().bytes_written_wal) - bytes_before) as f64
        / f64::from(1 << 20);
    let syncs = Metrics::get(&engine.metrics().wal_syncs) - syncs_before;
    let note = if syncs == 0 {
        format!("{wal_mib:.1} MiB WAL, no fdatasync")
    } else {
        format!(
            "{wal_mib:.1} MiB WAL, {:.1} puts/fdatasync",
            latencies.len() as f64 / syncs as f64
        )
    };
    Ok(Row {
        workload: format!("{} writers, {}", writers, level.name()),
        ops: latencies.len(),
        elapsed,
        note,
        latencies,
    })
}

/// `ferrobase bench group-commit`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seconds each writer count runs.
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    seconds: f64,
    /// Where the scratch data directories go.
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

pub fn main(args: Args) -> Result<()> {
    let (secs, dir) = (args.seconds, Some(args.dir));
    let run = Duration::try_from_secs_f64(secs).context("--seconds takes a positive number")?;
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    println!(
        "ferrobase group-commit benchmark: single-row puts of 100 B, {secs} s per line, a fresh \
         engine per line under {}",
        dir.display()
    );
    let mut rows = Vec::new();
    for level in [Durability::SyncWal, Durability::FsyncWal] {
        for writers in [1, 4, 16] {
            rows.push(measure(&dir, writers, level, run)?);
        }
    }
    print_table(&mut rows);
    Ok(())
}
