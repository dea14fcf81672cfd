//! Scans that stop for a heartbeat at their call's deadline (`call_budget::Heartbeat`, HBase's
//! scanner time limit) go on exactly where they stopped: the results of a scan asked again and
//! again after each heartbeat are the results of the same scan read in one go, cell for cell and
//! flag for flag, forward and reversed, whole rows and pieces, across regions. And a scan opened
//! at an earlier scanner's read point (HBase's `Scan.mvccReadPoint`) sees what that scanner saw.

use ferrobase_engine::call_budget::Heartbeat;
use ferrobase_engine::*;
use std::time::{Duration, Instant};

fn open(dir: &std::path::Path) -> (Engine, Table) {
    let mut o = EngineOptions::default();
    o.compaction.auto = false;
    o.compaction.major_interval = None;
    o.auto_split = false;
    let e = Engine::open(dir, o).unwrap();
    e.admin()
        .create_table_with_splits(
            TableDescriptor::new(TableName::parse("hb").unwrap())
                .with_family(ColumnFamilyDescriptor::new("a"))
                .with_family(ColumnFamilyDescriptor::new("b")),
            &[b"r0300".to_vec(), b"r0650".to_vec()],
        )
        .unwrap();
    let t = e.table("hb").unwrap();
    for i in 0..1000 {
        let mut p = Put::new(format!("r{i:04}")).add_column("a", "k", format!("{}", i % 7));
        // Every 50th row is wide, so batches and size limits cut it in pieces.
        let width = if i % 50 == 7 { 40 } else { 2 };
        for q in 0..width {
            p = p.add_column("b", format!("q{q:02}"), format!("v{i}-{q}"));
        }
        t.put(p).unwrap();
        if i == 500 {
            e.admin().flush("hb").unwrap();
        }
    }
    (e, t)
}

/// One result as (row, cells as (family, qualifier, value), more of the row may follow).
type Flat = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>, bool);

fn flat(r: &RowResult) -> Flat {
    (
        r.row().to_vec(),
        r.cells
            .iter()
            .map(|c| {
                (
                    c.family().to_vec(),
                    c.qualifier().to_vec(),
                    c.value().to_vec(),
                )
            })
            .collect(),
        r.may_have_more_cells_in_row(),
    )
}

/// The scan read call by call, each call's heartbeat deadline already past (so each stops
/// after the first row it looks at); the results and the number of heartbeats.
fn by_heartbeats(t: &Table, scan: &Scan, per_call: usize) -> (Vec<Flat>, usize, Vec<Vec<u8>>) {
    let mut s = t.scanner(scan).unwrap();
    let (mut out, mut beats, mut cursors) = (Vec::new(), 0, Vec::new());
    loop {
        let batch = {
            let _hb = Heartbeat::start(Some(Instant::now()));
            s.next_batch_or_heartbeat(per_call, usize::MAX).unwrap()
        };
        out.extend(batch.rows.iter().map(flat));
        if batch.heartbeat {
            beats += 1;
            cursors.extend(batch.cursor);
        } else if batch.rows.len() < per_call {
            return (out, beats, cursors);
        }
        assert!(beats < 10_000, "no progress");
    }
}

