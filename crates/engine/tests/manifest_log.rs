//! The manifest's edit log (`docs/format/manifest.md`), with every change going through it
//! (`EngineOptions::manifest_log_threshold` = 0), through the fault-injecting file system:
//!
//! - a power cut at each file-system step of each DDL, appended to the log or rolled into a
//!   new snapshot: the engine reopens to the old or the new catalog, the new one when the DDL
//!   returned `Ok`;
//! - a power cut at each step of flushes, a major compaction and a split: every acknowledged
//!   row reads back;
//! - a torn last record is dropped (the change it carried was never acknowledged) and the next
//!   change writes a snapshot instead of appending after it; a damaged record in the middle, or
//!   a damaged header, refuses the open naming the log and the record's offset;
//! - a data directory written before the log (manifest version 3) opens and is rewritten as
//!   version 4 by its first structural change.

mod support;

use ferrobase_engine::fs::fault::{CutMode, FaultFileSystem};
use ferrobase_engine::fs::FileSystem;
use ferrobase_engine::*;
use std::path::{Path, PathBuf};
use support::ddl::{catalog, ddls, options, present, put, setup, DIR, LOG_THRESHOLD};

fn log_everything() {
    let _ = LOG_THRESHOLD.set(0);
}

fn log_path(engine: &Engine) -> PathBuf {
    let g = engine.manifest_stats().generation;
    assert!(g > 0, "no log in force");
    Path::new(DIR).join(format!("MANIFEST-{g:016}.log"))
}

fn read(fs: &FaultFileSystem, p: &Path) -> Vec<u8> {
    fs.read(p).unwrap()
}

fn write(fs: &FaultFileSystem, p: &Path, bytes: &[u8]) {
    let f = fs.create(p).unwrap();
    f.append(bytes).unwrap();
    f.sync_all().unwrap();
    fs.sync_dir(Path::new(DIR)).unwrap();
}

#[test]
fn a_power_cut_at_any_step_of_a_ddl_through_the_log_reopens_to_the_old_or_the_new_catalog() {
    log_everything();
    let (mut cuts, mut appended, mut rolled) = (0, 0, 0);
    for (kind, _, ddl) in ddls() {
        // As it comes; right after a roll (the DDL appends); with the log full (it rolls).
        for fill in [Fill::None, Fill::JustRolled, Fill::RollNext] {
            let prepare = |fs: &FaultFileSystem| {
                let engine = setup(fs);
                let start = engine.manifest_stats().snapshots_written;
                let mut i = 0;
                let done = |s: ManifestStats| match fill {
                    Fill::None => true,
                    Fill::JustRolled => s.snapshots_written > start,
                    Fill::RollNext => s.log_bytes >= s.snapshot_bytes,
                };
                while !done(engine.manifest_stats()) {
                    put(&engine, "other", &format!("fill{i}"));
                    engine.admin().flush("other").unwrap();
                    i += 1;
                }
                engine
            };
            let fs = FaultFileSystem::new();
            let engine = prepare(&fs);
            let (before, stats) = (catalog(&engine), engine.manifest_stats());
            let m = fs.mutations();
            ddl(&engine.admin()).unwrap_or_else(|e| panic!("{kind}: {e}"));
            let steps = fs.mutations() - m;
            let after = catalog(&engine);
            if engine.manifest_stats().snapshots_written > stats.snapshots_written {
                rolled += 1;
            } else {
                assert!(engine.manifest_stats().records_written > stats.records_written);
                appended += 1;
            }
            drop(engine);
            for step in 1..=steps {
                for mode in [
                    CutMode::DropUnsynced,
                    CutMode::KeepRandom { seed: step * 31 },
                ] {
                    let fs = FaultFileSystem::new();
                    let engine = prepare(&fs);
                    fs.cut_power_after(step);
                    let result = ddl(&engine.admin());
                    drop(engine);
                    let what =
                        format!("{kind} ({fill:?}), cut at step {step} of {steps} ({mode:?})");
                    fs.clear_faults();
                    fs.power_cut(mode);
                    let engine = Engine::open(DIR, options(&fs))
                        .unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
                    let got = catalog(&engine);
                    assert!(
                        got == before || got == after,
                        "{what}: neither the old nor the new catalog:\n{got}"
                    );
                    if result.is_ok() {
                        assert_eq!(got, after, "{what}: an acknowledged DDL was lost");
                    }
                    assert!(present(&engine, "other", "r1"), "{what}: `other` lost r1");
                    // The next change commits and survives another cut.
                    engine.admin().create_namespace("ns_later").unwrap();
                    drop(engine);
                    fs.power_cut(CutMode::DropUnsynced);
                    let engine = Engine::open(DIR, options(&fs)).unwrap();
                    assert!(engine
                        .admin()
                        .list_namespaces()
                        .unwrap()
                        .contains(&"ns_later".to_string()));
                    cuts += 1;
                }
            }
        }
    }
    eprintln!("{cuts} power cuts; {appended} DDLs appended, {rolled} rolled the log");
    assert!(
        appended >= 5 && rolled >= 5,
        "{appended} appended, {rolled} rolled"
    );
}

