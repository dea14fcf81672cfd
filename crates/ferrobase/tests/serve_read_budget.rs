//! `ferrobase serve --max-read-time` (issue 39, item 3): a read whose filter costs more than
//! the call's time budget (a bounded-repeat regular expression over 5 KB values) is stopped at
//! the budget with an error naming the option, on a get and on a scanner's batch, while other
//! clients are served meanwhile; a cheap scan is untouched. A read whose client leaves stops
//! at once, not at its budget.

mod serve_harness;

use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use serve_harness::Serve;
use std::io::Write;
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const COSTLY: &[u8] = b"ValueFilter(=, 'regexstring:.{0,1000}.{0,1000}.{0,1000}b')";

/// Table `slow`: 8 rows of 100 cells of 5 KB, over which [`COSTLY`] takes minutes.
fn costly_table(conn: &Connection) {
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
}

#[test]
fn a_read_past_its_time_budget_is_stopped_naming_the_option() {
    let server = Serve::start(&["--max-read-time", "1"]);
    let url = format!("thrift://{}", server.addr);
    let conn = Connection::open(&url).unwrap();
    costly_table(&conn);
    let t = conn.table("slow");
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

#[test]
fn a_read_whose_client_leaves_stops_at_once() {
    // One handler and a budget of ten minutes: until the costly scan stops, nothing else runs.
    let server = Serve::start(&["--max-read-time", "600", "--handlers", "1"]);
    let url = format!("thrift://{}", server.addr);
    let conn = Connection::open(&url).unwrap();
    costly_table(&conn);
    let mut shell = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["shell", "--connect", &url])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = shell.stdin.take().unwrap();
    writeln!(
        stdin,
        "scan 'slow', {{FILTER => \"{}\"}}",
        String::from_utf8_lossy(COSTLY)
    )
    .unwrap();
    drop(stdin);
    // The scan is running in the one handler; then its client dies.
    std::thread::sleep(Duration::from_secs(2));
    shell.kill().unwrap();
    shell.wait().unwrap();
    let started = Instant::now();
    let row = conn.table("slow").get(Get::new("r1"), None).unwrap();
    let took = started.elapsed();
    assert_eq!(row.cells.len(), 100);
    assert!(
        took < Duration::from_secs(15),
        "the next call waited {took:?} for the abandoned scan"
    );
}

/// The answer to a REST `GET path` asking for JSON.
fn rest_get(rest: SocketAddr, path: &str) -> String {
    serve_harness::http(
        rest,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: h\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        ),
    )
}

/// The REST door's reads have the same budget: a multiget whose filter runs past it is 503
/// naming the option, and the door serves on.
#[test]
fn a_rest_read_past_its_time_budget_is_stopped_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, rest, thrift) =
        serve_harness::spawn_with_rest(dir.path(), &["--max-read-time", "1"]);
    let conn = Connection::open(&format!("thrift://{thrift}")).unwrap();
    costly_table(&conn);
    let encoded: String = COSTLY
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let started = Instant::now();
    let answer = rest_get(rest, &format!("/slow/multiget?row=r1&filter={encoded}"));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("time budget of 1000 ms"), "{answer}");
    assert!(answer.contains("--max-read-time"), "{answer}");
    assert!(
        rest_get(rest, "/slow/multiget?row=r1").starts_with("HTTP/1.1 200"),
        "served on"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// The results a REST read builds are taken from the door's in-flight memory (its own pool of
/// `--max-inflight-memory` bytes): a row larger than the pool is 503, to be retried; a smaller
/// one is served.
#[test]
fn a_rest_read_larger_than_the_inflight_memory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, rest, thrift) =
        serve_harness::spawn_with_rest(dir.path(), &["--max-inflight-memory", "4194304"]);
    let conn = Connection::open(&format!("thrift://{thrift}")).unwrap();
    conn.create_table(
        TableDescriptor::new(TableName::parse("big").unwrap())
            .with_family(ColumnFamilyDescriptor::new("cf")),
        &[],
    )
    .unwrap();
    let t = conn.table("big");
    // 6 MB in 60 puts (a put of it whole would pass the Thrift port's pool of the same size).
    for q in 0..60 {
        t.put(Put::new("wide").add_column("cf", format!("q{q}"), "v".repeat(100 * 1024)))
            .unwrap();
    }
    t.put(Put::new("small").add_column("cf", "q", "v")).unwrap();
    let answer = rest_get(rest, "/big/wide");
    assert!(
        answer.starts_with("HTTP/1.1 503"),
        "{}",
        &answer[..answer.len().min(300)]
    );
    assert!(answer.contains("--max-inflight-memory"), "{answer}");
    assert!(rest_get(rest, "/big/small").starts_with("HTTP/1.1 200"));
    let _ = child.kill();
    let _ = child.wait();
}
