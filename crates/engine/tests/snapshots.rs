//! Snapshots (issue 47): `snapshot`, `list_snapshots`, `clone_snapshot`, `restore_snapshot`,
//! `delete_snapshot`. A snapshot keeps the table's schema, region boundaries and every version
//! of its data as of its flush point, whatever happens to the table afterwards (writes,
//! deletes, major compactions, truncates, drops, restarts); clones and restores read exactly
//! that; a power cut at any step of a snapshot, clone or restore leaves each of them whole or
//! absent.

mod support;

use ferrobase_engine::fs::fault::{CutMode, FaultFileSystem};
use ferrobase_engine::*;
use support::ddl::{options, table_desc, DIR};

/// Every cell of `table` (raw: versions and markers too), as text.
fn contents(engine: &Engine, table: &str) -> Vec<String> {
    let t = engine.table(table).unwrap();
    t.scan_all(&Scan::new().raw(true).max_versions(100))
        .unwrap()
        .iter()
        .flat_map(|r| r.cells.iter())
        .map(|c| {
            format!(
                "{}/{}:{}@{} {:?} {}",
                c.row().escape_ascii(),
                c.family().escape_ascii(),
                c.qualifier().escape_ascii(),
                c.timestamp(),
                c.cell_type(),
                c.value().escape_ascii()
            )
        })
        .collect()
}

fn bounds(engine: &Engine, table: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    engine
        .admin()
        .regions(table)
        .unwrap()
        .into_iter()
        .map(|r| (r.start, r.end))
        .collect()
}

fn put(t: &Table, row: &str, q: &str, ts: i64, v: &str) {
    t.put(Put::new(row).add_column_ts("cf", q, ts, v)).unwrap();
}

/// Table `t` (families cf, cf2; split at m) with 40 rows in three versions, some deleted,
/// partly flushed.
fn build(engine: &Engine) -> Table {
    let admin = engine.admin();
    let mut d = table_desc("t", &["cf", "cf2"]);
    d.families[0].max_versions = 3;
    admin.create_table_with_splits(d, &[b"m".to_vec()]).unwrap();
    let t = engine.table("t").unwrap();
    for i in 0..40 {
        let row = format!("{}{i:02}", if i % 2 == 0 { "a" } else { "x" });
        for ts in 1..=3 {
            put(&t, &row, "q", ts, &format!("v{i}.{ts}"));
        }
        t.put(Put::new(row.clone()).add_column("cf2", "z", "w"))
            .unwrap();
        if i == 19 {
            admin.flush("t").unwrap();
        }
    }
    t.delete(Delete::new("a04")).unwrap();
    t.delete(Delete::new("x05").add_column("cf", "q")).unwrap();
    t
}

