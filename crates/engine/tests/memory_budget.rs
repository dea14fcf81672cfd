//! One memory budget (issue 44): the global memstore limit and the block cache are 0.4 of
//! `EngineOptions::memory_budget` each unless set themselves, as HBase shares its heap; writers
//! wait at the memstore limit and go on once a flush frees memory; from 0.95 of the limit on,
//! the largest memstore is flushed before writers reach it.

mod support;

use ferrobase_engine::hook::{Hook, HookPoint};
use ferrobase_engine::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const MIB: usize = 1 << 20;

fn open(dir: &std::path::Path, opts: EngineOptions) -> (Engine, Table) {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.block_size = 4 << 10;
    support::table::open_with_family(dir, opts, cf)
}

fn put(t: &Table, i: usize) {
    t.put(Put::new(format!("r{i:06}")).add_column("cf", "q", vec![b'v'; 1024]))
        .unwrap();
}

/// Polls `done` every 10 ms for up to 20 s.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_default_budget_gives_memstores_and_block_cache_256_mib_each() {
    let limits = EngineOptions::default().memory_limits();
    assert_eq!(limits.budget, 640 * MIB);
    assert_eq!(limits.budget, DEFAULT_MEMORY_BUDGET);
    assert_eq!(limits.global_memstore_limit, 256 * MIB);
    assert_eq!(limits.block_cache, 256 * MIB);
    assert_eq!(
        limits.global_memstore_lower_limit,
        (256.0 * MIB as f64 * 0.95) as usize
    );
    assert_eq!(
        (MEMSTORE_SHARE, BLOCK_CACHE_SHARE, MEMSTORE_LOWER_LIMIT),
        (0.4, 0.4, 0.95)
    );
}

#[test]
fn an_engine_takes_its_memstore_limit_and_block_cache_from_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = EngineOptions {
        memory_budget: 10 * MIB,
        ..EngineOptions::default()
    };
    // No compaction may end after the scan below: it would evict the blocks of the files it
    // replaced from the cache being measured.
    opts.compaction.auto = false;
    let (engine, t) = open(dir.path(), opts);
    let limits = engine.memory_limits();
    assert_eq!(limits.global_memstore_limit, 4 * MIB);
    assert_eq!(limits.block_cache, 4 * MIB);
    assert_eq!(engine.block_cache().capacity(), 4 * MIB);
    // 12 MiB of cells read back through the cache: it holds blocks up to its share, no more.
    for i in 0..12 * 1024 {
        put(&t, i);
    }
    engine.admin().flush("t").unwrap();
    assert_eq!(t.scanner(&Scan::new()).unwrap().count(), 12 * 1024);
    let used = engine.block_cache().used_bytes();
    assert!(
        used <= 4 * MIB && used > 2 * MIB,
        "{used} bytes cached of 4 MiB"
    );
}

#[test]
fn explicit_sizes_win_over_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let opts = EngineOptions {
        memory_budget: 10 * MIB,
        global_memstore_limit: Some(7 * MIB),
        block_cache_bytes: Some(0),
        ..EngineOptions::default()
    };
    let (engine, t) = open(dir.path(), opts);
    let limits = engine.memory_limits();
    assert_eq!(
        (
            limits.budget,
            limits.global_memstore_limit,
            limits.block_cache
        ),
        (10 * MIB, 7 * MIB, 0)
    );
    assert_eq!(engine.block_cache().capacity(), 0);
    // 5 MiB of memstores, past 0.4 of the budget but under the explicit limit: no flush.
    for i in 0..4 * 1024 {
        put(&t, i);
    }
    assert!(engine.memstore_bytes() > 4 * MIB);
    assert_eq!(Metrics::get(&engine.metrics().flushes), 0);
    assert_eq!(Metrics::get(&engine.metrics().write_stalls), 0);
}

#[test]
fn the_largest_memstore_is_flushed_from_the_lower_limit_on_before_writers_wait() {
    let dir = tempfile::tempdir().unwrap();
    let opts = EngineOptions {
        memory_budget: 5 * MIB,
        ..EngineOptions::default()
    };
    let (engine, t) = open(dir.path(), opts);
    let limits = engine.memory_limits();
    // Up to the lower limit, short of the limit (the region's flush size, 128 MiB, is far off).
    let mut i = 0;
    while engine.memstore_bytes() < limits.global_memstore_lower_limit {
        put(&t, i);
        i += 1;
    }
    assert!(engine.memstore_bytes() < limits.global_memstore_limit);
    wait_until("a flush after the lower limit", || {
        Metrics::get(&engine.metrics().flushes) == 1 && engine.memstore_bytes() == 0
    });
    assert_eq!(Metrics::get(&engine.metrics().write_stalls), 0);
    // One file of all of it, not a file per write past the lower limit.
    let regions = engine.admin().regions("t").unwrap();
    assert_eq!(regions[0].file_count, 1);
    assert_eq!(t.scanner(&Scan::new()).unwrap().count(), i);
}

/// Holds every flush after its file is written (before its memstore is released) until let go.
#[derive(Default)]
struct Gate {
    open: Mutex<bool>,
    changed: Condvar,
    held: AtomicUsize,
}

