//! A memstore is flushed when its active part reaches the flush size: writes that arrive while
//! a flush writes the snapshot do not ask for another flush of the little they added (which
//! made every second flush a small file, and more files for compactions to merge), and every
//! write stays readable.

mod support;

use ferrobase_engine::hook::{Hook, HookPoint};
use ferrobase_engine::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::gate::Gate;
use support::table::{FAMILY, TABLE};

const FLUSH_SIZE: usize = 256 << 10;

fn put(t: &Table, i: usize) {
    t.put(
        Put::new(format!("row{:06}", (i * 7919) % 1_000_000)).add_column(
            FAMILY,
            "q",
            vec![b'v'; 1024],
        ),
    )
    .unwrap();
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not after 30 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn writes_during_a_flush_do_not_ask_for_a_flush_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Arc::new(Gate::default());
    let first = Arc::new(AtomicBool::new(true));
    let (hook_gate, hook_first) = (gate.clone(), first.clone());
    let opts = EngineOptions {
        memstore_flush_size: FLUSH_SIZE,
        compaction: CompactionOptions {
            auto: false,
            ..CompactionOptions::default()
        },
        // The first flush waits, its snapshot taken and its file written, until the test says go.
        hook: Some(Hook::new(move |p| {
            if let HookPoint::FlushFileWritten { .. } = p {
                if hook_first.swap(false, Ordering::AcqRel) {
                    hook_gate.raise("flush writing");
                    hook_gate.wait("go");
                }
            }
        })),
        ..EngineOptions::default()
    };
    let engine = support::table::open_with_table(dir.path(), opts);
    let t = engine.table(TABLE).unwrap();
    let m = engine.metrics();
    let mut written = 0;
    // Past the flush size: the flusher snapshots the memstore and writes it.
    while written * 1024 < FLUSH_SIZE + (16 << 10) {
        put(&t, written);
        written += 1;
    }
    gate.wait("flush writing");
    // A third of the flush size more while the flush runs: snapshot and active together pass
    // the flush size, the active part alone does not.
    for _ in 0..FLUSH_SIZE / 3 / 1024 {
        put(&t, written);
        written += 1;
    }
    gate.raise("go");
    wait_until("the first flush ends", || Metrics::get(&m.flushes) == 1);
    // The flusher looks for requests every 100 ms: give it several looks.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        Metrics::get(&m.flushes),
        1,
        "a second flush of the writes made meanwhile"
    );
    let region = &engine.admin().regions(TABLE).unwrap()[0];
    assert!(region.memstore_bytes > 0, "{region:?}");
    assert_eq!(region.file_count, 1);
    // Once the active part reaches the flush size, it is flushed.
    for _ in 0..FLUSH_SIZE / 1024 {
        put(&t, written);
        written += 1;
    }
    wait_until("a second flush", || Metrics::get(&m.flushes) == 2);
    wait_until("the second flush ends", || {
        engine.background_jobs().running.is_empty()
    });
    let flushed_in = Metrics::get(&m.flush_bytes_in);
    assert!(
        flushed_in >= 2 * FLUSH_SIZE as u64,
        "two flushes of at least the flush size each: {flushed_in} bytes"
    );
    for i in 0..written {
        let row = format!("row{:06}", (i * 7919) % 1_000_000);
        assert!(!t.get(&Get::new(row)).unwrap().is_empty(), "write {i}");
    }
}
