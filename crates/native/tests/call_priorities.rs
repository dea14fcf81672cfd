//! Call priorities (issue 48): with the normal call queue saturated by slow gets from many
//! connections (each holding a handler for its 2 s timeout; the queue full, so the rest are
//! answered `CallQueueTooBigException`), a meta lookup (a scan of `hbase:meta` at
//! `SYSTEMTABLE_QOS`, as the Java client's locator sends it) and `Admin` calls
//! (`MasterService.GetTableNames`, `AdminService.GetRegionInfo`) still answer within a second,
//! run by the priority pool.

#[path = "support/raw_client.rs"]
mod raw_client;

use ferrobase_engine::{ColumnFamilyDescriptor, Put, TableDescriptor, TableName};
use ferrobase_native::proto::admin::GetRegionInfoRequest;
use ferrobase_native::proto::client::{Get, GetRequest, Scan, ScanRequest, ScanResponse};
use ferrobase_native::proto::comparator::{Comparator, RegexStringComparator};
use ferrobase_native::proto::filter::{CompareFilter, Filter, ValueFilter};
use ferrobase_native::proto::hbase::region_specifier::RegionSpecifierType;
use ferrobase_native::proto::hbase::RegionSpecifier;
use ferrobase_native::proto::master::{GetTableNamesRequest, GetTableNamesResponse};
use ferrobase_native::NativeOptions;
use prost::Message;
use raw_client::{connect, receive, send, start, CallOpts};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A get whose value filter takes its whole time budget (a costly regex over 500 KiB of values).
fn slow_get(region: &RegionSpecifier) -> GetRequest {
    let comparator = Comparator {
        name: Some("org.apache.hadoop.hbase.filter.RegexStringComparator".into()),
        serialized_comparator: Some(
            RegexStringComparator {
                pattern: Some(".{0,1000}.{0,1000}.{0,1000}b".into()),
                pattern_flags: Some(0),
                charset: Some("UTF-8".into()),
                ..RegexStringComparator::default()
            }
            .encode_to_vec(),
        ),
    };
    GetRequest {
        region: Some(region.clone()),
        get: Some(Get {
            row: Some(b"r".to_vec()),
            filter: Some(Filter {
                name: Some("org.apache.hadoop.hbase.filter.ValueFilter".into()),
                serialized_filter: Some(
                    ValueFilter {
                        compare_filter: Some(CompareFilter {
                            compare_op: Some(2),
                            comparator: Some(comparator),
                        }),
                    }
                    .encode_to_vec(),
                ),
            }),
            ..Get::default()
        }),
    }
}

#[test]
fn meta_lookups_and_admin_calls_answer_while_user_calls_flood_the_queue() {
    let mut region = None;
    let door = start(
        NativeOptions {
            handlers: 2,
            max_queued_calls: 4,
            ..NativeOptions::default()
        },
        |engine| {
            engine
                .admin()
                .create_table(
                    TableDescriptor::new(TableName::parse("slow").unwrap())
                        .with_family(ColumnFamilyDescriptor::new("cf")),
                )
                .unwrap();
            let mut p = Put::new("r");
            for q in 0..100 {
                p = p.add_column("cf", format!("q{q}"), "a".repeat(5 * 1024));
            }
            engine.table("slow").unwrap().put(p).unwrap();
            region = Some(raw_client::region_of(engine, "slow"));
        },
    );
    let region = region.unwrap();

    // The flood: 12 connections, each sending slow gets back to back.
    let stop = Arc::new(AtomicBool::new(false));
    let busy = Arc::new(AtomicUsize::new(0));
    let mut flooders = Vec::new();
    for _ in 0..12 {
        let mut s = connect(&door, "ClientService", None);
        let (stop, busy, req) = (stop.clone(), busy.clone(), slow_get(&region));
        flooders.push(std::thread::spawn(move || {
            let mut id = 0;
            while !stop.load(Ordering::Acquire) {
                id += 1;
                let o = CallOpts {
                    timeout_ms: Some(2000),
                    ..CallOpts::default()
                };
                send(&mut s, id, "Get", &req, o);
                let Some(r) = receive(&mut s) else { return };
                if let Some((class, _)) = r.exception() {
                    if class.ends_with("CallQueueTooBigException") {
                        busy.fetch_add(1, Ordering::AcqRel);
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
        }));
    }
    // Until the queue is full.
    let deadline = Instant::now() + Duration::from_secs(20);
    while busy.load(Ordering::Acquire) < 5 {
        assert!(
            Instant::now() < deadline,
            "the flood never filled the queue"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let mut timings = Vec::new();
    // A meta lookup as the client's locator sends it: a reversed scan of hbase:meta at 200.
    let meta = RegionSpecifier {
        r#type: Some(RegionSpecifierType::RegionName as i32),
        value: Some(b"hbase:meta,,1".to_vec()),
    };
    let mut s = connect(&door, "ClientService", None);
    let scan = ScanRequest {
        region: Some(meta),
        scan: Some(Scan {
            start_row: Some(b"slow,,99999999999999".to_vec()),
            stop_row: Some(b"slow,,".to_vec()),
            reversed: Some(true),
            caching: Some(1),
            ..Scan::default()
        }),
        number_of_rows: Some(1),
        close_scanner: Some(true),
        ..ScanRequest::default()
    };
    for id in 1..=5 {
        let t = Instant::now();
        let o = CallOpts {
            priority: Some(200),
            ..CallOpts::default()
        };
        send(&mut s, id, "Scan", &scan, o);
        let r = receive(&mut s).unwrap();
        timings.push(("meta lookup", t.elapsed()));
        assert!(r.exception().is_none(), "{:?}", r.exception());
        let answer = ScanResponse::decode(&r.body[..]).unwrap();
        assert_eq!(answer.cells_per_result.len(), 1, "slow's region row");
    }
    // Admin: the master's table listing, and a region server administrative call.
    let mut m = connect(&door, "MasterService", None);
    let mut a = connect(&door, "AdminService", None);
    for id in 1..=5 {
        let t = Instant::now();
        send(
            &mut m,
            id,
            "GetTableNames",
            &GetTableNamesRequest::default(),
            CallOpts::default(),
        );
        let r = receive(&mut m).unwrap();
        timings.push(("GetTableNames", t.elapsed()));
        assert!(r.exception().is_none(), "{:?}", r.exception());
        let names = GetTableNamesResponse::decode(&r.body[..]).unwrap();
        assert_eq!(names.table_names.len(), 1);
        let t = Instant::now();
        let info = GetRegionInfoRequest {
            region: Some(region.clone()),
            ..GetRegionInfoRequest::default()
        };
        send(&mut a, id, "GetRegionInfo", &info, CallOpts::default());
        let r = receive(&mut a).unwrap();
        timings.push(("GetRegionInfo", t.elapsed()));
        assert!(r.exception().is_none(), "{:?}", r.exception());
    }
    let still_busy = busy.load(Ordering::Acquire);
    stop.store(true, Ordering::Release);
    for f in flooders {
        let _ = f.join();
    }
    for (what, t) in &timings {
        eprintln!("{what}: {} ms", t.as_millis());
    }
    eprintln!("user calls answered CallQueueTooBigException meanwhile: {still_busy}");
    for (what, t) in timings {
        assert!(
            t < Duration::from_secs(1),
            "{what} took {t:?} under the flood"
        );
    }
}