#[derive(Debug, Clone, Copy)]
enum Fill {
    None,
    JustRolled,
    RollNext,
}

/// Rows `w{round}_{i}` written to `t` (both regions), flushed after each round; then a major
/// compaction and a split of `other`. Returns the rows acknowledged.
fn job_workload(engine: &Engine) -> Vec<(String, String)> {
    let mut acked = Vec::new();
    for round in 0..3 {
        for (i, row) in ["a", "z"].iter().enumerate() {
            let row = format!("{row}{round}_{i}");
            let ok = engine
                .table("t")
                .and_then(|t| {
                    t.put(
                        Put::new(row.clone())
                            .add_column("cf", "q", "v")
                            .durability(Durability::FsyncWal),
                    )
                })
                .is_ok();
            if ok {
                acked.push(("t".to_string(), row));
            }
        }
        if engine.admin().flush("t").is_err() {
            return acked;
        }
    }
    if engine.admin().major_compact("t").is_err() {
        return acked;
    }
    let _ = engine.admin().split("other", Some(b"m"));
    acked
}

#[test]
fn a_power_cut_at_any_step_of_flushes_compactions_and_splits_through_the_log_loses_nothing() {
    log_everything();
    let fs = FaultFileSystem::new();
    let engine = setup(&fs);
    let m = fs.mutations();
    let stats = engine.manifest_stats();
    let acked = job_workload(&engine);
    let steps = fs.mutations() - m;
    assert_eq!(acked.len(), 6);
    assert!(engine.manifest_stats().records_written > stats.records_written);
    drop(engine);
    let mut cuts = 0;
    for step in 1..=steps {
        for mode in [CutMode::DropUnsynced, CutMode::KeepRandom { seed: step }] {
            let fs = FaultFileSystem::new();
            let engine = setup(&fs);
            fs.cut_power_after(step);
            let acked = job_workload(&engine);
            drop(engine);
            fs.clear_faults();
            fs.power_cut(mode);
            let what = format!("cut at step {step} of {steps} ({mode:?})");
            let engine =
                Engine::open(DIR, options(&fs)).unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
            for (table, row) in &acked {
                assert!(present(&engine, table, row), "{what}: {table}/{row} lost");
            }
            assert!(present(&engine, "other", "r1"), "{what}");
            assert!(present(&engine, "t", "r1"), "{what}");
            cuts += 1;
        }
    }
    eprintln!("{cuts} power cuts over {steps} steps");
}

/// An engine whose last manifest change is the creation of `later`, appended to the log.
fn with_last_record_a_ddl(fs: &FaultFileSystem) -> (Engine, usize, String) {
    let engine = setup(fs);
    let mut i = 0;
    loop {
        let path_before = engine.manifest_stats();
        let len_before = if path_before.generation > 0 {
            read(fs, &log_path(&engine)).len()
        } else {
            0
        };
        let name = format!("later{i}");
        engine
            .admin()
            .create_table(support::ddl::table_desc(&name, &["cf"]))
            .unwrap();
        let after = engine.manifest_stats();
        if after.snapshots_written == path_before.snapshots_written {
            let len = read(fs, &log_path(&engine)).len();
            // The machine stops: nothing after the DDL reaches the disk.
            fs.cut_power_after(1);
            return (engine, len - len_before, name);
        }
        i += 1;
    }
}

