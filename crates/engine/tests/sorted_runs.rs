//! Data written in key order (time series): its flushes leave files whose rows do not overlap,
//! which minor compactions leave as they are (a sorted run, `docs/design/compaction.md`) and
//! major compactions do not rewrite, while every read stays what a model of the writes says;
//! files that overlap are still compacted as HBase compacts them; a power cut keeps every
//! acknowledged write.

mod support;

use ferrobase_engine::fs::fault::{CutMode, FaultFileSystem};
use ferrobase_engine::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use support::table::{FAMILY, TABLE};

const FLUSHES: usize = 12;
const ROWS_PER_FLUSH: usize = 50;

fn options() -> EngineOptions {
    EngineOptions {
        auto_split: false,
        compaction: CompactionOptions {
            // The tests ask for every compaction themselves (none runs behind their checks).
            auto: false,
            major_interval: None,
            // The ratio decides for these small files (HBase's minimum size would let any
            // three merge).
            min_size: 0,
            sorted_runs: true,
            ..CompactionOptions::default()
        },
        ..EngineOptions::default()
    }
}

fn family() -> ColumnFamilyDescriptor {
    let mut cf = ColumnFamilyDescriptor::new(FAMILY);
    // Small blocks: every file has many, so reads seek inside files, not only at their ends.
    cf.block_size = 1024;
    cf
}

/// The `i`th row written, ascending or descending (a reversed timestamp in the key).
fn row(i: usize, ascending: bool) -> Vec<u8> {
    let n = if ascending { i } else { 1_000_000 - i };
    format!("sensor-{n:07}").into_bytes()
}

fn value(i: usize, round: usize) -> Vec<u8> {
    format!("v{round}-{i}-{}", "x".repeat(i % 97)).into_bytes()
}

fn file_count(engine: &Engine) -> usize {
    engine
        .admin()
        .regions(TABLE)
        .unwrap()
        .iter()
        .map(|r| r.file_count)
        .sum()
}

/// Checks gets of every row the model holds and of rows between them, whole scans both ways,
/// and bounded scans crossing file boundaries, against `model` (row → value).
fn check(t: &Table, model: &BTreeMap<Vec<u8>, Vec<u8>>, every: &[Vec<u8>], what: &str) {
    for r in every {
        let got = t.get(&Get::new(r.clone())).unwrap();
        assert_eq!(
            got.value(FAMILY.as_bytes(), b"q"),
            model.get(r).map(|v| &v[..]),
            "{what}: get {}",
            String::from_utf8_lossy(r)
        );
        let mut between = r.clone();
        between.push(b'!');
        assert!(
            t.get(&Get::new(between)).unwrap().is_empty(),
            "{what}: a row never written"
        );
    }
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let scanned = |scan: &Scan| -> Vec<(Vec<u8>, Vec<u8>)> {
        t.scanner(scan)
            .unwrap()
            .map(|r| {
                let r = r.unwrap();
                let v = r.value(FAMILY.as_bytes(), b"q").unwrap().to_vec();
                (r.row().to_vec(), v)
            })
            .collect()
    };
    assert_eq!(scanned(&Scan::new()), want, "{what}: full scan");
    let mut reversed = want.clone();
    reversed.reverse();
    assert_eq!(
        scanned(&Scan::new().reversed(true)),
        reversed,
        "{what}: reversed scan"
    );
    // Bounded scans starting inside one flush's rows and ending several flushes later.
    for start in (7..want.len()).step_by(ROWS_PER_FLUSH * 2 + 13) {
        let stop = (start + ROWS_PER_FLUSH * 3 + 5).min(want.len() - 1);
        let got = scanned(
            &Scan::new()
                .with_start_row(want[start].0.clone())
                .with_stop_row(want[stop].0.clone()),
        );
        assert_eq!(
            got,
            want[start..stop],
            "{what}: scan from {start} to {stop}"
        );
        let got = scanned(&Scan::new().with_start_row(want[start].0.clone()).limit(120));
        let end = (start + 120).min(want.len());
        assert_eq!(got, want[start..end], "{what}: 120 rows from {start}");
    }
}

