//! The native door's failures by class (`ferrobase_errors_total{door="native",class}` in the
//! server's `/metrics`), its open scanners and its scanners closed by their lease, after known
//! calls from a raw HBase RPC client: a Get of a family the table does not have counts one
//! `no_such_family`, of a table that does not exist one `table_not_found`, a scan of an unknown
//! scanner id one `unknown_scanner`; an open scanner is counted until its lease closes it.

#[path = "support/raw_client.rs"]
mod raw_client;

use ferrobase_engine::{ColumnFamilyDescriptor, ErrorClass, Put, TableDescriptor, TableName};
use ferrobase_native::proto::client::{Column, Get, GetRequest, Scan, ScanRequest};
use ferrobase_native::NativeOptions;
use raw_client::CallOpts;
use std::time::{Duration, Instant};

fn count(door: &raw_client::Door, class: ErrorClass) -> u64 {
    let errors = door.stop.call_counters().errors();
    errors.iter().find(|(c, _)| *c == class).unwrap().1
}

/// Every class's count, for comparing before and after a call.
fn counts(door: &raw_client::Door) -> Vec<(ErrorClass, u64)> {
    door.stop.call_counters().errors()
}

/// Asserts that only `class` moved between `before` and now, by exactly one.
fn moved_once(door: &raw_client::Door, before: &[(ErrorClass, u64)], class: ErrorClass) {
    for ((c, was), (c2, now)) in before.iter().zip(counts(door)) {
        assert_eq!(*c, c2);
        let want = u64::from(*c == class);
        assert_eq!(now - was, want, "{} moved by {}", c.label(), now - was);
    }
}

#[test]
fn failures_count_by_class_and_scanners_by_their_lease() {
    let mut region = None;
    let door = raw_client::start(
        NativeOptions {
            scanner_lease: Duration::from_millis(600),
            ..NativeOptions::default()
        },
        |engine| {
            engine
                .admin()
                .create_table(
                    TableDescriptor::new(TableName::parse("t").unwrap())
                        .with_family(ColumnFamilyDescriptor::new("cf")),
                )
                .unwrap();
            let t = engine.table("t").unwrap();
            for i in 0..3 {
                t.put(Put::new(format!("r{i}")).add_column("cf", "q", "v"))
                    .unwrap();
            }
            region = Some(raw_client::region_of(engine, "t"));
        },
    );
    let region = region.unwrap();
    let mut s = raw_client::connect(&door, "ClientService", None);
    assert!(counts(&door).iter().all(|(_, n)| *n == 0));

    // A family the table does not have.
    let before = counts(&door);
    let get = GetRequest {
        region: Some(region.clone()),
        get: Some(Get {
            row: Some(b"r1".to_vec()),
            column: vec![Column {
                family: Some(b"nope".to_vec()),
                qualifier: vec![],
            }],
            ..Get::default()
        }),
    };
    raw_client::send(&mut s, 1, "Get", &get, CallOpts::default());
    let (class, _) = raw_client::receive(&mut s).unwrap().exception().unwrap();
    assert!(class.ends_with("NoSuchColumnFamilyException"), "{class}");
    moved_once(&door, &before, ErrorClass::NoSuchFamily);

    // A scanner id nobody opened.
    let before = counts(&door);
    let next = ScanRequest {
        scanner_id: Some(4242),
        number_of_rows: Some(1),
        ..ScanRequest::default()
    };
    raw_client::send(&mut s, 2, "Scan", &next, CallOpts::default());
    let (class, _) = raw_client::receive(&mut s).unwrap().exception().unwrap();
    assert!(class.ends_with("UnknownScannerException"), "{class}");
    moved_once(&door, &before, ErrorClass::UnknownScanner);

    // An open scanner, counted until its lease closes it.
    assert_eq!(door.stop.open_scanners(), 0);
    let open = ScanRequest {
        region: Some(region),
        scan: Some(Scan::default()),
        number_of_rows: Some(1),
        ..ScanRequest::default()
    };
    raw_client::send(&mut s, 3, "Scan", &open, CallOpts::default());
    let answer = raw_client::receive(&mut s).unwrap();
    assert!(answer.exception().is_none());
    assert_eq!(door.stop.open_scanners(), 1);
    assert_eq!(door.stop.scanner_leases_expired(), 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    while door.stop.open_scanners() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(door.stop.open_scanners(), 0);
    assert_eq!(door.stop.scanner_leases_expired(), 1);
    assert_eq!(count(&door, ErrorClass::Other), 0);
}
