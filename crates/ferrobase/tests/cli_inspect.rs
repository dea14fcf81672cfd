//! `ferrobase inspect` and `ferrobase check` (issue 47) on the engine's format fixtures (data
//! directories written by older versions, `crates/engine/tests/fixtures/`) and on their corrupt
//! twins: a flipped byte in a block file, a torn WAL tail, a manifest naming a missing file.
//! Nothing they read changes.

mod engine_cells;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/fixtures");

fn ferrobase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A copy of fixture `name` in a temporary directory.
fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join(name);
    copy_dir(&Path::new(FIXTURES).join(name), &to);
    (tmp, to)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn bytes_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(dir, "")
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

#[test]
fn the_fixtures_read_whole_and_check_clean() {
    for name in ["format-v2", "format-v3", "format-v4-log"] {
        let (_tmp, dir) = fixture(name);
        let before = bytes_of(&dir);
        let d = dir.to_str().unwrap();
        let out = ferrobase(&["check", d]);
        assert!(out.status.success(), "{name}: {}", text(&out));
        assert!(text(&out).contains(", 0 problems"), "{}", text(&out));
        let manifest = ferrobase(&["inspect", "manifest", d]);
        assert!(manifest.status.success(), "{}", text(&manifest));
        assert!(text(&manifest).contains("table "), "{}", text(&manifest));
        for blk in files(&dir, ".blk") {
            let out = ferrobase(&["inspect", "block-file", blk.to_str().unwrap(), "-p", "-m"]);
            let t = text(&out);
            assert!(out.status.success(), "{t}");
            assert!(t.contains("Trailer:") && t.contains("Meta:"), "{t}");
            assert!(
                t.contains("K: ") && t.contains("every checksum verified"),
                "{t}"
            );
            // The meta's cell count is the number of cells printed.
            let printed = t.lines().filter(|l| l.starts_with("K: ")).count();
            assert!(t.contains(&format!("Scanned {printed} cells")), "{t}");
        }
        for wal in files(&dir, ".wal") {
            let out = ferrobase(&["inspect", "wal", wal.to_str().unwrap(), "-p"]);
            let t = text(&out);
            assert!(out.status.success(), "{t}");
            assert!(t.contains("ends whole"), "{t}");
            // Every record counted is printed (format-v2's segment holds none).
            let records = t.lines().filter(|l| l.starts_with("seqid=")).count();
            assert!(t.contains(&format!("{records} records;")), "{t}");
        }
        assert_eq!(bytes_of(&dir), before, "{name}: nothing changed");
    }
}

