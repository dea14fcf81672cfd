//! Scan heartbeats and read points at the native door, as HBase's `RSRpcServices.scan` answers
//! them (issue 48): a ScanRequest with `client_handles_heartbeats` and `client_handles_partials`
//! stops at half the call's time (its RequestHeader `timeout` here) and is answered with
//! `heartbeat_message`, the rows read so far, `more_results_in_region` and, when the scan asked
//! for it, a cursor; the next calls go on exactly where it stopped. The first answer of a scanner
//! names its read point, and a scanner opened with it (`Scan.mvcc_read_point`, as the client
//! reopens a scanner in the same region) does not see later writes.

use ferrobase_engine::{
    filter, ColumnFamilyDescriptor, Engine, EngineOptions, Put, RowResult, Scan, TableDescriptor,
    TableName,
};
use ferrobase_native::proto::client::{Scan as PbScan, ScanRequest, ScanResponse};
use ferrobase_native::proto::comparator::{Comparator, RegexStringComparator};
use ferrobase_native::proto::filter::{CompareFilter, Filter, RowFilter};
use ferrobase_native::proto::hbase::RegionSpecifier;
use ferrobase_native::{NativeOptions, NativeServer};
use prost::Message;
use std::net::TcpStream;
#[path = "support/raw_client.rs"]
mod raw;

/// Rows in three regions of 60,000: a debug build read one in about 200 ms on a loaded machine,
/// and a call that times out after 200 ms stops for a heartbeat after 100 ms (the other 100 ms
/// is the margin before the call's budget). On a quiet machine a region can take less than
/// 100 ms: the calls are then run again with shorter timeouts ([`SHORTER_TIMEOUTS_MS`]).
const ROWS: usize = 180_000;
/// The rows the filter keeps: those ending in 27777 (r027777 in the first region, r127777 in the
/// last; none in the middle one, whose heartbeats are all without results).
const KEEP: &str = ".*27777$";
const KEPT: usize = 2;
/// The call timeout of every scan call.
const TIMEOUT_MS: u32 = 200;
/// The call timeouts tried, in turn, when a scan's calls saw no heartbeat (a machine fast
/// enough to read a region before half the timeout): a quiet machine has the margins they
/// leave.
const SHORTER_TIMEOUTS_MS: [u32; 3] = [80, 30, 10];

struct Door {
    engine: Engine,
    stream: TcpStream,
    next_id: u32,
    _dir: tempfile::TempDir,
}

fn row(i: usize) -> String {
    format!("r{i:06}")
}

fn start() -> Door {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table_with_splits(
            TableDescriptor::new(TableName::parse("hb").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
            &[row(ROWS / 3).into_bytes(), row(2 * ROWS / 3).into_bytes()],
        )
        .unwrap();
    let t = engine.table("hb").unwrap();
    let mut puts = Vec::new();
    for i in 0..ROWS {
        let mut p = Put::new(row(i)).add_column("cf", "a", "x");
        // The rows kept are wide: a batch returns them in pieces.
        if i % 100_000 == 27_777 {
            for q in 0..7 {
                p = p.add_column("cf", format!("q{q}"), format!("{i}-{q}"));
            }
        }
        puts.push(p);
        if puts.len() == 5000 {
            t.put_all(std::mem::take(&mut puts)).unwrap();
        }
    }
    t.put_all(puts).unwrap();
    let server = NativeServer::bind(
        engine.clone(),
        NativeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            ..NativeOptions::default()
        },
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.run());
    // No codec: cells come inside the results.
    let stream = raw::connect_to(addr, "ClientService", None, None);
    Door {
        engine,
        stream,
        next_id: 1,
        _dir: dir,
    }
}

impl Door {
    /// One Scan call with the call timeout `timeout_ms`; its answer.
    fn scan(&mut self, req: &ScanRequest, timeout_ms: u32) -> ScanResponse {
        self.next_id += 1;
        raw::scan(&mut self.stream, self.next_id, req, timeout_ms)
    }

    /// The table's regions in scan order, as region specifiers.
    fn regions(&self, reversed: bool) -> Vec<RegionSpecifier> {
        let mut regions: Vec<_> = self
            .engine
            .admin()
            .regions("hb")
            .unwrap()
            .into_iter()
            .map(|r| raw::region_named("hb", &r.start, r.id))
            .collect();
        if reversed {
            regions.reverse();
        }
        regions
    }
}

/// A result as (row, cells as (qualifier, value), partial).
type Flat = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>, bool);

