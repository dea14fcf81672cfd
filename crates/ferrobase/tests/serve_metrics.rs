//! `ferrobase serve --http-port`: a known workload through Thrift (the Rust client) moves
//! `/metrics`' counters by the expected amounts; `/` lists the tables (the port beside TLS,
//! logins and ACLs: `serve_http_security.rs`; `docs/design/operations.md`).

mod serve_harness;

use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, Delete, Get, Put, TableDescriptor, TableName};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `ferrobase serve --http-port 0 --rpc-port 0 EXTRA...`, killed when dropped.
struct Served {
    child: Child,
    thrift: SocketAddr,
    http: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
            .args([
                "serve",
                "--port",
                "0",
                "--rpc-port",
                "0",
                "--http-port",
                "0",
            ])
            .arg("--data")
            .arg(dir.path())
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (mut thrift, mut http) = (None, None);
        // Every door prints a line naming its address; the Thrift API's comes last.
        while thrift.is_none() {
            let mut line = String::new();
            assert!(out.read_line(&mut line).unwrap() > 0, "serve ended early");
            let addr: SocketAddr = line
                .split_whitespace()
                .find_map(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("no address in {line:?}"));
            if line.contains("serving HTTP (metrics) on") {
                http = Some(addr);
            } else if line.contains("the HBase Thrift API") {
                thrift = Some(addr);
            }
        }
        // Keep the pipe open (and drained) for the rest of the run.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Served {
            child,
            thrift: thrift.unwrap(),
            http: http.expect("an HTTP line before the Thrift one"),
            _dir: dir,
        }
    }

    /// `GET path`: the status code and the body.
    fn get(&self, path: &str) -> (u16, String) {
        http_get(self.http, path)
    }

    /// `/metrics`, parsed: `name{labels}` (as written) to value.
    fn metrics(&self) -> Metrics {
        let (status, body) = self.get("/metrics");
        assert_eq!(status, 200, "{body}");
        Metrics(parse(&body))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a header and a body");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// Prometheus' text format, the sample lines: `name{labels} value`.
fn parse(text: &str) -> HashMap<String, f64> {
    let mut samples = HashMap::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line:?}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line:?}"));
        assert!(
            samples.insert(series.to_string(), value).is_none(),
            "{series} twice"
        );
    }
    samples
}

struct Metrics(HashMap<String, f64>);

impl Metrics {
    /// The sample `series`, 0 when absent (a label set not counted yet).
    fn get(&self, series: &str) -> f64 {
        self.0.get(series).copied().unwrap_or(0.0)
    }

    /// The sum of the samples of `name` whose labels include every one of `labels`
    /// (`key="value"` strings).
    fn sum(&self, name: &str, labels: &[&str]) -> f64 {
        self.0
            .iter()
            .filter(|(series, _)| {
                series.split('{').next() == Some(name) && labels.iter().all(|l| series.contains(l))
            })
            .map(|(_, v)| v)
            .sum()
    }
}

const TABLE: &str = "metrics_t";
const PUTS: u64 = 10;

fn put_rows(conn: &Connection, from: u64) {
    let t = conn.table(TABLE);
    for i in from..from + PUTS {
        t.put(Put::new(format!("row{i:03}")).add_column("cf", "q", format!("v{i}")))
            .unwrap();
    }
}

