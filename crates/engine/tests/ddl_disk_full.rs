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

const DIR: &str = "/db";

fn options(fs: &FaultFileSystem) -> EngineOptions {
    support::table::quiet_options_on(fs)
}

fn table_desc(name: &str, families: &[&str]) -> TableDescriptor {
    families.iter().fold(
        TableDescriptor::new(TableName::parse(name).unwrap()),
        |d, f| d.with_family(ColumnFamilyDescriptor::new(*f)),
    )
}

/// The starting catalog: `other` (the bystander), `t` (families `cf`, `cf2`, two regions,
/// one row), `off` (disabled, one row) and namespace `ns_old`.
fn setup(fs: &FaultFileSystem) -> Engine {
    let engine = Engine::open(DIR, options(fs)).unwrap();
    let admin = engine.admin();
    admin.create_table(table_desc("other", &["cf"])).unwrap();
    admin
        .create_table_with_splits(table_desc("t", &["cf", "cf2"]), &[b"m".to_vec()])
        .unwrap();
    admin.create_table(table_desc("off", &["cf"])).unwrap();
    for name in ["other", "t", "off"] {
        put(&engine, name, "r1");
    }
    admin.disable("off").unwrap();
    admin.create_namespace("ns_old").unwrap();
    engine
}

fn put(engine: &Engine, table: &str, row: &str) {
    engine
        .table(table)
        .unwrap()
        .put(
            Put::new(row)
                .add_column("cf", "q", row)
                .durability(Durability::FsyncWal),
        )
        .unwrap();
}

fn present(engine: &Engine, table: &str, row: &str) -> bool {
    !engine
        .table(table)
        .unwrap()
        .get(&Get::new(row))
        .unwrap()
        .cells
        .is_empty()
}

/// What the catalog holds: namespaces, and per table its schema, state and region bounds.
fn catalog(engine: &Engine) -> String {
    let admin = engine.admin();
    let mut out = format!("{:?}\n", admin.list_namespaces().unwrap());
    for name in admin.list_tables().unwrap() {
        let name = name.to_string();
        let regions: Vec<_> = admin
            .regions(&name)
            .unwrap()
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect();
        out += &format!(
            "{name} enabled={} {:?} {regions:?}\n",
            admin.is_enabled(&name).unwrap(),
            admin.describe(&name).unwrap()
        );
    }
    out
}

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

type Ddl = fn(&Admin) -> Result<()>;

/// Every DDL that writes the manifest, on the catalog `setup` builds, with the number of its
/// manifest write (`disable` first flushes each of the table's two regions, each flush writing
/// the manifest).
fn ddls() -> Vec<(&'static str, u64, Ddl)> {
    vec![
        ("create table", 1, |a| {
            a.create_table(table_desc("new", &["cf"]))
        }),
        ("drop table", 1, |a| a.delete_table("off")),
        ("truncate table", 1, |a| a.truncate("off", false)),
        ("disable table", 3, |a| a.disable("t")),
        ("enable table", 1, |a| a.enable("off")),
        ("add family", 1, |a| {
            a.add_family("t", ColumnFamilyDescriptor::new("cf3"))
        }),
        ("modify family", 1, |a| {
            let mut f = ColumnFamilyDescriptor::new("cf2");
            f.max_versions = 7;
            a.modify_family("t", f)
        }),
        ("delete family", 1, |a| a.delete_family("t", b"cf2")),
        ("table attributes", 1, |a| {
            a.alter_table_attributes("t", &[("MAX_FILESIZE".into(), "1048576".into())], &[])
        }),
        ("create namespace", 1, |a| a.create_namespace("ns_new")),
        ("drop namespace", 1, |a| a.drop_namespace("ns_old")),
    ]
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