#[test]
fn a_torn_last_record_is_dropped_and_the_next_change_writes_a_snapshot() {
    log_everything();
    let probe = FaultFileSystem::new();
    let (engine, record, _) = with_last_record_a_ddl(&probe);
    drop(engine);
    assert!(record > 8);
    for cut in 1..record {
        let fs = FaultFileSystem::new();
        let (engine, _, last) = with_last_record_a_ddl(&fs);
        let log = log_path(&engine);
        drop(engine);
        fs.power_cut(CutMode::DropUnsynced);
        let bytes = read(&fs, &log);
        write(&fs, &log, &bytes[..bytes.len() - cut]);
        let engine = Engine::open(DIR, options(&fs)).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        let has = |e: &Engine| {
            e.admin()
                .list_tables()
                .unwrap()
                .iter()
                .any(|t| t.to_string() == last)
        };
        assert!(!has(&engine), "cut {cut}: the torn DDL applied");
        assert!(present(&engine, "t", "r1"));
        // The open's own commit wrote a snapshot and retired the torn log.
        assert!(engine.manifest_stats().snapshots_written >= 1, "cut {cut}");
        assert!(!fs.exists(&log) || engine.manifest_stats().generation == 0);
        engine
            .admin()
            .create_table(support::ddl::table_desc(&last, &["cf"]))
            .unwrap();
        drop(engine);
        fs.power_cut(CutMode::DropUnsynced);
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        assert!(has(&engine), "cut {cut}");
    }
}

#[test]
fn a_damaged_record_or_header_refuses_the_open_naming_the_log_and_the_offset() {
    log_everything();
    let fs = FaultFileSystem::new();
    let (engine, _, _) = with_last_record_a_ddl(&fs);
    let log = log_path(&engine);
    drop(engine);
    fs.power_cut(CutMode::DropUnsynced);
    let good = read(&fs, &log);
    // The first record's payload (past the 16-byte header and its own 8): a flipped bit.
    for (at, offset) in [(16 + 8 + 1, 16u64), (3, 0)] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        write(&fs, &log, &bad);
        match Engine::open(DIR, options(&fs)) {
            Err(Error::Corruption {
                path, offset: o, ..
            }) => {
                assert_eq!(path, log, "byte {at}");
                assert_eq!(o, offset, "byte {at}");
            }
            Err(e) => panic!("byte {at}: {e}"),
            Ok(_) => panic!("byte {at}: a damaged log opened"),
        }
        // Nothing was changed on disk by the refused open.
        assert_eq!(read(&fs, &log), bad);
    }
    write(&fs, &log, &good);
    Engine::open(DIR, options(&fs)).unwrap();
}

#[test]
fn a_version_3_manifest_opens_and_its_first_commit_writes_version_4() {
    log_everything();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-v3");
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&fixture).unwrap() {
        let e = e.unwrap();
        let to = dir.path().join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(e.path()).unwrap() {
                let f = f.unwrap();
                if f.file_type().unwrap().is_dir() {
                    std::fs::create_dir_all(to.join(f.file_name())).unwrap();
                    for g in std::fs::read_dir(f.path()).unwrap() {
                        let g = g.unwrap();
                        std::fs::copy(g.path(), to.join(f.file_name()).join(g.file_name()))
                            .unwrap();
                    }
                } else {
                    std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
                }
            }
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    let version = |d: &Path| {
        let b = std::fs::read(d.join("MANIFEST")).unwrap();
        u32::from_be_bytes(b[8..12].try_into().unwrap())
    };
    assert_eq!(version(dir.path()), 3);
    let opts = EngineOptions {
        manifest_log_threshold: 0,
        ..EngineOptions::default()
    };
    let engine = Engine::open(dir.path(), opts.clone()).unwrap();
    assert_eq!(version(dir.path()), 4, "the open's commit upgrades");
    let rows = |e: &Engine| e.table("t").unwrap().scan_all(&Scan::new()).unwrap().len();
    let n = rows(&engine);
    assert!(n > 0);
    engine.admin().flush("t").unwrap();
    assert!(engine.manifest_stats().generation > 0);
    drop(engine);
    let engine = Engine::open(dir.path(), opts).unwrap();
    assert_eq!(rows(&engine), n);
}

/// A cell as (table, row, column, ts, value).
type Cell = (String, String, String, i64, Vec<u8>);

/// Every cell of every table of the data directory `dir`.
fn everything(dir: &Path) -> Result<Vec<Cell>> {
    let engine = Engine::open(dir, EngineOptions::default())?;
    let mut out = Vec::new();
    for name in engine.admin().list_tables()? {
        let name = name.to_string();
        for r in engine
            .table(&name)?
            .scan_all(&Scan::new().max_versions(10))?
        {
            for c in &r.cells {
                out.push((
                    name.clone(),
                    String::from_utf8_lossy(c.row()).into_owned(),
                    format!(
                        "{}:{}",
                        String::from_utf8_lossy(c.family()),
                        String::from_utf8_lossy(c.qualifier())
                    ),
                    c.timestamp(),
                    c.value().to_vec(),
                ));
            }
        }
    }
    Ok(out)
}