/// What was written: row → value.
type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Writes `FLUSHES` flushes of `ROWS_PER_FLUSH` rows in key order (ascending or descending),
/// asking for a minor compaction after each flush; returns the model (row → value) and every
/// row written.
fn load_in_order(engine: &Engine, t: &Table, ascending: bool) -> (Model, Vec<Vec<u8>>) {
    let mut model = BTreeMap::new();
    let mut every = Vec::new();
    for f in 0..FLUSHES {
        for i in f * ROWS_PER_FLUSH..(f + 1) * ROWS_PER_FLUSH {
            let (r, v) = (row(i, ascending), value(i, 0));
            t.put(Put::new(r.clone()).add_column(FAMILY, "q", v.clone()))
                .unwrap();
            model.insert(r.clone(), v);
            every.push(r);
        }
        engine.admin().flush(TABLE).unwrap();
        engine.admin().compact(TABLE).unwrap();
    }
    (model, every)
}

/// Without the option (the default), files flushed in key order are compacted as HBase compacts
/// them: minor compactions merge them and a major compaction leaves one file.
#[test]
fn without_the_option_in_order_files_are_compacted_as_hbase_compacts_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options();
    opts.compaction.sorted_runs = false;
    let (engine, t) = support::table::open_with_family(dir.path(), opts, family());
    let (model, every) = load_in_order(&engine, &t, true);
    let m = engine.metrics();
    assert!(Metrics::get(&m.compactions) > 0);
    assert!(file_count(&engine) < FLUSHES);
    check(&t, &model, &every, "default, minor");
    engine.admin().major_compact(TABLE).unwrap();
    assert_eq!(file_count(&engine), 1);
    check(&t, &model, &every, "default, major");
}

#[test]
fn files_flushed_in_key_order_are_not_rewritten_and_every_read_stays_correct() {
    for ascending in [true, false] {
        let what = if ascending { "ascending" } else { "descending" };
        let dir = tempfile::tempdir().unwrap();
        let (engine, t) = support::table::open_with_family(dir.path(), options(), family());
        // The policy is asked after every flush: the files form one run, nothing merges.
        let (mut model, every) = load_in_order(&engine, &t, ascending);
        let m = engine.metrics();
        assert_eq!(file_count(&engine), FLUSHES, "{what}");
        assert_eq!(Metrics::get(&m.compactions), 0, "{what}");
        assert_eq!(Metrics::get(&m.compaction_bytes_out), 0, "{what}");
        check(&t, &model, &every, what);
        // A get reads the one file whose rows hold its row.
        let (_, cost) = t
            .get_explained(&Get::new(row(5 * ROWS_PER_FLUSH + 3, ascending)))
            .unwrap();
        assert_eq!(cost.files_read, 1, "{what}: {cost:?}");
        assert_eq!(
            cost.files_skipped_by_key_range,
            FLUSHES as u64 - 1,
            "{what}"
        );

        // Writes over the whole range: three files overlapping the run and each other, every
        // seventh row a newer value.
        for round in 1..=3 {
            for i in (round..FLUSHES * ROWS_PER_FLUSH).step_by(7) {
                let (r, v) = (row(i, ascending), value(i, round));
                t.put(Put::new(r.clone()).add_column(FAMILY, "q", v.clone()))
                    .unwrap();
                model.insert(r, v);
            }
            engine.admin().flush(TABLE).unwrap();
        }
        check(&t, &model, &every, what);
        // HBase's policy over the run (one unit, too large for the ratio) and the three new
        // files: the three are merged, the run stays.
        engine.admin().compact(TABLE).unwrap();
        assert_eq!(Metrics::get(&m.compactions), 1, "{what}");
        assert_eq!(file_count(&engine), FLUSHES + 1, "{what}");
        check(&t, &model, &every, what);
        // Every eleventh row deleted: with a marker in the store, HBase's selection.
        for i in (0..FLUSHES * ROWS_PER_FLUSH).step_by(11) {
            let r = row(i, ascending);
            t.delete(Delete::new(r.clone())).unwrap();
            model.remove(&r);
        }
        engine.admin().flush(TABLE).unwrap();
        check(&t, &model, &every, what);
        engine.admin().compact(TABLE).unwrap();
        check(&t, &model, &every, what);

        engine.admin().major_compact(TABLE).unwrap();
        assert_eq!(file_count(&engine), 1, "{what}");
        check(&t, &model, &every, what);
        drop(t);
        drop(engine);
        let (engine, t) = support::table::open_with_family(dir.path(), options(), family());
        assert_eq!(file_count(&engine), 1, "{what}");
        check(&t, &model, &every, &format!("{what}, reopened"));
    }
}

