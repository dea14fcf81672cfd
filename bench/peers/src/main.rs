//! ferrobase's engine beside fjall and RocksDB: the same cells, the same deterministic stream,
//! the same run. Each engine and repetition runs in a child process of its own (so peak RSS and
//! bytes written are that engine's), engines alternated, medians with min–max. Prints markdown
//! tables. Usage:
//!
//! ```text
//! cargo run --release --manifest-path bench/peers/Cargo.toml [--features rocksdb] -- \
//!     [--cells N] [--reps R] [--quick] [--engines a,b] [--dir DIR] [--only NAME]
//!     [--gets N] [--scans N] [--ycsb N] [--block-cache BYTES] [--memory-limit BYTES]
//! ```
//!
//! The large scale, data larger than memory: `--cells 5000000 --block-cache 104857600
//! --memory-limit 1073741824` (5 GB of 1 KiB cells, a block cache of 2 % of it, each engine's
//! process and its page cache held to 1 GiB by a memory cgroup).
//!
//! `--gets`/`--scans` set the calls per warm read workload and `--ycsb` the operations per YCSB
//! workload (longer runs to attach a profiler to).
//! `bash scripts/bench-peers.sh` runs the full program with RocksDB and rewrites
//! `docs/performance.md`.

mod cgroup;
mod ferro;
#[cfg(feature = "fjall")]
mod fjall_store;
mod report;
#[cfg(feature = "rocksdb")]
mod rocks;
mod store;
mod stream;
mod workload;

use anyhow::{bail, Result};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use workload::Scale;

/// ferrobase's engine beside fjall and RocksDB: the same cells, the same deterministic stream,
/// the same run; prints markdown tables.
#[derive(clap::Parser, Debug)]
#[command(name = "peers", version)]
struct Cli {
    /// Cells written (rounded up to a thousand).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    cells: u64,
    /// Repetitions of every engine (medians with min-max).
    #[arg(long, value_name = "R", default_value_t = 3)]
    reps: usize,
    /// A short run: at most 20,000 cells, one repetition, fewer calls.
    #[arg(long)]
    quick: bool,
    /// The engines to run, comma-separated [default: every engine of this build].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    engines: Vec<String>,
    /// Where the engines' scratch directories go [default: the system's temporary directory].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Run one engine in this process (how the parent runs each engine in a child).
    #[arg(long, value_name = "ENGINE", hide = true)]
    child: Option<String>,
    /// Calls per warm read workload [default: 50000; 2000 with --quick].
    #[arg(long, value_name = "N")]
    gets: Option<usize>,
    /// Scans per warm scan workload [default: 5000; 200 with --quick].
    #[arg(long, value_name = "N")]
    scans: Option<usize>,
    /// Operations per YCSB workload [default: 50000; 2000 with --quick].
    #[arg(long, value_name = "N")]
    ycsb: Option<usize>,
    /// Run only the workloads whose names contain one of these comma-separated parts (and load
    /// only the data sets they need).
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// ferrobase's memory budget in bytes (its memstores get 0.4 of it; the block cache is the
    /// run's, as the peers') [default: the engine's, 640 MiB].
    #[arg(long, value_name = "BYTES")]
    ferrobase_memory_budget: Option<usize>,
    /// ferrobase's memstore chunk size in bytes (0: cells stay in the buffers they came in)
    /// [default: the engine's, 2 MiB].
    #[arg(long, value_name = "BYTES")]
    ferrobase_memstore_chunk_bytes: Option<usize>,
    /// ferrobase's minor compactions choose as HBase's exploring policy does (the engine's
    /// default) instead of by size tiers (`CompactionOptions::tiers`, on in this program).
    #[arg(long)]
    ferrobase_hbase_selection: bool,
    /// List ferrobase's flushes and compactions on stderr when each data set is done (kind,
    /// files and bytes in and out, duration, how they ended).
    #[arg(long)]
    ferrobase_jobs: bool,
    /// Print RocksDB's compaction statistics (`rocksdb.stats`: bytes flushed and compacted per
    /// level, the WAL's bytes) on stderr when each data set is done.
    #[arg(long)]
    rocksdb_stats: bool,
    /// Fewest files of one size tier ferrobase's minor compactions merge
    /// (`SizeTiers::min_files`) [default: the engine's].
    #[arg(long, value_name = "N")]
    ferrobase_tier_min_files: Option<usize>,
    /// Block cache of the warm workloads in bytes, every engine's [default: 256 MiB].
    #[arg(long, value_name = "BYTES", default_value_t = workload::WARM_CACHE)]
    block_cache: usize,
    /// Run each engine's process in a memory cgroup of this many bytes, which its page cache
    /// counts against too (data larger than memory on a machine that has more): cgroup v1's
    /// `memory.limit_in_bytes` or v2's `memory.max`; needs root.
    #[arg(long, value_name = "BYTES")]
    memory_limit: Option<u64>,
}

