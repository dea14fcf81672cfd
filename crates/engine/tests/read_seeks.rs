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
