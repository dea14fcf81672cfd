//! The background workers: a flusher (requested flushes, WAL buffer writes, WAL size limit)
//! and a compactor (requested compactions and splits, periodic major compactions).

use super::{Inner, WorkQueue};
use crate::lock;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

const TICK: Duration = Duration::from_millis(100);

pub(crate) fn start(inner: &Arc<Inner>) -> Vec<JoinHandle<()>> {
    let mut workers = vec![
        spawn(inner, "flusher", flusher),
        spawn(inner, "compactor", compactor),
    ];
    if inner.opts.warm_file_sections {
        workers.push(spawn(inner, "warmer", warmer));
    }
    workers
}

/// Reads every block file's index and bloom filter (every chunk of it) once after the open,
/// newest regions' files in catalog order, until they hold [`WARM_SHARE`] of the memory budget: what a first
/// read of each file would otherwise read from disk before its data block (RocksDB reads them
/// when it opens a table file, HBase its load-on-open section). Then it ends. A section that
/// cannot be read is left to the read that needs it, which reports the error.
fn warmer(inner: &Inner) {
    let bound = (inner.memory.budget as f64 * WARM_SHARE) as u64;
    let mut held = 0u64;
    for region in inner.all_regions() {
        for store in region.stores().values() {
            for file in &store.state().files {
                if stopping(inner, &lock::lock(&inner.work)) {
                    return;
                }
                if held > bound {
                    return;
                }
                let _ = file.reader.read_sections();
                held += file.reader.loaded_section_bytes();
            }
        }
    }
}

/// The share of the memory budget the warmer fills with indexes and bloom filters at most
/// (1/8: 80 MiB of the default 640): part of the fifth of the budget neither memstores nor the
/// block cache take ([`crate::EngineOptions::memory_budget`]).
const WARM_SHARE: f64 = 0.125;

/// Starts worker `name` running `body` under `catch_unwind`: a panic poisons the engine with
/// the panic's message (a structure the worker was changing may be half-updated; the rule is
/// in `lock.rs`), and the worker ends. The other worker sees the poison and stops working.
fn spawn(inner: &Arc<Inner>, name: &'static str, body: fn(&Inner)) -> JoinHandle<()> {
    let inner = inner.clone();
    std::thread::Builder::new()
        .name(format!("ferrobase-{name}"))
        .spawn(move || {
            let _running = crate::poison::running(&inner.poison);
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&inner)));
            if let Err(payload) = run {
                inner.poison(&format!(
                    "background {name} panicked: {}",
                    crate::poison::panic_message(&*payload)
                ));
            }
        })
        .expect("spawn a background worker thread")
}

/// Whether the worker should stop taking work: the engine is stopping, or poisoned (a
/// poisoned engine writes nothing more, so flushes and compactions could only fail).
fn stopping(inner: &Inner, g: &WorkQueue) -> bool {
    g.stop || inner.poison.reason().is_some()
}

fn report(what: &str, e: &crate::Error) {
    eprintln!("ferrobase: background {what} failed: {e}");
}

fn flusher(inner: &Inner) {
    loop {
        let regions = {
            let mut g = lock::lock(&inner.work);
            if stopping(inner, &g) {
                return;
            }
            if g.flush.is_empty() {
                g = lock::wait_timeout(&inner.work_ready, g, TICK);
            }
            if stopping(inner, &g) {
                return;
            }
            std::mem::take(&mut g.flush)
        };
        inner.retry_suspended_writes();
        if inner.memstore_chunks.trim_idle() {
            // The chunks of a load that stopped go back to the system now, not after the
            // allocator's purge delay; this happens once a load, when its writes stop.
            crate::allocator::release_thread_cache_and_purge();
        }
        let _why = crate::job_log::reason(crate::job_log::JobReason::MemstoreSize);
        let flushes_before = crate::metrics::Metrics::get(&inner.metrics.flushes);
        for id in regions {
            // A failed region waits for a reopen; retrying would only log the failure again.
            if let Some(r) = inner.region_by_id(id).filter(|r| r.failure().is_none()) {
                if let Err(e) = inner.flush_region(&r) {
                    report("flush", &e);
                }
            }
        }
        // Still above the lower limit after flushes that wrote something: the largest
        // memstore next (writers filled it meanwhile). Without progress (regions paused by
        // DDL, failing flushes) writers ask again when they cross the lower limit or wait.
        let flushed = crate::metrics::Metrics::get(&inner.metrics.flushes) > flushes_before;
        let held = inner.global_memstore.load(Ordering::Acquire);
        if flushed && held >= inner.memory.global_memstore_lower_limit {
            inner.request_largest_flush();
        }
        if let Err(e) = inner.wal.flush_buffer() {
            report("WAL write", &e);
        }
        if inner.wal.closed_segments() > inner.opts.max_wal_segments {
            if let Some(seq) = inner.wal.oldest_closed_max_seq() {
                let _why = crate::job_log::reason(crate::job_log::JobReason::WalSegments);
                for r in inner.all_regions() {
                    let holds_old = r.failure().is_none()
                        && r.stores().values().any(|s| s.min_unflushed_seq() <= seq);
                    if holds_old {
                        if let Err(e) = inner.flush_region(&r) {
                            report("flush", &e);
                        }
                    }
                }
            }
        }
    }
}

fn compactor(inner: &Inner) {
    let mut last_major_check = Instant::now();
    loop {
        let (compactions, splits) = {
            let mut g = lock::lock(&inner.work);
            if stopping(inner, &g) {
                return;
            }
            if g.compact.is_empty() && g.split.is_empty() {
                g = lock::wait_timeout(&inner.work_ready, g, TICK);
            }
            if stopping(inner, &g) {
                return;
            }
            (std::mem::take(&mut g.compact), std::mem::take(&mut g.split))
        };
        let why = crate::job_log::reason(crate::job_log::JobReason::Policy);
        for (id, family, major) in compactions {
            if let Some(r) = inner.region_by_id(id) {
                if let Err(e) = inner.compact_store(&r, &family, major) {
                    report("compaction", &e);
                }
            }
        }
        drop(why);
        for id in splits {
            if let Some(r) = inner.region_by_id(id) {
                if inner.split_due(&r) {
                    if let Err(e) = inner.split_region(&r, None) {
                        report("split", &e);
                    }
                }
            }
        }
        if let Some(interval) = inner.opts.compaction.major_interval {
            if last_major_check.elapsed() >= Duration::from_secs(60) {
                last_major_check = Instant::now();
                periodic_major(inner, interval);
            }
        }
    }
}

/// Major-compacts stores whose oldest file is older than `interval` and that could shrink.
fn periodic_major(inner: &Inner, interval: Duration) {
    let _why = crate::job_log::reason(crate::job_log::JobReason::Periodic);
    for r in inner.all_regions() {
        if !inner.compaction_enabled(&r) {
            continue;
        }
        for (family, s) in r.stores() {
            let state = s.state();
            let Some(oldest) = state.files.last() else {
                continue;
            };
            let age = inner
                .fs()
                .modified(oldest.reader.path())
                .ok()
                .and_then(|t| SystemTime::now().duration_since(t).ok());
            let worth = state.files.len() > 1 || !oldest.reader.meta().major_compacted;
            if worth && age.is_some_and(|a| a >= interval) {
                if let Err(e) = inner.compact_store(&r, &family, true) {
                    report("major compaction", &e);
                }
            }
        }
    }
}