#[test]
fn a_flipped_byte_in_a_block_file_is_a_problem_naming_the_file() {
    let (_tmp, dir) = fixture("format-v3");
    let blk = files(&dir, ".blk").remove(0);
    let mut b = std::fs::read(&blk).unwrap();
    b[12] ^= 0x40;
    std::fs::write(&blk, &b).unwrap();
    let before = bytes_of(&dir);
    let out = ferrobase(&["check", dir.to_str().unwrap()]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.lines()
            .any(|l| l.starts_with("PROBLEM") && l.contains(&blk.display().to_string())),
        "{t}"
    );
    let out = ferrobase(&["inspect", "block-file", blk.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("offset"), "{}", text(&out));
    assert_eq!(bytes_of(&dir), before, "nothing changed");
}

#[test]
fn a_torn_wal_tail_is_a_note_and_damage_a_problem() {
    let (_tmp, dir) = fixture("format-v3");
    let wal = files(&dir, ".wal").remove(0);
    let whole = std::fs::read(&wal).unwrap();
    let mut torn = whole.clone();
    torn.extend_from_slice(&[0, 0, 1, 0, 0xde, 0xad]);
    std::fs::write(&wal, &torn).unwrap();
    let out = ferrobase(&["check", dir.to_str().unwrap()]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("note") && t.contains("torn tail"), "{t}");
    let out = ferrobase(&["inspect", "wal", wal.to_str().unwrap()]);
    assert!(text(&out).contains("torn tail at offset"), "{}", text(&out));
    // A flipped byte inside the last complete record: damage.
    let mut damaged = whole.clone();
    let n = damaged.len();
    damaged[n - 3] ^= 0x20;
    std::fs::write(&wal, &damaged).unwrap();
    let out = ferrobase(&["check", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("damaged record"), "{}", text(&out));
    let out = ferrobase(&["inspect", "wal", wal.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("DAMAGE at offset"), "{}", text(&out));
}

#[test]
fn a_torn_manifest_log_tail_is_a_note_and_damage_a_problem() {
    let (_tmp, dir) = fixture("format-v4-log");
    let d = dir.to_str().unwrap();
    let log = files(&dir, ".log").remove(0);
    let out = ferrobase(&["inspect", "manifest", d]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("snapshot MANIFEST (version 4")
            && t.contains("edit log MANIFEST-")
            && t.contains(" records, "),
        "{t}"
    );
    let whole = std::fs::read(&log).unwrap();
    std::fs::write(&log, &whole[..whole.len() - 3]).unwrap();
    let out = ferrobase(&["check", d]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("manifest log: a torn last record"), "{t}");
    let t = text(&ferrobase(&["inspect", "manifest", d]));
    assert!(t.contains("a torn last record at offset"), "{t}");
    // A flipped byte in the first record's edit: damage, naming the log and the offset.
    let mut damaged = whole.clone();
    damaged[16 + 8 + 1] ^= 0x20;
    std::fs::write(&log, &damaged).unwrap();
    let before = bytes_of(&dir);
    let out = ferrobase(&["check", d]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.lines().any(|l| l.starts_with("PROBLEM")
            && l.contains(&log.display().to_string())
            && l.contains("offset 16")),
        "{t}"
    );
    let out = ferrobase(&["inspect", "manifest", d]);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(bytes_of(&dir), before, "nothing changed");
}

#[test]
fn a_manifest_naming_a_missing_file_is_a_problem() {
    let (_tmp, dir) = fixture("format-v2");
    let blk = files(&dir, ".blk").remove(0);
    std::fs::remove_file(&blk).unwrap();
    let out = ferrobase(&["check", dir.to_str().unwrap()]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(
        t.contains("named by the manifest") && t.contains("missing"),
        "{t}"
    );
    // A file no manifest names is a note (removed at the next open), not a problem.
    std::fs::write(blk.with_file_name("0000000000000099.blk"), b"x").unwrap();
    let t = text(&ferrobase(&["check", dir.to_str().unwrap()]));
    assert!(t.contains("not named by the manifest"), "{t}");
}

#[test]
fn bad_arguments_are_refused_with_the_usage() {
    for args in [
        vec!["inspect", "nope", "x"],
        vec!["inspect", "wal"],
        vec!["inspect", "block-file", "x", "--bogus"],
        vec!["check"],
    ] {
        let out = ferrobase(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains("usage"), "{args:?}: {}", text(&out));
    }
    assert!(ferrobase(&["inspect", "--help"]).status.success());
    assert!(ferrobase(&["check", "--help"]).status.success());
}

/// A data directory written by the engine: table `t` (two regions), 60 rows flushed into
/// block files and 20 more only in the WAL. Returns every cell as text.
fn engine_dir(dir: &Path) -> Vec<String> {
    use ferrobase_engine::*;
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    let admin = engine.admin();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    admin
        .create_table_with_splits(d, &[b"r40".to_vec()])
        .unwrap();
    let t = engine.table("t").unwrap();
    for i in 0..80 {
        t.put(Put::new(format!("r{i:02}")).add_column("cf", "q", format!("v{i}")))
            .unwrap();
        if i == 59 {
            admin.flush("t").unwrap();
        }
    }
    let cells = engine_cells::cells(&engine, "t");
    engine.close();
    cells
}

#[test]
fn repair_moves_orphans_and_leftovers_to_lost_and_found_and_keeps_every_row() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let cells = engine_dir(&dir);
    assert_eq!(cells.len(), 80);
    let d = dir.to_str().unwrap();
    // Clean: nothing to move.
    let out = ferrobase(&["check", d, "--repair"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("repair: nothing to move"),
        "{}",
        text(&out)
    );
    // An orphan in a live region, a region directory no manifest names, leftovers.
    let blk = files(&dir, ".blk").remove(0);
    let orphan = blk.with_file_name("0000000000009999.blk");
    std::fs::write(&orphan, b"half a flush").unwrap();
    std::fs::create_dir_all(dir.join("data/777")).unwrap();
    std::fs::write(dir.join("data/777/0000000000000001.blk"), b"x").unwrap();
    std::fs::write(dir.join("MANIFEST.tmp"), b"partial").unwrap();
    std::fs::write(dir.join("wal/0000000000000099.wal.tmp"), b"partial").unwrap();
    std::fs::create_dir_all(dir.join("snapshots/.tmp-s1/5")).unwrap();
    let before = text(&ferrobase(&["check", d]));
    assert!(before.contains(", 5 notes"), "{before}");
    let out = ferrobase(&["check", d, "--repair"]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert_eq!(t.matches("repair: moved ").count(), 5, "{t}");
    assert!(
        t.contains("5 moved to ") && t.contains("nothing deleted"),
        "{t}"
    );
    // Kept, under their own paths, in lost+found/<stamp>/.
    let stamps: Vec<_> = std::fs::read_dir(dir.join("lost+found")).unwrap().collect();
    assert_eq!(stamps.len(), 1);
    let kept = stamps[0].as_ref().unwrap().path();
    let rel = orphan.strip_prefix(&dir).unwrap();
    assert_eq!(std::fs::read(kept.join(rel)).unwrap(), b"half a flush");
    assert!(kept.join("data/777/0000000000000001.blk").exists());
    assert!(kept.join("MANIFEST.tmp").exists());
    assert!(kept.join("snapshots/.tmp-s1/5").is_dir());
    assert!(!orphan.exists() && !dir.join("data/777").exists());
    // Then it checks clean and opens with every row.
    let after = ferrobase(&["check", d]);
    assert!(after.status.success(), "{}", text(&after));
    assert!(
        text(&after).contains(", 0 problems, 0 notes"),
        "{}",
        text(&after)
    );
    let engine =
        ferrobase_engine::Engine::open(&dir, ferrobase_engine::EngineOptions::default()).unwrap();
    assert_eq!(engine_cells::cells(&engine, "t"), cells);
    engine.close();
}

#[test]
fn repair_refuses_damage_that_would_lose_acknowledged_data_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    engine_dir(&dir);
    let d = dir.to_str().unwrap();
    std::fs::remove_file(files(&dir, ".blk").remove(0)).unwrap();
    // An orphan too: a refusal moves not even that.
    std::fs::write(dir.join("MANIFEST.tmp"), b"partial").unwrap();
    let before = bytes_of(&dir);
    let out = ferrobase(&["check", d, "--repair"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("PROBLEM") && t.contains("missing"), "{t}");
    assert!(
        t.contains("refused") && t.contains("nothing was changed"),
        "{t}"
    );
    assert!(t.contains("--wal-recovery point-in-time"), "{t}");
    assert_eq!(bytes_of(&dir), before, "nothing changed");
    assert!(!dir.join("lost+found").exists());

    // A torn WAL tail (never acknowledged) is left for the open; a damaged record refused.
    let (_tmp2, dir2) = fixture("format-v3");
    let d2 = dir2.to_str().unwrap();
    let wal = files(&dir2, ".wal").remove(0);
    let whole = std::fs::read(&wal).unwrap();
    let mut torn = whole.clone();
    torn.extend_from_slice(&[0, 0, 1, 0, 0xde, 0xad]);
    std::fs::write(&wal, &torn).unwrap();
    let out = ferrobase(&["check", d2, "--repair"]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("left for the next open, which cuts it"), "{t}");
    assert_eq!(std::fs::read(&wal).unwrap(), torn);
    let mut damaged = whole;
    let n = damaged.len();
    damaged[n - 3] ^= 0x20;
    std::fs::write(&wal, &damaged).unwrap();
    let before = bytes_of(&dir2);
    let out = ferrobase(&["check", d2, "--repair"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("damaged record") && t.contains("refused"), "{t}");
    assert_eq!(bytes_of(&dir2), before, "nothing changed");
}

#[test]
fn repair_refuses_a_directory_a_server_has_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    engine_dir(&dir);
    std::fs::write(dir.join("MANIFEST.tmp"), b"partial").unwrap();
    let engine =
        ferrobase_engine::Engine::open(&dir, ferrobase_engine::EngineOptions::default()).unwrap();
    // The open removed MANIFEST.tmp; put one back while it holds the lock.
    std::fs::write(dir.join("MANIFEST.tmp"), b"partial").unwrap();
    let before = bytes_of(&dir);
    let out = ferrobase(&["check", dir.to_str().unwrap(), "--repair"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("locked") && t.contains("refused"), "{t}");
    assert_eq!(bytes_of(&dir), before, "nothing changed");
    engine.close();
}
