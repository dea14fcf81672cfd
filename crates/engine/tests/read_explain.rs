//! Scan explain (issue 43): what a Get or a Scan cost, checked figure by figure against layouts
//! built to known shapes (files flushed one by one, no background compaction, a cold cache).

mod support;

use ferrobase_engine::*;

/// An engine without background compactions, and table `t` with family `cf` (ROW bloom).
fn open(dir: &std::path::Path) -> (Engine, Table) {
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.bloom_filter = BloomType::Row;
    cf.max_versions = 5;
    support::table::open_with_family(dir, opts, cf)
}

#[test]
fn an_absent_row_is_answered_by_the_bloom_filters_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = open(dir.path());
    // Three files, each spanning a..z, so their key ranges cannot rule out row m.
    for f in ["f1", "f2", "f3"] {
        for row in ["a", f, "z"] {
            t.put(Put::new(row).add_column("cf", "q", "v")).unwrap();
        }
        engine.admin().flush("t").unwrap();
    }
    let (row, cost) = t.get_explained(&Get::new("m")).unwrap();
    assert!(row.is_empty());
    assert_eq!(
        cost,
        ReadCost {
            regions_visited: 1,
            files_skipped_by_bloom: 3,
            ..ReadCost::default()
        }
    );
    // A present row: one file read (the others' blooms say no), its one block from the disk,
    // then from the cache.
    let (row, cost) = t.get_explained(&Get::new("f2")).unwrap();
    assert_eq!(row.cells.len(), 1);
    let first = ReadCost {
        regions_visited: 1,
        rows_examined: 1,
        rows_returned: 1,
        cells_examined: 1,
        cells_returned: 1,
        files_read: 1,
        files_skipped_by_bloom: 2,
        blocks_from_disk: 1,
        seeks: 1,
        ..ReadCost::default()
    };
    assert_eq!(cost, first);
    let (_, again) = t.get_explained(&Get::new("f2")).unwrap();
    assert_eq!(
        again,
        ReadCost {
            blocks_from_cache: 1,
            blocks_from_disk: 0,
            ..first
        }
    );
    // Outside every file's key range: no bloom is asked.
    let (_, cost) = t.get_explained(&Get::new("zz")).unwrap();
    assert_eq!(
        cost,
        ReadCost {
            regions_visited: 1,
            files_skipped_by_key_range: 3,
            ..ReadCost::default()
        }
    );
}

#[test]
fn a_scan_leaves_out_the_files_its_time_range_cannot_match() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = open(dir.path());
    // Three files of the same three rows, written at ts 100, 200 and 300.
    for ts in [100, 200, 300] {
        for row in ["r1", "r2", "r3"] {
            t.put(Put::new(row).add_column_ts("cf", "q", ts, format!("v{ts}")))
                .unwrap();
        }
        engine.admin().flush("t").unwrap();
    }
    let mut s = t
        .scanner(
            &Scan::new()
                .time_range(TimeRange::new(250, 400).unwrap())
                .explain(true),
        )
        .unwrap();
    let rows: Vec<RowResult> = s.by_ref().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.cells[0].timestamp() == 300));
    assert_eq!(
        s.cost().unwrap(),
        ReadCost {
            regions_visited: 1,
            rows_examined: 3,
            rows_returned: 3,
            cells_examined: 3,
            cells_returned: 3,
            files_read: 1,
            files_skipped_by_time_range: 2,
            blocks_from_disk: 1,
            seeks: 1,
            ..ReadCost::default()
        }
    );
    // Every version of the three files: all of them read, nothing skipped.
    let mut s = t
        .scanner(&Scan::new().max_versions(5).explain(true))
        .unwrap();
    assert_eq!(s.by_ref().count(), 3);
    let cost = s.cost().unwrap();
    assert_eq!((cost.files_read, cost.files_skipped_by_time_range), (3, 0));
    assert_eq!((cost.cells_examined, cost.cells_returned), (9, 9));
    // Without explain there is no record.
    let mut s = t.scanner(&Scan::new()).unwrap();
    assert_eq!(s.by_ref().count(), 3);
    assert_eq!(s.cost(), None);
}

#[test]
fn a_scan_range_leaves_out_files_outside_it_and_counts_its_regions() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = open(dir.path());
    // File 1 holds a..c, file 2 x..z: a scan of [a, d) reads file 1 only.
    for rows in [["a", "b", "c"], ["x", "y", "z"]] {
        for row in rows {
            t.put(Put::new(row).add_column("cf", "q", "v")).unwrap();
        }
        engine.admin().flush("t").unwrap();
    }
    let mut s = t
        .scanner(
            &Scan::new()
                .with_start_row("a")
                .with_stop_row("d")
                .explain(true),
        )
        .unwrap();
    assert_eq!(s.by_ref().count(), 3);
    let cost = s.cost().unwrap();
    assert_eq!(
        (
            cost.files_read,
            cost.files_skipped_by_key_range,
            cost.rows_returned
        ),
        (1, 1, 3)
    );
    // Split at m: a whole-table scan visits both regions.
    engine.admin().split("t", Some(b"m")).unwrap();
    let mut s = t.scanner(&Scan::new().explain(true)).unwrap();
    assert_eq!(s.by_ref().count(), 6);
    let cost = s.cost().unwrap();
    assert_eq!((cost.regions_visited, cost.rows_returned), (2, 6));
    // A limit stops the scan inside its first region: the figures are whole all the same.
    let mut s = t.scanner(&Scan::new().limit(2).explain(true)).unwrap();
    assert_eq!(s.by_ref().count(), 2);
    let cost = s.cost().unwrap();
    assert_eq!(
        (cost.regions_visited, cost.rows_examined, cost.rows_returned),
        (1, 2, 2)
    );
}
