//! `ferrobase bench regions`: what a region costs at a restart. For each size (default 100,
//! 1,000 and 10,000 regions) it builds a data directory (`ferrobase_engine::bulk`: half the
//! regions in tables of one region, half in tables pre-split into 50; two families; two files
//! per family and region), then in a fresh process opens it, answers a first Get, and reports
//! the open time, the first call's time and the resident memory, with the cost per region, and
//! the time of one structural change (a put and a flush of one region: a manifest write).
//!
//! `--build DIR --regions N` only builds (the directory of `scripts/many-regions-test.sh`);
//! `--measure DIR` is the child's part.

use anyhow::{bail, Context, Result};
use ferrobase_engine::bulk::{build_data_dir, BulkTable};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Get, SplitAlgorithm, TableDescriptor, TableName,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Regions per pre-split table.
const PRE_SPLIT: usize = 50;
/// Block files per family and region.
const FILES: usize = 2;
/// Rows per block file.
const ROWS: usize = 20;

/// `ferrobase bench regions`'s options: a table of restart time and memory, or one data
/// directory built (`--build`) or measured (`--measure`, how the table's rows are taken).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Region counts, comma-separated (one with --build).
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',',
          default_values_t = [100usize, 1000, 10_000])]
    regions: Vec<usize>,
    /// Where the scratch data directories go [default: the system's temporary directory].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Build one data directory of --regions N regions here and stop.
    #[arg(long, value_name = "DIR", conflicts_with = "measure")]
    build: Option<PathBuf>,
    /// Open this data directory and print its restart time and memory.
    #[arg(long, value_name = "DIR")]
    measure: Option<PathBuf>,
}