fn flat_engine(r: &RowResult) -> Flat {
    (
        r.row().to_vec(),
        r.cells
            .iter()
            .map(|c| (c.qualifier().to_vec(), c.value().to_vec()))
            .collect(),
        r.may_have_more_cells_in_row(),
    )
}

fn row_filter(pattern: &str) -> Filter {
    let comparator = Comparator {
        name: Some("org.apache.hadoop.hbase.filter.RegexStringComparator".into()),
        serialized_comparator: Some(
            RegexStringComparator {
                pattern: Some(pattern.into()),
                pattern_flags: Some(0),
                charset: Some("UTF-8".into()),
                ..RegexStringComparator::default()
            }
            .encode_to_vec(),
        ),
    };
    Filter {
        name: Some("org.apache.hadoop.hbase.filter.RowFilter".into()),
        serialized_filter: Some(
            RowFilter {
                compare_filter: Some(CompareFilter {
                    compare_op: Some(2),
                    comparator: Some(comparator),
                }),
            }
            .encode_to_vec(),
        ),
    }
}

/// What a scan over every region returned, call by call, as the Java client drives it.
struct Run {
    results: Vec<Flat>,
    calls: usize,
    heartbeats: usize,
    /// Heartbeats that returned no result.
    empty_heartbeats: usize,
    cursors: Vec<Vec<u8>>,
}

fn run(door: &mut Door, scan: &PbScan, caching: u32, timeout_ms: u32) -> Run {
    let reversed = scan.reversed.unwrap_or(false);
    let mut out = Run {
        results: Vec::new(),
        calls: 0,
        heartbeats: 0,
        empty_heartbeats: 0,
        cursors: Vec::new(),
    };
    for region in door.regions(reversed) {
        let mut req = ScanRequest {
            region: Some(region),
            scan: Some(scan.clone()),
            number_of_rows: Some(caching),
            client_handles_partials: Some(true),
            client_handles_heartbeats: Some(true),
            ..ScanRequest::default()
        };
        loop {
            let resp = door.scan(&req, timeout_ms);
            out.calls += 1;
            assert_eq!(resp.results.len(), resp.partial_flag_per_result.len());
            for (r, &partial) in resp.results.iter().zip(&resp.partial_flag_per_result) {
                out.results.push((
                    r.cell[0].row.clone().unwrap(),
                    r.cell
                        .iter()
                        .map(|c| (c.qualifier.clone().unwrap(), c.value.clone().unwrap()))
                        .collect(),
                    partial,
                ));
            }
            if resp.heartbeat_message == Some(true) {
                out.heartbeats += 1;
                if resp.results.is_empty() {
                    out.empty_heartbeats += 1;
                }
                assert_eq!(resp.more_results_in_region, Some(true));
                out.cursors.extend(resp.cursor.and_then(|c| c.row));
            }
            if resp.more_results_in_region == Some(false) {
                break;
            }
            req = ScanRequest {
                scanner_id: resp.scanner_id,
                number_of_rows: Some(caching),
                client_handles_partials: Some(true),
                client_handles_heartbeats: Some(true),
                ..ScanRequest::default()
            };
        }
    }
    out
}

