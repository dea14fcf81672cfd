//! Reads seek past what they do not need (HBase's INCLUDE_AND_SEEK_NEXT_COL/ROW) without
//! skipping a family delete marker, in memstores and in files.

mod support;

use ferrobase_engine::*;

fn open(dir: &std::path::Path, versions: u32) -> (Engine, Table) {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.max_versions = versions;
    support::table::open_with_family(dir, EngineOptions::default(), cf)
}

fn cells(r: &RowResult) -> Vec<(Vec<u8>, i64)> {
    r.cells
        .iter()
        .map(|c| (c.qualifier().to_vec(), c.timestamp()))
        .collect()
}

#[test]
fn family_marker_behind_newer_empty_qualifier_puts_still_masks_other_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = open(dir.path(), 1);
    // Newer versions of the empty-qualifier column sort before the family marker at ts 5.
    for ts in [10, 9, 8] {
        t.put(Put::new("r").add_column_ts("cf", "", ts, "v"))
            .unwrap();
    }
    t.delete(Delete::with_timestamp("r", 5).add_family("cf"))
        .unwrap();
    t.put(Put::new("r").add_column_ts("cf", "a", 3, "masked"))
        .unwrap();
    t.put(Put::new("r").add_column_ts("cf", "b", 7, "kept"))
        .unwrap();
    let want = vec![(b"".to_vec(), 10), (b"b".to_vec(), 7)];
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), want);
    engine.admin().flush("t").unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), want);
    let rows: Vec<RowResult> = t.scan_all(&Scan::new()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(cells(&rows[0]), want);
}

#[test]
fn newest_version_of_a_column_with_many_versions_in_the_memstore() {
    let dir = tempfile::tempdir().unwrap();
    let (_engine, t) = open(dir.path(), 3);
    for ts in 1..=2000 {
        t.put(Put::new("hot").add_column_ts("cf", "", ts, format!("v{ts}")))
            .unwrap();
        t.put(Put::new("hot").add_column_ts("cf", "q", ts, format!("w{ts}")))
            .unwrap();
    }
    t.put(Put::new("next").add_column_ts("cf", "", 1, "n"))
        .unwrap();
    let got = t.get(&Get::new("hot").max_versions(3)).unwrap();
    assert_eq!(
        cells(&got),
        vec![
            (b"".to_vec(), 2000),
            (b"".to_vec(), 1999),
            (b"".to_vec(), 1998),
            (b"q".to_vec(), 2000),
            (b"q".to_vec(), 1999),
            (b"q".to_vec(), 1998)
        ]
    );
    let one = t.get(&Get::new("hot").add_column("cf", "")).unwrap();
    assert_eq!(cells(&one), vec![(b"".to_vec(), 2000)]);
    assert_eq!(one.cells[0].value() as &[u8], b"v2000");
    let rows = t.scan_all(&Scan::new().add_column("cf", "q")).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(cells(&rows[0]), vec![(b"q".to_vec(), 2000)]);
}

/// A scan over a row whose empty-qualifier column holds thousands of versions (YCSB's zipfian
/// updates): with no delete marker in any source and no filter, the column's older versions
/// are sought past, in the memstore and in a file, not matched one by one. A filter, or a
/// delete marker anywhere in the store, brings back HBase's step through the column
/// (HBASE-18471); the family marker behind the versions still masks the row's other columns.
#[test]
fn scans_seek_past_old_empty_qualifier_versions_unless_a_marker_may_be_there() {
    let dir = tempfile::tempdir().unwrap();
    // The family keeps every version (a flush writes them all); the scans ask for one.
    let (engine, t) = open(dir.path(), 5000);
    for ts in 1..=2000 {
        t.put(Put::new("hot").add_column_ts("cf", "", ts, format!("v{ts}")))
            .unwrap();
    }
    t.put(Put::new("hot").add_column_ts("cf", "q", 1, "w"))
        .unwrap();
    for r in ["next1", "next2"] {
        t.put(Put::new(r).add_column_ts("cf", "", 1, "n")).unwrap();
    }
    let scan = |filtered: bool| {
        let mut scan = Scan::new().with_start_row("hot").limit(3).explain(true);
        if filtered {
            scan = scan.filter(Box::new(filter::KeyOnlyFilter::new(false)));
        }
        let mut s = t.scanner(&scan).unwrap();
        let rows: Vec<Vec<(Vec<u8>, i64)>> = s.by_ref().map(|r| cells(&r.unwrap())).collect();
        (rows, s.cost().unwrap())
    };
    let want = vec![
        vec![(b"".to_vec(), 2000), (b"q".to_vec(), 1)],
        vec![(b"".to_vec(), 1)],
        vec![(b"".to_vec(), 1)],
    ];
    let (rows, cost) = scan(false);
    assert_eq!(rows, want);
    assert!(cost.cells_examined < 50, "memstore: {cost}");
    engine.admin().flush("t").unwrap();
    let (rows, cost) = scan(false);
    assert_eq!(rows, want);
    assert!(cost.cells_examined < 50, "file: {cost}");
    // A filter sees the older versions one by one (the family's VERSIONS are its budget), as
    // in HBase.
    let (rows, cost) = scan(true);
    assert_eq!(rows, want);
    assert!(cost.cells_examined > 2000, "filter: {cost}");
    // A family marker behind the versions: the column is stepped through, and it masks `q`.
    t.delete(Delete::with_timestamp("hot", 1).add_family("cf"))
        .unwrap();
    let masked = [vec![vec![(b"".to_vec(), 2000)]], want[1..].to_vec()].concat();
    let (rows, cost) = scan(false);
    assert_eq!(rows, masked);
    assert!(cost.cells_examined > 2000, "marker in the memstore: {cost}");
    engine.admin().flush("t").unwrap();
    let (rows, cost) = scan(false);
    assert_eq!(rows, masked);
    assert!(cost.cells_examined > 2000, "marker in a file: {cost}");
}

/// A Get of named columns reads only the blocks its row lies in: once the last wanted column
/// is found, the cell after it is not looked for, so a row ending its block does not read the
/// next block (a cold Get read it from disk: two reads instead of one).
#[test]
fn a_get_of_named_columns_does_not_read_the_block_after_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.block_size = 4096;
    cf.compression = Compression::None;
    let (engine, t) = support::table::open_with_family(dir.path(), EngineOptions::default(), cf);
    let rows = 200;
    for r in 0..rows {
        t.put(Put::new(format!("r{r:04}")).add_column_ts("cf", "", 1, vec![b'v'; 1000]))
            .unwrap();
    }
    engine.admin().flush("t").unwrap();
    let mut blocks = 0;
    for r in 0..rows {
        let (got, cost) = t
            .get_explained(&Get::new(format!("r{r:04}")).add_column("cf", ""))
            .unwrap();
        assert_eq!(got.cells.len(), 1);
        blocks += cost.blocks_from_cache + cost.blocks_from_disk;
    }
    // About four cells a block: each Get reads its row's block, and a row opening a block
    // also reads the block before it (the index holds each block's first key, so a seek to
    // the row's start lands there first). Reading the block after a row that ends its block
    // too would make it about rows + 2 × rows / 4.
    assert!(
        blocks <= rows + rows / 4 + 2,
        "{blocks} blocks for {rows} Gets"
    );
}
