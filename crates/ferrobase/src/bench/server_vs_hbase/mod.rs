//! `ferrobase bench server-vs-hbase`: `ferrobase serve` beside Apache HBase 2.6.1's Thrift1
//! gateway through the Rust client's remote backend, N client threads, in the same run.
//!
//! The workloads, data and seed queries are those of `tests/bench/server_vs_hbase.py` (the
//! happybase variant): loads in batches of 100, gets, 100-row scans, the tall-narrow inbox's
//! newest 100 records of a user, a wide row's newest 100 columns (ColumnPaginationFilter) and the
//! file search (a user's month with two SingleColumnValueFilters). Each workload runs on both
//! servers alternately, `--reps` times; the table shows medians with min-max, then the server
//! process's CPU time per operation (from `/proc/PID/stat`).
//!
//! Durability is the same on both: ferrobase acknowledges a write once its WAL record is in the
//! OS (its default); HBase standalone (FSHLog on the local file system, SYNC_WAL) hflushes its
//! WAL to the OS before the acknowledgement. Both survive a process kill, neither a power loss.
//!
//! Without `--hbase HOST:PORT` HBase is started here by `scripts/hbase-oracle.sh` (run from the
//! current directory, the repository's root) as an instance of its own in `target/hbase-bench`
//! with `HBASE_ORACLE_PROFILE=bench`, and stopped at the end. Linux only (`/proc`).
mod report;
mod servers;

