//! The workloads, run in a child process per engine and repetition, so each engine's peak RSS
//! and bytes written are its own. Each result is printed as one tab-separated line for the parent.

use crate::store::{self, CellIn, Settings, Store};
use crate::stream::{wide_row, wide_row_key, Rng, TallNarrow};
use anyhow::{ensure, Result};
use ferrobase_testkit::Zipf;
use std::path::Path;
use std::time::Instant;

/// Sizes of one run.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    /// Cells of 1 KiB in the main data set (a multiple of 1000).
    pub cells: u64,
    /// Cells of 100 B in the small-value load.
    pub small_cells: u64,
    /// Point reads per read workload (warm).
    pub gets: usize,
    /// Scans per scan workload (warm).
    pub scans: usize,
    /// Operations per YCSB workload.
    pub ycsb_ops: usize,
    /// Operations per cold read workload.
    pub cold_ops: usize,
    /// Puts per writer in the fsync pass.
    pub fsync_puts: usize,
    /// Block cache of the warm runs (`--block-cache`).
    pub warm_cache: usize,
    /// The memory cgroup limit each engine's process runs under (`--memory-limit`), its page
    /// cache included; `None`: no limit.
    pub memory_limit: Option<u64>,
}

/// Block cache of the warm runs unless `--block-cache` says otherwise.
pub const WARM_CACHE: usize = 256 << 20;
/// Block cache of the cold runs: far smaller than the data set.
pub const COLD_CACHE: usize = 8 << 20;
/// Wide rows and their width.
const WIDE_ROWS: u64 = 100;
const WIDE_COLUMNS: i64 = 1000;

/// Latencies of one workload, per call.
struct Timer {
    nanos: Vec<u64>,
    start: Instant,
    costs: Costs,
}

/// What the process has spent so far: CPU time (user, system; all its threads), context
/// switches it made waiting (voluntary), read system calls and bytes fetched from storage
/// (`syscr`, `read_bytes` in /proc/self/io). Per workload, per call, they are steadier than
/// throughput on a shared machine.
#[derive(Clone, Copy, Default)]
struct Costs {
    user_us: f64,
    sys_us: f64,
    waits: f64,
    read_calls: f64,
    storage_bytes: f64,
}

impl Costs {
    fn now() -> Costs {
        // SAFETY: `rusage` is plain data, for which all-zero bytes are a valid value.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid rusage the call fills in.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
        Costs {
            user_us: us(ru.ru_utime),
            sys_us: us(ru.ru_stime),
            waits: ru.ru_nvcsw as f64,
            read_calls: proc_field("/proc/self/io", "syscr:").unwrap_or(0) as f64,
            storage_bytes: proc_field("/proc/self/io", "read_bytes:").unwrap_or(0) as f64,
        }
    }
}

impl Timer {
    fn new(capacity: usize) -> Timer {
        Timer {
            nanos: Vec::with_capacity(capacity),
            start: Instant::now(),
            costs: Costs::now(),
        }
    }

    fn time<T>(&mut self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let t = Instant::now();
        let r = f()?;
        self.nanos.push(t.elapsed().as_nanos() as u64);
        Ok(r)
    }

    /// Prints `R name ops/s p50 p99 p999` (latencies in µs); `ops` counts items (cells for loads).
    fn report(mut self, name: &str, ops: u64) {
        let secs = self.start.elapsed().as_secs_f64();
        let (a, b) = (self.costs, Costs::now());
        let calls = self.nanos.len().max(1) as f64;
        eprintln!(
            "  cost: {name}: per call {:.1} µs user, {:.1} µs system, {:.2} waits, {:.2} read \
             calls, {:.0} bytes from storage",
            (b.user_us - a.user_us) / calls,
            (b.sys_us - a.sys_us) / calls,
            (b.waits - a.waits) / calls,
            (b.read_calls - a.read_calls) / calls,
            (b.storage_bytes - a.storage_bytes) / calls,
        );
        self.nanos.sort_unstable();
        let q = |p: f64| -> f64 {
            if self.nanos.is_empty() {
                return 0.0;
            }
            let i = ((self.nanos.len() as f64 * p) as usize).min(self.nanos.len() - 1);
            self.nanos[i] as f64 / 1000.0
        };
        println!(
            "R\t{name}\t{:.1}\t{:.2}\t{:.2}\t{:.2}",
            ops as f64 / secs,
            q(0.50),
            q(0.99),
            q(0.999)
        );
    }
}

fn value_line(name: &str, v: f64) {
    println!("V\t{name}\t{v:.4}");
}

/// Bytes this process has passed to write(2) and its kin so far (`wchar` in /proc/self/io).
fn bytes_written() -> u64 {
    proc_field("/proc/self/io", "wchar:").unwrap_or(0)
}