#[test]
fn a_snapshot_keeps_its_data_through_writes_compactions_truncates_drops_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let admin = engine.admin();
    let t = build(&engine);
    let at_snapshot = contents(&engine, "t");
    let boundaries = bounds(&engine, "t");
    admin.snapshot("t", "s1", false).unwrap();
    // The table goes on: new versions, deletes, a major compaction that drops the old files.
    for i in 0..40 {
        put(&t, &format!("a{i:02}"), "q", 10, "later");
    }
    t.delete(Delete::new("x07")).unwrap();
    admin.flush("t").unwrap();
    admin.major_compact("t").unwrap();
    assert_ne!(contents(&engine, "t"), at_snapshot);
    // A clone reads what the table held at the snapshot, with its boundaries and schema.
    admin.clone_snapshot("s1", "c1").unwrap();
    assert_eq!(contents(&engine, "c1"), at_snapshot);
    assert_eq!(bounds(&engine, "c1"), boundaries);
    assert_eq!(
        admin.describe("c1").unwrap().families,
        admin.describe("t").unwrap().families
    );
    // The clone is a table of its own: writes to it do not reach the source or the snapshot.
    put(&engine.table("c1").unwrap(), "a00", "q", 20, "clone only");
    admin.flush("c1").unwrap();
    admin.major_compact("c1").unwrap();
    // Truncate and drop the source; the snapshot still holds its data.
    admin.disable("t").unwrap();
    admin.truncate("t", true).unwrap();
    assert!(contents(&engine, "t").is_empty());
    admin.disable("t").unwrap();
    admin.restore_snapshot("s1").unwrap();
    assert!(
        !admin.is_enabled("t").unwrap(),
        "a restored table stays disabled"
    );
    admin.enable("t").unwrap();
    assert_eq!(contents(&engine, "t"), at_snapshot);
    assert_eq!(bounds(&engine, "t"), boundaries);
    admin.disable("t").unwrap();
    admin.delete_table("t").unwrap();
    // Restoring a dropped table creates it again.
    admin.restore_snapshot("s1").unwrap();
    assert_eq!(contents(&engine, "t"), at_snapshot);
    let listed = admin.list_snapshots().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "s1");
    assert_eq!(listed[0].table.to_string(), "t");
    assert!(listed[0].created_ms > 1_700_000_000_000);
    assert_eq!(admin.snapshot_info("s1").unwrap(), listed[0]);
    // Across a restart: snapshots, clones and restored tables all read the same.
    drop((t, admin));
    drop(engine);
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let admin = engine.admin();
    assert_eq!(contents(&engine, "t"), at_snapshot);
    let c1 = contents(&engine, "c1");
    assert!(c1.iter().any(|c| c.contains("clone only")));
    admin.clone_snapshot("s1", "c2").unwrap();
    assert_eq!(contents(&engine, "c2"), at_snapshot);
    // Deleting the snapshot leaves its clones whole.
    admin.delete_snapshot("s1").unwrap();
    assert!(admin.list_snapshots().unwrap().is_empty());
    assert_eq!(contents(&engine, "c2"), at_snapshot);
    let visible = |table: &str| engine.table(table).unwrap().scan_all(&Scan::new()).unwrap();
    let before = visible("c2");
    admin.major_compact("c2").unwrap();
    assert_eq!(visible("c2"), before, "a major compaction of the clone");
}

#[test]
fn a_snapshot_flushes_first_unless_told_to_skip_the_flush() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let admin = engine.admin();
    admin.create_table(table_desc("m", &["cf"])).unwrap();
    let t = engine.table("m").unwrap();
    put(&t, "r1", "q", 1, "in a file");
    admin.flush("m").unwrap();
    put(&t, "r2", "q", 1, "in the memstore");
    admin.snapshot("m", "skipped", true).unwrap();
    admin.snapshot("m", "flushed", false).unwrap();
    admin.clone_snapshot("skipped", "m_skipped").unwrap();
    admin.clone_snapshot("flushed", "m_flushed").unwrap();
    assert_eq!(contents(&engine, "m_skipped").len(), 1);
    assert_eq!(contents(&engine, "m_flushed").len(), 2);
}

#[test]
fn snapshot_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let admin = engine.admin();
    admin.create_table(table_desc("e", &["cf"])).unwrap();
    admin.snapshot("e", "s", false).unwrap();
    let exists = admin.snapshot("e", "s", false).unwrap_err();
    assert!(matches!(exists, Error::SnapshotExists(_)), "{exists}");
    assert_eq!(
        exists.to_string(),
        "Snapshot 's' already stored on the filesystem."
    );
    for missing in [
        admin.clone_snapshot("nope", "x").unwrap_err(),
        admin.restore_snapshot("nope").unwrap_err(),
        admin.delete_snapshot("nope").unwrap_err(),
        admin.snapshot_info("nope").unwrap_err(),
    ] {
        assert_eq!(
            missing.to_string(),
            "Snapshot 'nope' doesn't exist on the filesystem"
        );
    }
    for bad in ["", ".hidden", "-x", "a/b", "a b", "..", "é"] {
        let e = admin.snapshot("e", bad, false).unwrap_err();
        assert!(matches!(e, Error::IllegalArgument(_)), "{bad:?}: {e}");
    }
    assert!(matches!(
        admin.snapshot("absent", "s2", false).unwrap_err(),
        Error::TableNotFound(_)
    ));
    assert!(matches!(
        admin.clone_snapshot("s", "e").unwrap_err(),
        Error::TableExists(_)
    ));
    assert!(matches!(
        admin.clone_snapshot("s", "no_ns:e").unwrap_err(),
        Error::NamespaceNotFound(_)
    ));
    assert!(matches!(
        admin.restore_snapshot("s").unwrap_err(),
        Error::TableNotDisabled(_)
    ));
    // Nothing of the failed clones is left: the data directory holds the table's regions only.
    assert_eq!(admin.list_tables().unwrap().len(), 1);
}