struct Args {
    scale: Scale,
    reps: usize,
    engines: Vec<String>,
    dir: PathBuf,
    child: Option<String>,
}

fn parse_args() -> Args {
    let cli = <Cli as clap::Parser>::parse();
    let (mut cells, mut reps, quick) = (cli.cells, cli.reps, cli.quick);
    let engines = if cli.engines.is_empty() {
        store::engines().iter().map(|s| s.to_string()).collect()
    } else {
        cli.engines
    };
    if let Some(budget) = cli.ferrobase_memory_budget {
        let _ = ferro::MEMORY_BUDGET.set(budget);
    }
    if let Some(chunk) = cli.ferrobase_memstore_chunk_bytes {
        let _ = ferro::MEMSTORE_CHUNK_BYTES.set(chunk);
    }
    if cli.ferrobase_hbase_selection {
        ferro::HBASE_SELECTION.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    if let Some(n) = cli.ferrobase_tier_min_files {
        let _ = ferro::TIER_MIN_FILES.set(n);
    }
    if cli.ferrobase_jobs {
        ferro::LIST_JOBS.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    #[cfg(feature = "rocksdb")]
    if cli.rocksdb_stats {
        rocks::PRINT_STATS.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    if let Some(only) = cli.only {
        let _ = workload::ONLY.set(only);
    }
    let (gets, scans, ycsb) = (cli.gets, cli.scans, cli.ycsb);
    if quick {
        cells = cells.min(20_000);
        reps = 1;
    }
    cells = cells.div_ceil(1000).max(1) * 1000;
    let scale = Scale {
        cells,
        small_cells: cells * 10,
        gets: gets.unwrap_or(if quick { 2_000 } else { 50_000 }),
        scans: scans.unwrap_or(if quick { 200 } else { 5_000 }),
        ycsb_ops: ycsb.unwrap_or(if quick { 2_000 } else { 50_000 }),
        cold_ops: if quick { 200 } else { 5_000 },
        fsync_puts: if quick { 20 } else { 500 },
        warm_cache: cli.block_cache,
        memory_limit: cli.memory_limit,
    };
    Args {
        scale,
        reps,
        engines,
        dir: cli.dir.unwrap_or_else(std::env::temp_dir),
        child: cli.child,
    }
}

fn main() -> Result<()> {
    ferrobase_engine::allocator::tune();
    let args = parse_args();
    if let Some(engine) = &args.child {
        let _cgroup = match args.scale.memory_limit {
            Some(limit) => Some(cgroup::Limited::enter(limit)?),
            None => None,
        };
        let root = tempfile::tempdir_in(&args.dir)?;
        return workload::run_all(engine, root.path(), args.scale);
    }
    let exe = std::env::current_exe()?;
    let mut runs: Vec<report::Run> = Vec::new();
    for rep in 0..args.reps {
        for engine in &args.engines {
            eprintln!("rep {}/{}: {engine}", rep + 1, args.reps);
            let mut child = Command::new(&exe)
                .args(std::env::args().skip(1))
                .args(["--child", engine])
                .stdout(Stdio::piped())
                .spawn()?;
            let mut run = report::Run::new(engine);
            for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
                run.add_line(&line?);
            }
            let status = child.wait()?;
            if args.scale.memory_limit.is_some() {
                cgroup::remove_left_by(child.id());
            }
            if !status.success() {
                bail!("{engine} run {} failed: {status}", rep + 1);
            }
            runs.push(run);
        }
    }
    report::print(&args.engines, &runs, args.scale, args.reps);
    Ok(())
}