/// The highest peak resident set of the phases so far, in KiB ([`note_rss`] resets the
/// kernel's peak after each phase).
static PEAK_KIB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Prints the peak resident set of the phase that just ended and the resident set now to
/// stderr, then resets the kernel's peak (`clear_refs` 5), so each phase's peak is its own: the
/// report keeps the highest.
fn note_rss(phase: &str) {
    let peak = peak_rss_kib();
    PEAK_KIB.fetch_max(peak, std::sync::atomic::Ordering::Relaxed);
    let now = proc_field("/proc/self/status", "VmRSS:").unwrap_or(0);
    eprintln!(
        "  rss: {phase}: peak {} MiB, now {} MiB",
        peak / 1024,
        now / 1024
    );
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident set of the whole run in KiB.
fn run_peak_rss_kib() -> u64 {
    PEAK_KIB
        .load(std::sync::atomic::Ordering::Relaxed)
        .max(peak_rss_kib())
}

/// Peak resident set of this process in KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    proc_field("/proc/self/status", "VmHWM:").unwrap_or(0)
}

fn proc_field(file: &str, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(file).ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].split_whitespace().next()?.parse().ok()
}

/// Empties the page cache of `dir`'s files: `drop_caches` when running as root, else
/// `posix_fadvise(DONTNEED)` on every file. Returns the method used.
pub fn drop_page_cache(dir: &Path) -> &'static str {
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
    if std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok() {
        return "drop_caches";
    }
    let mut files = Vec::new();
    store::files_under(dir, &mut files);
    for f in files {
        if let Ok(file) = std::fs::File::open(&f) {
            use std::os::fd::AsRawFd;
            // SAFETY: a valid open descriptor; advice only, any error is harmless.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
    "fadvise"
}

/// Loads `order(pos)` records of `data` in batches of `batch` cells; reports cells/s and per-call latency.
fn load(
    s: &dyn Store,
    name: &str,
    data: &TallNarrow,
    order: impl Fn(u64) -> u64,
    count: u64,
    batch: usize,
) -> Result<()> {
    let cpu_before = cpu_micros();
    let mut t = Timer::new((count as usize).div_ceil(batch));
    let mut cells: Vec<CellIn> = Vec::with_capacity(batch);
    for pos in 0..count {
        cells.push(data.cell(order(pos)));
        if cells.len() == batch || pos + 1 == count {
            let full = std::mem::replace(&mut cells, Vec::with_capacity(batch));
            t.time(|| s.write(full, false))?;
        }
    }
    t.report(name, count);
    eprintln!(
        "  cpu: {name}: {:.2} µs of process CPU (user + system, every thread) per cell",
        (cpu_micros() - cpu_before) as f64 / count as f64
    );
    note_rss(name);
    Ok(())
}

/// User and system CPU time of this process so far (every thread), in microseconds.
fn cpu_micros() -> u64 {
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    us(ru.ru_utime) + us(ru.ru_stime)
}

/// Runs every workload for `engine` under `root`, printing one line per result.
pub fn run_all(engine: &str, root: &Path, scale: Scale) -> Result<()> {
    let warm = Settings {
        block_cache: scale.warm_cache,
        bloom: true,
    };
    let data = TallNarrow::new(scale.cells, 1024);

    // Data set A: 1 KiB cells in random order, plus the wide rows; every read runs on it. With
    // `--only`, it is loaded only for a workload or measure of its own.
    let dir_a = root.join("a");
    if DATA_SET_A.iter().any(|name| wanted(name)) {
        let s = store::open(engine, &dir_a, warm)?;
        let before = bytes_written();
        load(
            &*s,
            "load 1 KiB, random keys, batches of 1000",
            &data,
            |p| data.random_order(p),
            data.cells,
            1000,
        )?;
        for r in 0..WIDE_ROWS {
            s.write(wide_row(r, WIDE_COLUMNS), false)?;
        }
        s.settle()?;
        let logical =
            data.cells * data.logical_bytes() + WIDE_ROWS * WIDE_COLUMNS as u64 * (8 + 2 + 8 + 100);
        value_line(
            "write amplification (bytes written / in)",
            (bytes_written() - before) as f64 / logical as f64,
        );
        value_line(
            "space amplification (disk / logical)",
            store::dir_bytes(&dir_a) as f64 / logical as f64,
        );
        note_rss("settling");
        reads(&*s, &data, "", scale.gets, scale.scans, &|| {})?;
        ycsb(&*s, &data, scale)?;
        s.settle()?;
        note_rss("settling after YCSB");
    }
    if wanted("cold: ") {
        cold_reads(engine, &dir_a, &data, scale)?;
        note_rss("cold reads");
    }
    let _ = std::fs::remove_dir_all(&dir_a);

    // Data set B: the same cells in key order, bloom filters off.
    let dir_b = root.join("b");
    if wanted("load 1 KiB, keys in order") || wanted("get absent, no bloom filter") {
        let s = store::open(
            engine,
            &dir_b,
            Settings {
                bloom: false,
                ..warm
            },
        )?;
        let before = bytes_written();
        load(
            &*s,
            "load 1 KiB, keys in order, batches of 1000",
            &data,
            |p| data.key_order(p),
            data.cells,
            1000,
        )?;
        s.settle()?;
        value_line(
            "write amplification, keys in order (bytes written / in)",
            (bytes_written() - before) as f64 / (data.cells * data.logical_bytes()) as f64,
        );
        let mut rng = Rng(17);
        let mut t = Timer::new(scale.gets);
        for _ in 0..scale.gets {
            let row = data.absent_row(rng.next() % data.cells);
            ensure!(!t.time(|| s.get(&row, b""))?, "phantom row");
        }
        t.report("get absent, no bloom filter", scale.gets as u64);
        note_rss("get absent, no bloom filter");
    }
    let _ = std::fs::remove_dir_all(&dir_b);

    // Single puts, random keys.
    let dir_c = root.join("c");
    if wanted("load 1 KiB, random keys, single puts") {
        let s = store::open(engine, &dir_c, warm)?;
        let n = data.cells / 10;
        let before = bytes_written();
        load(
            &*s,
            "load 1 KiB, random keys, single puts",
            &data,
            |p| data.random_order(p),
            n,
            1,
        )?;
        value_line(
            "write amplification, single puts, before any settling (bytes written / in)",
            (bytes_written() - before) as f64 / (n * data.logical_bytes()) as f64,
        );
    }
    let _ = std::fs::remove_dir_all(&dir_c);

    // Small values: 100 B cells, random keys.
    let dir_d = root.join("d");
    if wanted("load 100 B") {
        let small = TallNarrow::new(scale.small_cells, 100);
        let s = store::open(engine, &dir_d, warm)?;
        load(
            &*s,
            "load 100 B, random keys, batches of 1000",
            &small,
            |p| small.random_order(p),
            small.cells,
            1000,
        )?;
        s.settle()?;
        value_line(
            "space amplification, 100 B cells",
            store::dir_bytes(&dir_d) as f64 / (small.cells * small.logical_bytes()) as f64,
        );
    }
    let _ = std::fs::remove_dir_all(&dir_d);

    // Durable writes: 8 writer threads, one cell per put, each put fsynced before it returns.
    let dir_e = root.join("e");
    if wanted("load fsync") {
        let s = store::open(engine, &dir_e, warm)?;
        let writers = 8u64;
        let start = Instant::now();
        let mut all: Vec<u64> = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..writers)
                .map(|w| {
                    let s = &*s;
                    sc.spawn(move || -> Result<Vec<u64>> {
                        let mut lat = Vec::with_capacity(scale.fsync_puts);
                        for k in 0..scale.fsync_puts as u64 {
                            let batch = vec![data.cell(data.random_order(k * writers + w))];
                            let t = Instant::now();
                            s.write(batch, true)?;
                            lat.push(t.elapsed().as_nanos() as u64);
                        }
                        Ok(lat)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("writer thread"))
                .collect::<Result<Vec<_>>>()
        })?
        .into_iter()
        .flatten()
        .collect();
        let secs = start.elapsed().as_secs_f64();
        all.sort_unstable();
        let q = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as f64 / 1e3;
        println!(
            "R\tload fsync per put, 8 writers\t{:.1}\t{:.2}\t{:.2}\t{:.2}",
            all.len() as f64 / secs,
            q(0.5),
            q(0.99),
            q(0.999)
        );
    }
    let _ = std::fs::remove_dir_all(&dir_e);
    note_rss("the fsync load");
    value_line("peak RSS (MiB)", run_peak_rss_kib() as f64 / 1024.0);
    Ok(())
}

/// The workloads and measures of data set A (name parts): with `--only`, the set is loaded only
/// when one of them is wanted.
const DATA_SET_A: [&str; 9] = [
    "load 1 KiB, random keys, batches of 1000",
    "write amplification (bytes written / in)",
    "space amplification (disk / logical)",
    "get hit",
    "get absent",
    "scan 100 rows",
    "seed: ",
    "YCSB",
    "cold: ",
];

/// Only workloads whose name contains one of these comma-separated parts run (`--only`, for
/// profiling), and only the data sets they need are loaded.
pub static ONLY: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn wanted(name: &str) -> bool {
    ONLY.get().is_none_or(|o| {
        o.split(',')
            .any(|part| name.contains(part) || part.contains(name))
    })
}

/// One timed read workload: its name, its number of calls and the call.
type ReadOp<'a> = (
    &'static str,
    usize,
    Box<dyn FnMut(&mut Rng) -> Result<()> + 'a>,
);

