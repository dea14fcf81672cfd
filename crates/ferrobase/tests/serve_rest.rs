//! `ferrobase serve --rest-port`: the REST door beside the Thrift port on one engine (a row written
//! through REST reads back through Thrift), and refused beside ACLs, logins and TLS (fail closed:
//! the door checks no grants yet).

mod serve_harness;

use ferrobase_client::Connection;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};

fn http(addr: SocketAddr, raw: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(raw.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn the_rest_door_shares_the_engine_with_the_thrift_port() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--rest-port", "0", "--data"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut rest, mut thrift) = (None, None);
    while rest.is_none() || thrift.is_none() {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "serve exited");
        let addr: Option<SocketAddr> = line.split_whitespace().find_map(|w| w.parse().ok());
        if line.contains("REST API on") {
            rest = addr;
        } else if line.contains("HBase Thrift API on") {
            thrift = addr;
        }
    }
    let rest = rest.unwrap();
    let schema = r#"{"name":"rt","ColumnSchema":[{"name":"cf"}]}"#;
    let created = http(
        rest,
        &format!(
            "PUT /rt/schema HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{schema}",
            schema.len()
        ),
    );
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let put = http(
        rest,
        "PUT /rt/r1/cf:q HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert!(put.starts_with("HTTP/1.1 200"), "{put}");
    let conn = Connection::open(&format!("thrift://{}", thrift.unwrap())).unwrap();
    let row = conn
        .table("rt")
        .get(ferrobase_engine::Get::new("r1"), None)
        .unwrap();
    assert_eq!(row.value(b"cf", b"q"), Some(&b"hello"[..]));
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_rest_port_takes_logins_over_tls_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let auth = dir.path().join("users");
    std::fs::write(&auth, serve_harness::passwd("u", "pw")).unwrap();
    let auth = auth.to_str().unwrap();
    let args = [
        "serve",
        "--data",
        data,
        "--port",
        "0",
        "--rest-port",
        "0",
        "--auth-file",
        auth,
    ];
    let out = serve_harness::run(&args, &[], "");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the REST door takes HTTP Basic logins over TLS only"),
        "{err}"
    );
}
