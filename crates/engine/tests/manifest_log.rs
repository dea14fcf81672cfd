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
