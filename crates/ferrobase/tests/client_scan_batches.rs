//! The client's scans through a ferrobase gateway: the scanner opens and answers its first
//! `caching` rows in one call (`ferrobaseScannerOpen`), later rows come `caching` at a time
//! (`ferrobaseScannerNext`), and the gateway closes the scanner in the call that reaches its
//! end or the scan's limit. Every scan answers what the embedded engine answers, in the round
//! trips counted here.

mod client_harness;

use ferrobase_client::{Connection, Table};
use ferrobase_engine::*;
use ferrobase_gateway::StopHandle;

/// The table both backends hold: 250 rows, every third with an older second version and
/// every fifth with a second family.
fn fill(conn: &Connection) {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.max_versions = 3;
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(cf)
        .with_family(ColumnFamilyDescriptor::new("m"));
    conn.create_table(desc, &[]).unwrap();
    let t = conn.table("t");
    let puts = (0..250)
        .map(|i| {
            let mut p =
                Put::new(format!("r{i:03}")).add_column_ts("cf", "a", 2000, format!("a{i}"));
            if i % 3 == 0 {
                p = p.add_column_ts("cf", "b", 1000, "old");
            }
            if i % 5 == 0 {
                p = p.add_column_ts("m", "x", 3000, vec![b'x'; i]);
            }
            p
        })
        .collect();
    t.put_all(puts).unwrap();
}

/// Every row of `scan`, read `n` at a time, as (row, [(column, value, timestamp)]).
fn read(t: &Table, scan: &Scan, filter: Option<&[u8]>, n: usize) -> Vec<String> {
    let mut s = t.scanner(scan.clone(), filter).unwrap();
    let mut out = Vec::new();
    loop {
        let got = s.next_batch(n).unwrap();
        if got.is_empty() {
            return out;
        }
        assert!(got.len() <= n, "a batch of {} rows for {n}", got.len());
        for r in got {
            let cells: Vec<String> = r
                .cells
                .iter()
                .map(|c| {
                    format!(
                        "{}:{}={}@{}",
                        String::from_utf8_lossy(c.family()),
                        String::from_utf8_lossy(c.qualifier()),
                        String::from_utf8_lossy(c.value()),
                        c.timestamp()
                    )
                })
                .collect();
            out.push(format!(
                "{} {}",
                String::from_utf8_lossy(r.row()),
                cells.join(",")
            ));
        }
    }
}

/// Calls of `method` the gateway has answered.
fn calls(stop: &StopHandle, method: &str) -> u64 {
    stop.call_counters()
        .snapshot()
        .into_iter()
        .filter(|(_, m, _, _)| *m == method)
        .map(|(_, _, _, n)| n)
        .sum()
}

