//! A long scan's next batch read ahead at the native door (`NativeOptions::scan_read_ahead`):
//! the same calls against a door that reads ahead and one that does not, over the same engine,
//! get the same answers call by call (results, partial flags, the region's end, the scan's limit),
//! whatever the calls ask for next: counts that change, byte-limited batches, row pieces, a row
//! limit; the door that reads ahead has read the batch after the second full one before it
//! is asked for; and the slow log's explain line of each call counts the rows read ahead for it.

use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Put, ReadCost, TableDescriptor, TableName,
};
use ferrobase_gateway::slow_log::SlowLog;
use ferrobase_native::proto::client::{Scan as PbScan, ScanRequest, ScanResponse};
use ferrobase_native::proto::hbase::RegionSpecifier;
use ferrobase_native::{NativeOptions, NativeServer, NativeStopHandle};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[path = "support/raw_client.rs"]
mod raw;

const ROWS: usize = 3_000;

fn row(i: usize) -> String {
    format!("r{i:05}")
}

/// A table of [`ROWS`] rows of one to five cells of about `value_len` bytes, in two regions.
fn engine(value_len: usize) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table_with_splits(
            TableDescriptor::new(TableName::parse("ra").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
            &[row(ROWS / 2).into_bytes()],
        )
        .unwrap();
    let t = engine.table("ra").unwrap();
    let puts: Vec<Put> = (0..ROWS)
        .map(|i| {
            (0..1 + i % 5).fold(Put::new(row(i)), |p, c| {
                p.add_column(
                    "cf",
                    format!("q{c}"),
                    format!("{i}-{c}-{}", "v".repeat(value_len)),
                )
            })
        })
        .collect();
    t.put_all(puts).unwrap();
    (engine, dir)
}

/// A connection to a native door over `engine`, reading ahead or not.
struct Door {
    stream: TcpStream,
    next_id: u32,
    server: NativeStopHandle,
}

fn door(engine: &Engine, read_ahead: bool) -> Door {
    door_with(
        engine,
        NativeOptions {
            scan_read_ahead: read_ahead,
            // As on a machine with cores to spare, whatever runs beside the test.
            read_ahead_cores: Some(64),
            ..NativeOptions::default()
        },
    )
}

fn door_with(engine: &Engine, opts: NativeOptions) -> Door {
    let server = NativeServer::bind(
        engine.clone(),
        NativeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            ..opts
        },
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    let handle = server.stop_handle().unwrap();
    std::thread::spawn(move || server.run());
    Door {
        stream: raw::connect_to(addr, "ClientService", None, None),
        next_id: 1,
        server: handle,
    }
}

impl Door {
    fn scan(&mut self, req: &ScanRequest) -> ScanResponse {
        self.next_id += 1;
        raw::scan(&mut self.stream, self.next_id, req, 60_000)
    }
}

/// The call that opens a scan of the table's first region, `rows` rows a call, taking partial
/// rows and heartbeats as HBase's client does.
fn open_request(engine: &Engine, rows: u32) -> ScanRequest {
    ScanRequest {
        region: Some(regions(engine).remove(0)),
        scan: Some(PbScan::default()),
        number_of_rows: Some(rows),
        client_handles_partials: Some(true),
        client_handles_heartbeats: Some(true),
        ..ScanRequest::default()
    }
}

fn regions(engine: &Engine) -> Vec<RegionSpecifier> {
    let regions = engine.admin().regions("ra").unwrap();
    regions
        .iter()
        .map(|r| raw::region_named("ra", &r.start, r.id))
        .collect()
}

/// One call's answer as compared: each result's row, cells and partial flag, then whether the
/// region and the scan go on.
type Answer = (
    Vec<(Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>, bool)>,
    Option<bool>,
    Option<bool>,
);

fn answer(resp: &ScanResponse) -> Answer {
    assert_eq!(resp.heartbeat_message, None, "no call here takes 30 s");
    let results = resp
        .results
        .iter()
        .zip(&resp.partial_flag_per_result)
        .map(|(r, &partial)| {
            let cells = r
                .cell
                .iter()
                .map(|c| (c.qualifier.clone().unwrap(), c.value.clone().unwrap()))
                .collect();
            (r.cell[0].row.clone().unwrap(), cells, partial)
        })
        .collect();
    (results, resp.more_results_in_region, resp.more_results)
}