#[test]
fn a_scan_stopped_for_heartbeats_returns_what_it_returns_in_one_go() {
    let dir = tempfile::tempdir().unwrap();
    let (_e, t) = open(dir.path());
    let rows_ending_7 = || filter::parse_filter(b"RowFilter(=, 'regexstring:.*7$')").unwrap();
    let value_is_3 =
        || filter::parse_filter(b"SingleColumnValueFilter('a', 'k', =, 'binary:3')").unwrap();
    let mut cases: Vec<(&str, Scan)> = vec![
        ("forward, row filter", Scan::new().filter(rows_ending_7())),
        (
            "reversed, row filter",
            Scan::new().filter(rows_ending_7()).reversed(true),
        ),
        (
            "forward, whole-row filter",
            Scan::new().filter(value_is_3()),
        ),
        (
            "reversed, whole-row filter",
            Scan::new().filter(value_is_3()).reversed(true),
        ),
        (
            "within bounds",
            Scan::new()
                .with_start_row("r0290")
                .with_stop_row("r0700")
                .filter(rows_ending_7()),
        ),
        ("no filter", Scan::new()),
    ];
    let mut batched = Scan::new().filter(rows_ending_7());
    batched.batch = Some(3);
    cases.push(("batch 3", batched.clone()));
    batched.reversed = true;
    cases.push(("batch 3 reversed", batched));
    let mut partial = Scan::new().filter(rows_ending_7());
    partial.allow_partial_results = true;
    partial.max_result_size = Some(200);
    cases.push(("partial results", partial));
    for (name, scan) in cases {
        let want: Vec<Flat> = t.scan_all(&scan).unwrap().iter().map(flat).collect();
        assert!(!want.is_empty(), "{name}");
        for per_call in [1, 4, 100] {
            let (got, beats, cursors) = by_heartbeats(&t, &scan, per_call);
            assert_eq!(got.len(), want.len(), "{name}, {per_call} a call");
            assert!(got == want, "{name}, {per_call} a call: results differ");
            // One result a call ends each call before the deadline is looked at again.
            assert!(beats > 0 || per_call == 1, "{name}: no heartbeat");
            // The cursor moves in scan order.
            let ordered = cursors.windows(2).all(|w| {
                if scan.reversed {
                    w[0] >= w[1]
                } else {
                    w[0] <= w[1]
                }
            });
            assert!(ordered, "{name}: cursors out of order");
        }
    }
    // No deadline, or one not reached: no heartbeat, the same batches as next_batch_within.
    let scan = Scan::new().filter(rows_ending_7());
    let mut s = t.scanner(&scan).unwrap();
    let _hb = Heartbeat::start(Some(Instant::now() + Duration::from_secs(600)));
    let b = s.next_batch_or_heartbeat(1000, usize::MAX).unwrap();
    assert!(!b.heartbeat);
    assert_eq!(b.rows.len(), 100);
}

#[test]
fn a_scan_opened_at_an_earlier_read_point_sees_what_that_scanner_saw() {
    let dir = tempfile::tempdir().unwrap();
    let (e, t) = open(dir.path());
    let first = t.scanner(&Scan::new()).unwrap();
    let rp = first.read_point();
    t.put(Put::new("r0999").add_column("a", "k", "late"))
        .unwrap();
    t.put(Put::new("r1000").add_column("a", "k", "late"))
        .unwrap();
    let at = |read_point: Option<u64>| {
        let mut scan = Scan::new().with_start_row("r0990");
        scan.read_point = read_point;
        let rows = t.scan_all(&scan).unwrap();
        let last = rows.last().unwrap();
        (rows.len(), last.value(b"a", b"k").map(|v| v.to_vec()))
    };
    assert_eq!(at(None), (11, Some(b"late".to_vec())));
    assert_eq!(at(Some(rp)), (10, Some(b"5".to_vec())));
    // A flush while the first scanner holds its read point keeps what a read there sees.
    e.admin().flush("hb").unwrap();
    assert_eq!(at(Some(rp)), (10, Some(b"5".to_vec())));
    // A read point never read ahead of the engine's.
    let now = t.scanner(&Scan::new()).unwrap().read_point();
    let mut ahead = Scan::new();
    ahead.read_point = Some(u64::MAX);
    assert_eq!(t.scanner(&ahead).unwrap().read_point(), now);
    // With no scanner left at it, a flush drops the overwritten "5": a read point below the
    // flush's is raised to it, a consistent snapshot with the late writes.
    drop(first);
    e.admin().flush("hb").unwrap();
    let mut old = Scan::new();
    old.read_point = Some(rp);
    assert!(t.scanner(&old).unwrap().read_point() > rp);
    assert_eq!(at(Some(rp)), (11, Some(b"late".to_vec())));
}
