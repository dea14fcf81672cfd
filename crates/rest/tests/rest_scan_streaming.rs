//! The stateless scan (`GET /TABLE/*`) streams: a table far larger than one batch comes back
//! whole, in chunks, with `limit` honoured, in JSON, XML and HBase's length-prefixed protobuf.

use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Put, TableDescriptor, TableName,
};
use ferrobase_rest::{RestOptions, RestServer};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

const ROWS: usize = 2_500;

fn door() -> (SocketAddr, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let t = engine.table("t").unwrap();
    let puts = (0..ROWS)
        .map(|i| Put::new(format!("row{i:05}")).add_column("cf", "q", vec![b'v'; 700]))
        .collect();
    t.put_all(puts).unwrap();
    let server = RestServer::bind(
        engine,
        RestOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            // Far below the table's size: the scan must not be cut at it.
            max_result_bytes: 64 * 1024,
            ..RestOptions::default()
        },
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.run());
    (addr, dir)
}

/// GET `path` with `accept`: (status, headers, de-chunked body).
fn get(addr: SocketAddr, path: &str, accept: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut rest = &raw[split + 4..];
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(head.contains("Transfer-Encoding: chunked"), "{head}");
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).unwrap(), 16).unwrap();
        rest = &rest[line_end + 2..];
        if n == 0 {
            break;
        }
        body.extend_from_slice(&rest[..n]);
        rest = &rest[n + 2..];
    }
    (status, head, body)
}

#[test]
fn a_whole_table_streams_in_every_representation() {
    let (addr, _dir) = door();
    let (status, _, body) = get(addr, "/t/*", "application/json");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let rows = v["Row"].as_array().unwrap();
    assert_eq!(rows.len(), ROWS);
    assert_eq!(rows[0]["key"], "cm93MDAwMDA=");

    let (_, _, body) = get(addr, "/t/*", "text/xml");
    let xml = String::from_utf8(body).unwrap();
    assert!(xml.starts_with("<?xml"), "{}", &xml[..80]);
    assert!(xml.ends_with("</CellSet>"));
    assert_eq!(xml.matches("<Row ").count(), ROWS);

    let (_, head, body) = get(addr, "/t/*", "application/x-protobuf");
    assert!(head.contains("application/x-protobuf"), "{head}");
    let (mut chunks, mut i) = (0, 0);
    while i < body.len() {
        let n = usize::from(u16::from_be_bytes([body[i], body[i + 1]]));
        i += 2 + n;
        chunks += 1;
    }
    assert_eq!(i, body.len());
    assert_eq!(chunks, ROWS.div_ceil(10));
}

#[test]
fn limit_and_prefix_bound_the_stream() {
    let (addr, _dir) = door();
    let (_, _, body) = get(addr, "/t/*?limit=7", "application/json");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["Row"].as_array().unwrap().len(), 7);
    let (_, _, body) = get(addr, "/t/row012*", "application/json");
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["Row"].as_array().unwrap().len(), 100);
    let (_, _, body) = get(addr, "/t/zz*", "application/json");
    assert_eq!(body, br#"{"Row":[]}"#);
}