pub fn main(args: Args) -> Result<()> {
    if let Some(d) = &args.measure {
        return measure(d);
    }
    let (sizes, dir, build) = (args.regions, args.dir, args.build);
    if let Some(d) = build {
        let &[n] = sizes.as_slice() else {
            bail!("--build takes one --regions N");
        };
        let started = Instant::now();
        let (tables, files) = build_dir(&d, n)?;
        println!(
            "built {} with {n} regions in {tables} tables, {files} block files, in {:.1} s",
            d.display(),
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let tmp = match &dir {
        Some(d) => tempfile::tempdir_in(d)?,
        None => tempfile::tempdir()?,
    };
    println!(
        "| {:>8} | {:>7} | {:>7} | {:>8} | {:>9} | {:>13} | {:>8} | {:>16} | {:>14} | {:>29} |",
        "regions",
        "tables",
        "files",
        "build s",
        "open ms",
        "first call ms",
        "RSS MiB",
        "open, RSS/region",
        "1-region flush",
        "flush ms, CPU ms (mean of 50)"
    );
    println!(
        "|{:->10}|{:->9}|{:->9}|{:->10}|{:->11}|{:->15}|{:->10}|{:->18}|{:->16}|{:->31}|",
        "", "", "", "", "", "", "", "", "", ""
    );
    let mut base: Option<(usize, f64, f64)> = None;
    for n in sizes {
        let d = tmp.path().join(format!("r{n}"));
        let started = Instant::now();
        let (tables, files) = build_dir(&d, n)?;
        let build_s = started.elapsed().as_secs_f64();
        let out = std::process::Command::new(std::env::current_exe()?)
            .args(["bench", "regions", "--measure"])
            .arg(&d)
            .output()?;
        if !out.status.success() {
            bail!(
                "measuring {n} regions: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let line = String::from_utf8_lossy(&out.stdout);
        let f: Vec<f64> = line
            .split_whitespace()
            .map(|w| w.parse().unwrap_or(0.0))
            .collect();
        let (open_ms, first_ms, rss_mib, flush_ms) = (f[0], f[1], f[2], f[3]);
        let (many_ms, many_cpu_ms) = (f[4], f[5]);
        // The cost of a region: the slope from the smallest size measured.
        let per = match base {
            Some((n0, open0, rss0)) if n > n0 => format!(
                "{:.0} µs, {:.1} KiB",
                (open_ms - open0) * 1000.0 / (n - n0) as f64,
                (rss_mib - rss0) * 1024.0 / (n - n0) as f64
            ),
            _ => "-".into(),
        };
        if base.is_none() {
            base = Some((n, open_ms, rss_mib));
        }
        println!(
            "| {n:>8} | {tables:>7} | {files:>7} | {build_s:>8.1} | {open_ms:>9.0} | {first_ms:>13.1} | {rss_mib:>8.1} | {per:>16} | {flush_ms:>14.1} | {:>29} |",
            format!("{many_ms:.1}, {many_cpu_ms:.1}")
        );
        std::fs::remove_dir_all(&d)?;
    }
    Ok(())
}

/// Builds a directory of `regions` regions; returns its tables and block files.
pub fn build_dir(dir: &Path, regions: usize) -> Result<(usize, u64)> {
    if dir.join("MANIFEST").exists() {
        bail!("{} already holds a data directory", dir.display());
    }
    let table = |name: String, regions: usize| -> Result<BulkTable> {
        let descriptor = TableDescriptor::new(TableName::parse(&name)?)
            .with_family(ColumnFamilyDescriptor::new("cf"))
            .with_family(ColumnFamilyDescriptor::new("f2"));
        let split_keys = if regions > 1 {
            SplitAlgorithm::HexStringSplit.split_keys(regions)?
        } else {
            Vec::new()
        };
        Ok(BulkTable {
            descriptor,
            split_keys,
        })
    };
    let mut tables = Vec::new();
    let split_tables = regions / 2 / PRE_SPLIT;
    for i in 0..split_tables {
        tables.push(table(format!("split{i:05}"), PRE_SPLIT)?);
    }
    for i in 0..regions - split_tables * PRE_SPLIT {
        tables.push(table(format!("plain{i:05}"), 1)?);
    }
    let files = build_data_dir(dir, &tables, FILES, ROWS)?;
    Ok((tables.len(), files))
}

/// The child's part: opens `dir`, answers one Get, prints open ms, first call ms, RSS MiB.
fn measure(dir: &Path) -> Result<()> {
    let started = Instant::now();
    let engine = Engine::open(dir, EngineOptions::default())?;
    let open_ms = started.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let tables = engine.admin().list_tables()?;
    let last = tables.last().context("no table")?;
    let t = engine.table(&last.to_string())?;
    let got = t.get(&Get::new("-f0-r000003"))?;
    let first_ms = started.elapsed().as_secs_f64() * 1000.0;
    if got.cells.is_empty() {
        bail!("the first Get found nothing in {last}");
    }
    let rss = rss_mib();
    // A structural change: a put and a flush of one region (a manifest write).
    t.put(ferrobase_engine::Put::new("-bench").add_column("cf", "q", "v"))?;
    let started = Instant::now();
    engine.admin().flush(&last.to_string())?;
    let flush_ms = started.elapsed().as_secs_f64() * 1000.0;
    // Then 50 more, each of another table's region: wall and CPU time (the process's, all
    // threads) per flush.
    const MANY: usize = 50;
    let (started, cpu) = (Instant::now(), cpu_ms());
    for name in tables.iter().take(MANY) {
        let t = engine.table(&name.to_string())?;
        t.put(ferrobase_engine::Put::new("-bench").add_column("cf", "q", "v"))?;
        engine.admin().flush(&name.to_string())?;
    }
    let n = tables.len().clamp(1, MANY) as f64;
    let many_ms = started.elapsed().as_secs_f64() * 1000.0 / n;
    let many_cpu_ms = (cpu_ms() - cpu) / n;
    println!("{open_ms:.1} {first_ms:.2} {rss:.1} {flush_ms:.2} {many_ms:.2} {many_cpu_ms:.2}");
    Ok(())
}

/// This process's CPU time so far (user and system, all threads), in ms (`/proc/self/stat`,
/// in clock ticks of 10 ms).
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name (which may hold spaces) from its closing ')'.
            let rest = &s[s.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
            Some(ticks * 10.0)
        })
        .unwrap_or(0.0)
}

/// This process's resident memory (`VmRSS`), in MiB.
pub fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}
