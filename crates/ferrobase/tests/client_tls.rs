//! The client over TLS and mutual TLS to an in-process gateway: calls work with the right
//! certificates, and under mutual TLS a client without a certificate (or with one from another
//! CA) is refused during the handshake.

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use ferrobase_client::{ConnectOptions, Connection, TlsClient};
use ferrobase_engine::*;
use ferrobase_gateway::tls::TlsServer;
use ferrobase_gateway::{Server, ServerOptions, StopHandle};
use std::thread::JoinHandle;
use test_certs::TestPki;

struct Gateway {
    url: String,
    stop: StopHandle,
    serving: Option<JoinHandle<std::io::Result<()>>>,
    _data: tempfile::TempDir,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(s) = self.serving.take() {
            s.join().unwrap().unwrap();
        }
    }
}

fn serve(tls: TlsServer) -> Gateway {
    let data = tempfile::tempdir().unwrap();
    let engine = Engine::open(data.path(), EngineOptions::default()).unwrap();
    let opts = ServerOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        tls: Some(tls),
        ..ServerOptions::default()
    };
    let server = Server::bind(engine, opts).unwrap();
    let url = format!("thrift://{}", server.local_addr().unwrap());
    let stop = server.stop_handle().unwrap();
    let serving = Some(std::thread::spawn(move || server.run()));
    Gateway {
        url,
        stop,
        serving,
        _data: data,
    }
}

/// A gateway with `pki`'s server certificate; `mutual`: it asks for a client certificate
/// signed by `pki`'s CA.
fn serve_tls(pki: &TestPki, mutual: bool) -> Gateway {
    let client_ca = pki.path("ca.pem");
    serve(
        TlsServer::from_pem_files(
            &pki.path("server.pem"),
            &pki.path("server.key"),
            mutual.then_some(client_ca.as_path()),
        )
        .unwrap(),
    )
}

/// A connection to `url` over `tls`.
fn open_tls(url: &str, tls: TlsClient) -> ferrobase_client::Result<Connection> {
    Connection::open_with(
        url,
        &ConnectOptions {
            tls: Some(tls),
            ..ConnectOptions::default()
        },
    )
}

fn round_trip(conn: &Connection) {
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[]).unwrap();
    let t = conn.table("t");
    t.put(Put::new("r").add_column("cf", "q", "v")).unwrap();
    let got = t.get(Get::new("r"), None).unwrap();
    assert_eq!(got.value(b"cf", b"q"), Some(&b"v"[..]));
    assert_eq!(conn.list_tables().unwrap(), ["t"]);
}

#[test]
fn tls_carries_calls_with_the_server_ca() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let gw = serve_tls(&pki, false);
    let tls = TlsClient::from_pem_files(&pki.path("ca.pem"), None).unwrap();
    let conn = open_tls(&gw.url, tls).unwrap();
    round_trip(&conn);
}

#[test]
fn tls_server_is_not_reached_by_a_plain_client() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let gw = serve_tls(&pki, false);
    let conn = Connection::open(&gw.url).unwrap();
    assert!(conn.list_tables().is_err());
}

#[test]
fn tls_client_refuses_a_server_signed_by_another_ca() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let other_dir = tempfile::tempdir().unwrap();
    let other = TestPki::new(other_dir.path());
    let gw = serve_tls(&pki, false);
    let tls = TlsClient::from_pem_files(&other.path("ca.pem"), None).unwrap();
    let err = open_tls(&gw.url, tls).unwrap_err();
    assert!(err.to_string().contains("TLS handshake"), "{err}");
}

#[test]
fn mutual_tls_carries_calls_with_a_client_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let (cert, key) = pki.client("alice");
    let gw = serve_tls(&pki, true);
    let tls = TlsClient::from_pem_files(&pki.path("ca.pem"), Some((&cert, &key))).unwrap();
    let conn = open_tls(&gw.url, tls).unwrap();
    round_trip(&conn);
}

/// Refused in the handshake: the connection fails at once or on its first call (under TLS 1.3
/// the server's refusal follows the client's last handshake message), and no call is served.
fn refused(url: &str, tls: TlsClient) {
    match open_tls(url, tls) {
        Err(e) => assert!(e.to_string().contains("TLS"), "{e}"),
        Ok(conn) => {
            let err = conn.list_tables().unwrap_err();
            assert!(!err.to_string().is_empty());
        }
    }
}

#[test]
fn mutual_tls_refuses_a_client_without_a_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let gw = serve_tls(&pki, true);
    refused(
        &gw.url,
        TlsClient::from_pem_files(&pki.path("ca.pem"), None).unwrap(),
    );
}

#[test]
fn mutual_tls_refuses_a_certificate_from_another_ca() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let other_dir = tempfile::tempdir().unwrap();
    let other = TestPki::new(other_dir.path());
    let (cert, key) = other.client("mallory");
    let gw = serve_tls(&pki, true);
    refused(
        &gw.url,
        TlsClient::from_pem_files(&pki.path("ca.pem"), Some((&cert, &key))).unwrap(),
    );
}