#[test]
fn overlapping_flushes_are_still_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = support::table::open_with_family(dir.path(), options(), family());
    let mut model = BTreeMap::new();
    let mut every = Vec::new();
    for f in 0..3 {
        // Each flush holds rows from the whole range.
        for i in (f..FLUSHES * ROWS_PER_FLUSH).step_by(3) {
            let (r, v) = (row(i, true), value(i, f));
            t.put(Put::new(r.clone()).add_column(FAMILY, "q", v.clone()))
                .unwrap();
            model.insert(r.clone(), v);
            every.push(r);
        }
        engine.admin().flush(TABLE).unwrap();
    }
    every.sort();
    assert_eq!(file_count(&engine), 3);
    engine.admin().compact(TABLE).unwrap();
    assert_eq!(Metrics::get(&engine.metrics().compactions), 1);
    assert_eq!(file_count(&engine), 1);
    check(&t, &model, &every, "overlapping");
}

/// Writes in key order, acknowledged at FSYNC_WAL, with flushes (files forming a run) and
/// writes still in the memstore when the power fails: every acknowledged write is read back.
#[test]
fn a_power_cut_keeps_every_acknowledged_write_of_an_in_order_load() {
    let fs = FaultFileSystem::new();
    let opts = || EngineOptions {
        fs: Arc::new(fs.clone()),
        ..options()
    };
    let mut model = BTreeMap::new();
    let mut every = Vec::new();
    {
        let (engine, t) = support::table::open_with_family("/db", opts(), family());
        for f in 0..FLUSHES {
            for i in f * ROWS_PER_FLUSH..(f + 1) * ROWS_PER_FLUSH {
                let (r, v) = (row(i, true), value(i, 0));
                t.put(
                    Put::new(r.clone())
                        .add_column(FAMILY, "q", v.clone())
                        .durability(Durability::FsyncWal),
                )
                .unwrap();
                model.insert(r.clone(), v);
                every.push(r);
            }
            // The last two batches stay in the memstore, in the WAL only.
            if f + 2 < FLUSHES {
                engine.admin().flush(TABLE).unwrap();
                engine.admin().compact(TABLE).unwrap();
            }
        }
        assert_eq!(file_count(&engine), FLUSHES - 2);
        assert_eq!(Metrics::get(&engine.metrics().compactions), 0);
        fs.cut_power_after(1);
        drop(t);
        drop(engine);
    }
    fs.power_cut(CutMode::DropUnsynced);
    let (engine, t) = support::table::open_with_family("/db", opts(), family());
    check(&t, &model, &every, "after the power cut");
    engine.admin().flush(TABLE).unwrap();
    engine.admin().compact(TABLE).unwrap();
    assert_eq!(Metrics::get(&engine.metrics().compactions), 0);
    check(&t, &model, &every, "after the power cut and a flush");
}

/// Where merging files that share no row could still drop something a read sees, the store's
/// files are selected exactly as HBase selects them: a delete marker in any file (a selection
/// of every file purges markers, so a later put under the marker's timestamp shows), or a TTL on
/// the family (expired cells go).
#[test]
fn a_store_with_a_delete_marker_or_a_ttl_is_compacted_as_hbase_compacts_it() {
    for case in ["delete marker", "ttl"] {
        let dir = tempfile::tempdir().unwrap();
        let mut cf = family();
        if case == "ttl" {
            cf.ttl_seconds = 86_400;
        }
        let (engine, t) = support::table::open_with_family(dir.path(), options(), cf);
        for f in 0..3 {
            for i in f * ROWS_PER_FLUSH..(f + 1) * ROWS_PER_FLUSH {
                t.put(Put::new(row(i, true)).add_column(FAMILY, "q", value(i, 0)))
                    .unwrap();
            }
            if case == "delete marker" && f == 1 {
                t.delete(Delete::new(row(f * ROWS_PER_FLUSH + 1, true)))
                    .unwrap();
            }
            engine.admin().flush(TABLE).unwrap();
        }
        engine.admin().compact(TABLE).unwrap();
        assert_eq!(Metrics::get(&engine.metrics().compactions), 1, "{case}");
        assert_eq!(file_count(&engine), 1, "{case}");
        let rows = t.scanner(&Scan::new()).unwrap().count();
        let deleted = usize::from(case == "delete marker");
        assert_eq!(rows, 3 * ROWS_PER_FLUSH - deleted, "{case}");
    }
}

