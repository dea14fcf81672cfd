//! Transient disk errors suspend writes instead of poisoning the engine, and writes resume
//! without a restart once the disk takes bytes again (`docs/design/durability.md`, "Errors
//! from the disk"). Through the fault-injecting file system: a full disk (its simulated free
//! space) during a WAL append, during a background write of ASYNC_WAL records and during a
//! flush's block write; the free-space guard; and an `EIO` on fsync, which still poisons.

mod support;

use ferrobase_engine::fs::fault::{CutMode, Fault, FaultFileSystem, FaultModel, OpKind};
use ferrobase_engine::*;
use std::time::{Duration, Instant};

const DIR: &str = "/db";

fn options(fs: &FaultFileSystem) -> EngineOptions {
    support::table::quiet_options_on(fs)
}

fn open(opts: EngineOptions) -> Engine {
    support::table::open_with_table(DIR, opts)
}

fn put(t: &Table, row: &str, durability: Durability) -> Result<()> {
    t.put(
        Put::new(row)
            .add_column("cf", "q", row)
            .durability(durability),
    )
}

fn present(t: &Table, row: &str) -> bool {
    !t.get(&Get::new(row)).unwrap().cells.is_empty()
}

/// Waits (at most 15 s: the back-off reaches 5 s) until `ok(health)`.
fn wait_for(engine: &Engine, what: &str, ok: impl Fn(&Health) -> bool) -> Health {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let h = engine.health();
        if ok(&h) {
            return h;
        }
        assert!(Instant::now() < deadline, "not {what} after 15 s: {h}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn assert_suspended(e: &Error, cause: StallCause) {
    match e {
        Error::WritesSuspended { cause: c, .. } => assert_eq!(*c, cause, "{e}"),
        other => panic!("expected WritesSuspended({cause:?}), got {other:?}"),
    }
    assert!(e.is_retryable());
    assert!(e.to_string().contains("can be retried"), "{e}");
}

#[test]
fn a_full_disk_during_a_wal_append_suspends_writes_and_they_resume_without_a_reopen() {
    for (free, durability) in [
        (0, Durability::SyncWal),
        // A few bytes fit: the failed write leaves part of its record in the segment.
        (11, Durability::SyncWal),
        (11, Durability::FsyncWal),
    ] {
        let ctx = format!("free {free} {durability:?}");
        let fs = FaultFileSystem::new();
        let engine = open(options(&fs));
        let t = engine.table("t").unwrap();
        for i in 0..10 {
            put(&t, &format!("a{i}"), durability).unwrap();
        }
        fs.set_free_space(Some(free));
        let e = put(&t, "failed", durability).unwrap_err();
        assert_suspended(&e, StallCause::WalWrite);
        assert!(e.to_string().contains("No space left"), "{ctx}: {e}");
        // Reads go on; writes fail fast while the disk stays full (the retries fail too).
        assert!(present(&t, "a0"), "{ctx}");
        assert!(
            !present(&t, "failed"),
            "{ctx}: a failed write is not visible"
        );
        wait_for(
            &engine,
            "retried",
            |h| matches!(h, Health::Degraded { retries, .. } if *retries >= 1),
        );
        let e = put(&t, "refused", durability).unwrap_err();
        assert_suspended(&e, StallCause::WalWrite);
        assert!(engine.poisoned().is_none(), "{ctx}");
        // Space comes back: writes resume on the same engine.
        fs.set_free_space(None);
        wait_for(&engine, "healthy", |h| *h == Health::Healthy);
        for i in 0..10 {
            put(&t, &format!("b{i}"), Durability::FsyncWal).unwrap();
        }
        assert!(
            Metrics::get(&engine.metrics().write_suspensions) == 1,
            "{ctx}"
        );
        assert!(
            Metrics::get(&engine.metrics().write_resume_retries) >= 2,
            "{ctx}"
        );
        drop(t);
        drop(engine);
        // Every acknowledged write survives a power cut (the FSYNC_WAL ones after the
        // failure, and with them everything before in the same segment), no failed one
        // appears, and the segment that held the cut-off bytes reads cleanly.
        fs.power_cut(CutMode::DropUnsynced);
        let engine = open(options(&fs));
        let t = engine.table("t").unwrap();
        for i in 0..10 {
            assert!(present(&t, &format!("a{i}")), "{ctx}: a{i} lost");
            assert!(present(&t, &format!("b{i}")), "{ctx}: b{i} lost");
        }
        assert!(!present(&t, "failed"), "{ctx}");
        assert!(!present(&t, "refused"), "{ctx}");
    }
}

#[test]
fn an_injected_enospc_or_eio_on_one_wal_write_is_retried_not_fatal() {
    for errno in [libc::ENOSPC, libc::EIO, libc::EDQUOT] {
        let fs = FaultFileSystem::new();
        let engine = open(options(&fs));
        let t = engine.table("t").unwrap();
        put(&t, "a", Durability::SyncWal).unwrap();
        fs.inject(Fault {
            kind: OpKind::Append,
            path_contains: ".wal".into(),
            nth: 1,
            errno,
        });
        let e = put(&t, "failed", Durability::SyncWal).unwrap_err();
        assert_suspended(&e, StallCause::WalWrite);
        wait_for(&engine, "healthy", |h| *h == Health::Healthy);
        put(&t, "b", Durability::SyncWal).unwrap();
        drop(t);
        drop(engine);
        let engine = open(options(&fs));
        let t = engine.table("t").unwrap();
        assert!(present(&t, "a") && present(&t, "b"), "errno {errno}");
        assert!(!present(&t, "failed"), "errno {errno}");
    }
}

#[test]
fn acknowledged_async_wal_records_whose_background_write_fails_are_flushed_before_writes_resume() {
    let fs = FaultFileSystem::new();
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    fs.set_free_space(Some(5));
    // ASYNC_WAL returns at once; the flusher's write of the buffer fails.
    for i in 0..5 {
        put(&t, &format!("r{i}"), Durability::AsyncWal).unwrap();
    }
    wait_for(&engine, "degraded", |h| {
        matches!(h, Health::Degraded { .. })
    });
    assert!(present(&t, "r4"), "acknowledged, so visible");
    fs.set_free_space(None);
    wait_for(&engine, "healthy", |h| *h == Health::Healthy);
    assert!(
        Metrics::get(&engine.metrics().flushes) >= 1,
        "resuming flushed"
    );
    drop(t);
    drop(engine);
    // They were in no log: only the flush made them durable.
    fs.power_cut(CutMode::DropUnsynced);
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for i in 0..5 {
        assert!(present(&t, &format!("r{i}")), "r{i} lost");
    }
}

#[test]
fn a_full_disk_during_a_flush_suspends_writes_keeps_the_region_serving_and_the_flush_is_retried() {
    let fs = FaultFileSystem::new();
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for i in 0..20 {
        put(&t, &format!("r{i:02}"), Durability::SyncWal).unwrap();
    }
    fs.set_free_space(Some(100));
    let e = engine.admin().flush("t").unwrap_err();
    assert_suspended(&e, StallCause::FlushWrite);
    assert!(e.to_string().contains(".blk"), "{e}");
    assert!(present(&t, "r00"), "the region still serves reads");
    let e = put(&t, "refused", Durability::SyncWal).unwrap_err();
    assert_suspended(&e, StallCause::FlushWrite);
    // No part-written block file is left to hold space.
    let blk = |fs: &FaultFileSystem| {
        let engine_files = fs_files(fs);
        engine_files.iter().filter(|p| p.ends_with(".blk")).count()
    };
    assert_eq!(blk(&fs), 0);
    fs.set_free_space(None);
    wait_for(&engine, "healthy", |h| *h == Health::Healthy);
    assert_eq!(blk(&fs), 1, "the retry flushed the memstore");
    assert_eq!(engine.memstore_bytes(), 0);
    put(&t, "after", Durability::SyncWal).unwrap();
    drop(t);
    drop(engine);
    fs.power_cut(CutMode::DropUnsynced);
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for i in 0..20 {
        assert!(present(&t, &format!("r{i:02}")), "r{i:02} lost");
    }
    assert!(!present(&t, "refused"));
}

/// With space charged for metadata (`FaultModel::metadata_bytes`: an inode, a directory
/// block), a disk with room for a flush's bytes but not for its new file is full too: the
/// flush's new directory or file meets `ENOSPC`, writes are suspended, and they resume once there is room.
#[test]
fn a_disk_with_room_for_the_bytes_but_not_for_a_new_file_suspends_writes_until_there_is_room() {
    let fs = FaultFileSystem::new();
    fs.set_model(
        FaultModel {
            metadata_bytes: 4096,
            ..FaultModel::default()
        },
        1,
    );
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for i in 0..20 {
        put(&t, &format!("r{i:02}"), Durability::SyncWal).unwrap();
    }
    // Room for the block file's few hundred bytes and the manifest's, not for an inode.
    fs.set_free_space(Some(3000));
    let e = engine.admin().flush("t").unwrap_err();
    assert_suspended(&e, StallCause::FlushWrite);
    // The region's directory, or its first block file: new entries either way.
    assert!(e.to_string().contains("/db/data/"), "{e}");
    assert!(e.to_string().contains("No space left"), "{e}");
    assert_eq!(
        fs.free_space(),
        Some(3000),
        "nothing was left holding space"
    );
    assert!(present(&t, "r00"), "reads go on");
    fs.set_free_space(Some(1 << 20));
    wait_for(&engine, "healthy", |h| *h == Health::Healthy);
    assert_eq!(engine.memstore_bytes(), 0, "the retry flushed the memstore");
    put(&t, "after", Durability::FsyncWal).unwrap();
    drop(t);
    drop(engine);
    fs.power_cut(CutMode::DropUnsynced);
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for i in 0..20 {
        assert!(present(&t, &format!("r{i:02}")), "r{i:02} lost");
    }
    assert!(present(&t, "after"));
}

/// Every file under the data directory.
fn fs_files(fs: &FaultFileSystem) -> Vec<String> {
    use ferrobase_engine::fs::FileSystem;
    fn walk(fs: &FaultFileSystem, p: &std::path::Path, out: &mut Vec<String>) {
        for e in fs.list_dir(p).unwrap() {
            let q = p.join(&e.name);
            if e.is_dir {
                walk(fs, &q, out);
            } else {
                out.push(q.display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(fs, std::path::Path::new(DIR), &mut out);
    out
}

#[test]
fn the_free_space_guard_refuses_writes_below_the_reserve_and_admits_them_when_space_returns() {
    let fs = FaultFileSystem::new();
    let opts = EngineOptions {
        min_free_space: Some(1 << 20),
        free_space_check_interval: Duration::ZERO,
        ..options(&fs)
    };
    let engine = open(opts);
    let t = engine.table("t").unwrap();
    fs.set_free_space(Some(2 << 20));
    put(&t, "a", Durability::SyncWal).unwrap();
    fs.set_free_space(Some(512 << 10));
    let e = put(&t, "refused", Durability::SyncWal).unwrap_err();
    assert_suspended(&e, StallCause::LowDiskSpace);
    assert!(
        e.to_string().contains("below the reserve of 1048576 bytes"),
        "{e}"
    );
    assert!(present(&t, "a"));
    // A flush may still use the reserve.
    engine.admin().flush("t").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(matches!(
        engine.health(),
        Health::Degraded {
            cause: StallCause::LowDiskSpace,
            ..
        }
    ));
    fs.set_free_space(Some(10 << 20));
    wait_for(&engine, "healthy", |h| *h == Health::Healthy);
    put(&t, "b", Durability::SyncWal).unwrap();
    assert!(present(&t, "b") && !present(&t, "refused"));
}

#[test]
fn the_automatic_reserve_is_at_most_one_percent_of_the_file_system() {
    let fs = FaultFileSystem::new();
    let opts = EngineOptions {
        min_free_space: None,
        free_space_check_interval: Duration::ZERO,
        ..options(&fs)
    };
    let engine = open(opts);
    let t = engine.table("t").unwrap();
    // 1 TiB simulated: the reserve is 1 GiB.
    fs.set_free_space(Some((1 << 30) + (1 << 20)));
    put(&t, "a", Durability::SyncWal).unwrap();
    fs.set_free_space(Some((1 << 30) - 1));
    let e = put(&t, "b", Durability::SyncWal).unwrap_err();
    assert_suspended(&e, StallCause::LowDiskSpace);
}

#[test]
fn an_eio_on_a_wal_fsync_still_poisons_the_engine() {
    let fs = FaultFileSystem::new();
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    put(&t, "a", Durability::FsyncWal).unwrap();
    fs.inject(Fault {
        kind: OpKind::Sync,
        path_contains: ".wal".into(),
        nth: 1,
        errno: libc::EIO,
    });
    let e = put(&t, "b", Durability::FsyncWal).unwrap_err();
    assert!(matches!(e, Error::Poisoned(_)), "{e:?}");
    assert!(!e.is_retryable());
    assert!(matches!(engine.health(), Health::Poisoned { .. }));
}

#[test]
fn a_full_disk_when_a_wal_segment_rolls_keeps_the_active_segment_and_rolls_later() {
    let fs = FaultFileSystem::new();
    let opts = EngineOptions {
        wal_segment_bytes: 4096,
        ..options(&fs)
    };
    let engine = open(opts.clone());
    let t = engine.table("t").unwrap();
    // The magic of segments 2 and 3 does not fit (their first appends fail part way): once
    // for segment 2, twice for segment 3.
    for (segment, nth) in [(2, 1), (3, 1), (3, 2)] {
        fs.inject(Fault {
            kind: OpKind::Append,
            path_contains: format!("{segment:016}.wal"),
            nth,
            errno: libc::ENOSPC,
        });
    }
    let mut acked = Vec::new();
    for i in 0..400 {
        let row = format!("r{i:03}");
        put(&t, &row, Durability::FsyncWal).unwrap();
        acked.push(row);
    }
    assert_eq!(fs.injected(), 3, "every roll failure was met");
    assert_eq!(
        engine.health(),
        Health::Healthy,
        "a failed roll suspends nothing"
    );
    assert!(fs_files(&fs)
        .iter()
        .any(|p| p.ends_with("0000000000000004.wal")));
    drop(t);
    drop(engine);
    fs.power_cut(CutMode::KeepRandom { seed: 7 });
    let engine = open(opts);
    let t = engine.table("t").unwrap();
    for row in &acked {
        assert!(present(&t, row), "{row} lost");
    }
}

#[test]
fn a_writer_stalled_on_the_memstore_limit_fails_fast_once_flushes_meet_a_full_disk() {
    let fs = FaultFileSystem::new();
    let opts = EngineOptions {
        global_memstore_limit: Some(16 << 10),
        ..options(&fs)
    };
    let engine = open(opts);
    let t = engine.table("t").unwrap();
    fs.set_free_space(Some(100));
    // SKIP_WAL puts need no log: they fill the memstores past the limit, and the flushes the
    // stalled writer asks for fail.
    let started = Instant::now();
    let mut refused = None;
    for i in 0..1000 {
        let value = vec![b'x'; 1024];
        let put = Put::new(format!("r{i:04}"))
            .add_column("cf", "q", value)
            .durability(Durability::SkipWal);
        if let Err(e) = t.put(put) {
            refused = Some(e);
            break;
        }
    }
    let e = refused.expect("the writes were refused");
    assert_suspended(&e, StallCause::FlushWrite);
    assert!(started.elapsed() < Duration::from_secs(10));
    fs.set_free_space(None);
    wait_for(&engine, "healthy", |h| *h == Health::Healthy);
    put(&t, "after", Durability::SyncWal).unwrap();
}

#[test]
fn a_power_cut_while_writes_are_suspended_loses_nothing_acknowledged_and_shows_no_failed_write() {
    for seed in 0..20u64 {
        let fs = FaultFileSystem::new();
        let engine = open(options(&fs));
        let t = engine.table("t").unwrap();
        for i in 0..10 {
            put(&t, &format!("a{i}"), Durability::FsyncWal).unwrap();
        }
        put(&t, "unsynced", Durability::SyncWal).unwrap();
        // Part of the failed record reaches the segment, after its last whole record.
        fs.set_free_space(Some(3 + seed));
        let e = put(&t, "failed", Durability::FsyncWal).unwrap_err();
        assert_suspended(&e, StallCause::WalWrite);
        let mode = if seed % 2 == 0 {
            CutMode::DropUnsynced
        } else {
            CutMode::KeepRandom { seed }
        };
        fs.power_cut(mode);
        drop(t);
        drop(engine);
        fs.set_free_space(None);
        let engine = open(options(&fs));
        let t = engine.table("t").unwrap();
        for i in 0..10 {
            assert!(present(&t, &format!("a{i}")), "seed {seed}: a{i} lost");
        }
        assert!(!present(&t, "failed"), "seed {seed}");
        put(&t, "later", Durability::FsyncWal).unwrap();
    }
}

#[test]
fn a_full_disk_during_a_compaction_fails_it_without_suspending_writes_or_failing_the_region() {
    let fs = FaultFileSystem::new();
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for round in 0..2 {
        for i in 0..10 {
            put(&t, &format!("r{round}{i}"), Durability::SyncWal).unwrap();
        }
        // A delete marker (of a row never written): the major compaction below has files to
        // merge (files that share no row and hold nothing to drop would stay as they are:
        // docs/design/compaction.md).
        t.delete(Delete::new("never written")).unwrap();
        engine.admin().flush("t").unwrap();
    }
    fs.set_free_space(Some(100));
    let e = engine.admin().major_compact("t").unwrap_err();
    assert!(
        matches!(&e, Error::Io { source, .. } if source.raw_os_error() == Some(libc::ENOSPC)),
        "{e:?}"
    );
    assert_eq!(engine.health(), Health::Healthy);
    assert!(present(&t, "r05") && present(&t, "r15"));
    let blk = || fs_files(&fs).iter().filter(|p| p.ends_with(".blk")).count();
    assert_eq!(blk(), 2, "the part-written output is removed");
    fs.set_free_space(None);
    engine.admin().major_compact("t").unwrap();
    assert_eq!(blk(), 1);
    put(&t, "after", Durability::SyncWal).unwrap();
    assert!(present(&t, "r05") && present(&t, "after"));
}

/// A flush whose block file is written but whose manifest write meets a full disk: writes are
/// suspended (not poisoned), the region serves reads, the memstore's bytes are released, and
/// the retry writes the manifest; with `power_cut` the disk stays full and the power fails
/// while suspended instead. Either way nothing acknowledged is lost after a reopen.
fn flush_meeting_a_full_disk_at_the_manifest(power_cut: bool) {
    let fs = FaultFileSystem::new();
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    // Synced: a power cut keeps them whether or not the flush's manifest was written.
    for i in 0..20 {
        put(&t, &format!("r{i:02}"), Durability::FsyncWal).unwrap();
    }
    fs.inject(Fault {
        kind: OpKind::Append,
        path_contains: "MANIFEST".into(),
        nth: 1,
        errno: libc::ENOSPC,
    });
    let e = engine.admin().flush("t").unwrap_err();
    assert_suspended(&e, StallCause::ManifestWrite);
    assert!(e.to_string().contains("MANIFEST.tmp"), "{e}");
    assert!(engine.poisoned().is_none());
    assert!(present(&t, "r00"), "the region still serves reads");
    assert_eq!(engine.memstore_bytes(), 0, "the flushed bytes are released");
    let e = put(&t, "refused", Durability::SyncWal).unwrap_err();
    assert_suspended(&e, StallCause::ManifestWrite);
    assert!(
        !fs_files(&fs).iter().any(|p| p.ends_with("MANIFEST.tmp")),
        "the part-written manifest is removed"
    );
    if power_cut {
        // The retries keep failing; the manifest in force names no block file yet.
        fs.set_free_space(Some(0));
        std::thread::sleep(Duration::from_millis(300));
        assert!(matches!(engine.health(), Health::Degraded { .. }));
        fs.power_cut(CutMode::DropUnsynced);
        drop(t);
        drop(engine);
        fs.set_free_space(None);
    } else {
        wait_for(&engine, "healthy", |h| *h == Health::Healthy);
        put(&t, "after", Durability::FsyncWal).unwrap();
        drop(t);
        drop(engine);
        fs.power_cut(CutMode::DropUnsynced);
    }
    let engine = open(options(&fs));
    let t = engine.table("t").unwrap();
    for i in 0..20 {
        assert!(present(&t, &format!("r{i:02}")), "r{i:02} lost");
    }
    assert!(!present(&t, "refused"));
    assert_eq!(present(&t, "after"), !power_cut);
    put(&t, "reopened", Durability::SyncWal).unwrap();
}

#[test]
fn a_full_disk_at_a_flushs_manifest_write_suspends_writes_and_the_retry_writes_it() {
    flush_meeting_a_full_disk_at_the_manifest(false);
}

#[test]
fn a_power_cut_while_a_flushs_manifest_write_waits_for_space_loses_nothing() {
    flush_meeting_a_full_disk_at_the_manifest(true);
}