/// Point gets, scans and the two seed queries on data set A, each named `prefix` + its name;
/// `before` runs before each workload (the cold pass empties the page cache there).
fn reads(
    s: &dyn Store,
    data: &TallNarrow,
    prefix: &str,
    gets: usize,
    scans: usize,
    before: &dyn Fn(),
) -> Result<()> {
    let per_user = (data.cells / data.users) as usize;
    let ops: Vec<ReadOp> = vec![
        (
            "get hit",
            gets,
            Box::new(|rng| {
                let (row, _) = data.key(rng.next() % data.cells);
                ensure!(s.get(&row, b"")?, "missing row");
                Ok(())
            }),
        ),
        (
            "get absent",
            gets,
            Box::new(|rng| {
                let row = data.absent_row(rng.next() % data.cells);
                ensure!(!s.get(&row, b"")?, "phantom row");
                Ok(())
            }),
        ),
        (
            "scan 100 rows",
            scans,
            Box::new(|rng| {
                let (row, _) = data.key(rng.next() % data.cells);
                s.scan_from(&row, 100)?;
                Ok(())
            }),
        ),
        (
            "seed: newest 100 of a user",
            scans,
            Box::new(|rng| {
                let u = rng.next() % data.users;
                let got = s.scan_prefix(format!("{u:08}").as_bytes(), 100)?;
                ensure!(got == 100.min(per_user), "user scan returned {got}");
                Ok(())
            }),
        ),
        (
            "seed: newest 100 columns of a wide row",
            scans,
            Box::new(|rng| {
                let got = s.wide(&wide_row_key(rng.next() % WIDE_ROWS), 100)?;
                ensure!(got == 100, "wide row returned {got}");
                Ok(())
            }),
        ),
    ];
    let mut rng = Rng(7);
    for (name, n, mut op) in ops {
        let name = format!("{prefix}{name}");
        if !wanted(&name) {
            continue;
        }
        before();
        let mut t = Timer::new(n);
        for _ in 0..n {
            t.time(|| op(&mut rng))?;
        }
        t.report(&name, n as u64);
        note_rss(&name);
    }
    Ok(())
}

