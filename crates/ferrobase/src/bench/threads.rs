//! `ferrobase bench threads`: throughput and p99 as the client threads on the engine (1, 2, 4, 8,
//! 16) and the connections on the Thrift gateway (16, 64, 256, 1,000) grow, for gets, 100-row
//! scans, YCSB A (50 % get, 50 % one-cell update, rows chosen zipfian) and loads (100-row
//! batches of new rows). Each line runs for a fixed time with every worker prepared before the
//! clock starts; the lines repeat (`--reps`), the counts in rising order on even repetitions and
//! falling on odd ones, so a drift of the machine's load shows as spread, not as a trend; the
//! load average is printed before each part. CPU % is the process's (the gateway's too: it runs
//! in this process) user + system time over the wall time, 100 % a core; ops/CPU-s the
//! operations per CPU second, which a busy machine lowers less than ops/s (it takes cores away
//! but not work per operation) and contention lowers (spinning, futex calls, lost caches).

use super::driver::{drive, load_average, Budget, Measured};
use super::gateway::{run_connections, Call, Running, SEED_ROWS};
use super::Rng;
use anyhow::{bail, Context, Result};
use ferrobase_engine::*;
use ferrobase_testkit::Zipf;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// `ferrobase bench threads`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The long run: 1,000,000 rows, 2 s a line, 3 repetitions (each still overridable).
    #[arg(long)]
    full: bool,
    /// Client thread counts on the engine, comma-separated.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',',
          default_values_t = [1usize, 2, 4, 8, 16])]
    threads: Vec<usize>,
    /// Connection counts on the gateway, comma-separated.
    #[arg(long, value_name = "N[,N...]", value_delimiter = ',',
          default_values_t = [16usize, 64, 256, 1000])]
    connections: Vec<usize>,
    /// Rows of the engine's table [default: 100000; --full 1000000].
    #[arg(long, value_name = "N")]
    rows: Option<u64>,
    /// Value bytes of every row written.
    #[arg(long, value_name = "BYTES", default_value_t = 1024)]
    value_len: usize,
    /// Seconds each line runs [default: 0.4; --full 2].
    #[arg(long, value_name = "SECS")]
    seconds: Option<f64>,
    /// Repetitions of every line [default: 2; --full 3].
    #[arg(long, value_name = "N")]
    reps: Option<usize>,
    /// Which part runs.
    #[arg(long, value_name = "PART", value_parser = ["engine", "server", "all"], default_value = "all")]
    part: String,
    /// Workloads, comma-separated (get, scan100, ycsb_a, load).
    #[arg(long, value_name = "NAME[,NAME...]", value_delimiter = ',',
          value_parser = ["get", "scan100", "ycsb_a", "load"],
          default_values_t = ["get".to_string(), "scan100".into(), "ycsb_a".into(), "load".into()])]
    workloads: Vec<String>,
    /// The gateway's handlers (calls running at once; `ferrobase serve --handlers`).
    #[arg(long, value_name = "N", default_value_t = ferrobase_gateway::call_queue::CallQueueOptions::default().handlers)]
    handlers: usize,
    /// Calls that may wait for a handler (`ferrobase serve --max-queued-calls`).
    #[arg(long, value_name = "N", default_value_t = ferrobase_gateway::call_queue::CallQueueOptions::default().max_queued)]
    max_queued: usize,
    /// Where the scratch data directories go.
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

/// One repetition of one line.
struct Sample {
    rate: f64,
    p50: Duration,
    p99: Duration,
    cpu_pct: f64,
    refused: u64,
}

impl Sample {
    fn of(mut m: Measured, refused: u64) -> Sample {
        m.latencies.sort_unstable();
        Sample {
            rate: m.ops as f64 / m.elapsed.as_secs_f64().max(1e-9),
            p50: super::percentile(&m.latencies, 0.5),
            p99: super::percentile(&m.latencies, 0.99),
            cpu_pct: m.cpu.as_secs_f64() * 100.0 / m.elapsed.as_secs_f64().max(1e-9),
            refused,
        }
    }
}