#[test]
fn heartbeats_stop_long_filtered_scans_and_the_next_calls_go_on_exactly() {
    let mut door = start();
    let t = door.engine.table("hb").unwrap();
    let engine_filter = |reversed: bool| {
        let mut s = Scan::new()
            .filter(
                filter::parse_filter(format!("RowFilter(=, 'regexstring:{KEEP}')").as_bytes())
                    .unwrap(),
            )
            .reversed(reversed);
        s.caching = 1000;
        s
    };
    for (name, reversed, batch) in [
        ("forward", false, None),
        ("reversed", true, None),
        ("batch 3", false, Some(3)),
        ("batch 3 reversed", true, Some(3)),
    ] {
        let mut want_scan = engine_filter(reversed);
        want_scan.batch = batch;
        let want: Vec<Flat> = t
            .scan_all(&want_scan)
            .unwrap()
            .iter()
            .map(flat_engine)
            .collect();
        assert_eq!(
            want.iter().filter(|r| !r.2).count(),
            KEPT,
            "{name}: the rows kept"
        );
        let scan = PbScan {
            filter: Some(row_filter(KEEP)),
            reversed: Some(reversed),
            batch_size: batch.map(|b: usize| b as u32),
            need_cursor_result: Some(true),
            ..PbScan::default()
        };
        let mut shorter = SHORTER_TIMEOUTS_MS.into_iter();
        let mut timeout = TIMEOUT_MS;
        let got = loop {
            let got = run(&mut door, &scan, 1000, timeout);
            assert!(
                got.results == want,
                "{name}: the results differ from one scan's ({timeout} ms calls)"
            );
            if got.heartbeats > 0 && got.empty_heartbeats > 0 {
                break got;
            }
            let Some(next) = shorter.next() else {
                break got;
            };
            eprintln!("{name}: no heartbeat in {} calls; {next} ms", got.calls);
            timeout = next;
        };
        assert!(
            got.heartbeats > 0,
            "{name}: no heartbeat in {} calls",
            got.calls
        );
        assert!(
            got.empty_heartbeats > 0,
            "{name}: no heartbeat without results"
        );
        // Cursors move in scan order, within the table.
        assert!(!got.cursors.is_empty(), "{name}: no cursor");
        let ordered =
            got.cursors
                .windows(2)
                .all(|w| if reversed { w[0] >= w[1] } else { w[0] <= w[1] });
        assert!(ordered, "{name}: cursors out of scan order");
        eprintln!(
            "{name}: {} results in {} calls, {} heartbeats ({} without results)",
            got.results.len(),
            got.calls,
            got.heartbeats,
            got.empty_heartbeats
        );
        // Without a cursor asked for, heartbeats carry none.
        let plain = PbScan {
            need_cursor_result: None,
            ..scan
        };
        let got = run(&mut door, &plain, 1000, TIMEOUT_MS);
        assert!(
            got.results == want,
            "{name}: the results differ without cursors"
        );
        assert!(got.cursors.is_empty());
    }
    // A client that does not take heartbeats gets none: its scan runs to the call's time
    // budget and stops there with an error, as before.
    let mut req = ScanRequest {
        region: Some(door.regions(false).remove(0)),
        scan: Some(PbScan {
            filter: Some(row_filter(KEEP)),
            ..PbScan::default()
        }),
        number_of_rows: Some(1000),
        client_handles_partials: Some(true),
        client_handles_heartbeats: Some(false),
        ..ScanRequest::default()
    };
    let resp = door.scan(&req, 60_000);
    assert_eq!(resp.heartbeat_message, None);
    assert_eq!(resp.results.len(), 1);
    req.scanner_id = resp.scanner_id;
    req.scan = None;
    req.close_scanner = Some(true);
    door.scan(&req, 60_000);
}

#[test]
fn a_scanner_reopened_at_its_read_point_does_not_see_later_writes() {
    let mut door = start();
    let region = door.regions(false).remove(0);
    let open = |read_point: Option<u64>, start: &str| ScanRequest {
        region: Some(region.clone()),
        scan: Some(PbScan {
            start_row: Some(start.as_bytes().to_vec()),
            stop_row: Some(b"r000010".to_vec()),
            mvcc_read_point: read_point,
            ..PbScan::default()
        }),
        number_of_rows: Some(2),
        client_handles_partials: Some(true),
        client_handles_heartbeats: Some(true),
        ..ScanRequest::default()
    };
    let first = door.scan(&open(None, ""), 60_000);
    let read_point = first
        .mvcc_read_point
        .expect("the first answer names its read point");
    assert_eq!(first.results.len(), 2);
    // Later calls do not name it again (HBase answers it when the scanner opens).
    let next = door.scan(
        &ScanRequest {
            scanner_id: first.scanner_id,
            number_of_rows: Some(1),
            ..ScanRequest::default()
        },
        60_000,
    );
    assert_eq!(next.mvcc_read_point, None);
    // A write after the scanner opened, ahead of where it stands.
    let t = door.engine.table("hb").unwrap();
    t.put(Put::new("r000005x").add_column("cf", "a", "late"))
        .unwrap();
    let rows = |resp: &ScanResponse| -> Vec<Vec<u8>> {
        resp.results
            .iter()
            .map(|r| r.cell[0].row.clone().unwrap())
            .collect()
    };
    let mut again = open(Some(read_point), "r000003");
    again.number_of_rows = Some(100);
    let reopened = door.scan(&again, 60_000);
    assert_eq!(reopened.mvcc_read_point, Some(read_point));
    assert_eq!(
        rows(&reopened).len(),
        7,
        "the late row is not seen at the read point"
    );
    let mut fresh = open(None, "r000003");
    fresh.number_of_rows = Some(100);
    let now = door.scan(&fresh, 60_000);
    assert!(now.mvcc_read_point.unwrap() > read_point);
    assert!(rows(&now).contains(&b"r000005x".to_vec()));
}