/// Snapshot then clone, and restore, with a power cut at every file-system step: after the
/// reopen the snapshot is listed whole (a clone of it reads the snapshot's data) or not at all,
/// and the clone or restored table holds the snapshot's data or the table's old state, never a
/// part; an acknowledged step is durable.
#[test]
fn a_power_cut_at_any_step_leaves_snapshots_and_clones_whole_or_absent() {
    fn setup(fs: &FaultFileSystem) -> (Engine, Vec<String>) {
        let engine = Engine::open(DIR, options(fs)).unwrap();
        let admin = engine.admin();
        admin
            .create_table_with_splits(table_desc("p", &["cf"]), &[b"m".to_vec()])
            .unwrap();
        let t = engine.table("p").unwrap();
        for row in ["a", "b", "n", "z"] {
            t.put(
                Put::new(row)
                    .add_column_ts("cf", "q", 1, row)
                    .durability(Durability::FsyncWal),
            )
            .unwrap();
        }
        admin.flush("p").unwrap();
        let data = contents(&engine, "p");
        (engine, data)
    }
    type Steps = fn(&Admin) -> Result<()>;
    let sequences: [(&str, Steps); 2] = [
        ("snapshot and clone", |a| {
            a.snapshot("p", "s", false)?;
            a.clone_snapshot("s", "c")
        }),
        ("snapshot, truncate and restore", |a| {
            a.snapshot("p", "s", false)?;
            a.disable("p")?;
            a.truncate("p", true)?;
            a.disable("p")?;
            a.restore_snapshot("s")?;
            a.enable("p")
        }),
    ];
    let mut cuts = 0;
    for (what, steps) in sequences {
        let fs = FaultFileSystem::new();
        let (engine, _) = setup(&fs);
        let before = fs.mutations();
        steps(&engine.admin()).unwrap();
        let total = fs.mutations() - before;
        drop(engine);
        for step in 1..=total {
            for mode in [
                CutMode::DropUnsynced,
                CutMode::KeepRandom { seed: step * 17 },
            ] {
                let fs = FaultFileSystem::new();
                let (engine, data) = setup(&fs);
                fs.cut_power_after(step);
                let done = steps(&engine.admin()).is_ok();
                drop(engine);
                fs.clear_faults();
                fs.power_cut(mode);
                let at = format!("{what}, cut at step {step} of {total} ({mode:?})");
                let engine =
                    Engine::open(DIR, options(&fs)).unwrap_or_else(|e| panic!("{at}: reopen: {e}"));
                let admin = engine.admin();
                let snapshots = admin.list_snapshots().unwrap();
                if !snapshots.is_empty() {
                    admin
                        .clone_snapshot("s", "check")
                        .unwrap_or_else(|e| panic!("{at}: clone of the listed snapshot: {e}"));
                    assert_eq!(contents(&engine, "check"), data, "{at}: the snapshot");
                }
                if admin.table_exists("c").unwrap() {
                    assert_eq!(contents(&engine, "c"), data, "{at}: the clone");
                }
                if admin.is_enabled("p").unwrap() {
                    let p = contents(&engine, "p");
                    assert!(p == data || p.is_empty(), "{at}: p is {p:?}");
                }
                if done {
                    assert_eq!(snapshots.len(), 1, "{at}: acknowledged, then lost");
                    assert!(admin.is_enabled("p").unwrap(), "{at}");
                    assert_eq!(contents(&engine, "p"), data, "{at}");
                }
                cuts += 1;
            }
        }
    }
    eprintln!("{cuts} power cuts");
    assert!(cuts >= 40, "only {cuts} cut points");
}
