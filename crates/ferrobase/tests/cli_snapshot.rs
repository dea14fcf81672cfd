//! `ferrobase snapshot export` and `ferrobase snapshot import` (issue 47): a snapshot taken by
//! the engine, exported beside the open engine, imported into a fresh data directory and
//! cloned there holds exactly the cells it was taken of; a damaged export, a taken name and an
//! open target are refused.

mod engine_cells;

use ferrobase_engine::*;
use std::path::Path;
use std::process::{Command, Output};

fn ferrobase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .env_remove("FERROBASE_DATA")
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

/// Table `t` (families `cf`, `cf2`; two regions; versions, deletes, two flushes) in `dir`,
/// snapshot `s1` of it taken, then more writes; returns the engine (open) and the snapshot's cells.
fn source(dir: &Path) -> (Engine, Vec<String>) {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    let admin = engine.admin();
    let mut d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_family(ColumnFamilyDescriptor::new("cf2"));
    d.families[0].max_versions = 3;
    admin.create_table_with_splits(d, &[b"m".to_vec()]).unwrap();
    let t = engine.table("t").unwrap();
    for i in 0..60 {
        let row = format!("{}{i:02}", if i % 2 == 0 { "a" } else { "x" });
        for ts in 1..=3 {
            t.put(Put::new(row.clone()).add_column_ts("cf", "q", ts, format!("v{i}.{ts}")))
                .unwrap();
        }
        t.put(Put::new(row).add_column("cf2", "z", vec![i as u8; 300]))
            .unwrap();
        if i == 29 {
            admin.flush("t").unwrap();
        }
    }
    t.delete(Delete::new("a04")).unwrap();
    admin.snapshot("t", "s1", false).unwrap();
    let at_snapshot = engine_cells::cells(&engine, "t");
    t.put(Put::new("after").add_column("cf", "q", "later"))
        .unwrap();
    (engine, at_snapshot)
}

#[test]
fn export_import_and_clone_give_every_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out, dst) = (
        tmp.path().join("src"),
        tmp.path().join("out"),
        tmp.path().join("dst"),
    );
    let (engine, at_snapshot) = source(&src);
    assert!(at_snapshot.len() > 200);
    // Beside the open engine (a running server): the export needs no lock.
    let o = ferrobase(&[
        "snapshot",
        "export",
        "s1",
        "--data",
        src.to_str().unwrap(),
        "--to",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("exported MANIFEST"), "{}", text(&o));
    engine.close();
    // The list is sha256sum's.
    let sums = std::fs::read_to_string(out.join("CHECKSUMS")).unwrap();
    assert!(sums.lines().any(|l| l.ends_with("  MANIFEST")), "{sums}");
    assert!(
        sums.lines().filter(|l| l.ends_with(".blk")).count() >= 4,
        "{sums}"
    );
    if let Ok(c) = Command::new("sha256sum")
        .args(["-c", "--strict", "CHECKSUMS"])
        .current_dir(&out)
        .output()
    {
        assert!(c.status.success(), "{}", text(&c));
    }
    // Into a data directory that does not exist yet, under its own name and another.
    let o = ferrobase(&[
        "snapshot",
        "import",
        out.to_str().unwrap(),
        "--data",
        dst.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("every checksum verified"), "{}", text(&o));
    let o = ferrobase(&[
        "snapshot",
        "import",
        out.to_str().unwrap(),
        "--data",
        dst.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("a snapshot named s1 exists"),
        "{}",
        text(&o)
    );
    let o = ferrobase(&[
        "snapshot",
        "import",
        out.to_str().unwrap(),
        "--data",
        dst.to_str().unwrap(),
        "--as",
        "s2",
    ]);
    assert!(o.status.success(), "{}", text(&o));

    let engine = Engine::open(&dst, EngineOptions::default()).unwrap();
    let admin = engine.admin();
    let names: Vec<String> = admin
        .list_snapshots()
        .unwrap()
        .into_iter()
        .map(|s| format!("{} {}", s.name, s.table))
        .collect();
    assert_eq!(names, ["s1 t", "s2 t"]);
    admin.clone_snapshot("s1", "c1").unwrap();
    assert_eq!(engine_cells::cells(&engine, "c1"), at_snapshot);
    admin.clone_snapshot("s2", "t").unwrap();
    admin.disable("t").unwrap();
    admin.restore_snapshot("s1").unwrap();
    admin.enable("t").unwrap();
    assert_eq!(engine_cells::cells(&engine, "t"), at_snapshot);
    engine.close();
    drop((admin, engine));
    // After a restart too (the clone's manifest carries the sequence past the files').
    let engine = Engine::open(&dst, EngineOptions::default()).unwrap();
    assert_eq!(engine_cells::cells(&engine, "c1"), at_snapshot);
    engine
        .table("c1")
        .unwrap()
        .put(Put::new("new").add_column("cf", "q", "row"))
        .unwrap();
    assert_eq!(
        engine_cells::cells(&engine, "c1").len(),
        at_snapshot.len() + 1
    );
    engine.close();
    // The directory checks clean.
    let o = ferrobase(&["check", dst.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn a_damaged_export_an_open_target_and_bad_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, out, dst) = (
        tmp.path().join("src"),
        tmp.path().join("out"),
        tmp.path().join("dst"),
    );
    let (engine, _) = source(&src);
    engine.close();
    let export = |name: &str, to: &Path| {
        ferrobase(&[
            "snapshot",
            "export",
            name,
            "--data",
            src.to_str().unwrap(),
            "--to",
            to.to_str().unwrap(),
        ])
    };
    assert!(export("s1", &out).status.success());
    // Not into a directory with something in it; no such snapshot; an illegal name.
    let o = export("s1", &out);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("not empty"), "{}", text(&o));
    let o = export("nope", &tmp.path().join("o2"));
    assert!(text(&o).contains("no snapshot named nope"), "{}", text(&o));
    let o = export("-bad", &tmp.path().join("o3"));
    assert!(!o.status.success(), "{}", text(&o));

    let import = |extra: &[&str]| {
        let mut args = vec![
            "snapshot",
            "import",
            out.to_str().unwrap(),
            "--data",
            dst.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        ferrobase(&args)
    };
    // A flipped byte in a block file: refused, nothing imported.
    let sums = std::fs::read_to_string(out.join("CHECKSUMS")).unwrap();
    let blk = sums
        .lines()
        .find_map(|l| {
            l.split_once("  ")
                .map(|(_, p)| p)
                .filter(|p| p.ends_with(".blk"))
        })
        .unwrap();
    let mut bytes = std::fs::read(out.join(blk)).unwrap();
    let whole = bytes.clone();
    bytes[100] ^= 1;
    std::fs::write(out.join(blk), &bytes).unwrap();
    let o = import(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("the export is damaged; nothing imported"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read_dir(dst.join("snapshots")).unwrap().count(), 0);
    std::fs::write(out.join(blk), &whole).unwrap();
    // An illegal --as; a target a server has open.
    let o = import(&["--as", ".x"]);
    assert!(!o.status.success(), "{}", text(&o));
    let engine = Engine::open(&dst, EngineOptions::default()).unwrap();
    let o = import(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("locked"), "{}", text(&o));
    engine.close();
    // Without CHECKSUMS (an export cut short): refused.
    std::fs::remove_file(out.join("CHECKSUMS")).unwrap();
    let o = import(&[]);
    assert!(text(&o).contains("not a whole"), "{}", text(&o));
    assert!(!dst.join("snapshots/s1").exists());
}
