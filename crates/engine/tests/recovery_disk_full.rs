//! A start that cannot flush the replayed WAL opens degraded, as a full disk at run time does
//! (`docs/design/durability.md`, "Errors from the disk"): the open succeeds, the replayed rows
//! are served from the memstore, writes fail with the retryable `Error::WritesSuspended`, the
//! old segments stay until a flush succeeds, the background retry resumes writes once space
//! returns, and repeated starts on the full disk leave no extra WAL segment behind. Through the
//! fault-injecting file system's simulated free space.

mod support;

use ferrobase_engine::fs::fault::{CutMode, Fault, FaultFileSystem, OpKind};
use ferrobase_engine::fs::FileSystem;
use ferrobase_engine::*;
use std::path::Path;
use std::time::{Duration, Instant};

const DIR: &str = "/db";
const ROWS: usize = 50;

fn options(fs: &FaultFileSystem) -> EngineOptions {
    support::table::quiet_options_on(fs)
}

fn present(t: &Table, row: &str) -> bool {
    !t.get(&Get::new(row)).unwrap().cells.is_empty()
}

fn put(t: &Table, row: &str) -> Result<()> {
    t.put(
        Put::new(row)
            .add_column("cf", "q", row)
            .durability(Durability::FsyncWal),
    )
}

/// The names of the files in the WAL directory.
/// The WAL directory's files but its synced marks (`SYNCED`, one file rewritten at each open).
fn wal_files(fs: &FaultFileSystem) -> Vec<String> {
    let mut names: Vec<String> = fs
        .list_dir(&Path::new(DIR).join("wal"))
        .unwrap()
        .into_iter()
        .map(|e| e.name.to_string_lossy().into_owned())
        .filter(|n| n != "SYNCED")
        .collect();
    names.sort();
    names
}

fn block_files(fs: &FaultFileSystem) -> usize {
    let data = Path::new(DIR).join("data");
    let mut n = 0;
    for region in fs.list_dir(&data).unwrap() {
        n += fs
            .list_dir(&data.join(&region.name))
            .unwrap()
            .iter()
            .filter(|e| e.name.to_string_lossy().ends_with(".blk"))
            .count();
    }
    n
}

