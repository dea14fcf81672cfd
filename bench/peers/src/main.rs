//! ferrobase's engine beside fjall and RocksDB: the same cells, the same deterministic stream,
//! the same run. Each engine and repetition runs in a child process of its own (so peak RSS and
//! bytes written are that engine's), engines alternated, medians with min–max. Prints markdown
//! tables. Usage:
//!
//! ```text
//! cargo run --release --manifest-path bench/peers/Cargo.toml [--features rocksdb] -- \
//!     [--cells N] [--reps R] [--quick] [--engines a,b] [--dir DIR] [--only NAME]
//!     [--gets N] [--scans N] [--ycsb N]
//! ```
//!
//! `--gets`/`--scans` set the calls per warm read workload and `--ycsb` the operations per YCSB
//! workload (longer runs to attach a profiler to).
//! `bash scripts/bench-peers.sh` runs the full program with RocksDB and rewrites
//! `docs/performance.md`.

mod ferro;
#[cfg(feature = "fjall")]
mod fjall_store;
mod report;
#[cfg(feature = "rocksdb")]
mod rocks;
mod store;
mod stream;
mod workload;

use anyhow::{bail, Context, Result};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use workload::Scale;

struct Args {
    scale: Scale,
    reps: usize,
    engines: Vec<String>,
    dir: PathBuf,
    child: Option<String>,
}

fn parse_args() -> Result<Args> {
    let mut cells: u64 = 1_000_000;
    let mut reps = 3;
    let mut quick = false;
    let mut engines: Vec<String> = store::engines().iter().map(|s| s.to_string()).collect();
    let mut dir = std::env::temp_dir();
    let mut child = None;
    let mut gets: Option<usize> = None;
    let mut scans: Option<usize> = None;
    let mut ycsb: Option<usize> = None;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    let value = |it: &mut std::slice::Iter<String>, name: &str| -> Result<String> {
        it.next()
            .cloned()
            .with_context(|| format!("{name} needs a value"))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cells" => cells = value(&mut it, a)?.parse()?,
            "--reps" => reps = value(&mut it, a)?.parse()?,
            "--quick" => quick = true,
            "--engines" => engines = value(&mut it, a)?.split(',').map(str::to_string).collect(),
            "--dir" => dir = value(&mut it, a)?.into(),
            "--child" => child = Some(value(&mut it, a)?),
            "--gets" => gets = Some(value(&mut it, a)?.parse()?),
            "--scans" => scans = Some(value(&mut it, a)?.parse()?),
            "--ycsb" => ycsb = Some(value(&mut it, a)?.parse()?),
            "--only" => {
                let _ = workload::ONLY.set(value(&mut it, a)?);
            }
            other => bail!("unknown option {other}; see the comment at the top of main.rs"),
        }
    }
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
    };
    Ok(Args {
        scale,
        reps,
        engines,
        dir,
        child,
    })
}

fn main() -> Result<()> {
    ferrobase_engine::allocator::tune();
    let args = parse_args()?;
    if let Some(engine) = &args.child {
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
            if !status.success() {
                bail!("{engine} run {} failed: {status}", rep + 1);
            }
            runs.push(run);
        }
    }
    report::print(&args.engines, &runs, args.scale, args.reps);
    Ok(())
}