/// Every read workload again on data set A reopened with an 8 MiB block cache, the page cache
/// emptied before each workload.
fn cold_reads(engine: &str, dir: &Path, data: &TallNarrow, scale: Scale) -> Result<()> {
    let s = store::open(
        engine,
        dir,
        Settings {
            block_cache: COLD_CACHE,
            bloom: true,
        },
    )?;
    println!("N\tpage cache\t{}", drop_page_cache(dir));
    let scans = (scale.cold_ops / 10).max(10);
    reads(&*s, data, "cold: ", scale.cold_ops, scans, &|| {
        drop_page_cache(dir);
    })
}

/// YCSB A, B, C and E over data set A's records, keys drawn zipfian (0.99).
fn ycsb(s: &dyn Store, data: &TallNarrow, scale: Scale) -> Result<()> {
    let mut next_insert = data.cells;
    for (name, read_pct, scan) in [
        ("YCSB A: 50 % read, 50 % update", 50u64, false),
        ("YCSB B: 95 % read, 5 % update", 95, false),
        ("YCSB C: 100 % read", 100, false),
        ("YCSB E: 95 % scan of 1-100, 5 % insert", 95, true),
    ] {
        if !wanted(name) {
            continue;
        }
        let mut z = Zipf::new(data.cells, 11 + read_pct);
        let mut r = Rng(5 + read_pct);
        let mut t = Timer::new(scale.ycsb_ops);
        for _ in 0..scale.ycsb_ops {
            let i = z.next_key();
            let (row, ts) = data.key(i);
            let roll = r.next() % 100;
            if roll < read_pct {
                if scan {
                    let n = 1 + (r.next() % 100) as usize;
                    t.time(|| s.scan_from(&row, n))?;
                } else {
                    ensure!(t.time(|| s.get(&row, b""))?, "missing row");
                }
            } else {
                // An update is a newer version of the record; an insert is a new record.
                let cell = if scan {
                    next_insert += 1;
                    let (row, ts) = data.key(next_insert);
                    CellIn {
                        row,
                        qualifier: Vec::new(),
                        ts,
                        value: crate::stream::value(next_insert, data.value_len),
                    }
                } else {
                    CellIn {
                        row,
                        qualifier: Vec::new(),
                        ts: ts + 1 + (r.next() % 1000) as i64,
                        value: crate::stream::value(i + 1, data.value_len),
                    }
                };
                let batch = vec![cell];
                t.time(|| s.write(batch, false))?;
            }
        }
        t.report(name, scale.ycsb_ops as u64);
        note_rss(name);
    }
    Ok(())
}
