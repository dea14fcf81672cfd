//! `ferrobase serve --rest-port`: the REST door beside the Thrift port on one engine (a row written
//! through REST reads back through Thrift), over HTTPS with the grants of the other doors, and
//! refused where it could not know its users.

mod serve_harness;

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use ferrobase_client::Connection;
use serve_harness::http;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};

#[test]
fn the_rest_door_shares_the_engine_with_the_thrift_port() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, rest, thrift) = serve_harness::spawn_with_rest(dir.path(), &[]);
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
    let conn = Connection::open(&format!("thrift://{thrift}")).unwrap();
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

#[test]
fn the_rest_port_with_acls_needs_a_way_to_know_its_users() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    for extra in [&["--acl"][..], &["--superuser", "admin"][..]] {
        let mut args = vec!["serve", "--data", data, "--port", "0", "--rest-port", "0"];
        args.extend_from_slice(extra);
        let out = serve_harness::run(&args, &[], "");
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--rest-port with ACLs needs a way to know its users"),
            "{extra:?}: {err}"
        );
    }
}

/// `serve --rest-port` with mutual TLS: HTTPS, the certificate's CN the user, and a grant made
/// through Thrift1 (the shell) applying on REST.
#[test]
fn the_rest_door_serves_https_with_the_grants_of_the_thrift_door() {
    use ferrobase_gateway::tls::TlsClient;
    let dir = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = test_certs::TestPki::new(certs.path());
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--rest-port", "0", "--data"])
        .arg(dir.path())
        .args([
            "--tls-cert",
            &p(pki.path("server.pem")),
            "--tls-key",
            &p(pki.path("server.key")),
            "--tls-client-ca",
            &p(pki.path("ca.pem")),
            "--superuser",
            "admin",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut rest, mut thrift) = (None, None);
    while rest.is_none() || thrift.is_none() {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "serve exited");
        let addr: Option<SocketAddr> = line.split_whitespace().find_map(|w| w.parse().ok());
        if line.contains("REST API on") {
            assert!(line.contains(" over HTTPS"), "{line}");
            rest = addr;
        } else if line.contains("HBase Thrift API on") {
            thrift = addr;
        }
    }
    let https = |user: &str, raw: &str| -> String {
        let (cert, key) = pki.client(user);
        let tls = TlsClient::from_pem_files(&pki.path("ca.pem"), Some((&cert, &key))).unwrap();
        let mut s = tls
            .connect("localhost", TcpStream::connect(rest.unwrap()).unwrap())
            .unwrap();
        s.write_all(raw.as_bytes()).unwrap();
        let mut out = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n) = s.read(&mut chunk) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    let put = "PUT /rt/r1/cf:q HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\n\r\nhello";
    let get = "GET /rt/r1/cf:q HTTP/1.1\r\nHost: h\r\nConnection: close\r\nAccept: application/octet-stream\r\n\r\n";
    // The table and a grant, through the Thrift port as the superuser.
    let conn = ferrobase_client::Connection::open_with(
        &format!("thrift://localhost:{}", thrift.unwrap().port()),
        &ferrobase_client::ConnectOptions {
            tls: Some({
                let (cert, key) = pki.client("admin");
                TlsClient::from_pem_files(&pki.path("ca.pem"), Some((&cert, &key))).unwrap()
            }),
            ..Default::default()
        },
    )
    .unwrap();
    conn.create_table(
        ferrobase_engine::TableDescriptor::new(ferrobase_engine::TableName::parse("rt").unwrap())
            .with_family(ferrobase_engine::ColumnFamilyDescriptor::new("cf")),
        &[],
    )
    .unwrap();
    let bob = https("bob", put);
    assert!(bob.starts_with("HTTP/1.1 403"), "{bob}");
    assert!(bob.contains("user=bob"), "{bob}");
    let admin = https("admin", put);
    assert!(admin.starts_with("HTTP/1.1 200"), "{admin}");
    let bob = https("bob", get);
    assert!(bob.starts_with("HTTP/1.1 403"), "{bob}");
    conn.grant(
        "bob",
        &ferrobase_client::Scope::table("rt"),
        ferrobase_client::Actions::parse("R").unwrap(),
    )
    .unwrap();
    let bob = https("bob", get);
    assert!(
        bob.starts_with("HTTP/1.1 200") && bob.ends_with("hello"),
        "{bob}"
    );
    drop(conn);
    let _ = child.kill();
    let _ = child.wait();
}
