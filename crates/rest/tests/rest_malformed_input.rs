//! Malformed and hostile requests on the REST door: bad JSON, XML and protobuf bodies, bad
//! base64, unknown tables and families, oversized heads and bodies, a slow client and too many
//! connections. Each gets a clear status and message for that client, and a well-behaved client
//! on another connection is served throughout with the data unchanged.

use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName};
use ferrobase_rest::{RestOptions, RestServer};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

struct Door {
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

fn door(opts: RestOptions) -> Door {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let server = RestServer::bind(
        engine,
        RestOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            ..opts
        },
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.run());
    Door { addr, _dir: dir }
}

/// Sends `raw` on a new connection and reads the answer until the server closes it.
fn exchange(addr: SocketAddr, raw: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(raw);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    parse(&out)
}

fn parse(out: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(out).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut r = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut bytes = r.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn put(addr: SocketAddr, path: &str, ctype: &str, body: &[u8]) -> (u16, String) {
    exchange(
        addr,
        &request("PUT", path, &[("Content-Type", ctype)], body),
    )
}

fn get(addr: SocketAddr, path: &str, accept: &str) -> (u16, String) {
    exchange(addr, &request("GET", path, &[("Accept", accept)], b""))
}

/// The row `r` as the well-behaved client reads it.
fn good_row(addr: SocketAddr) -> (u16, String) {
    get(addr, "/t/r/cf:a", "application/octet-stream")
}

#[test]
fn malformed_bodies_get_a_400_naming_what_is_wrong_and_change_nothing() {
    let d = door(RestOptions::default());
    assert_eq!(
        put(d.addr, "/t/r/cf:a", "application/octet-stream", b"v1").0,
        200
    );
    let cases: &[(&str, &[u8], &str)] = &[
        ("application/json", b"{bad", "malformed JSON"),
        ("application/json", b"[1,2]", "malformed CellSet"),
        (
            "application/json",
            br#"{"Row":[{"key":"!!!","Cell":[]}]}"#,
            "malformed base64",
        ),
        (
            "application/json",
            br#"{"Row":[{"key":"cg==","Cell":[{"column":"Y2Y6YQ==","timestamp":"x","$":""}]}]}"#,
            "timestamp",
        ),
        (
            "text/xml",
            b"<CellSet><Row key=\"cg==\"><Cell>",
            "malformed XML",
        ),
        (
            "text/xml",
            b"<!DOCTYPE lol [<!ENTITY a \"a\">]><CellSet/>",
            "DOCTYPE",
        ),
        (
            "application/x-protobuf",
            b"\x0a\xff\xff\xff\xff\x0f",
            "malformed protobuf",
        ),
    ];
    for (ctype, body, says) in cases {
        let (status, msg) = put(d.addr, "/t/r", ctype, body);
        assert_eq!(status, 400, "{ctype} {body:?}: {msg}");
        assert!(
            msg.contains(says),
            "{ctype} {body:?}: {msg:?} does not say {says:?}"
        );
    }
    let (status, msg) = put(d.addr, "/t/r/cf:a", "foo/bar", b"x");
    assert_eq!(status, 415, "{msg}");
    let (status, _) = get(d.addr, "/t/r", "foo/bar");
    assert_eq!(status, 406);
    // Scanners: a bad model, a bad filter.
    let (status, msg) = exchange(
        d.addr,
        &request(
            "POST",
            "/t/scanner",
            &[("Content-Type", "application/json")],
            br#"{"batch":"many"}"#,
        ),
    );
    assert_eq!(status, 400, "{msg}");
    let (status, msg) = exchange(
        d.addr,
        &request(
            "POST",
            "/t/scanner",
            &[("Content-Type", "application/json")],
            br#"{"filter":"{\"type\":\"NoSuchFilter\"}"}"#,
        ),
    );
    assert_eq!(status, 400, "{msg}");
    assert!(msg.contains("NoSuchFilter"), "{msg}");
    // Schema: an attribute ferrobase cannot honour.
    let (status, msg) = put(
        d.addr,
        "/t2/schema",
        "application/json",
        br#"{"name":"t2","ColumnSchema":[{"name":"cf","IS_MOB":"true"}]}"#,
    );
    assert_eq!(status, 400, "{msg}");
    assert!(msg.contains("IS_MOB"), "{msg}");
    assert_eq!(good_row(d.addr), (200, "v1".to_string()));
}

#[test]
fn unknown_tables_and_families_are_404_and_writes_to_them_fail_cleanly() {
    let d = door(RestOptions::default());
    assert_eq!(get(d.addr, "/nope/r", "application/json").0, 404);
    assert_eq!(get(d.addr, "/t/r/nocf:a", "application/json").0, 404);
    assert_eq!(get(d.addr, "/nope/schema", "application/json").0, 404);
    let (status, msg) = put(d.addr, "/nope/r/cf:a", "application/octet-stream", b"x");
    assert_eq!(status, 404, "{msg}");
    assert!(msg.contains("TableNotFoundException"), "{msg}");
    let (status, msg) = put(d.addr, "/t/r/nocf:a", "application/octet-stream", b"x");
    assert_eq!(status, 404, "{msg}");
    assert!(msg.contains("NoSuchColumnFamilyException"), "{msg}");
    assert_eq!(get(d.addr, "/t/scanner/123", "application/json").0, 404);
}

#[test]
fn oversized_heads_and_bodies_are_refused_before_they_are_read() {
    let d = door(RestOptions {
        max_body: 1024,
        ..RestOptions::default()
    });
    let (status, msg) = put(
        d.addr,
        "/t/r/cf:a",
        "application/octet-stream",
        &[b'x'; 2048],
    );
    assert_eq!(status, 413, "{msg}");
    assert!(msg.contains("1024"), "{msg}");
    // Announced but never sent: refused from the header alone.
    let (status, _) = exchange(
        d.addr,
        b"PUT /t/r/cf:a HTTP/1.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 999999999\r\n\r\n",
    );
    assert_eq!(status, 413);
    // Chunked past the limit.
    let mut chunked = b"PUT /t/r/cf:a HTTP/1.1\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..3 {
        chunked.extend_from_slice(b"200\r\n");
        chunked.extend_from_slice(&[b'y'; 512]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    assert_eq!(exchange(d.addr, &chunked).0, 413);
    // A head over 64 KiB.
    let mut big = b"GET /version HTTP/1.1\r\n".to_vec();
    for i in 0..2000 {
        big.extend_from_slice(format!("X-Pad-{i}: {}\r\n", "p".repeat(40)).as_bytes());
    }
    big.extend_from_slice(b"\r\n");
    assert_eq!(exchange(d.addr, &big).0, 431);
    // Not HTTP at all.
    assert_eq!(exchange(d.addr, b"\x00\x01\x02 garbage\r\n\r\n").0, 400);
    // A gzip body that inflates past the limit; one that is not gzip.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&[b'z'; 4096]).unwrap();
    let bomb = gz.finish().unwrap();
    let (status, _) = exchange(
        d.addr,
        &request(
            "PUT",
            "/t/r/cf:a",
            &[
                ("Content-Type", "application/octet-stream"),
                ("Content-Encoding", "gzip"),
            ],
            &bomb,
        ),
    );
    assert_eq!(status, 413);
    let (status, msg) = exchange(
        d.addr,
        &request(
            "PUT",
            "/t/r/cf:a",
            &[
                ("Content-Type", "application/octet-stream"),
                ("Content-Encoding", "gzip"),
            ],
            b"not gzip",
        ),
    );
    assert_eq!(status, 400, "{msg}");
    // A chunked body under the limit is read whole.
    let ok = b"PUT /t/r/cf:a HTTP/1.1\r\nContent-Type: application/octet-stream\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nv2\r\n0\r\n\r\n";
    assert_eq!(exchange(d.addr, ok).0, 200);
    assert_eq!(good_row(d.addr), (200, "v2".to_string()));
    // A gzip body within the limit is inflated (HBase REST's GzipFilter).
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"v3").unwrap();
    let small = gz.finish().unwrap();
    let (status, _) = exchange(
        d.addr,
        &request(
            "PUT",
            "/t/r/cf:a",
            &[
                ("Content-Type", "application/octet-stream"),
                ("Content-Encoding", "gzip"),
            ],
            &small,
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(good_row(d.addr), (200, "v3".to_string()));
}

#[test]
fn a_slow_client_times_out_while_others_are_served() {
    let d = door(RestOptions {
        request_timeout: Duration::from_secs(2),
        ..RestOptions::default()
    });
    assert_eq!(
        put(d.addr, "/t/r/cf:a", "application/octet-stream", b"v1").0,
        200
    );
    // Half a head, then nothing.
    let mut slow = TcpStream::connect(d.addr).unwrap();
    slow.write_all(b"GET /t/r/cf:a HTTP/1.1\r\nAccept: appl")
        .unwrap();
    // A body announced and trickled.
    let mut trickle = TcpStream::connect(d.addr).unwrap();
    trickle
        .write_all(b"PUT /t/r/cf:a HTTP/1.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\n\r\nab")
        .unwrap();
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(good_row(d.addr), (200, "v1".to_string()));
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "served while the slow ones wait"
    );
    for s in [&mut slow, &mut trickle] {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let (status, body) = parse(&out);
        assert_eq!(status, 408, "{body}");
    }
    // The trickled write never applied.
    assert_eq!(good_row(d.addr), (200, "v1".to_string()));
}

#[test]
fn connections_past_the_limit_are_answered_503_and_the_others_go_on() {
    let d = door(RestOptions {
        max_connections: 2,
        ..RestOptions::default()
    });
    // Two idle keep-alive connections hold both places.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(d.addr).unwrap();
        s.write_all(b"GET /version HTTP/1.1\r\nAccept: application/json\r\n\r\n")
            .unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf).unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
        held.push(s);
    }
    let (status, body) = get(d.addr, "/version", "application/json");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("--rest-max-connections"), "{body}");
    drop(held);
    // Their threads notice the close; then a new client is served.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, _) = get(d.addr, "/version", "application/json");
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "never served again");
        std::thread::sleep(Duration::from_millis(50));
    }
}