/// The samples of a part, by workload (in the order run) and count.
#[derive(Default)]
struct Lines {
    order: Vec<String>,
    samples: BTreeMap<(String, usize), Vec<Sample>>,
}

impl Lines {
    fn add(&mut self, workload: &str, count: usize, s: Sample) {
        if !self.order.iter().any(|w| w == workload) {
            self.order.push(workload.to_string());
        }
        self.samples
            .entry((workload.to_string(), count))
            .or_default()
            .push(s);
    }

    /// Prints the table: medians over the repetitions, their spread ((max - min) / median) and
    /// the median rate against the smallest count's.
    fn print(&self, count_name: &str) {
        println!(
            "| {:<9} | {:>7} | {:>10} | {:>7} | {:>8} | {:>9} | {:>6} | {:>9} | {:>7} | {:<22} |",
            "workload",
            count_name,
            "ops/s",
            "spread",
            "p50 µs",
            "p99 µs",
            "CPU %",
            "ops/CPU-s",
            "scaling",
            "note"
        );
        println!(
            "|{:-<11}|{:->9}|{:->12}|{:->9}|{:->10}|{:->11}|{:->8}|{:->11}|{:->9}|{:-<24}|",
            "", "", "", "", "", "", "", "", "", ""
        );
        for w in &self.order {
            let mut base = None;
            for ((name, count), s) in self.samples.range((w.clone(), 0)..=(w.clone(), usize::MAX)) {
                debug_assert_eq!(name, w);
                let median = |f: &dyn Fn(&Sample) -> f64| {
                    let mut v: Vec<f64> = s.iter().map(f).collect();
                    v.sort_by(f64::total_cmp);
                    v[v.len() / 2]
                };
                let rate = median(&|s| s.rate);
                let (lo, hi) = s.iter().fold((f64::MAX, 0f64), |(lo, hi), s| {
                    (lo.min(s.rate), hi.max(s.rate))
                });
                let spread = if s.len() > 1 {
                    format!("{:.0} %", (hi - lo) * 100.0 / rate.max(1e-9))
                } else {
                    "-".into()
                };
                let base_rate = *base.get_or_insert(rate);
                let refused: u64 = s.iter().map(|s| s.refused).sum();
                let mut note = match w.as_str() {
                    "load" => "rows/s, 100 a call".to_string(),
                    "scan100" => "rows/s, 100 a call".to_string(),
                    _ => String::new(),
                };
                if refused > 0 {
                    note = format!(
                        "{note}{}{refused} refused",
                        if note.is_empty() { "" } else { "; " }
                    );
                }
                println!(
                    "| {:<9} | {:>7} | {:>10.0} | {:>7} | {:>8.1} | {:>9.1} | {:>6.0} | {:>9.0} | {:>6.2}x | {:<22} |",
                    w,
                    count,
                    rate,
                    spread,
                    median(&|s| s.p50.as_secs_f64() * 1e6),
                    median(&|s| s.p99.as_secs_f64() * 1e6),
                    median(&|s| s.cpu_pct),
                    median(&|s| s.rate * 100.0 / s.cpu_pct.max(1e-9)),
                    rate / base_rate.max(1e-9),
                    note
                );
            }
        }
    }
}

fn key(i: u64) -> Vec<u8> {
    format!("user{i:012}").into_bytes()
}

/// Text-like values (16 symbols), so LZ4 gets about 2:1 as on real data.
fn value(len: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed | 1);
    (0..len)
        .map(|_| b"abcdefghijklmnop"[(r.next() % 16) as usize])
        .collect()
}