use super::Rng;
use anyhow::{anyhow, bail, Context, Result};
use ferrobase_client::{BufferedMutatorParams, Connection};
use ferrobase_engine::{Bytes, ColumnFamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use report::print_report;
use servers::{cpu_seconds, oracle, rss_mib, settle, start_ferrobase, start_hbase};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LONG_MAX: i64 = i64::MAX;
const BASE_TS: i64 = 1_700_000_000_000;
const FILE_FILTER: &[u8] =
    b"SingleColumnValueFilter('f', 'name', =, 'binaryprefix:show', true, true) AND \
SingleColumnValueFilter('f', 'category', =, 'binary:variety', true, true)";

/// The data set's sizes (the Python variant's, for the same figures).
#[derive(Clone)]
struct Sizes {
    prefix: String,
    rows: usize,
    users: usize,
    per_user: usize,
    wide_rows: usize,
    wide_columns: usize,
    file_users: usize,
    files_per_user: usize,
    queries: usize,
    /// Rows per load batch, per bulk scan and per `scannerGetList` of it.
    chunk: usize,
    /// Full scans ask for their next rows as each batch arrives (`--async-prefetch`).
    prefetch: bool,
    /// Loads write through a `BufferedMutator` (`--buffered-load`).
    buffered: bool,
}

impl Sizes {
    fn new(quick: bool, rows: usize, chunk: usize) -> Sizes {
        Sizes {
            prefix: format!("rbench{}", std::process::id()),
            rows: if rows > 0 {
                rows
            } else if quick {
                2000
            } else {
                50_000
            },
            users: if quick { 10 } else { 100 },
            per_user: if quick { 150 } else { 300 },
            wide_rows: if quick { 5 } else { 50 },
            wide_columns: if quick { 200 } else { 1000 },
            file_users: if quick { 20 } else { 200 },
            files_per_user: if quick { 60 } else { 120 },
            queries: if quick { 40 } else { 2000 },
            chunk,
            prefetch: false,
            buffered: false,
        }
    }

    fn table(&self, name: &str) -> String {
        format!("{}_{name}", self.prefix)
    }
}

fn uid(u: usize) -> Vec<u8> {
    format!("{u:08}").into_bytes()
}

fn tall_row(u: usize, ts: i64) -> Vec<u8> {
    let mut r = uid(u);
    r.extend_from_slice(&(LONG_MAX - ts).to_be_bytes());
    r
}

fn file_day(i: usize) -> String {
    let (month, day) = (1 + (i * 3 / 28) % 12, 1 + (i * 3) % 28);
    format!("2012{month:02}{day:02}")
}

fn bench_row(i: usize) -> String {
    format!("row{i:08}")
}

/// The workloads: (kind, label with `{chunk}` for the rows of a load batch and of a scan).
const WORKLOADS: [(&str, &str); 7] = [
    ("load", "load (rows, batches of {chunk})"),
    ("get", "get"),
    ("scan", "scan {chunk} rows"),
    ("full", "full scan (rows, {chunk} a call)"),
    ("tall", "tall-narrow: newest 100 of a user"),
    ("wide", "wide row: newest 100 columns"),
    ("files", "file search: range + 2 value filters"),
];

/// A workload's label for a run with `chunk` rows a load batch and a scan.
fn label(template: &str, chunk: usize) -> String {
    template.replace("{chunk}", &chunk.to_string())
}

/// All results of a scan, fetched `chunk` rows a call.
fn scan_all(
    t: &ferrobase_client::Table,
    scan: Scan,
    filter: Option<&[u8]>,
    chunk: usize,
) -> Result<usize> {
    let mut s = t.scanner(scan, filter)?;
    let mut n = 0;
    loop {
        let got = s.next_batch(chunk)?;
        if got.is_empty() {
            return Ok(n);
        }
        n += got.len();
    }
}

/// One client thread's share of a workload: (operations, elapsed after connecting).
fn worker(
    url: &str,
    kind: &str,
    thread: usize,
    threads: usize,
    sizes: &Sizes,
) -> Result<(usize, Duration)> {
    let conn = Connection::open(url)?;
    let mut rnd = Rng(0x9E37_79B9_7F4A_7C15 ^ ((thread as u64 + 1) * 7919));
    let mut pick = |n: usize| (rnd.next() % n.max(1) as u64) as usize;
    let mine = |total: usize| (thread..total).step_by(threads).count();
    let start = Instant::now();
    let mut n = 0;
    match kind {
        "load" => {
            let t = conn.table(&sizes.table("bench"));
            // One family, qualifier and value buffer shared by every put (no copy per row).
            let (family, qualifier) = (Bytes::from_static(b"cf"), Bytes::from_static(b"q"));
            let value = Bytes::from(vec![b'v'; 100]);
            let rows: Vec<usize> = (thread..sizes.rows).step_by(threads).collect();
            let put = |i: usize| {
                // An exact-size row buffer: held as is, with no reference count.
                Put::new(bench_row(i).into_bytes().into_boxed_slice()).add_cell(
                    family.clone(),
                    qualifier.clone(),
                    value.clone(),
                )
            };
            if sizes.buffered {
                // `chunk` rows a batch, written by the mutator's thread while this one builds
                // the next (HBase's PerformanceEvaluation writes through a BufferedMutator too).
                let params = BufferedMutatorParams::default()
                    .write_buffer_size(usize::MAX)
                    .max_mutations(sizes.chunk);
                let mut m = t.buffered_mutator(params)?;
                for &i in &rows {
                    m.put(put(i))?;
                }
                m.close()?;
                n = rows.len();
            } else {
                for chunk in rows.chunks(sizes.chunk) {
                    let puts = chunk.iter().map(|&i| put(i)).collect();
                    t.put_all(puts)?;
                    n += chunk.len();
                }
            }
        }
        "get" => {
            let t = conn.table(&sizes.table("bench"));
            for _ in 0..mine(sizes.rows) {
                let r = t.get(Get::new(bench_row(pick(sizes.rows))), None)?;
                if r.cells.is_empty() {
                    bail!("get: row missing");
                }
                n += 1;
            }
        }
        "scan" => {
            let t = conn.table(&sizes.table("bench"));
            let chunk = sizes.chunk;
            for _ in 0..mine((sizes.rows / 100).max(threads)) {
                let start_row = bench_row(pick(sizes.rows - chunk));
                let scan = Scan::new()
                    .with_start_row(start_row)
                    .limit(chunk)
                    .caching(chunk);
                let got = scan_all(&t, scan, None, chunk)?;
                if got != chunk {
                    bail!("scan: {got} rows, not {chunk}");
                }
                n += 1;
            }
        }
        "full" => {
            // Each thread reads its share of the table's rows, `chunk` a call: a bulk read
            // (an export, a copy, a batch job), counted in rows.
            let t = conn.table(&sizes.table("bench"));
            let (lo, hi) = (
                sizes.rows * thread / threads,
                sizes.rows * (thread + 1) / threads,
            );
            let scan = Scan::new()
                .with_start_row(bench_row(lo))
                .with_stop_row(bench_row(hi))
                .caching(sizes.chunk)
                .async_prefetch(sizes.prefetch);
            n = scan_all(&t, scan, None, sizes.chunk)?;
            if n != hi - lo {
                bail!("full scan: {n} rows, not {}", hi - lo);
            }
        }
        "tall" => {
            let t = conn.table(&sizes.table("tall"));
            for _ in 0..mine(sizes.queries) {
                let scan = Scan::new()
                    .with_row_prefix(uid(pick(sizes.users)))
                    .limit(100)
                    .caching(100);
                let got = scan_all(&t, scan, None, 100)?;
                if got != 100 {
                    bail!("tall-narrow: {got} rows, not 100");
                }
                n += 1;
            }
        }
        "wide" => {
            let t = conn.table(&sizes.table("wide"));
            for _ in 0..mine(sizes.queries) {
                let r = uid(pick(sizes.wide_rows));
                let mut stop = r.clone();
                stop.push(0);
                let scan = Scan::new()
                    .with_start_row(r)
                    .with_stop_row(stop)
                    .caching(100);
                let mut s = t.scanner(scan, Some(b"ColumnPaginationFilter(100, 0)"))?;
                let got = s.next_batch(100)?;
                if got.len() != 1 || got[0].cells.len() != 100 || !s.next_batch(100)?.is_empty() {
                    bail!("wide row: not one row of 100 columns");
                }
                n += 1;
            }
        }
        "files" => {
            let t = conn.table(&sizes.table("files"));
            let months = 12.min(1 + (sizes.files_per_user - 1) * 3 / 28);
            for _ in 0..mine(sizes.queries) {
                let user = pick(sizes.file_users);
                let month = 1 + pick(months);
                let scan = Scan::new()
                    .with_start_row(format!("{user:06}2012{month:02}01"))
                    .with_stop_row(format!("{user:06}2012{:02}01", month + 1))
                    .caching(100);
                if scan_all(&t, scan, Some(FILE_FILTER), 100)? == 0 {
                    bail!("file search: nothing for user {user} month {month}");
                }
                n += 1;
            }
        }
        other => bail!("unknown workload {other}"),
    }
    Ok((n, start.elapsed()))
}

/// One run of a workload on one server: (ops/s, server CPU µs per op when its pid is known).
fn run(
    url: &str,
    pid: Option<u32>,
    kind: &str,
    threads: usize,
    sizes: &Sizes,
) -> Result<(f64, Option<f64>)> {
    let cpu0 = pid.map(cpu_seconds).transpose()?;
    let res: Vec<Result<(usize, Duration)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || worker(url, kind, t, threads, sizes)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("client thread panicked")))
            })
            .collect()
    });
    let mut ops = 0;
    let mut longest = Duration::ZERO;
    for r in res {
        let (n, e) = r.with_context(|| format!("{kind} on {url}"))?;
        ops += n;
        longest = longest.max(e);
    }
    let cpu = match (pid, cpu0) {
        (Some(p), Some(c0)) => Some((cpu_seconds(p)? - c0) * 1e6 / ops.max(1) as f64),
        _ => None,
    };
    Ok((ops as f64 / longest.as_secs_f64().max(1e-9), cpu))
}