/// Every region scanned as `scan` with `limit`, the calls asking in turn for `counts` rows;
/// every third call waits for the read ahead, if any, to be done (so calls come both before
/// and after a read ahead, and the rows read ahead are taken, split and completed).
fn run(door: &mut Door, engine: &Engine, scan: &PbScan, limit: u32, counts: &[u32]) -> Vec<Answer> {
    let mut answers = Vec::new();
    let mut counts = counts.iter().cycle();
    for region in regions(engine) {
        let mut req = ScanRequest {
            region: Some(region),
            scan: Some(scan.clone()),
            limit_of_rows: (limit > 0).then_some(limit),
            ..ScanRequest::default()
        };
        for call in 0.. {
            assert!(call < 10_000, "the scan never ended");
            req.number_of_rows = counts.next().copied();
            req.client_handles_partials = Some(true);
            req.client_handles_heartbeats = Some(true);
            if call % 3 == 2 {
                assert!(wait_for(|| door.server.reads_ahead_pending() == 0));
            }
            let resp = door.scan(&req);
            answers.push(answer(&resp));
            if resp.more_results_in_region == Some(false) || resp.more_results == Some(false) {
                break;
            }
            req = ScanRequest {
                scanner_id: resp.scanner_id,
                ..ScanRequest::default()
            };
        }
    }
    answers
}

#[test]
fn a_scan_read_ahead_answers_call_by_call_what_it_would_have_read_itself() {
    let (engine, _dir) = engine(200);
    let (mut on, mut off) = (door(&engine, true), door(&engine, false));
    let whole = PbScan::default();
    let cases: Vec<(&str, PbScan, u32, Vec<u32>)> = vec![
        (
            "counts that change",
            whole.clone(),
            0,
            vec![
                100, 100, 100, 100, 37, 250, 1, 100, 100, 100, 500, 3, 3, 3, 64,
            ],
        ),
        (
            "batches that end at a byte limit (the Java client's caching)",
            PbScan {
                max_result_size: Some(40 << 10),
                ..whole.clone()
            },
            0,
            vec![i32::MAX as u32],
        ),
        (
            "row pieces (Scan.setBatch)",
            PbScan {
                batch_size: Some(2),
                ..whole.clone()
            },
            0,
            vec![50, 50, 50, 7, 120],
        ),
        (
            "partial results at a byte limit",
            PbScan {
                allow_partial_results: Some(true),
                max_result_size: Some(3_000),
                ..whole.clone()
            },
            0,
            vec![i32::MAX as u32],
        ),
        ("a row limit", whole.clone(), 777, vec![100, 100, 100, 40]),
    ];
    for (name, scan, limit, counts) in cases {
        let read_ahead = run(&mut on, &engine, &scan, limit, &counts);
        let not = run(&mut off, &engine, &scan, limit, &counts);
        assert!(read_ahead.len() > 4, "{name}: {} calls", read_ahead.len());
        assert_eq!(read_ahead.len(), not.len(), "{name}: the calls");
        for (i, (a, b)) in read_ahead.iter().zip(&not).enumerate() {
            assert!(a == b, "{name}: call {i} answered otherwise");
        }
    }
}