impl Gate {
    fn wait(&self) {
        self.held.fetch_add(1, Ordering::AcqRel);
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.changed.wait(open).unwrap();
        }
    }

    fn release(&self) {
        *self.open.lock().unwrap() = true;
        self.changed.notify_all();
    }
}

#[test]
fn writers_wait_at_the_global_memstore_limit_and_resume_once_a_flush_frees_it() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Arc::new(Gate::default());
    let hook_gate = gate.clone();
    let opts = EngineOptions {
        memory_budget: 5 * MIB,
        hook: Some(Hook::new(move |p| {
            if let HookPoint::FlushFileWritten { .. } = p {
                hook_gate.wait();
            }
        })),
        ..EngineOptions::default()
    };
    let (engine, t) = open(dir.path(), opts);
    let limit = engine.memory_limits().global_memstore_limit;
    assert_eq!(limit, 2 * MIB);
    let written = Arc::new(AtomicUsize::new(0));
    let cells = 4 * 1024; // 4 MiB of values: twice the limit.
    let writer = {
        let (t, written) = (t.clone(), written.clone());
        std::thread::spawn(move || {
            for i in 0..cells {
                put(&t, i);
                written.fetch_add(1, Ordering::AcqRel);
            }
        })
    };
    wait_until("the writer waits at the limit", || {
        Metrics::get(&engine.metrics().write_stalls) > 0 && gate.held.load(Ordering::Acquire) > 0
    });
    let stalled_at = written.load(Ordering::Acquire);
    // Held back: no write gets through while the flush that would free memory is held.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(written.load(Ordering::Acquire), stalled_at);
    assert!(stalled_at < cells);
    let held = engine.memstore_bytes();
    assert!(held >= limit, "{held} bytes held, limit {limit}");
    // Past the limit by at most the one write that found room just under it.
    assert!(held < limit + 4096, "{held} bytes held, limit {limit}");
    gate.release();
    writer.join().unwrap();
    assert_eq!(written.load(Ordering::Acquire), cells);
    assert!(engine.memstore_bytes() < limit);
    assert!(Metrics::get(&engine.metrics().flushes) >= 1);
    assert_eq!(t.scanner(&Scan::new()).unwrap().count(), cells);
}

/// The chunks a flush gives back wait in a pool for the next memstores while writes go on; a
/// flush that finds every memstore empty (the writes stopped) gives them back at once, not at
/// the pool's idle trim, so the reads after a load grow the block cache beside nothing.
#[test]
fn a_flush_after_the_writes_stopped_gives_the_chunk_pool_back() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = open(dir.path(), EngineOptions::default());
    for i in 0..4000 {
        put(&t, i);
    }
    assert!(engine.memstore_bytes() > 4000 * 1024);
    engine.admin().flush("t").unwrap();
    assert_eq!(engine.memstore_bytes(), 0);
    // Nothing pooled, nor held by the flushed memstore.
    assert_eq!(engine.memstore_chunk_bytes(), 0);
}

/// A compaction running while a memstore is flushed does not keep the flushed memstore's chunks:
/// it holds the files it merges, not the store's whole state (a load's peak RSS held two
/// flushed 64 MiB memstores through every compaction).
#[test]
fn a_running_compaction_holds_no_flushed_memstore() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Arc::new(Gate::default());
    let hook_gate = gate.clone();
    let mut opts = EngineOptions {
        hook: Some(Hook::new(move |p| {
            if let HookPoint::CompactionMerging { .. } = p {
                hook_gate.wait();
            }
        })),
        ..EngineOptions::default()
    };
    opts.compaction.auto = false;
    let (engine, t) = open(dir.path(), opts);
    for file in 0..3 {
        for i in 0..100 {
            put(&t, file * 100 + i);
        }
        engine.admin().flush("t").unwrap();
    }
    let compaction = {
        let engine = engine.clone();
        std::thread::spawn(move || engine.admin().major_compact("t").unwrap())
    };
    wait_until("the compaction merges", || {
        gate.held.load(Ordering::Acquire) > 0
    });
    for i in 300..4300 {
        put(&t, i);
    }
    assert!(engine.memstore_chunk_bytes() >= 4000 * 1024);
    engine.admin().flush("t").unwrap();
    assert_eq!(
        engine.memstore_chunk_bytes(),
        0,
        "the flushed memstore's chunks are freed while the compaction runs"
    );
    gate.release();
    compaction.join().unwrap();
}

/// Family names interned for the life of the process (a read's cells share one static copy
/// of each) stop at `MAX_INTERNED_FAMILIES`: a client reading names off the network cannot
/// make the process keep more; past the cap a name is a buffer of its own, and names interned
/// before it stay shared.
#[test]
fn interned_family_names_stop_at_their_cap() {
    let early = try_interned_family(b"interned-before-the-cap").expect("room for one name");
    let mut n = 0;
    while try_interned_family(format!("interned-{n}").as_bytes()).is_some() {
        n += 1;
        assert!(n <= MAX_INTERNED_FAMILIES, "no cap after {n} names");
    }
    let again = try_interned_family(b"interned-before-the-cap").expect("still interned");
    assert_eq!(again.as_ptr(), early.as_ptr());
    assert!(try_interned_family(b"interned-after-the-cap").is_none());
    let own = interned_family(b"interned-after-the-cap");
    assert_eq!(own, b"interned-after-the-cap"[..]);
}