#[test]
fn scans_answer_as_the_engine_does_in_one_call_per_batch() {
    let local_dir = tempfile::tempdir().unwrap();
    let local = Connection::open(&format!("file:{}", local_dir.path().display())).unwrap();
    fill(&local);
    let gateway = client_harness::Gateway::start();
    let stop = &gateway.stop;
    let remote = Connection::open(&gateway.url).unwrap();
    fill(&remote);
    let (lt, rt) = (local.table("t"), remote.table("t"));

    let scans: Vec<(&str, Scan, Option<&[u8]>)> = vec![
        ("all", Scan::new(), None),
        (
            "range",
            Scan::new().with_start_row("r010").with_stop_row("r120"),
            None,
        ),
        ("prefix", Scan::new().with_row_prefix("r2"), None),
        (
            "reversed",
            Scan::new().reversed(true).with_start_row("r200"),
            None,
        ),
        ("family", Scan::new().add_family("m"), None),
        (
            "lower time bound skips rows",
            Scan::new().time_range(TimeRange::new(2500, i64::MAX).unwrap()),
            None,
        ),
        (
            "filter",
            Scan::new(),
            Some(b"SingleColumnValueFilter('cf','b',=,'binary:old',true,true)"),
        ),
        ("nothing", Scan::new().with_start_row("s"), None),
    ];
    for (what, scan, filter) in &scans {
        for limit in [None, Some(1), Some(99), Some(100), Some(250), Some(300)] {
            for caching in [1, 7, 100, 1000] {
                for n in [1, 10, 100] {
                    for prefetch in [false, true] {
                        let mut scan = scan.clone().caching(caching).async_prefetch(prefetch);
                        if let Some(l) = limit {
                            scan = scan.limit(l);
                        }
                        let want = read(&lt, &scan, *filter, n);
                        let got = read(&rt, &scan, *filter, n);
                        assert_eq!(
                            got, want,
                            "{what}, limit {limit:?}, caching {caching}, {n} a batch, \
                             prefetch {prefetch}"
                        );
                    }
                }
            }
        }
    }
    // Every scanner was closed (by the call that reached its end or limit, or, past the
    // limit of a scan with a lower time bound, which this client applies, by scannerClose).
    assert_eq!(stop.open_scanners(), 0);
    assert_eq!(calls(stop, "scannerOpenWithScan"), 0);
    assert_eq!(calls(stop, "scannerGetList"), 0);
    let closes = calls(stop, "scannerClose");

    // A scan of up to `caching` rows is one round trip: the seed designs' 100-row page.
    let (opens, nexts) = (
        calls(stop, "ferrobaseScannerOpen"),
        calls(stop, "ferrobaseScannerNext"),
    );
    let page = Scan::new().with_row_prefix("r1").limit(100).caching(100);
    assert_eq!(read(&rt, &page, None, 100).len(), 100);
    let to_end = Scan::new().with_start_row("r200").caching(100);
    assert_eq!(read(&rt, &to_end, None, 100).len(), 50);
    assert_eq!(calls(stop, "ferrobaseScannerOpen"), opens + 2);
    assert_eq!(calls(stop, "ferrobaseScannerNext"), nexts);
    // 250 rows at 100 a call: three calls, the last closing the scanner.
    let whole = Scan::new().caching(100);
    assert_eq!(read(&rt, &whole, None, 100).len(), 250);
    assert_eq!(calls(stop, "ferrobaseScannerOpen"), opens + 3);
    assert_eq!(calls(stop, "ferrobaseScannerNext"), nexts + 2);
    // Iterating row by row fetches `caching` rows a call, not one.
    let rows: Vec<RowResult> = rt
        .scanner(Scan::new().caching(100), None)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows.len(), 250);
    assert_eq!(calls(stop, "ferrobaseScannerNext"), nexts + 4);
    assert_eq!(calls(stop, "scannerClose"), closes);
    // A scanner dropped part-way is closed with scannerClose.
    let mut s = rt.scanner(Scan::new().caching(10), None).unwrap();
    assert_eq!(s.next_batch(5).unwrap().len(), 5);
    assert_eq!(stop.open_scanners(), 1);
    drop(s);
    assert_eq!(stop.open_scanners(), 0);
    assert_eq!(calls(stop, "scannerClose"), closes + 1);
    // Prefetching: the next batch is asked for as each arrives, so a whole scan takes the
    // calls it took without, and a scan that ends in its first batch asks for nothing more.
    let nexts = calls(stop, "ferrobaseScannerNext");
    let ahead = Scan::new().caching(100).async_prefetch(true);
    assert_eq!(read(&rt, &ahead, None, 100).len(), 250);
    assert_eq!(calls(stop, "ferrobaseScannerNext"), nexts + 2);
    assert_eq!(
        read(&rt, &page.clone().async_prefetch(true), None, 100).len(),
        100
    );
    assert_eq!(calls(stop, "ferrobaseScannerNext"), nexts + 2);
    // Other calls on the connection while a batch is in flight: the gets read their own
    // replies, the scanner its batch afterwards; nothing is lost or answered twice.
    let mut s = rt.scanner(ahead.clone(), None).unwrap();
    let mut seen = 0;
    loop {
        let got = s.next_batch(30).unwrap();
        if got.is_empty() {
            break;
        }
        for r in &got {
            assert_eq!(r.row(), format!("r{seen:03}").as_bytes());
            seen += 1;
        }
        let row = rt
            .get(Get::new(format!("r{:03}", seen % 250)), None)
            .unwrap();
        assert_eq!(row.row(), format!("r{:03}", seen % 250).as_bytes());
        assert!(rt.get(Get::new("zzz"), None).unwrap().cells.is_empty());
    }
    assert_eq!(seen, 250);
    drop(s);
    // Dropped part-way with a batch in flight: the batch is read and the scanner closed.
    let closes = calls(stop, "scannerClose");
    let mut s = rt.scanner(ahead.clone().caching(10), None).unwrap();
    assert_eq!(s.next_batch(5).unwrap().len(), 5);
    drop(s);
    assert_eq!(stop.open_scanners(), 0);
    assert_eq!(calls(stop, "scannerClose"), closes + 1);
    let two = rt.scanner(ahead.clone().caching(10), None).unwrap();
    let mut one = rt.scanner(ahead.clone().caching(7), None).unwrap();
    assert_eq!(one.next_batch(100).unwrap().len(), 7);
    drop(two);
    assert_eq!(one.next_batch(3).unwrap()[0].row(), b"r007");
    drop(one);
    assert_eq!(stop.open_scanners(), 0);
    assert_eq!(
        rt.get(Get::new("r042"), None).unwrap().row(),
        b"r042",
        "the connection still answers in step"
    );

    // An unknown table fails at the open, leaving nothing open.
    let err = remote
        .table("nope")
        .scanner(Scan::new(), None)
        .err()
        .expect("a scan of a table that does not exist fails");
    assert!(err.to_string().contains("nope"), "{err}");
    assert_eq!(stop.open_scanners(), 0);
}