#[test]
fn the_batch_after_the_second_full_one_is_read_before_it_is_asked_for() {
    for read_ahead in [true, false] {
        // Rows of some kilobytes: 100 of them pass the engine's charge chunk, so a batch read
        // ahead holds memory for sure.
        let (engine, _dir) = engine(2_000);
        let mut door = door(&engine, read_ahead);
        let rows_read = || engine.metrics().rows_returned.load(Ordering::Acquire);
        let mut req = open_request(&engine, 100);
        let mut ids = Vec::new();
        for call in 1..=3u64 {
            let resp = door.scan(&req);
            assert_eq!(resp.results.len(), 100);
            ids.push(resp.scanner_id);
            req.region = None;
            req.scan = None;
            req.scanner_id = resp.scanner_id;
            // Read by now: the batches asked for, and with read-ahead from the second, the next.
            let want = if read_ahead && call >= 2 {
                (call + 1) * 100
            } else {
                call * 100
            };
            wait_for(|| rows_read() >= want && door.server.reads_ahead_pending() == 0);
            assert_eq!(rows_read(), want, "read ahead {read_ahead}, call {call}");
            // The rows read ahead are held in the door's in-flight memory until a call takes
            // them; nothing is held between calls otherwise.
            let ahead = want > call * 100;
            let held = wait_for(|| (door.server.memory_in_flight() > 0) == ahead);
            assert!(
                held,
                "read ahead {read_ahead}, call {call}: rows held {ahead}"
            );
        }
        // Closed with its read-ahead held: what the rows held goes back.
        req.close_scanner = Some(true);
        req.number_of_rows = Some(0);
        door.scan(&req);
        assert!(wait_for(|| door.server.memory_in_flight() == 0));
        assert_eq!(door.server.open_scanners(), 0);
        assert!(ids.windows(2).all(|w| w[0] == w[1]));
    }
}

#[test]
fn a_read_that_fails_in_the_middle_of_a_scan_closes_the_scanner_and_the_client_is_told_to_reopen() {
    // Rows of about 6 KB: 30 of them stay below the engine's first charge of the pool, 200
    // pass a pool of 400 KB.
    let (engine, _dir) = engine(2_000);
    let mut door = door_with(
        &engine,
        NativeOptions {
            max_inflight_memory: 400 << 10,
            ..NativeOptions::default()
        },
    );
    let mut req = open_request(&engine, 30);
    let first = door.scan(&req);
    assert_eq!(first.results.len(), 30);
    req = ScanRequest {
        scanner_id: first.scanner_id,
        number_of_rows: Some(200),
        ..req
    };
    req.region = None;
    req.scan = None;
    // The read passed rows it did not return: a retry of the call would skip them, so the
    // scanner is closed and the client told to reopen the scan after its last row.
    let ask = |door: &mut Door| {
        door.next_id += 1;
        raw::send(
            &mut door.stream,
            door.next_id,
            "Scan",
            &req,
            raw::CallOpts::default(),
        );
        raw::receive(&mut door.stream).unwrap().exception().unwrap()
    };
    let (class, message) = ask(&mut door);
    assert_eq!(
        class, "org.apache.hadoop.hbase.exceptions.ScannerResetException",
        "{message}"
    );
    assert!(
        message.contains("Scanner is closed on the server-side"),
        "{message}"
    );
    assert!(message.contains("--max-inflight-memory"), "{message}");
    assert_eq!(door.server.open_scanners(), 0);
    assert!(wait_for(|| door.server.memory_in_flight() == 0));
    let (class, _) = ask(&mut door);
    assert_eq!(class, "org.apache.hadoop.hbase.UnknownScannerException");
}

#[test]
fn the_slow_log_explains_each_call_with_the_rows_read_ahead_for_it() {
    let (engine, _dir) = engine(200);
    for read_ahead in [true, false] {
        let log = std::sync::Arc::new(SlowLog::new(Duration::ZERO, 100_000));
        let mut door = door_with(
            &engine,
            NativeOptions {
                scan_read_ahead: read_ahead,
                read_ahead_cores: Some(64),
                slow_log: Some(log.clone()),
                ..NativeOptions::default()
            },
        );
        let answers = run(&mut door, &engine, &PbScan::default(), 0, &[100, 37, 250]);
        let answered: usize = answers.iter().map(|a| a.0.len()).sum();
        assert_eq!(answered, ROWS);
        // Every call is logged (a threshold of zero) before it is answered.
        let explained: u64 = log
            .entries()
            .iter()
            .filter(|c| c.method == "ClientService.Scan" && !c.explain.is_empty())
            .map(|c| c.explain.parse::<ReadCost>().unwrap().rows_returned)
            .sum();
        assert_eq!(explained, ROWS as u64, "read ahead {read_ahead}");
    }
}

/// Whether `f` is true within thirty seconds (on a loaded machine).
fn wait_for(f: impl Fn() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(30);
    while !f() {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    true
}