/// Creates the four tables and writes the seed data sets (the 'bench' rows come from the load).
fn create_and_fill(url: &str, sizes: &Sizes) -> Result<()> {
    let conn = Connection::open(url)?;
    for (name, family) in [
        ("bench", "cf"),
        ("tall", "cf"),
        ("wide", "cf"),
        ("files", "f"),
    ] {
        conn.create_table(
            TableDescriptor::new(TableName::parse(&sizes.table(name))?)
                .with_family(ColumnFamilyDescriptor::new(family)),
            &[],
        )?;
    }
    let value = vec![b'v'; 100];
    let mut batch = Vec::new();
    let flush = |table: &str, batch: &mut Vec<Put>, force: bool| -> Result<()> {
        if batch.len() >= 500 || (force && !batch.is_empty()) {
            conn.table(&sizes.table(table))
                .put_all(std::mem::take(batch))?;
        }
        Ok(())
    };
    for j in 0..sizes.per_user {
        for u in 0..sizes.users {
            let row = tall_row(u, BASE_TS + j as i64 * 1000);
            batch.push(Put::new(row).add_column("cf", "", value.clone()));
            flush("tall", &mut batch, false)?;
        }
    }
    flush("tall", &mut batch, true)?;
    for r in 0..sizes.wide_rows {
        for j in 0..sizes.wide_columns {
            let q = (LONG_MAX - (BASE_TS + j as i64)).to_be_bytes();
            batch.push(Put::new(uid(r)).add_column("cf", q.to_vec(), value.clone()));
            flush("wide", &mut batch, false)?;
        }
    }
    flush("wide", &mut batch, true)?;
    for user in 0..sizes.file_users {
        for i in 0..sizes.files_per_user {
            let name = if i % 3 != 0 {
                format!("show episode {i}")
            } else {
                format!("interview {i}")
            };
            let category = if i % 4 != 0 { "variety" } else { "extras" };
            let row = format!("{user:06}{}{i:06}", file_day(i));
            batch.push(
                Put::new(row)
                    .add_column("f", "id", i.to_string())
                    .add_column("f", "name", name)
                    .add_column("f", "category", category)
                    .add_column("f", "user", user.to_string()),
            );
            flush("files", &mut batch, false)?;
        }
    }
    flush("files", &mut batch, true)
}

