//! What a write costs: single puts (or batches) of 1 KiB cells at random rows from one or more
//! threads, with the write path's steady measures printed beside the throughput: process CPU
//! per put, allocations per put (without the `mimalloc` feature, through a counting allocator),
//! voluntary context switches per put, and the load average. The setup (open, one table) takes
//! milliseconds, so `perf stat -e instructions,task-clock` or `perf record` over the whole
//! program measures the puts.
//!
//! `cargo run --release -p ferrobase-engine --example write_path -- threads=2 puts=200000`
//! (per thread); other keys: `value=` bytes (1024), `batch=` rows a call (1), `flush_mib=` the
//! memstore flush size (64, as the peer benchmark), `dir=` where the scratch directory goes
//! (the system's temporary directory), `rounds=` (1: each round a fresh engine).

use ferrobase_engine::{
    ColumnFamilyDescriptor, Compression, Engine, EngineOptions, Put, TableDescriptor, TableName,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[cfg(not(feature = "mimalloc"))]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicU64, Ordering};

    pub static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

    /// The system allocator, counting allocations (a relaxed add each: the count is read
    /// between rounds, not during them).
    pub struct Counting;

    // SAFETY: every call is forwarded unchanged to the system allocator.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            // SAFETY: the caller's contract is the system allocator's.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` came from `alloc` above with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            // SAFETY: as for `dealloc`, and `new_size` is the caller's.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    pub fn count() -> Option<u64> {
        Some(ALLOCATIONS.load(Ordering::Relaxed))
    }
}

#[cfg(feature = "mimalloc")]
mod counting {
    pub fn count() -> Option<u64> {
        None
    }
}

struct Args {
    threads: usize,
    puts: u64,
    value: usize,
    batch: usize,
    flush_mib: usize,
    dir: std::path::PathBuf,
    rounds: usize,
}

fn args() -> Args {
    let mut a = Args {
        threads: 1,
        puts: 200_000,
        value: 1024,
        batch: 1,
        flush_mib: 64,
        dir: std::env::temp_dir(),
        rounds: 1,
    };
    for arg in std::env::args().skip(1) {
        let (k, v) = arg.split_once('=').unwrap_or((&arg, ""));
        let n = || {
            v.parse::<u64>()
                .unwrap_or_else(|_| panic!("{k}= wants a number"))
        };
        match k {
            "threads" => a.threads = n() as usize,
            "puts" => a.puts = n(),
            "value" => a.value = n() as usize,
            "batch" => a.batch = n().max(1) as usize,
            "flush_mib" => a.flush_mib = n() as usize,
            "dir" => a.dir = v.into(),
            "rounds" => a.rounds = n().max(1) as usize,
            _ => panic!("unknown argument {arg}"),
        }
    }
    a
}

/// User plus system CPU of the process, microseconds, and its voluntary context switches.
fn usage() -> (u64, u64) {
    // SAFETY: `rusage` is plain data, for which all-zero bytes are a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    (
        us(ru.ru_utime) + us(ru.ru_stime),
        (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
    )
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The row of record `i`: a user of 1,000 and a reversed timestamp, as the peer benchmark's
/// tall-narrow rows.
fn row(i: u64) -> Vec<u8> {
    let mut r = format!("{:08}", i % 1000).into_bytes();
    r.extend_from_slice(&(i64::MAX - (i / 1000) as i64).to_be_bytes());
    r
}

fn main() {
    let a = args();
    for round in 0..a.rounds {
        let tmp = tempfile::tempdir_in(&a.dir).expect("a scratch directory");
        let engine = Engine::open(
            tmp.path(),
            EngineOptions {
                memstore_flush_size: a.flush_mib << 20,
                ..EngineOptions::default()
            },
        )
        .expect("open");
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.compression = Compression::Lz4;
        cf.max_versions = 1;
        engine
            .admin()
            .create_table(
                TableDescriptor::new(TableName::parse("t").expect("name")).with_family(cf),
            )
            .expect("create");
        let value: Vec<u8> = (0..a.value).map(|i| b"abcdefghijklmnop"[i % 16]).collect();
        let next = AtomicU64::new(0);
        let total = a.puts * a.threads as u64;
        let (cpu0, cs0) = usage();
        let alloc0 = counting::count();
        let started = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..a.threads {
                s.spawn(|| {
                    let t = engine.table("t").expect("table");
                    loop {
                        let first = next.fetch_add(a.batch as u64, Ordering::Relaxed);
                        if first >= total {
                            break;
                        }
                        let puts: Vec<Put> = (first..(first + a.batch as u64).min(total))
                            .map(|p| {
                                // A fixed bijection of the positions: random rows, none twice.
                                let i = (p.wrapping_mul(2_654_435_761)) % (total * 4);
                                Put::new(row(i)).add_column("cf", "", value.clone())
                            })
                            .collect();
                        if puts.len() == 1 {
                            t.put(puts.into_iter().next().expect("one put"))
                                .expect("put");
                        } else {
                            t.put_all(puts).expect("put_all");
                        }
                    }
                });
            }
        });
        let wall = started.elapsed().as_secs_f64();
        let (cpu1, cs1) = usage();
        let allocs = match (alloc0, counting::count()) {
            (Some(a0), Some(a1)) => format!("{:.2}", (a1 - a0) as f64 / total as f64),
            _ => "-".into(),
        };
        println!(
            "round {round}: {} thread(s), {total} puts in batches of {}, {:.0} puts/s, {:.2} µs CPU/put, \
             {allocs} allocations/put, {:.3} context switches/put; load average {}",
            a.threads,
            a.batch,
            total as f64 / wall,
            (cpu1 - cpu0) as f64 / total as f64,
            (cs1 - cs0) as f64 / total as f64,
            load_average()
        );
        engine.close();
    }
}
