//! A DDL whose manifest write meets a full disk fails with `Error::DdlNotApplied` naming
//! `MANIFEST.tmp` and leaves the engine healthy and the catalog as it was: the new manifest is
//! written before the change is published (`docs/design/durability.md`, "Errors from the
//! disk"). For each DDL kind, through the fault-injecting file system: `ENOSPC` on the append
//! to `MANIFEST.tmp` → the call fails, nothing is poisoned, other tables are read and written,
//! the catalog is unchanged, and the same DDL then succeeds; and a power cut right after a DDL
//! failed with `EDQUOT` (a quota, the other full disk) reopens to the old catalog. A failed
//! fsync of the manifest still poisons.

mod support;

use ferrobase_engine::fs::fault::{CutMode, Fault, FaultFileSystem, OpKind};
use ferrobase_engine::fs::FileSystem;
use ferrobase_engine::*;
use std::path::Path;

use support::ddl::{catalog, ddls, options, present, put, setup, table_desc, DIR};

/// The `nth` manifest write from now meets a full disk (`errno`: `ENOSPC` or `EDQUOT`).
fn manifest_full(fs: &FaultFileSystem, nth: u64, errno: i32) {
    fs.inject(Fault {
        kind: OpKind::Append,
        path_contains: "MANIFEST.tmp".into(),
        nth,
        errno,
    });
}

fn assert_disk_full(e: &Error, kind: &str, errno: i32) {
    match e {
        Error::DdlNotApplied { path, source } => {
            assert!(path.ends_with("MANIFEST.tmp"), "{kind}: {e}");
            assert_eq!(source.raw_os_error(), Some(errno), "{kind}: {e}");
        }
        other => panic!("{kind}: expected DdlNotApplied({errno}) on MANIFEST.tmp, got {other:?}"),
    }
}

#[test]
fn a_ddl_whose_manifest_write_meets_a_full_disk_fails_cleanly_and_succeeds_once_space_returns() {
    for (kind, nth, ddl) in ddls() {
        let fs = FaultFileSystem::new();
        let engine = setup(&fs);
        let before = catalog(&engine);
        manifest_full(&fs, nth, libc::ENOSPC);
        let e = ddl(&engine.admin()).unwrap_err();
        assert_eq!(fs.injected(), 1, "{kind}");
        assert_disk_full(&e, kind, libc::ENOSPC);
        let message = e.to_string();
        for part in [
            "not applied",
            "/db/MANIFEST.tmp",
            "No space left",
            "retried",
        ] {
            assert!(message.contains(part), "{kind}: {part:?} not in {message}");
        }
        assert!(e.is_retryable(), "{kind}");
        assert_eq!(engine.health(), Health::Healthy, "{kind}");
        assert_eq!(catalog(&engine), before, "{kind}: the catalog changed");
        assert!(
            !fs.exists(Path::new("/db/MANIFEST.tmp")),
            "{kind}: the part-written MANIFEST.tmp is left"
        );
        // Other tables go on; so does the DDL's own table when it is enabled.
        put(&engine, "other", "r2");
        assert!(present(&engine, "other", "r1") && present(&engine, "other", "r2"));
        put(&engine, "t", "r2");
        assert!(present(&engine, "t", "r1"), "{kind}");
        // Space is back (the fault fired once): the same DDL succeeds.
        ddl(&engine.admin()).unwrap_or_else(|e| panic!("{kind}: retry failed: {e}"));
        let after = catalog(&engine);
        assert_ne!(after, before, "{kind}: the retried DDL changed nothing");
        assert_eq!(engine.health(), Health::Healthy, "{kind}");
        // And it is durable.
        drop(engine);
        fs.power_cut(CutMode::DropUnsynced);
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        assert_eq!(catalog(&engine), after, "{kind}: after reopening");
    }
}

#[test]
fn a_power_cut_after_a_ddl_failed_on_a_full_disk_reopens_to_the_old_catalog() {
    for (kind, nth, ddl) in ddls() {
        let fs = FaultFileSystem::new();
        let engine = setup(&fs);
        let before = catalog(&engine);
        manifest_full(&fs, nth, libc::EDQUOT);
        let e = ddl(&engine.admin()).unwrap_err();
        assert_disk_full(&e, kind, libc::EDQUOT);
        // The machine stops: nothing more reaches the disk.
        fs.cut_power_after(1);
        drop(engine);
        fs.power_cut(CutMode::DropUnsynced);
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        assert_eq!(catalog(&engine), before, "{kind}: after the power cut");
        for table in ["other", "t"] {
            assert!(present(&engine, table, "r1"), "{kind}: {table} lost r1");
        }
        ddl(&engine.admin()).unwrap_or_else(|e| panic!("{kind}: after reopening: {e}"));
    }
}

#[test]
fn a_ddl_whose_manifest_fsync_fails_still_poisons_the_engine() {
    let fs = FaultFileSystem::new();
    let engine = setup(&fs);
    fs.inject(Fault {
        kind: OpKind::Sync,
        path_contains: "MANIFEST.tmp".into(),
        nth: 1,
        errno: libc::EIO,
    });
    let e = engine
        .admin()
        .create_table(table_desc("new", &["cf"]))
        .unwrap_err();
    assert!(
        matches!(e, Error::SyncFailed { .. }),
        "expected SyncFailed, got {e:?}"
    );
    assert!(!e.is_retryable());
    assert!(
        matches!(engine.health(), Health::Poisoned { .. }),
        "{}",
        engine.health()
    );
    let e = engine.admin().create_namespace("ns_new").unwrap_err();
    assert!(matches!(e, Error::Poisoned(_)), "{e:?}");
}
