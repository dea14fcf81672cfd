//! End-to-end behaviour of the embedded engine through the client API.

use ferrobase_engine::clock::ManualClock;
mod support;

use ferrobase_engine::*;
use std::sync::Arc;
use support::files::files_with_suffix;
use support::gate::Gate;

fn options(clock: Arc<ManualClock>) -> EngineOptions {
    EngineOptions {
        clock,
        ..EngineOptions::default()
    }
}

fn table(versions: u32) -> TableDescriptor {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.max_versions = versions;
    TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(cf)
        .with_family(ColumnFamilyDescriptor::new("other"))
}

fn values(r: &RowResult) -> Vec<(String, i64, String)> {
    r.cells
        .iter()
        .map(|c| {
            (
                format!(
                    "{}:{}",
                    String::from_utf8_lossy(c.family()),
                    String::from_utf8_lossy(c.qualifier())
                ),
                c.timestamp(),
                String::from_utf8_lossy(c.value()).into_owned(),
            )
        })
        .collect()
}

#[test]
fn put_get_versions_and_deletes_survive_flush_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000);
    let engine = Engine::open(dir.path(), options(clock.clone())).unwrap();
    engine.admin().create_table(table(3)).unwrap();
    let t = engine.table("t").unwrap();
    for ts in 1..=5 {
        t.put(Put::new("r1").add_column_ts("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    t.put(Put::new("r1").add_column("other", "x", "now"))
        .unwrap();
    let g = t.get(&Get::new("r1").max_versions(10)).unwrap();
    assert_eq!(
        values(&g),
        vec![
            ("cf:q".into(), 5, "v5".into()),
            ("cf:q".into(), 4, "v4".into()),
            ("cf:q".into(), 3, "v3".into()),
            ("other:x".into(), 1_000_000, "now".into()),
        ]
    );
    // Version delete of the newest, column delete up to 3.
    t.delete(Delete::new("r1").add_column("cf", "q")).unwrap();
    let g = t
        .get(&Get::new("r1").add_family("cf").max_versions(10))
        .unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![4, 3, 2]
    );
    engine.admin().flush("t").unwrap();
    t.delete(Delete::new("r1").add_columns_ts("cf", "q", 3))
        .unwrap();
    let g = t
        .get(&Get::new("r1").add_family("cf").max_versions(10))
        .unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![4]
    );
    // A put written later below the marker stays masked.
    t.put(Put::new("r1").add_column_ts("cf", "q", 2, "late"))
        .unwrap();
    let g = t
        .get(&Get::new("r1").add_family("cf").max_versions(10))
        .unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![4]
    );
    drop(t);
    engine.close();
    drop(engine);
    let engine = Engine::open(dir.path(), options(clock)).unwrap();
    let t = engine.table("t").unwrap();
    let g = t.get(&Get::new("r1").max_versions(10)).unwrap();
    assert_eq!(
        values(&g),
        vec![
            ("cf:q".into(), 4, "v4".into()),
            ("other:x".into(), 1_000_000, "now".into())
        ]
    );
    // Major compaction removes the marker; the late put reappears, as in HBase.
    engine.admin().flush("t").unwrap();
    engine.admin().major_compact("t").unwrap();
    let g = t
        .get(&Get::new("r1").add_family("cf").max_versions(10))
        .unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![4]
    );
}

