//! `ferrobase serve --max-read-time` (issue 39, item 3): a read whose filter costs more than
//! the call's time budget (a bounded-repeat regular expression over 5 KB values) is stopped at
//! the budget with an error naming the option, on a get and on a scanner's batch, while other
//! clients are served meanwhile; a cheap scan is untouched.

mod serve_harness;

use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use serve_harness::Serve;
use std::time::{Duration, Instant};

const COSTLY: &[u8] = b"ValueFilter(=, 'regexstring:.{0,1000}.{0,1000}.{0,1000}b')";

#[test]
fn a_read_past_its_time_budget_is_stopped_naming_the_option() {
    let server = Serve::start(&["--max-read-time", "1"]);
    let url = format!("thrift://{}", server.addr);
    let conn = Connection::open(&url).unwrap();
    conn.create_table(
        TableDescriptor::new(TableName::parse("slow").unwrap())
            .with_family(ColumnFamilyDescriptor::new("cf")),
        &[],
    )
    .unwrap();
    let t = conn.table("slow");
    let value = "a".repeat(5 * 1024);
    for row in 0..8 {
        let mut p = Put::new(format!("r{row}"));
        for q in 0..100 {
            p = p.add_column("cf", format!("q{q}"), value.clone());
        }
        t.put(p).unwrap();
    }
    // While the costly reads run, another client is answered.
    let other = {
        let url = url.clone();
        std::thread::spawn(move || {
            let c = Connection::open(&url).unwrap();
            let started = Instant::now();
            let rows = c.table("slow").scanner(Scan::new(), None).unwrap().count();
            (rows, started.elapsed())
        })
    };
    let started = Instant::now();
    let err = t
        .scanner(Scan::new(), Some(COSTLY))
        .and_then(|mut s| s.next_batch(100))
        .unwrap_err()
        .to_string();
    let took = started.elapsed();
    assert!(err.contains("time budget of 1000 ms"), "{err}");
    assert!(err.contains("--max-read-time"), "{err}");
    assert!(took < Duration::from_secs(30), "stopped after {took:?}");
    let err = t.get(Get::new("r1"), Some(COSTLY)).unwrap_err().to_string();
    assert!(err.contains("--max-read-time"), "{err}");
    let (rows, _) = other.join().unwrap();
    assert_eq!(rows, 8);
}
