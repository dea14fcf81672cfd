//! A row far larger than a result is scanned with `batch` and with a maximum result size in
//! bounded memory: the process's peak resident memory during the scan grows by a fixed amount
//! independent of the row's size, while the same scan in whole rows holds the whole row.
//!
//! The scans run in a child process (this test binary again, with an environment variable),
//! so that the peak (VmHWM) measures the scan alone, not memory freed and kept by the
//! allocator while the row was written. `FERROBASE_WIDE_ROW_MIB` sets the row's size
//! (default 96 MiB; the documented long run uses 1024).

use ferrobase_engine::*;
use std::process::Command;

const CHILD: &str = "FERROBASE_WIDE_ROW_CHILD";
const MIB: u64 = 1 << 20;
const CELL_BYTES: usize = 16 << 10;

fn row_mib() -> u64 {
    std::env::var("FERROBASE_WIDE_ROW_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96)
}

fn options() -> EngineOptions {
    let mut o = EngineOptions::default();
    o.compaction.auto = false;
    o.compaction.major_interval = None;
    o.auto_split = false;
    o
}

fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

/// In the child: scans the row one way and prints the peak's growth and the cells seen.
fn child(dir: &str, mode: &str) {
    // Whole rows may be as large as the test makes them (past the default 1 GiB row limit).
    let mut o = options();
    o.max_row_size = usize::MAX;
    let e = Engine::open(dir, o).unwrap();
    let t = e.table("wide").unwrap();
    let scan = match mode {
        "batch" => Scan::new().batch(1000),
        "size" => Scan::new()
            .max_result_size(1 << 20)
            .allow_partial_results(true),
        _ => Scan::new(),
    };
    let before = peak_rss();
    let mut cells = 0u64;
    let mut last_q: Option<Vec<u8>> = None;
    for r in t.scanner(&scan).unwrap() {
        for c in r.unwrap().cells {
            if let Some(prev) = &last_q {
                assert!(prev.as_slice() < c.qualifier(), "cells in order, once each");
            }
            last_q = Some(c.qualifier().to_vec());
            cells += 1;
        }
    }
    println!("RESULT {} {cells}", peak_rss() - before);
}

fn scan_in_child(dir: &std::path::Path, mode: &str) -> (u64, u64) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_row_larger_than_memory_budgets_scans_in_bounded_memory",
            "--nocapture",
        ])
        .env(CHILD, format!("{}|{mode}", dir.display()))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .unwrap_or_else(|| {
            panic!(
                "child printed no result: {text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let mut it = line.split_whitespace().map(|v| v.parse::<u64>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn a_row_larger_than_memory_budgets_scans_in_bounded_memory() {
    if let Ok(spec) = std::env::var(CHILD) {
        let (dir, mode) = spec.split_once('|').unwrap();
        child(dir, mode);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cells = row_mib() * MIB / CELL_BYTES as u64;
    {
        let e = Engine::open(dir.path(), options()).unwrap();
        // No block cache for the family: every block read is held only by the cells using it.
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.block_cache = false;
        e.admin()
            .create_table(TableDescriptor::new(TableName::parse("wide").unwrap()).with_family(cf))
            .unwrap();
        let t = e.table("wide").unwrap();
        let value = vec![7u8; CELL_BYTES];
        for chunk in 0..cells.div_ceil(256) {
            let mut p = Put::new("user1");
            for i in chunk * 256..((chunk + 1) * 256).min(cells) {
                p = p.add_column("cf", format!("{i:010}"), value.clone());
            }
            t.put(p).unwrap();
        }
        e.admin().flush("wide").unwrap();
    }
    let bound = 48 * MIB;
    for mode in ["batch", "size"] {
        let (growth, seen) = scan_in_child(dir.path(), mode);
        eprintln!(
            "{mode}: {} MiB peak growth for a {} MiB row",
            growth / MIB,
            row_mib()
        );
        assert_eq!(seen, cells, "{mode}: every cell once");
        assert!(growth < bound, "{mode}: peak grew {} MiB", growth / MIB);
    }
    // The same scan in whole rows holds the row: the measurement can see it.
    let (growth, seen) = scan_in_child(dir.path(), "whole");
    eprintln!("whole rows: {} MiB peak growth", growth / MIB);
    assert_eq!(seen, cells);
    assert!(
        growth > row_mib() * MIB / 2,
        "whole-row peak grew only {} MiB",
        growth / MIB
    );
}

/// Issue 39, item 3: the cells a read builds are taken from its call's memory pool as they are
/// built; calls in flight together hold at most the pool (here 4 MiB, two concurrent Gets of a
/// 3 MiB row: the second one is refused, retryable, while the first holds its result), and the
/// guard gives everything back.
#[test]
fn reads_take_the_cells_they_build_from_their_calls_memory_pool() {
    use ferrobase_engine::call_budget::{CallBudget, MemoryPool};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    #[derive(Debug)]
    struct Pool {
        used: AtomicUsize,
    }
    const LIMIT: usize = 4 << 20;
    impl MemoryPool for Pool {
        fn try_take(&self, bytes: usize) -> bool {
            self.used
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                    u.checked_add(bytes).filter(|&t| t <= LIMIT)
                })
                .is_ok()
        }
        fn give_back(&self, bytes: usize) {
            self.used.fetch_sub(bytes, Ordering::AcqRel);
        }
        fn limit(&self) -> usize {
            LIMIT
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), options()).unwrap();
    e.admin()
        .create_table(
            TableDescriptor::new(TableName::parse("w").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let t = e.table("w").unwrap();
    let mut p = Put::new("big");
    for q in 0..(3 * MIB as usize / CELL_BYTES) {
        p = p.add_column("cf", format!("q{q:04}"), vec![b'x'; CELL_BYTES]);
    }
    t.put(p).unwrap();
    let pool = Arc::new(Pool {
        used: AtomicUsize::new(0),
    });
    let first = {
        let _call = CallBudget::start(None).with_memory(Some(pool.clone()));
        let held = t.get(&Get::new("big")).unwrap();
        assert!(pool.used.load(Ordering::Acquire) >= 2 << 20);
        // A second call while the first still holds its answer.
        let second = std::thread::scope(|s| {
            s.spawn(|| {
                let _call = CallBudget::start(None).with_memory(Some(pool.clone()));
                t.get(&Get::new("big"))
            })
            .join()
            .unwrap()
        });
        let err = second.unwrap_err();
        assert!(matches!(err, Error::ReadMemory { limit: LIMIT }), "{err}");
        assert!(err.is_retryable());
        assert!(err.to_string().contains("--max-inflight-memory"), "{err}");
        held.cells.len()
    };
    assert_eq!(first, 3 * MIB as usize / CELL_BYTES);
    assert_eq!(
        pool.used.load(Ordering::Acquire),
        0,
        "every byte given back"
    );
    // Without a pool, or with room, the same read is served.
    assert_eq!(t.get(&Get::new("big")).unwrap().cells.len(), first);
}