fn wait_healthy(engine: &Engine) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while engine.health() != Health::Healthy {
        assert!(
            Instant::now() < deadline,
            "not healthy after 15 s: {}",
            engine.health()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// An engine whose WAL holds [`ROWS`] acknowledged rows no flush wrote to a file.
fn unflushed_rows(fs: &FaultFileSystem) {
    let engine = support::table::open_with_table(DIR, options(fs));
    let t = engine.table("t").unwrap();
    for i in 0..ROWS {
        put(&t, &format!("r{i:03}")).unwrap();
    }
}

#[test]
fn a_start_on_a_full_disk_opens_degraded_serves_the_replayed_rows_and_resumes_when_space_returns() {
    // 100 bytes free: a new WAL segment fits, the flush's block file does not. 0 bytes free:
    // not even a new segment fits (the open continues the newest one).
    for free in [100, 0] {
        let fs = FaultFileSystem::new();
        unflushed_rows(&fs);
        let mut segments_after_first_start = None;
        for start in 0..4 {
            let ctx = format!("free {free}, start {start}");
            // The fault file system gives no space back on removal: set it again each time.
            fs.set_free_space(Some(free));
            let t0 = Instant::now();
            let engine = Engine::open(DIR, options(&fs))
                .unwrap_or_else(|e| panic!("{ctx}: the open failed: {e}"));
            eprintln!("{ctx}: opened degraded in {:?}", t0.elapsed());
            match engine.health() {
                Health::Degraded {
                    cause: StallCause::FlushWrite,
                    ..
                } => {}
                h => panic!("{ctx}: expected degraded by the flush, got {h}"),
            }
            let t = engine.table("t").unwrap();
            for i in 0..ROWS {
                assert!(
                    present(&t, &format!("r{i:03}")),
                    "{ctx}: r{i:03} not served"
                );
            }
            let e = put(&t, "refused").unwrap_err();
            assert!(
                matches!(e, Error::WritesSuspended { .. }) && e.is_retryable(),
                "{ctx}: {e:?}"
            );
            assert!(engine.memstore_bytes() > 0, "{ctx}: the replayed rows stay");
            assert_eq!(block_files(&fs), 0, "{ctx}: no part-written block file");
            let wal = wal_files(&fs);
            let first = segments_after_first_start.get_or_insert_with(|| wal.clone());
            assert_eq!(&wal, first, "{ctx}: a start left a WAL file behind");
            assert!(wal.len() <= 2, "{ctx}: {wal:?}");
            if start < 3 {
                drop(t);
                drop(engine);
                continue;
            }
            // Space returns: the background retry flushes the replayed rows, writes resume.
            fs.set_free_space(None);
            wait_healthy(&engine);
            assert_eq!(engine.memstore_bytes(), 0, "{ctx}");
            put(&t, "after").unwrap();
            drop(t);
            drop(engine);
        }
        fs.power_cut(CutMode::DropUnsynced);
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        assert_eq!(engine.health(), Health::Healthy);
        let t = engine.table("t").unwrap();
        for i in 0..ROWS {
            assert!(
                present(&t, &format!("r{i:03}")),
                "free {free}: r{i:03} lost"
            );
        }
        assert!(present(&t, "after") && !present(&t, "refused"));
        assert!(
            wal_files(&fs).len() <= 2,
            "free {free}: flushed segments are gone: {:?}",
            wal_files(&fs)
        );
    }
}

#[test]
fn a_start_below_the_free_space_reserve_flushes_into_the_reserve_and_opens_with_writes_suspended() {
    let fs = FaultFileSystem::new();
    unflushed_rows(&fs);
    let opts = || EngineOptions {
        min_free_space: Some(1 << 20),
        free_space_check_interval: Duration::ZERO,
        ..options(&fs)
    };
    fs.set_free_space(Some(512 << 10));
    let engine = Engine::open(DIR, opts()).unwrap();
    match engine.health() {
        Health::Degraded {
            cause: StallCause::LowDiskSpace,
            reason,
            ..
        } => assert!(
            reason.contains("below the reserve of 1048576 bytes"),
            "{reason}"
        ),
        h => panic!("expected degraded by low disk space, got {h}"),
    }
    assert_eq!(engine.memstore_bytes(), 0, "a flush may use the reserve");
    let t = engine.table("t").unwrap();
    assert!(present(&t, "r000"));
    let e = put(&t, "refused").unwrap_err();
    assert!(e.is_retryable(), "{e}");
    fs.set_free_space(Some(10 << 20));
    wait_healthy(&engine);
    put(&t, "after").unwrap();
    assert!(present(&t, "after") && !present(&t, "refused"));
}

/// A start whose flush of the replayed rows succeeds but whose manifest write meets a full disk
/// keeps every WAL segment it replayed: the flushed files are installed in memory only (the
/// manifest in force does not name them), so the segments are the only durable copy of those
/// rows until the retry writes the manifest. (The open deleted them at once: a crash or power
/// cut before the retry lost every replayed row, and older values of the same cells showed
/// again from earlier files.)
#[test]
fn a_start_whose_manifest_write_meets_a_full_disk_keeps_the_replayed_segments() {
    let fs = FaultFileSystem::new();
    {
        // Older values in a file the manifest names, newer ones in the WAL only.
        let engine = support::table::open_with_table(DIR, options(&fs));
        let t = engine.table("t").unwrap();
        t.put(Put::new("old").add_column("cf", "q", "v1")).unwrap();
        engine.admin().flush("t").unwrap();
        t.put(
            Put::new("old")
                .add_column("cf", "q", "v2")
                .durability(Durability::FsyncWal),
        )
        .unwrap();
        for i in 0..ROWS {
            put(&t, &format!("r{i:03}")).unwrap();
        }
    }
    let segments = wal_files(&fs);
    // Every manifest write fails with a full disk (each fault fires once).
    for nth in 1..=1000 {
        fs.inject(Fault {
            kind: OpKind::Create,
            path_contains: "MANIFEST.tmp".into(),
            nth,
            errno: libc::ENOSPC,
        });
    }
    {
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        match engine.health() {
            Health::Degraded {
                cause: StallCause::ManifestWrite,
                ..
            } => {}
            h => panic!("expected degraded by the manifest write, got {h}"),
        }
        assert_eq!(engine.memstore_bytes(), 0, "the replayed rows were flushed");
        let t = engine.table("t").unwrap();
        assert_eq!(value(&t, "old"), Some(b"v2".to_vec()));
        for s in &segments {
            assert!(
                wal_files(&fs).contains(s),
                "replayed segment {s} deleted before a manifest names the flushed files: {:?}",
                wal_files(&fs)
            );
        }
    }
    // The server stops before the retry wrote the manifest (a crash or a restart).
    fs.clear_faults();
    let engine = Engine::open(DIR, options(&fs)).unwrap();
    assert_eq!(engine.health(), Health::Healthy);
    let t = engine.table("t").unwrap();
    assert_eq!(
        value(&t, "old"),
        Some(b"v2".to_vec()),
        "an older value showed"
    );
    for i in 0..ROWS {
        assert!(present(&t, &format!("r{i:03}")), "r{i:03} lost");
    }
}

fn value(t: &Table, row: &str) -> Option<Vec<u8>> {
    t.get(&Get::new(row))
        .unwrap()
        .cells
        .first()
        .map(|c| c.value().to_vec())
}
