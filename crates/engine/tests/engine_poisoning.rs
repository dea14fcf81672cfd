//! Poisoning: a background worker that panics, an operation that panics on a caller's thread
//! and a failed WAL sync each poison the engine; every later call gets [`Error::Poisoned`]
//! naming the first failure, and the reason is visible through `Engine::poisoned`.

mod support;

use ferrobase_engine::fs::fault::{Fault, FaultFileSystem, OpKind};
use ferrobase_engine::hook::{Hook, HookPoint};
use ferrobase_engine::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DIR: &str = "/db";

fn options(fs: &FaultFileSystem, hook: Option<Hook>) -> EngineOptions {
    EngineOptions {
        compaction: CompactionOptions {
            min_files: 2,
            major_interval: None,
            ..CompactionOptions::default()
        },
        auto_split: false,
        fs: Arc::new(fs.clone()),
        hook,
        ..EngineOptions::default()
    }
}

fn open(fs: &FaultFileSystem, hook: Option<Hook>) -> Engine {
    support::table::open_with_table(DIR, options(fs, hook))
}

fn put(t: &Table, row: &str) -> Result<()> {
    t.put(Put::new(row).add_column("cf", "q", "v"))
}

/// Waits (at most 10 s) for the engine to be poisoned and returns the reason.
fn wait_for_poison(engine: &Engine) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(r) = engine.poisoned() {
            return r;
        }
        assert!(Instant::now() < deadline, "the engine was not poisoned");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Every kind of call fails with `Poisoned` carrying exactly `reason`.
fn assert_refused(engine: &Engine, reason: &str) {
    let t = engine.table("t").unwrap();
    let poisoned = |what: &str, r: Result<()>| match r {
        Err(Error::Poisoned(why)) => assert_eq!(why, reason, "{what}"),
        other => panic!("{what} answered {other:?}, not Poisoned({reason})"),
    };
    poisoned("a put", put(&t, "later"));
    poisoned("a get", t.get(&Get::new("r0")).map(drop));
    poisoned("a scan", t.scanner(&Scan::new()).map(drop));
    poisoned("list_tables", engine.admin().list_tables().map(drop));
    poisoned("a flush", engine.admin().flush("t"));
    let shown = Error::Poisoned(reason.to_string()).to_string();
    assert!(shown.contains(reason), "{shown}");
}

#[test]
fn a_background_flush_that_panics_poisons_the_engine_with_its_message() {
    let fs = FaultFileSystem::new();
    let hook = Hook::new(|p| {
        if let HookPoint::FlushFileWritten { .. } = p {
            if std::thread::current().name() == Some("ferrobase-flusher") {
                panic!("injected flush panic");
            }
        }
    });
    let mut opts = options(&fs, Some(hook));
    // A few small puts fill the memstore past this: the write path asks the flusher.
    opts.memstore_flush_size = 1024;
    let engine = support::table::open_with_table(DIR, opts);
    let t = engine.table("t").unwrap();
    for i in 0..64 {
        if put(&t, &format!("r{i}")).is_err() {
            break;
        }
    }
    let reason = wait_for_poison(&engine);
    assert_eq!(reason, "background flusher panicked: injected flush panic");
    assert_refused(&engine, &reason);
    // Shutdown joins the ended worker without hanging or panicking.
    engine.close();
    assert!(matches!(put(&t, "closed"), Err(Error::Closed)));
}

#[test]
fn a_background_compaction_that_panics_poisons_the_engine_with_its_message() {
    let fs = FaultFileSystem::new();
    let hook = Hook::new(|p| {
        if let HookPoint::CompactionMerging { .. } = p {
            panic!("injected compaction panic");
        }
    });
    let engine = open(&fs, Some(hook));
    let t = engine.table("t").unwrap();
    // Two flushed files reach `min_files`: the flush asks the compactor for a compaction. Both span
    // rows `a..` to `z..`: with sorted runs on, files that do not overlap would form a run the
    // policy leaves alone (docs/design/compaction.md).
    for i in 0..2 {
        put(&t, &format!("a{i}")).unwrap();
        put(&t, &format!("z{i}")).unwrap();
        engine.admin().flush("t").unwrap();
    }
    let reason = wait_for_poison(&engine);
    assert_eq!(
        reason,
        "background compactor panicked: injected compaction panic"
    );
    assert_refused(&engine, &reason);
}

#[test]
fn an_operation_that_panics_on_a_callers_thread_poisons_the_engine() {
    let fs = FaultFileSystem::new();
    let hook = Hook::new(|p| {
        if let HookPoint::FlushFileWritten { .. } = p {
            if std::thread::current().name() != Some("ferrobase-flusher") {
                panic!("injected panic in a requested flush");
            }
        }
    });
    let engine = open(&fs, Some(hook));
    let t = engine.table("t").unwrap();
    put(&t, "r0").unwrap();
    let flush =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.admin().flush("t")));
    assert!(flush.is_err(), "the panic reaches the caller");
    let reason = engine.poisoned().expect("poisoned by the panic");
    assert!(reason.contains("panicked on a caller's thread"), "{reason}");
    assert_refused(&engine, &reason);
}

#[test]
fn a_failed_wal_sync_poisons_the_engine_and_names_the_segment() {
    let fs = FaultFileSystem::new();
    let engine = open(&fs, None);
    let t = engine.table("t").unwrap();
    put(&t, "r0").unwrap();
    fs.inject(Fault {
        kind: OpKind::Sync,
        path_contains: ".wal".into(),
        nth: 1,
        errno: libc::EIO,
    });
    let mut m = Put::new("r1").add_column("cf", "q", "v");
    m.durability = Durability::FsyncWal;
    let err = t.put(m).unwrap_err();
    let Error::Poisoned(reason) = err else {
        panic!("the synced write answered {err:?}");
    };
    assert!(
        reason.starts_with("WAL sync failed on /db/wal/"),
        "{reason}"
    );
    assert_eq!(engine.poisoned().as_deref(), Some(reason.as_str()));
    assert_refused(&engine, &reason);
}

#[test]
fn a_fatal_wal_write_failure_of_a_background_buffer_poisons_the_engine() {
    let fs = FaultFileSystem::new();
    let engine = open(&fs, None);
    let t = engine.table("t").unwrap();
    fs.inject(Fault {
        kind: OpKind::Append,
        path_contains: ".wal".into(),
        nth: 1,
        // Not a transient error (a full disk suspends writes instead: `write_suspension.rs`).
        errno: libc::EROFS,
    });
    // An ASYNC_WAL write returns at once; the flusher writes the buffer and fails.
    let mut m = Put::new("r1").add_column("cf", "q", "v");
    m.durability = Durability::AsyncWal;
    t.put(m).unwrap();
    let reason = wait_for_poison(&engine);
    assert!(
        reason.starts_with("WAL write failed on /db/wal/"),
        "{reason}"
    );
    assert_refused(&engine, &reason);
}