fn drop_tables(url: &str, sizes: &Sizes) -> Result<()> {
    let conn = Connection::open(url)?;
    for name in ["bench", "tall", "wide", "files"] {
        let t = sizes.table(name);
        conn.set_enabled(&t, false)?;
        conn.drop_table(&t)?;
    }
    Ok(())
}

/// `ferrobase bench server-vs-hbase`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct Options {
    /// Client threads.
    #[arg(long, value_name = "N", default_value_t = 4)]
    threads: usize,
    /// Rows per table, at least 200 [default: the run's size].
    #[arg(long, value_name = "R", default_value_t = 0, hide_default_value = true)]
    rows: usize,
    /// Repetitions [default: 3; 1 with --quick].
    #[arg(long, value_name = "K", default_value_t = 0, hide_default_value = true)]
    reps: usize,
    /// Small sizes.
    #[arg(long)]
    quick: bool,
    /// An HBase Thrift1 gateway already running [default: start Apache HBase here].
    #[arg(long, value_name = "HOST:PORT")]
    hbase: Option<String>,
    /// The process id of --hbase's server, for its memory figures.
    #[arg(long, value_name = "PID", requires = "hbase")]
    hbase_pid: Option<u32>,
    /// The heap of the HBase this starts.
    #[arg(long, value_name = "SIZE", default_value = "2g")]
    hbase_heap: String,
    /// Rows per load batch, per bulk scan and per scannerGetList call of that scan (the
    /// workloads `load` and `scan`).
    #[arg(long, value_name = "ROWS", default_value_t = 100)]
    chunk: usize,
    /// The workloads to run, of load, get, scan, full, tall, wide, files (get, scan and full
    /// read what load wrote) [default: all].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    workloads: Vec<String>,
    /// The ferrobase binary that serves (another build, to compare two builds' servers
    /// through the same client) [default: this one].
    #[arg(long, value_name = "PATH")]
    ferrobase_bin: Option<std::path::PathBuf>,
    /// Full scans (`full`) fetch their next rows while the client takes the last
    /// (`Scan::async_prefetch`, HBase's `setAsyncPrefetch`), on both servers.
    #[arg(long)]
    async_prefetch: bool,
    /// Loads (`load`) write through a `BufferedMutator` (HBase's) sending `--chunk` rows a
    /// batch from its own thread while the next batch is built, on both servers.
    #[arg(long)]
    buffered_load: bool,
    /// Before each turn, wait at most this many seconds for both servers to come to rest
    /// (under 5 % of a core for a second), so no turn runs beside the other server's
    /// compactions or garbage collection; 0: start each turn at once [default: 60; 0 with
    /// --quick].
    #[arg(long, value_name = "SECS")]
    settle: Option<u64>,
}