#[test]
fn a_known_workload_moves_the_counters_by_its_amounts() {
    let served = Served::start(&["--durability", "FSYNC_WAL", "--no-auto-compaction"]);
    let m0 = served.metrics();
    assert_eq!(m0.get("ferrobase_health{state=\"healthy\"}"), 1.0);
    assert_eq!(m0.get("ferrobase_native_connections"), 0.0);
    assert!(m0.get("process_resident_memory_bytes") > 0.0);
    assert!(m0.get("process_open_fds") > 0.0);

    let conn = Connection::open(&format!("thrift://{}", served.thrift)).unwrap();
    let desc = TableDescriptor::new(TableName::parse(TABLE).unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[]).unwrap();
    put_rows(&conn, 0);
    // One declared exception: a get from a table that does not exist.
    assert!(conn
        .table("no_such_table")
        .get(Get::new("r"), None)
        .is_err());
    let m1 = served.metrics();
    let calls = |m: &Metrics, labels: &[&str]| m.sum("ferrobase_thrift_calls_total", labels);
    let mutate = ["method=\"mutateRows\"", "outcome=\"ok\""];
    assert_eq!(calls(&m1, &mutate) - calls(&m0, &mutate), PUTS as f64);
    // Each call timed once: the histogram's count, its +Inf bucket and its sum move with it.
    let mutate_time = [
        "door=\"thrift\"",
        "service=\"Hbase\"",
        "method=\"mutateRows\"",
    ];
    let timed = |m: &Metrics, suffix: &str, extra: &[&str]| {
        let labels: Vec<&str> = mutate_time.iter().chain(extra).copied().collect();
        m.sum(&format!("ferrobase_call_duration_seconds{suffix}"), &labels)
    };
    assert_eq!(
        timed(&m1, "_count", &[]) - timed(&m0, "_count", &[]),
        PUTS as f64
    );
    assert_eq!(
        timed(&m1, "_bucket", &["le=\"+Inf\""]),
        timed(&m1, "_count", &[])
    );
    assert!(timed(&m1, "_sum", &[]) > 0.0);
    // Every call answered (none refused here) is timed: the failed get too.
    assert_eq!(
        m1.sum(
            "ferrobase_call_duration_seconds_count",
            &["door=\"thrift\""]
        ),
        calls(&m1, &[])
    );
    let exceptions = ["outcome=\"exception\""];
    assert_eq!(calls(&m1, &exceptions) - calls(&m0, &exceptions), 1.0);
    assert_eq!(calls(&m1, &["outcome=\"busy\""]), 0.0);
    assert!(m1.get("ferrobase_thrift_connections") >= 1.0);
    // FSYNC_WAL: one group commit, so one fdatasync, per put from this one client.
    let syncs = m1.get("ferrobase_wal_syncs_total") - m0.get("ferrobase_wal_syncs_total");
    assert_eq!(syncs, PUTS as f64);
    assert!(
        m1.get("ferrobase_wal_written_bytes_total") - m0.get("ferrobase_wal_written_bytes_total")
            >= (PUTS * 10) as f64
    );
    let table = |m: &Metrics, name: &str| m.get(&format!("{name}{{table=\"{TABLE}\"}}"));
    assert_eq!(table(&m1, "ferrobase_table_regions"), 1.0);
    assert_eq!(table(&m1, "ferrobase_table_store_files"), 0.0);
    assert!(table(&m1, "ferrobase_table_memstore_bytes") > 0.0);
    assert!(m1.get("ferrobase_memstore_bytes") >= table(&m1, "ferrobase_table_memstore_bytes"));

    conn.flush(TABLE).unwrap();
    let m2 = served.metrics();
    assert_eq!(
        m2.get("ferrobase_flushes_total") - m1.get("ferrobase_flushes_total"),
        1.0
    );
    assert_eq!(table(&m2, "ferrobase_table_store_files"), 1.0);
    assert_eq!(table(&m2, "ferrobase_table_memstore_bytes"), 0.0);
    let file_bytes = table(&m2, "ferrobase_table_store_file_bytes");
    assert!(file_bytes > 0.0);
    assert_eq!(
        m2.get("ferrobase_store_file_written_bytes_total")
            - m1.get("ferrobase_store_file_written_bytes_total"),
        file_bytes
    );

    // A second file, then a major compaction makes them one. The second holds a delete marker
    // (of a row never written): files that share no row and hold nothing to drop would stay as
    // they are (docs/design/compaction.md).
    put_rows(&conn, PUTS);
    conn.table(TABLE)
        .delete(Delete::new("never written"))
        .unwrap();
    conn.flush(TABLE).unwrap();
    assert_eq!(table(&served.metrics(), "ferrobase_table_store_files"), 2.0);
    conn.compact(TABLE, true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let m3 = loop {
        let m = served.metrics();
        if table(&m, "ferrobase_table_store_files") == 1.0 || Instant::now() > deadline {
            break m;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(table(&m3, "ferrobase_table_store_files"), 1.0);
    assert_eq!(
        m3.get("ferrobase_compactions_total") - m2.get("ferrobase_compactions_total"),
        1.0
    );
    assert_eq!(m3.get("ferrobase_write_suspensions_total"), 0.0);
    // Reads: twenty rows scanned, all examined.
    let scanned = conn
        .table(TABLE)
        .scanner(ferrobase_engine::Scan::new(), None)
        .unwrap()
        .count();
    assert_eq!(scanned, 2 * PUTS as usize);
    let m4 = served.metrics();
    assert_eq!(
        m4.get("ferrobase_rows_examined_total") - m3.get("ferrobase_rows_examined_total"),
        (2 * PUTS) as f64
    );
    // All returned, one cell each.
    for name in [
        "ferrobase_rows_returned_total",
        "ferrobase_cells_returned_total",
    ] {
        assert_eq!(m4.get(name) - m3.get(name), (2 * PUTS) as f64, "{name}");
    }
    // A get of a present row and one of an absent row: one row returned.
    let t = conn.table(TABLE);
    assert!(!t.get(Get::new("row001"), None).unwrap().is_empty());
    assert!(t.get(Get::new("absent"), None).unwrap().is_empty());
    let m5 = served.metrics();
    assert_eq!(
        m5.get("ferrobase_rows_returned_total") - m4.get("ferrobase_rows_returned_total"),
        1.0
    );
}

#[test]
fn the_console_lists_tables_and_ports() {
    let served = Served::start(&[]);
    let conn = Connection::open(&format!("thrift://{}", served.thrift)).unwrap();
    for name in ["console_a", "console_b"] {
        let desc = TableDescriptor::new(TableName::parse(name).unwrap())
            .with_family(ColumnFamilyDescriptor::new("cf"));
        conn.create_table(desc, &[b"m".to_vec()]).unwrap();
    }
    let (status, page) = served.get("/");
    assert_eq!(status, 200);
    assert!(page.len() < 200 << 10);
    for expected in [
        "console_a",
        "console_b",
        &served.thrift.to_string(),
        &served.http.to_string(),
        env!("CARGO_PKG_VERSION"),
    ] {
        assert!(page.contains(expected), "{expected} missing from {page}");
    }
    // Two regions each, split at "m".
    let m = served.metrics();
    assert_eq!(m.get("ferrobase_table_regions{table=\"console_a\"}"), 2.0);
    assert_eq!(served.get("/no-such-page").0, 404);
}

fn http_post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.0\r\nHost: localhost\r\nContent-Type: \
         application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a header and a body");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

#[test]
fn the_slow_log_keeps_calls_over_the_threshold_and_the_log_level_changes() {
    // --slow-ms 0: every call is slow.
    let served = Served::start(&["--slow-ms", "0", "--log-level", "warn"]);
    let conn = Connection::open(&format!("thrift://{}", served.thrift)).unwrap();
    let desc = TableDescriptor::new(TableName::parse("slow_t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[]).unwrap();
    let t = conn.table("slow_t");
    for i in 0..3 {
        t.put(Put::new(format!("slowrow{i}")).add_column("cf", "q", "v"))
            .unwrap();
    }
    let (status, json) = served.get("/slowlog?format=json");
    assert_eq!(status, 200);
    let puts = json
        .lines()
        .filter(|l| {
            l.contains("\"door\":\"thrift\"")
                && l.contains("\"method\":\"Hbase.mutateRows\"")
                && l.contains("\"table\":\"slow_t\"")
        })
        .count();
    assert_eq!(puts, 3, "{json}");
    assert!(
        json.contains("row slowrow0") || json.contains("rows from slowrow0"),
        "{json}"
    );
    let (status, page) = served.get("/slowlog");
    assert_eq!(status, 200);
    assert!(page.contains("Hbase.mutateRows") && page.contains("slow_t"));
    assert!(
        served.get("/").1.contains("Hbase.mutateRows"),
        "the console lists them"
    );

    // The log level: shown, changed by a POST, a bad one refused.
    assert!(served
        .get("/logLevel")
        .1
        .contains("<code id=\"level\">warn</code>"));
    let (status, page) = http_post(served.http, "/logLevel?level=debug", "");
    assert_eq!(status, 200, "{page}");
    assert!(served
        .get("/logLevel")
        .1
        .contains("<code id=\"level\">debug</code>"));
    let (status, _) = http_post(
        served.http,
        "/logLevel",
        "level=ferrobase_native%3Dtrace%2Cinfo",
    );
    assert_eq!(status, 200);
    assert!(served.get("/").1.contains("ferrobase_native=trace,info"));
    let (status, page) = http_post(served.http, "/logLevel?level=loud", "");
    assert_eq!(status, 400);
    assert!(page.contains("loud"), "{page}");
    assert!(served
        .get("/logLevel")
        .1
        .contains("ferrobase_native=trace,info"));
}

#[test]
fn the_heat_map_counts_each_door_s_operations_by_key_range() {
    let served = Served::start(&[]);
    let conn = Connection::open(&format!("thrift://{}", served.thrift)).unwrap();
    let desc = TableDescriptor::new(TableName::parse("heat_t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[b"m".to_vec()]).unwrap();
    let t = conn.table("heat_t");
    // 7 writes below "m", 2 above; 3 rows read by a scan from "n".
    for row in ["a1", "a2", "b", "c", "d", "e", "f", "n1", "z"] {
        t.put(Put::new(row).add_column("cf", "q", "value")).unwrap();
    }
    let scanned = t
        .scanner(ferrobase_engine::Scan::new().with_start_row("n"), None)
        .unwrap()
        .count();
    assert_eq!(scanned, 2);
    assert!(!t.get(Get::new("a1"), None).unwrap().is_empty());
    let (status, json) = served.get("/heatmap/heat_t?format=json");
    assert_eq!(status, 200);
    // The ranges split at the region boundary "m".
    let number = |range: &str, field: &str| -> u64 {
        let at = range.find(&format!("\"{field}\":")).unwrap() + field.len() + 3;
        range[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let ranges: Vec<&str> = json.split("{\"start\":").skip(1).collect();
    // (A bucket opened mid-run refines the ranges by sampled keys; regions still bound them.)
    let start = |r: &&&str| r.split('"').nth(1).unwrap_or_default() < "m";
    let below: Vec<_> = ranges.iter().filter(start).collect();
    let above: Vec<_> = ranges.iter().filter(|r| !start(r)).collect();
    assert!(!ranges.is_empty(), "{json}");
    let sum = |rs: &[&&str], f: &str| rs.iter().map(|r| number(r, f)).sum::<u64>();
    assert_eq!(sum(&below, "writes"), 7, "{json}");
    assert_eq!(sum(&above, "writes"), 2, "{json}");
    assert_eq!(sum(&below, "reads"), 1, "{json}");
    assert_eq!(sum(&above, "reads"), 2, "{json}");
    let (status, page) = served.get("/heatmap/heat_t");
    assert_eq!(status, 200);
    assert!(page.contains("<svg id=\"heatmap\"") && page.contains("class=\"cell\""));
    assert!(page.len() < 200 << 10);
    let (status, page) = served.get("/table/heat_t");
    assert_eq!(status, 200);
    assert_eq!(page.matches("<tr class=\"region\">").count(), 2, "{page}");
    assert!(
        page.contains("COLUMN FAMILIES DESCRIPTION") && page.contains("NAME =&gt; &#39;cf&#39;")
    );
    assert!(page.contains("<svg id=\"heatmap\""));
    assert_eq!(served.get("/heatmap/no_such_table").0, 404);
    assert_eq!(served.get("/table/no_such_table").0, 404);
}