/// An engine call of `workload` by worker `w` of `n` in repetition `rep`.
fn engine_worker<'a>(
    engine: &'a Engine,
    workload: &'a str,
    (w, n, rep): (usize, usize, usize),
    rows: u64,
    value_len: usize,
    zipf: &Zipf,
) -> Result<impl FnMut(u64) -> Result<usize> + 'a> {
    let table = engine.table(if workload == "load" {
        "load"
    } else {
        "usertable"
    })?;
    let mut rng = Rng((w as u64 + 1) * 0x9e37_79b9 + rep as u64 * 31 + n as u64);
    let mut zipf = zipf.fork((w as u64 * 131 + rep as u64 * 7 + n as u64) | 1);
    let v = value(value_len, w as u64 + 5);
    Ok(move |i: u64| -> Result<usize> {
        Ok(match workload {
            "get" => {
                let k = key(rng.next() % rows);
                if table.get(&Get::new(k))?.is_empty() {
                    bail!("a get found no row");
                }
                1
            }
            "scan100" => {
                let k = key(rng.next() % rows.saturating_sub(100).max(1));
                let mut s =
                    table.scanner(&Scan::new().with_start_row(k).caching(100).limit(100))?;
                s.next_batch(100)?.len()
            }
            "ycsb_a" => {
                let k = key(zipf.next_key());
                if rng.next().is_multiple_of(2) {
                    table.get(&Get::new(k))?;
                } else {
                    table.put(Put::new(k).add_column("cf", "q", v.clone()))?;
                }
                1
            }
            _ => {
                let puts = (0..100)
                    .map(|j| {
                        Put::new(format!("n{n:02}-r{rep}-w{w:02}-{i:08}-{j:03}")).add_column(
                            "cf",
                            "q",
                            v.clone(),
                        )
                    })
                    .collect();
                table.put_all(puts)?;
                100
            }
        })
    })
}

/// The engine part: one engine, its table loaded, then every workload at every thread count.
fn engine_part(a: &Settings) -> Result<Lines> {
    let tmp = tempfile::tempdir_in(&a.dir)
        .with_context(|| format!("a scratch directory under {}", a.dir.display()))?;
    let engine = Engine::open(tmp.path(), EngineOptions::default())?;
    for name in ["usertable", "load"] {
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.compression = Compression::Lz4;
        engine
            .admin()
            .create_table(TableDescriptor::new(TableName::parse(name)?).with_family(cf))?;
    }
    let t = engine.table("usertable")?;
    let loading = std::time::Instant::now();
    let values: Vec<Vec<u8>> = (0..64).map(|i| value(a.value_len, i + 1)).collect();
    for chunk in (0..a.rows).step_by(1000) {
        t.put_all(
            (chunk..(chunk + 1000).min(a.rows))
                .map(|i| Put::new(key(i)).add_column("cf", "q", values[(i % 64) as usize].clone()))
                .collect(),
        )?;
    }
    engine.admin().flush("usertable")?;
    engine.admin().major_compact("usertable")?;
    // Warm the block cache (and the page cache) with one pass.
    let mut s = t.scanner(&Scan::new().caching(1000))?;
    while !s.next_batch(1000)?.is_empty() {}
    println!(
        "engine: {} rows of {} B loaded, flushed, compacted and read once in {:.1} s; SYNC_WAL, LZ4, block cache 256 MiB; load average {}",
        a.rows,
        a.value_len,
        loading.elapsed().as_secs_f64(),
        load_average()
    );
    let zipf = Zipf::new(a.rows, 11);
    let mut lines = Lines::default();
    for rep in 0..a.reps {
        for workload in &a.workloads {
            for &n in &ordered(&a.threads, rep) {
                let m = drive(n, Budget::Time(a.run), |w| {
                    engine_worker(&engine, workload, (w, n, rep), a.rows, a.value_len, &zipf)
                })?;
                lines.add(workload, n, Sample::of(m, 0));
            }
        }
    }
    println!("engine: load average after {}", load_average());
    engine.close();
    Ok(lines)
}