const V4_FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/format-v4-log");

/// Writes `fixtures/format-v4-log` (run by hand with `--ignored`; the directory must not
/// exist): a version 4 manifest whose changes are in its edit log. Table `t` (families `cf`,
/// `p`): rows user0000..user0019 `cf:q` at 1_600_000_000_000 + i = `v{i}`, flushed; rows
/// user0000..user0009 `p:x` at i = `p{i}`, flushed; a major compaction; a split at user0010;
/// table `u` with one row `u0` `cf:q` at 1 = `u`, flushed; table `gone` created and dropped;
/// namespace `ns1`.
#[test]
#[ignore]
fn write_the_format_v4_log_fixture() {
    let dir = Path::new(V4_FIXTURE);
    assert!(!dir.exists(), "remove {} first", dir.display());
    let opts = EngineOptions {
        manifest_log_threshold: 0,
        auto_split: false,
        compaction: CompactionOptions {
            auto: false,
            major_interval: None,
            ..CompactionOptions::default()
        },
        ..EngineOptions::default()
    };
    let engine = Engine::open(dir, opts).unwrap();
    let admin = engine.admin();
    admin
        .create_table(support::ddl::table_desc("t", &["cf", "p"]))
        .unwrap();
    let t = engine.table("t").unwrap();
    for i in 0..20i64 {
        t.put(Put::new(format!("user{i:04}")).add_column_ts(
            "cf",
            "q",
            1_600_000_000_000 + i,
            format!("v{i}"),
        ))
        .unwrap();
    }
    admin.flush("t").unwrap();
    for i in 0..10i64 {
        t.put(Put::new(format!("user{i:04}")).add_column_ts("p", "x", i, format!("p{i}")))
            .unwrap();
    }
    admin.flush("t").unwrap();
    admin.major_compact("t").unwrap();
    admin.split("t", Some(b"user0010")).unwrap();
    admin
        .create_table(support::ddl::table_desc("u", &["cf"]))
        .unwrap();
    engine
        .table("u")
        .unwrap()
        .put(Put::new("u0").add_column_ts("cf", "q", 1, "u"))
        .unwrap();
    admin.flush("u").unwrap();
    admin
        .create_table(support::ddl::table_desc("gone", &["cf"]))
        .unwrap();
    admin.disable("gone").unwrap();
    admin.delete_table("gone").unwrap();
    admin.create_namespace("ns1").unwrap();
    let stats = engine.manifest_stats();
    assert!(stats.generation > 0 && stats.log_records > 3, "{stats:?}");
    drop(t);
    drop(engine);
    let _ = std::fs::remove_file(dir.join("LOCK"));
}

fn v4_fixture_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(Path::new(V4_FIXTURE), tmp.path());
    tmp
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn v4_log(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".log"))
        .expect("the fixture has a manifest log")
}

#[test]
fn the_format_v4_log_fixture_opens_and_reads_what_was_written() {
    let tmp = v4_fixture_copy();
    let b = std::fs::read(tmp.path().join("MANIFEST")).unwrap();
    assert_eq!(u32::from_be_bytes(b[8..12].try_into().unwrap()), 4);
    let cells = everything(tmp.path()).unwrap();
    let mut want = Vec::new();
    for i in 0..20i64 {
        let row = format!("user{i:04}");
        want.push((
            "t".to_string(),
            row.clone(),
            "cf:q".to_string(),
            1_600_000_000_000 + i,
            format!("v{i}").into_bytes(),
        ));
        if i < 10 {
            want.push((
                "t".to_string(),
                row,
                "p:x".to_string(),
                i,
                format!("p{i}").into_bytes(),
            ));
        }
    }
    want.push(("u".into(), "u0".into(), "cf:q".into(), 1, b"u".to_vec()));
    assert_eq!(cells, want);
    let engine = Engine::open(tmp.path(), EngineOptions::default()).unwrap();
    assert_eq!(engine.admin().regions("t").unwrap().len(), 2);
    assert!(engine
        .admin()
        .list_namespaces()
        .unwrap()
        .contains(&"ns1".to_string()));
}

