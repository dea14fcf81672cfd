//! A failure's blast radius: a background job failing on one region's files takes that region
//! out of writing with an error naming region and file; other tables keep serving, the engine
//! is not poisoned, and the region comes back with `reopen_region` once its files read.

mod support;

use ferrobase_engine::*;
use std::os::unix::fs::FileExt;
use support::files::files_with_suffix;
use support::table::descriptor;

/// An engine in `dir` without background compactions (the tests run them), with table `a`.
fn open_with_table_a(dir: &std::path::Path) -> (Engine, Admin, Table) {
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    let engine = Engine::open(dir, opts).unwrap();
    let admin = engine.admin();
    admin.create_table(descriptor("a")).unwrap();
    let a = engine.table("a").unwrap();
    (engine, admin, a)
}

#[test]
fn a_compaction_failing_on_a_damaged_file_marks_its_region_and_reopen_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, admin, a) = open_with_table_a(dir.path());
    for f in 0..2 {
        let puts = (0..50)
            .map(|i| Put::new(format!("r{f}-{i:03}")).add_column("cf", "q", vec![b'v'; 100]))
            .collect();
        a.put_all(puts).unwrap();
        // A delete marker (of a row never written): the major compaction below merges the
        // files (files that share no row and hold nothing to drop would stay as they are:
        // docs/design/compaction.md).
        a.delete(Delete::new("never written")).unwrap();
        admin.flush("a").unwrap();
    }
    admin.create_table(descriptor("b")).unwrap();
    let b = engine.table("b").unwrap();
    b.put(Put::new("r").add_column("cf", "q", "b1")).unwrap();

    // Damage a byte inside the first data block of one of table a's files.
    let victim = files_with_suffix(dir.path(), ".blk")[0].clone();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&victim)
        .unwrap();
    let mut original = [0u8; 1];
    file.read_exact_at(&mut original, 40).unwrap();
    file.write_all_at(&[original[0] ^ 0xff], 40).unwrap();

    let err = admin.major_compact("a").unwrap_err();
    let Error::RegionOffline { table, reason, .. } = &err else {
        panic!("the compaction failed with {err}");
    };
    assert_eq!(table, "a");
    let name = victim.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        reason.contains("compaction") && reason.contains(&name),
        "{reason}"
    );

    // The region refuses writes with the reason; the engine and table b serve on.
    let write = a
        .put(Put::new("new").add_column("cf", "q", "x"))
        .unwrap_err();
    assert!(
        matches!(write, Error::RegionOffline { .. }) && write.to_string().contains(&name),
        "{write}"
    );
    assert_eq!(admin.failed_regions("a").unwrap().len(), 1);
    b.put(Put::new("r2").add_column("cf", "q", "b2")).unwrap();
    assert_eq!(b.scan_all(&Scan::new()).unwrap().len(), 2);
    admin.create_table(descriptor("c")).unwrap();
    assert_eq!(admin.list_tables().unwrap().len(), 3);

    // A reopen while the file is still damaged fails and leaves the region failed.
    let region = admin.regions("a").unwrap()[0].id;
    assert!(admin.reopen_region("a", region).is_err());
    assert_eq!(admin.failed_regions("a").unwrap().len(), 1);
    // Repaired, the region reopens without a restart and compacts what it holds.
    file.write_all_at(&original, 40).unwrap();
    assert!(admin.reopen_region("a", region).unwrap());
    assert!(admin.failed_regions("a").unwrap().is_empty());
    a.put(Put::new("new").add_column("cf", "q", "x")).unwrap();
    // A major compaction leaves the memstore alone (as HBase's): flush the new row first.
    admin.flush("a").unwrap();
    admin.major_compact("a").unwrap();
    assert_eq!(a.scan_all(&Scan::new()).unwrap().len(), 101);
    assert_eq!(admin.regions("a").unwrap()[0].file_count, 1);
}

#[test]
fn a_failed_region_can_still_be_disabled_and_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, admin, a) = open_with_table_a(dir.path());
    a.put(Put::new("r").add_column("cf", "q", "v")).unwrap();
    // A delete marker: the major compaction below rewrites the file (it would leave a file with
    // nothing to drop as it is: docs/design/compaction.md).
    a.delete(Delete::new("never written")).unwrap();
    admin.flush("a").unwrap();
    let victim = files_with_suffix(dir.path(), ".blk")[0].clone();
    std::fs::write(&victim, b"not a block file").unwrap();
    assert!(matches!(
        admin.major_compact("a"),
        Err(Error::RegionOffline { .. })
    ));
    admin.disable("a").unwrap();
    admin.delete_table("a").unwrap();
    assert!(files_with_suffix(dir.path(), ".blk").is_empty());
    admin.create_table(descriptor("a")).unwrap();
    a.put(Put::new("r").add_column("cf", "q", "again")).unwrap();
    assert_eq!(
        a.get(&Get::new("r")).unwrap().value(b"cf", b"q"),
        Some(&b"again"[..])
    );
}