/// Checks what the options cannot run.
fn check(o: Options) -> Result<Options> {
    if o.threads == 0 {
        return Err(crate::cli::usage("--threads must be at least 1"));
    }
    if o.rows != 0 && o.rows < 200 {
        return Err(crate::cli::usage(
            "--rows must be at least 200 (100-row scans start below rows - 100)",
        ));
    }
    if o.chunk == 0 {
        return Err(crate::cli::usage("--chunk must be at least 1"));
    }
    let rows = Sizes::new(o.quick, o.rows, o.chunk).rows;
    if o.chunk * 2 > rows {
        return Err(crate::cli::usage(format!(
            "--chunk {} needs at least {} rows (--rows): scans start below rows - chunk",
            o.chunk,
            o.chunk * 2
        )));
    }
    if let Some(w) = o
        .workloads
        .iter()
        .find(|w| !WORKLOADS.iter().any(|(k, _)| k == w))
    {
        return Err(crate::cli::usage(format!(
            "--workloads: no workload {w:?} (load, get, scan, full, tall, wide, files)"
        )));
    }
    if !o.workloads.is_empty()
        && o.workloads
            .iter()
            .any(|w| w == "get" || w == "scan" || w == "full")
        && !o.workloads.iter().any(|w| w == "load")
    {
        return Err(crate::cli::usage(
            "--workloads: get, scan and full read the rows load writes: name load too",
        ));
    }
    Ok(o)
}

#[cfg(test)]
fn parse(args: &[String]) -> Result<Options> {
    #[derive(clap::Parser)]
    struct P {
        #[command(flatten)]
        o: Options,
    }
    let p = <P as clap::Parser>::try_parse_from(
        std::iter::once("x".to_string()).chain(args.iter().cloned()),
    )?;
    check(p.o)
}

type Runs = Vec<(f64, Option<f64>)>;

/// What waiting for the servers to come to rest before each turn took.
#[derive(Default)]
struct Settled {
    turns: usize,
    seconds: f64,
    longest: f64,
    /// Turns that started at the limit with a server still busy.
    busy: usize,
}

impl Settled {
    fn add(&mut self, secs: f64, quiet: bool) {
        self.turns += 1;
        self.seconds += secs;
        self.longest = self.longest.max(secs);
        self.busy += usize::from(!quiet);
    }

    fn print(&self, limit: u64) {
        if limit == 0 {
            println!("\nEach turn started right after the one before (--settle 0).");
        } else {
            println!(
                "\nBefore each of the {} turns both servers were given up to {limit} s to come \
                 to rest (under 5 % of a core for a second): {:.1} s waited in all, {:.1} s at \
                 most; {} turn(s) started with a server still busy.",
                self.turns, self.seconds, self.longest, self.busy
            );
        }
    }
}