/// A flipped byte anywhere in the fixture's log: the open refuses naming the log, or (a flip
/// that makes the last record look cut short) drops that record, reading a subset.
#[test]
fn the_corrupt_twins_of_the_v4_log_are_refused_by_name_or_read_a_subset() {
    let clean_dir = v4_fixture_copy();
    let clean = everything(clean_dir.path()).unwrap();
    let len = std::fs::metadata(v4_log(Path::new(V4_FIXTURE)))
        .unwrap()
        .len() as usize;
    let mut refused = 0;
    for k in 0..16 {
        let at = len * k / 16;
        let tmp = v4_fixture_copy();
        let log = v4_log(tmp.path());
        let mut bytes = std::fs::read(&log).unwrap();
        bytes[at] ^= 0x5a;
        std::fs::write(&log, &bytes).unwrap();
        let name = log.file_name().unwrap().to_string_lossy().into_owned();
        match everything(tmp.path()) {
            Err(e) => {
                assert!(e.to_string().contains(&name), "byte {at}: {e}");
                refused += 1;
            }
            Ok(got) => assert!(
                got.iter().all(|c| clean.contains(c)),
                "byte {at}: cells invented"
            ),
        }
    }
    assert!(refused >= 14, "only {refused} of 16 refused");
}

/// A full disk at the append of a flush's log record: writes are suspended (not poisoned),
/// the log is not appended to again, and the retry writes a snapshot; a power cut while
/// suspended loses nothing acknowledged. At a DDL's append: `DdlNotApplied` naming the log,
/// the catalog unchanged, the same DDL then succeeds.
#[test]
fn a_full_disk_at_a_log_append_suspends_a_flush_and_refuses_a_ddl_cleanly() {
    use ferrobase_engine::fs::fault::{Fault, OpKind};
    log_everything();
    for power_cut in [false, true] {
        let fs = FaultFileSystem::new();
        let (engine, _, _) = with_last_record_a_ddl(&fs);
        fs.power_cut(CutMode::DropUnsynced);
        drop(engine);
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        for i in 0..5 {
            put(&engine, "t", &format!("s{i}"));
        }
        let stats = engine.manifest_stats();
        assert!(stats.generation > 0);
        fs.inject(Fault {
            kind: OpKind::Append,
            path_contains: ".log".into(),
            nth: 1,
            errno: libc::ENOSPC,
        });
        let e = engine.admin().flush("t").unwrap_err();
        assert!(
            matches!(
                e,
                Error::WritesSuspended {
                    cause: StallCause::ManifestWrite,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains(".log"), "{e}");
        assert!(engine.poisoned().is_none());
        assert!(present(&engine, "t", "s0"), "reads go on");
        if power_cut {
            fs.set_free_space(Some(0));
            std::thread::sleep(std::time::Duration::from_millis(200));
            fs.power_cut(CutMode::DropUnsynced);
            drop(engine);
            fs.set_free_space(None);
            let engine = Engine::open(DIR, options(&fs)).unwrap();
            for i in 0..5 {
                assert!(present(&engine, "t", &format!("s{i}")), "s{i} lost");
            }
            continue;
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while engine.health() != Health::Healthy {
            assert!(std::time::Instant::now() < deadline, "{}", engine.health());
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            engine.manifest_stats().snapshots_written > stats.snapshots_written,
            "the retry wrote a snapshot"
        );
        // A DDL meeting the same full disk at its append.
        let before = catalog(&engine);
        fs.inject(Fault {
            kind: OpKind::Append,
            path_contains: ".log".into(),
            nth: 1,
            errno: libc::ENOSPC,
        });
        let e = engine.admin().create_namespace("ns_full").unwrap_err();
        match &e {
            Error::DdlNotApplied { path, .. } => {
                assert!(path.to_string_lossy().ends_with(".log"), "{e}")
            }
            other => panic!("expected DdlNotApplied, got {other:?}"),
        }
        assert_eq!(engine.health(), Health::Healthy);
        assert_eq!(catalog(&engine), before);
        engine.admin().create_namespace("ns_full").unwrap();
        let after = catalog(&engine);
        drop(engine);
        fs.power_cut(CutMode::DropUnsynced);
        let engine = Engine::open(DIR, options(&fs)).unwrap();
        assert_eq!(catalog(&engine), after);
        for i in 0..5 {
            assert!(present(&engine, "t", &format!("s{i}")), "s{i} lost");
        }
    }
}