#[test]
fn scans_forward_reversed_prefix_batch_limit_across_regions() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table_with_splits(table(1), &[b"row3".to_vec(), b"row6".to_vec()])
        .unwrap();
    let t = engine.table("t").unwrap();
    for i in 0..10 {
        let mut p = Put::new(format!("row{i}"));
        for q in 0..4 {
            p = p.add_column("cf", format!("q{q}"), format!("{i}-{q}"));
        }
        t.put(p).unwrap();
    }
    engine.admin().flush("t").unwrap();
    t.put(Put::new("row45").add_column("cf", "q", "mem"))
        .unwrap();
    let rows = |s: &Scan| -> Vec<String> {
        t.scan_all(s)
            .unwrap()
            .iter()
            .map(|r| String::from_utf8_lossy(r.row()).into_owned())
            .collect()
    };
    assert_eq!(
        rows(&Scan::new().with_start_row("row2").with_stop_row("row5")),
        ["row2", "row3", "row4", "row45"]
    );
    assert_eq!(
        rows(
            &Scan::new()
                .reversed(true)
                .with_start_row("row7")
                .with_stop_row("row2")
        ),
        ["row7", "row6", "row5", "row45", "row4", "row3"]
    );
    assert_eq!(rows(&Scan::new().reversed(true)).len(), 11);
    assert_eq!(
        rows(&Scan::new().with_row_prefix("row4")),
        ["row4", "row45"]
    );
    assert_eq!(
        rows(&Scan::new().reversed(true).with_row_prefix("row4")),
        ["row45", "row4"]
    );
    assert_eq!(
        rows(&Scan::new().limit(4)),
        ["row0", "row1", "row2", "row3"]
    );
    let batched = t
        .scan_all(
            &Scan::new()
                .with_start_row("row1")
                .with_stop_row("row2")
                .batch(3),
        )
        .unwrap();
    assert_eq!(
        batched.iter().map(|r| r.cells.len()).collect::<Vec<_>>(),
        vec![3, 1]
    );
    let cols = t
        .scan_all(&Scan::new().add_column("cf", "q2").limit(2))
        .unwrap();
    assert_eq!(
        values(&cols[1]),
        vec![("cf:q2".into(), cols[1].cells[0].timestamp(), "1-2".into())]
    );
    assert_eq!(engine.admin().regions("t").unwrap().len(), 3);
}

#[test]
fn ttl_expires_on_read_and_min_versions_keeps_the_newest() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(100_000);
    let engine = Engine::open(dir.path(), options(clock.clone())).unwrap();
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.ttl_seconds = 10;
    cf.max_versions = 5;
    cf.min_versions = 1;
    let mut plain = ColumnFamilyDescriptor::new("p");
    plain.ttl_seconds = 10;
    plain.max_versions = 5;
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(cf)
                .with_family(plain),
        )
        .unwrap();
    let t = engine.table("t").unwrap();
    for ts in [91_000, 95_000, 99_000] {
        t.put(
            Put::new("r")
                .add_column_ts("cf", "q", ts, "x")
                .add_column_ts("p", "q", ts, "y"),
        )
        .unwrap();
    }
    let g = t.get(&Get::new("r").max_versions(5)).unwrap();
    assert_eq!(g.cells.len(), 6);
    clock.set(105_001); // 91 and 95 expired
    let g = t.get(&Get::new("r").max_versions(5)).unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![99_000, 99_000]
    );
    clock.set(200_000); // all expired; MIN_VERSIONS keeps cf's newest
    engine.admin().flush("t").unwrap();
    engine.admin().major_compact("t").unwrap();
    let g = t.get(&Get::new("r").max_versions(5)).unwrap();
    assert_eq!(values(&g), vec![("cf:q".into(), 99_000, "x".into())]);
}

#[test]
fn a_batch_writing_one_cell_twice_keeps_the_later_value() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000);
    let engine = Engine::open(dir.path(), options(clock)).unwrap();
    engine.admin().create_table(table(3)).unwrap();
    let t = engine.table("t").unwrap();
    // Rows out of order around the duplicate, so the batch is reordered before it is applied.
    let puts = vec![
        Put::new("r9").add_column_ts("cf", "q", 5, "other"),
        Put::new("r5").add_column_ts("cf", "q", 5, "first"),
        Put::new("r1").add_column_ts("cf", "q", 5, "other"),
        Put::new("r5").add_column_ts("cf", "q", 5, "second"),
        Put::new("r3").add_column_ts("cf", "q", 5, "other"),
    ];
    t.put_all(puts).unwrap();
    let want = vec![("cf:q".to_string(), 5, "second".to_string())];
    let get = Get::new("r5").max_versions(3);
    assert_eq!(values(&t.get(&get).unwrap()), want);
    engine.admin().flush("t").unwrap();
    assert_eq!(values(&t.get(&get).unwrap()), want);
    drop(t);
    drop(engine);
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = engine.table("t").unwrap();
    assert_eq!(values(&t.get(&get).unwrap()), want);
}