/// `ferrobase bench server-vs-hbase [options]`: prints the two tables.
pub fn main(o: Options) -> Result<()> {
    let o = check(o)?;
    let settle_secs = o.settle.unwrap_or(if o.quick { 0 } else { 60 });
    let mut sizes = Sizes::new(o.quick, o.rows, o.chunk);
    sizes.prefetch = o.async_prefetch;
    sizes.buffered = o.buffered_load;
    let workloads: Vec<(&str, String)> = WORKLOADS
        .iter()
        .filter(|(k, _)| o.workloads.is_empty() || o.workloads.iter().any(|w| w == k))
        .map(|&(k, l)| (k, label(l, o.chunk)))
        .collect();
    let reps = if o.reps > 0 {
        o.reps
    } else if o.quick {
        1
    } else {
        3
    };
    let data = tempfile::Builder::new()
        .prefix("ferrobase-rbench-")
        .tempdir()?;
    let (mut ferro, furl, f_start) = start_ferrobase(data.path(), o.ferrobase_bin.as_deref())?;
    let fpid = ferro.id();
    let started_hbase = o.hbase.is_none();
    let result = (|| -> Result<()> {
        let (hpid, hurl, h_start) = match &o.hbase {
            Some(addr) => (o.hbase_pid, format!("thrift://{addr}"), None),
            None => {
                let (pid, url, secs) = start_hbase(&o.hbase_heap)?;
                (Some(pid), url, Some(secs))
            }
        };
        let body = (|| -> Result<()> {
            create_and_fill(&furl, &sizes)?;
            create_and_fill(&hurl, &sizes)?;
            let mut results: Vec<(Runs, Runs)> = Vec::new();
            let (mut f_rss, mut h_rss) = (None, None);
            let pids: Vec<u32> = std::iter::once(fpid).chain(hpid).collect();
            let mut rest = Settled::default();
            let mut settle = || -> Result<()> {
                if settle_secs > 0 {
                    let (secs, quiet) = settle(&pids, Duration::from_secs(settle_secs))?;
                    rest.add(secs, quiet);
                }
                Ok(())
            };
            for (kind, _) in &workloads {
                let kind = *kind;
                let (mut f, mut h) = (Vec::new(), Vec::new());
                for _ in 0..reps {
                    settle()?;
                    f.push(run(&furl, Some(fpid), kind, o.threads, &sizes)?);
                    settle()?;
                    h.push(run(&hurl, hpid, kind, o.threads, &sizes)?);
                }
                if kind == "load" {
                    f_rss = rss_mib(fpid);
                    h_rss = hpid.and_then(rss_mib);
                }
                results.push((f, h));
            }
            print_report(
                &o,
                &sizes,
                reps,
                &workloads,
                &results,
                (f_start, h_start),
                (f_rss, h_rss),
            );
            rest.print(settle_secs);
            if !started_hbase {
                drop_tables(&hurl, &sizes)?;
            }
            Ok(())
        })();
        if started_hbase {
            let _ = oracle("stop", &o.hbase_heap).stderr(Stdio::null()).status();
        }
        body
    })();
    // SIGTERM: the server's clean stop.
    let _ = Command::new("kill").arg(fpid.to_string()).status();
    let _ = ferro.wait();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_parse_and_reject_what_they_cannot_run() {
        let o = parse(&args(&["--threads", "8", "--quick", "--hbase", "h:9090"])).unwrap();
        assert_eq!((o.threads, o.quick), (8, true));
        assert_eq!(o.hbase.as_deref(), Some("h:9090"));
        assert!(parse(&args(&["--threads", "0"])).is_err());
        assert!(parse(&args(&["--rows", "50"])).is_err());
        assert!(parse(&args(&["--hbase"])).is_err());
        let o = parse(&args(&["--chunk", "1000", "--workloads", "load,scan"])).unwrap();
        assert_eq!((o.chunk, o.workloads.len()), (1000, 2));
        assert!(parse(&args(&["--chunk", "0"])).is_err());
        assert!(parse(&args(&["--chunk", "1000", "--rows", "1500"])).is_err());
        assert!(parse(&args(&["--workloads", "scan"])).is_err());
        assert!(parse(&args(&["--workloads", "load,bogus"])).is_err());
        let err = parse(&args(&["--bogus"])).err().unwrap().to_string();
        assert!(err.contains("--bogus"), "{err}");
        assert_eq!(parse(&args(&[])).unwrap().settle, None);
        assert_eq!(parse(&args(&["--settle", "0"])).unwrap().settle, Some(0));
    }

    #[test]
    fn settling_waits_out_a_busy_process_and_passes_an_idle_one() {
        let mut idle = Command::new("sleep").arg("30").spawn().unwrap();
        let mut busy = Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        let (secs, quiet) = settle(&[idle.id()], Duration::from_secs(10)).unwrap();
        assert!(quiet && (0.9..5.0).contains(&secs), "{secs}");
        let (secs, quiet) = settle(&[idle.id(), busy.id()], Duration::from_secs(2)).unwrap();
        assert!(!quiet && secs >= 2.0, "{secs}");
        for c in [&mut idle, &mut busy] {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    #[test]
    fn tall_rows_sort_newest_first_within_a_user() {
        let older = tall_row(7, BASE_TS);
        let newer = tall_row(7, BASE_TS + 1000);
        assert!(newer < older);
        assert!(older.starts_with(b"00000007"));
        assert!(tall_row(8, BASE_TS + 5000) > older);
    }

    #[test]
    fn file_rows_of_a_user_fall_in_their_month_range() {
        for i in 0..120 {
            let day = file_day(i);
            let month: usize = day[4..6].parse().unwrap();
            assert!((1..=12).contains(&month));
            let row = format!("{:06}{day}{i:06}", 3);
            assert!(row >= format!("0000032012{month:02}01"));
            assert!(row < format!("0000032012{:02}01", month + 1));
        }
    }

    #[test]
    fn quick_sizes_are_smaller_and_rows_override() {
        let q = Sizes::new(true, 0, 100);
        let full = Sizes::new(false, 0, 100);
        assert!(q.rows < full.rows && q.queries < full.queries);
        assert_eq!(Sizes::new(false, 1234, 100).rows, 1234);
        assert_eq!(label(WORKLOADS[2].1, 1000), "scan 1000 rows");
        assert!(q.table("tall").ends_with("_tall"));
    }
}