/// The gateway part: a gateway with its defaults over its own engine, then every workload at
/// every connection count through the Rust client.
fn server_part(a: &Settings) -> Result<Lines> {
    crate::limits::raise_nofile_limit();
    let most = a.connections.iter().copied().max().unwrap_or(0) as u64;
    let soft = rlimit::Resource::NOFILE.get().map(|l| l.0).unwrap_or(1024);
    // Each connection takes a descriptor on both ends (this process holds both).
    if soft < 2 * most + 256 {
        bail!(
            "{most} connections need about {} descriptors in this process (both ends); the soft \
             RLIMIT_NOFILE is {soft} and the hard limit does not allow more (ulimit -Hn)",
            2 * most + 256
        );
    }
    let tmp = tempfile::tempdir_in(&a.dir)?;
    let server = Running::start(
        tmp.path(),
        a.value_len,
        ferrobase_gateway::ServerOptions {
            // Room for every bench connection.
            max_connections: (most as usize + 16).max(1000),
            calls: ferrobase_gateway::call_queue::CallQueueOptions {
                handlers: a.handlers,
                max_queued: a.max_queued,
                ..Default::default()
            },
            ..Default::default()
        },
    )?;
    println!(
        "server: the Thrift1 gateway ({} handlers, {} queued calls; defaults 30 and 300) in this process over a table of {SEED_ROWS} rows of {} B, the Rust client (one thread per connection); load average {}",
        a.handlers,
        a.max_queued,
        a.value_len,
        load_average()
    );
    let zipf = Zipf::new(SEED_ROWS, 13);
    let mut lines = Lines::default();
    for rep in 0..a.reps {
        for workload in &a.workloads {
            let call = match workload.as_str() {
                "get" => Call::Get,
                "scan100" => Call::Scan100,
                "ycsb_a" => Call::YcsbA,
                _ => Call::Batch100,
            };
            for &n in &ordered(&a.connections, rep) {
                let (m, refused) = run_connections(
                    &server.addr,
                    n,
                    Budget::Time(a.run),
                    call,
                    a.value_len,
                    &zipf,
                )?;
                lines.add(workload, n, Sample::of(m, refused));
            }
        }
    }
    println!("server: load average after {}", load_average());
    server.stop()?;
    Ok(lines)
}

/// `counts` rising on even repetitions, falling on odd ones.
fn ordered(counts: &[usize], rep: usize) -> Vec<usize> {
    let mut v = counts.to_vec();
    v.sort_unstable();
    if rep % 2 == 1 {
        v.reverse();
    }
    v
}

/// The options with `--full`'s defaults applied.
struct Settings {
    threads: Vec<usize>,
    connections: Vec<usize>,
    rows: u64,
    value_len: usize,
    run: Duration,
    reps: usize,
    workloads: Vec<String>,
    handlers: usize,
    max_queued: usize,
    dir: PathBuf,
}

pub fn main(args: Args) -> Result<()> {
    let seconds = args.seconds.unwrap_or(if args.full { 2.0 } else { 0.4 });
    let a = Settings {
        threads: args.threads,
        connections: args.connections,
        rows: args
            .rows
            .unwrap_or(if args.full { 1_000_000 } else { 100_000 })
            .max(200),
        value_len: args.value_len,
        run: Duration::try_from_secs_f64(seconds).context("--seconds takes a positive number")?,
        reps: args.reps.unwrap_or(if args.full { 3 } else { 2 }).max(1),
        workloads: args.workloads,
        handlers: args.handlers,
        max_queued: args.max_queued,
        dir: args.dir,
    };
    if a.threads.contains(&0) || a.connections.contains(&0) {
        bail!("thread and connection counts start at 1");
    }
    println!(
        "ferrobase threads benchmark: {} cores, {seconds} s a line, {} repetition(s) (counts rising, then falling), load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        a.reps,
        load_average()
    );
    if args.part != "server" {
        let lines = engine_part(&a)?;
        println!();
        lines.print("threads");
        println!();
    }
    if args.part != "engine" {
        let lines = server_part(&a)?;
        println!();
        lines.print("conns");
    }
    Ok(())
}