/// Number of block files under `dir`, recursively.
fn block_files(dir: &std::path::Path) -> usize {
    files_with_suffix(dir, ".blk").len()
}

/// Every cell of the block file at `path` (row, type, sequence id), read directly.
fn stored_cells(path: &std::path::Path) -> Vec<(String, CellType, u64)> {
    use ferrobase_engine::fuzzing::BlockCache;
    use ferrobase_engine::fuzzing::{BlockFileReader, CacheMode, FileScanner};
    let metrics = Arc::new(Metrics::default());
    let cache = Arc::new(BlockCache::new(1 << 20, metrics.clone()));
    let reader = Arc::new(
        BlockFileReader::open(
            &ferrobase_engine::FileHandles::new(ferrobase_engine::fs::os(), 16),
            path,
            1,
            cache,
            metrics,
        )
        .unwrap(),
    );
    let mut s = FileScanner::new(reader, CacheMode::whole_file());
    s.seek(&ferrobase_engine::fuzzing::CellKey::first_on_row(b""))
        .unwrap();
    let mut out = Vec::new();
    while let Some(kv) = s.take().unwrap() {
        let row = String::from_utf8_lossy(&kv.key.row).into_owned();
        out.push((row, kv.key.cell_type, kv.key.seq));
    }
    out
}

#[test]
fn a_compaction_of_every_file_clears_the_sequence_ids_of_puts_every_reader_sees() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(ManualClock::new(1_000));
    opts.compaction.auto = false;
    let engine = Engine::open(dir.path(), opts).unwrap();
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.keep_deleted_cells = KeepDeletedCells::True;
    let desc = TableDescriptor::new(TableName::parse("t").unwrap()).with_family(cf);
    engine.admin().create_table(desc).unwrap();
    let t = engine.table("t").unwrap();
    for r in ["a", "b", "c"] {
        t.put(Put::new(r).add_column_ts("cf", "q", 5, "old"))
            .unwrap();
    }
    // Two markers of one key, kept by KEEP_DELETED_CELLS: they keep their distinct ids.
    t.delete(Delete::new("b").add_column_ts("cf", "q", 9))
        .unwrap();
    engine.admin().flush("t").unwrap();
    t.delete(Delete::new("b").add_column_ts("cf", "q", 9))
        .unwrap();
    // A scanner opened now holds its read point; "a" is then overwritten at the same timestamp.
    let mut open = t.scanner(&Scan::new()).unwrap();
    t.put(Put::new("a").add_column_ts("cf", "q", 5, "new"))
        .unwrap();
    engine.admin().flush("t").unwrap();
    engine.admin().major_compact("t").unwrap();
    let files = files_with_suffix(dir.path(), ".blk");
    assert_eq!(files.len(), 1);
    let cells = stored_cells(&files[0]);
    let seqs = |row: &str, ty: CellType| -> Vec<u64> {
        cells
            .iter()
            .filter(|c| c.0 == row && c.1 == ty)
            .map(|c| c.2)
            .collect()
    };
    // The overwrite is newer than the open scanner: both versions of "a" stay, the newer
    // keeping its id, the older at 0.
    let a = seqs("a", CellType::Put);
    assert_eq!(a.len(), 2);
    assert!(a[0] > 0 && a[1] == 0, "{a:?}");
    assert_eq!(seqs("c", CellType::Put), vec![0]);
    let markers = seqs("b", CellType::Delete);
    assert_eq!(markers.len(), 2);
    assert!(markers[0] > markers[1] && markers[1] > 0, "{markers:?}");
    // The open scanner still reads the old value; new reads see the new one.
    let first = open.next().unwrap().unwrap();
    assert_eq!(values(&first), vec![("cf:q".into(), 5, "old".into())]);
    drop(open);
    let get = Get::new("a");
    assert_eq!(values(&t.get(&get).unwrap())[0].2, "new");
    // Once no reader needs it, the next compaction drops the old "a" and clears the new one's
    // id; a later overwrite at the same timestamp still wins over a cell with id 0.
    engine.admin().major_compact("t").unwrap();
    let files = files_with_suffix(dir.path(), ".blk");
    let a: Vec<u64> = stored_cells(&files[0])
        .into_iter()
        .filter(|c| c.0 == "a")
        .map(|c| c.2)
        .collect();
    assert_eq!(a, vec![0]);
    t.put(Put::new("a").add_column_ts("cf", "q", 5, "newest"))
        .unwrap();
    assert_eq!(values(&t.get(&get).unwrap())[0].2, "newest");
    engine.admin().flush("t").unwrap();
    assert_eq!(values(&t.get(&get).unwrap())[0].2, "newest");
    engine.admin().major_compact("t").unwrap();
    assert_eq!(values(&t.get(&get).unwrap())[0].2, "newest");
    drop(t);
    drop(engine);
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = engine.table("t").unwrap();
    assert_eq!(values(&t.get(&get).unwrap())[0].2, "newest");
}