/// A major compaction rewrites only what it would change: files in key order that share no row
/// with any other, hold no delete marker, no cell with its own TTL and no column with more
/// cells than VERSIONS stay as they are; the files that overlap are merged; reads are the same
/// before and after, and after a reopen.
#[test]
fn a_major_compaction_leaves_the_files_it_would_copy_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let mut cf = family();
    cf.max_versions = 3;
    let (engine, t) = support::table::open_with_family(dir.path(), options(), cf.clone());
    let mut model = BTreeMap::new();
    let mut every = Vec::new();
    for f in 0..FLUSHES {
        for i in f * ROWS_PER_FLUSH..(f + 1) * ROWS_PER_FLUSH {
            let (r, v) = (row(i, true), value(i, 0));
            t.put(Put::new(r.clone()).add_column(FAMILY, "q", v.clone()))
                .unwrap();
            model.insert(r.clone(), v);
            every.push(r);
        }
        engine.admin().flush(TABLE).unwrap();
    }
    let m = engine.metrics();
    engine.admin().major_compact(TABLE).unwrap();
    assert_eq!(Metrics::get(&m.compactions), 0, "nothing to rewrite");
    assert_eq!(file_count(&engine), FLUSHES);
    check(&t, &model, &every, "after a major compaction of a run");

    // Newer values for rows of flushes 3 to 5 only: those three files and the new one merge,
    // the others stay.
    for i in 3 * ROWS_PER_FLUSH + 1..6 * ROWS_PER_FLUSH - 1 {
        let (r, v) = (row(i, true), value(i, 1));
        t.put(Put::new(r.clone()).add_column(FAMILY, "q", v.clone()))
            .unwrap();
        model.insert(r, v);
    }
    engine.admin().flush(TABLE).unwrap();
    engine.admin().major_compact(TABLE).unwrap();
    assert_eq!(Metrics::get(&m.compactions), 1);
    assert_eq!(file_count(&engine), FLUSHES - 3 + 1);
    check(
        &t,
        &model,
        &every,
        "after a major compaction of part of the run",
    );
    // The merged rows kept VERSIONS = 3: two versions of each rewritten row.
    let r = row(4 * ROWS_PER_FLUSH, true);
    let got = t.get(&Get::new(r).max_versions(3)).unwrap();
    assert_eq!(got.cells.len(), 2);

    // VERSIONS lowered to 1: the merged file holds columns of two cells and is rewritten, the
    // files of one cell per column stay.
    cf.max_versions = 1;
    engine.admin().modify_family(TABLE, cf.clone()).unwrap();
    engine.admin().major_compact(TABLE).unwrap();
    assert_eq!(Metrics::get(&m.compactions), 2);
    assert_eq!(file_count(&engine), FLUSHES - 3 + 1);
    let r = row(4 * ROWS_PER_FLUSH, true);
    let got = t.get(&Get::new(r).max_versions(3).raw(true)).unwrap();
    assert_eq!(got.cells.len(), 1, "the excess version is gone");
    check(&t, &model, &every, "after VERSIONS was lowered");

    drop(t);
    drop(engine);
    let (engine, t) = support::table::open_with_family(dir.path(), options(), cf);
    assert_eq!(file_count(&engine), FLUSHES - 3 + 1);
    engine.admin().major_compact(TABLE).unwrap();
    assert_eq!(Metrics::get(&engine.metrics().compactions), 0);
    check(&t, &model, &every, "reopened");
}