#[test]
fn a_major_compaction_request_stops_a_running_minor_one_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Pause points: the minor compaction stops before its first cell until the major one has
    // asked it to stop and is waiting, so the minor is always caught in the act.
    let gate = Arc::new(Gate::default());
    let hook = {
        let gate = gate.clone();
        hook::Hook::new(move |p| match p {
            hook::HookPoint::CompactionMerging { major: false, .. } => {
                gate.raise("minor merging");
                gate.wait("go on");
            }
            hook::HookPoint::CompactionWaiting { .. } => gate.raise("major waiting"),
            _ => {}
        })
    };
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    // The ratio test for every selection, however small (below 128 MiB HBase skips it).
    opts.compaction.min_size = 0;
    opts.auto_split = false;
    opts.hook = Some(hook);
    let engine = Arc::new(Engine::open(dir.path(), opts).unwrap());
    engine.admin().create_table(table(1)).unwrap();
    let t = engine.table("t").unwrap();
    let value = vec![b'v'; 1024];
    for f in 0..6 {
        let puts = (0..512)
            .map(|i| Put::new(format!("r{:06}", i * 6 + f)).add_column("cf", "q", value.clone()))
            .collect();
        t.put_all(puts).unwrap();
        engine.admin().flush("t").unwrap();
    }
    assert_eq!(block_files(dir.path()), 6);
    let minor = {
        let engine = engine.clone();
        std::thread::spawn(move || engine.admin().compact("t").unwrap())
    };
    gate.wait("minor merging");
    let major = {
        let engine = engine.clone();
        std::thread::spawn(move || engine.admin().major_compact("t").unwrap())
    };
    gate.wait("major waiting");
    gate.raise("go on");
    minor.join().unwrap();
    major.join().unwrap();
    let m = engine.metrics();
    assert_eq!(Metrics::get(&m.compactions_cancelled), 1);
    assert_eq!(
        Metrics::get(&m.compactions),
        1,
        "only the major one completed"
    );
    assert_eq!(block_files(dir.path()), 1, "the partial output was removed");
    let rows = t.scan_all(&Scan::new()).unwrap();
    assert_eq!(rows.len(), 6 * 512);
    assert!(rows
        .iter()
        .all(|r| r.value(b"cf", b"q") == Some(&value[..])));
    // Later minor compactions are not cancelled by the finished request. Each small file spans the
    // big one's rows (with sorted runs on, files that do not overlap would form a sorted run, which
    // the policy leaves alone: docs/design/compaction.md).
    for f in 0..3 {
        t.put_all(vec![
            Put::new(format!("a{f}")).add_column("cf", "q", "x"),
            Put::new(format!("z{f}")).add_column("cf", "q", "x"),
        ])
        .unwrap();
        engine.admin().flush("t").unwrap();
    }
    let before = Metrics::get(&m.compactions);
    engine.admin().compact("t").unwrap();
    assert_eq!(Metrics::get(&m.compactions), before + 1);
    // The three small files were merged; the big one was left out by the size ratio.
    assert_eq!(block_files(dir.path()), 2);
}
