//! TLS on the native RPC door, driven by a rustls client speaking HBase's RPC inside it: a TLS
//! client is served, a plaintext one is refused with a `FatalConnectionException` saying the
//! port takes TLS (or served, with `allow_plaintext`, HBase's default); with a client CA
//! (mutual TLS), a client without a certificate that CA signed is refused in the handshake, and
//! the certificate's subject CN is the connection's user where its calls are dispatched (seen
//! through the door's audit of connections).

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_native::proto::registry::GetClusterIdResponse;
use ferrobase_native::proto::rpc::{
    ConnectionHeader, RequestHeader, ResponseHeader, UserInformation,
};
use ferrobase_native::{AuditLog, NativeOptions, NativeServer, NativeStopHandle};
use ferrobase_security::tls::{TlsClient, TlsServer};
use prost::Message;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use test_certs::TestPki;

/// What the audit saw of one connection.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    tls: bool,
    certificate_user: Option<String>,
    header_user: String,
    service: String,
}

struct Door {
    addr: SocketAddr,
    stop: NativeStopHandle,
    seen: Arc<Mutex<Vec<Seen>>>,
    _dir: tempfile::TempDir,
}

impl Drop for Door {
    fn drop(&mut self) {
        self.stop.stop();
    }
}

fn start(tls: TlsServer, allow_plaintext: bool) -> Door {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let opts = NativeOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        tls: Some(tls),
        allow_plaintext,
        handshake_timeout: Duration::from_secs(2),
        audit: Some(AuditLog::new(move |c| {
            log.lock().unwrap().push(Seen {
                tls: c.tls,
                certificate_user: c.certificate_user.map(str::to_string),
                header_user: c.header_user.to_string(),
                service: c.service.to_string(),
            })
        })),
        ..NativeOptions::default()
    };
    let server = NativeServer::bind(engine, opts).unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    std::thread::spawn(move || server.run());
    Door {
        addr,
        stop,
        seen,
        _dir: dir,
    }
}

fn server_tls(pki: &TestPki, client_ca: Option<&Path>) -> TlsServer {
    TlsServer::from_pem_files(&pki.path("server.pem"), &pki.path("server.key"), client_ca).unwrap()
}

fn socket(door: &Door) -> TcpStream {
    let s = TcpStream::connect(door.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Sends HBase's preamble and a connection header for `ClientMetaService` naming `user`.
fn open(s: &mut impl Write, user: &str) -> std::io::Result<()> {
    let header = ConnectionHeader {
        user_info: Some(UserInformation {
            effective_user: Some(user.into()),
            real_user: None,
        }),
        service_name: Some("ClientMetaService".into()),
        cell_block_codec_class: Some("org.apache.hadoop.hbase.codec.KeyValueCodec".into()),
        ..ConnectionHeader::default()
    };
    let bytes = header.encode_to_vec();
    let mut out = b"HBas\x00\x50".to_vec();
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
    s.write_all(&out)?;
    s.flush()
}

/// Asks `GetClusterId` (call 1) and reads the answer's header and body.
fn cluster_id(s: &mut (impl Read + Write)) -> std::io::Result<(ResponseHeader, Vec<u8>)> {
    let header = RequestHeader {
        call_id: Some(1),
        method_name: Some("GetClusterId".into()),
        request_param: Some(true),
        ..RequestHeader::default()
    };
    let mut frame = Vec::new();
    header.encode_length_delimited(&mut frame).unwrap();
    prost::encoding::encode_varint(0, &mut frame);
    let mut out = (frame.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&frame);
    s.write_all(&out)?;
    s.flush()?;
    receive(s)
}

fn receive(s: &mut impl Read) -> std::io::Result<(ResponseHeader, Vec<u8>)> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut frame)?;
    let mut rest = &frame[..];
    let header = ResponseHeader::decode_length_delimited(&mut rest).unwrap();
    let body = if header.exception.is_none() {
        let n = prost::encoding::decode_varint(&mut rest).unwrap() as usize;
        rest[..n].to_vec()
    } else {
        Vec::new()
    };
    Ok((header, body))
}

/// A whole exchange over TLS: the preamble, the header and one call, as `user` claims.
fn served_over_tls(door: &Door, client: &TlsClient, user: &str) -> std::io::Result<String> {
    let mut wire = client.connect("localhost", socket(door)).unwrap();
    open(&mut wire, user)?;
    let (h, body) = cluster_id(&mut wire)?;
    assert!(h.exception.is_none(), "{h:?}");
    Ok(GetClusterIdResponse::decode(&body[..])
        .unwrap()
        .cluster_id
        .unwrap())
}

fn assert_plaintext_refused(door: &Door, opening: &[u8]) {
    let mut s = socket(door);
    if opening == b"HBas" {
        open(&mut s, "plain").unwrap();
    } else {
        s.write_all(opening).unwrap();
    }
    let (h, _) = receive(&mut s).expect("a refusal");
    let e = h.exception.expect("an exception");
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    let message = e.stack_trace.unwrap_or_default();
    assert!(
        message.contains("over TLS only") && message.contains("hbase.client.netty.tls.enabled"),
        "{message}"
    );
    let mut b = [0u8; 1];
    assert!(matches!(s.read(&mut b), Ok(0) | Err(_)));
}

#[test]
fn tls_clients_are_served_and_plaintext_ones_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let door = start(server_tls(&pki, None), false);
    let client = TlsClient::from_pem_files(&pki.path("ca.pem"), None).unwrap();
    let id = served_over_tls(&door, &client, "tester").unwrap();
    assert_eq!(id.len(), 36);
    // HBase's preamble in plaintext, and the registry preamble: refused, saying why.
    assert_plaintext_refused(&door, b"HBas");
    assert_plaintext_refused(&door, b"Regist");
    // The registry preamble inside TLS is answered with the cluster id.
    let mut wire = client.connect("localhost", socket(&door)).unwrap();
    wire.write_all(b"Regist").unwrap();
    let (h, body) = receive(&mut wire).unwrap();
    assert_eq!(h.call_id, Some(u32::MAX));
    let registry = GetClusterIdResponse::decode(&body[..]).unwrap();
    assert_eq!(registry.cluster_id.as_deref(), Some(id.as_str()));
    // Others go on being served; without a client CA there is no certificate user.
    assert_eq!(served_over_tls(&door, &client, "tester").unwrap(), id);
    let seen = door.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.iter().all(|s| s.tls && s.certificate_user.is_none()));
}

#[test]
fn plaintext_is_served_beside_tls_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let door = start(server_tls(&pki, None), true);
    let mut s = socket(&door);
    open(&mut s, "plain").unwrap();
    let (h, _) = cluster_id(&mut s).unwrap();
    assert!(h.exception.is_none(), "{h:?}");
    let client = TlsClient::from_pem_files(&pki.path("ca.pem"), None).unwrap();
    served_over_tls(&door, &client, "tester").unwrap();
    let seen = door.seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter().map(|s| s.tls).collect::<Vec<_>>(),
        vec![false, true]
    );
}

#[test]
fn mutual_tls_refuses_clients_without_a_signed_certificate_and_names_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::new(dir.path());
    let (alice_cert, alice_key) = pki.client("alice");
    let door = start(server_tls(&pki, Some(&pki.path("ca.pem"))), false);

    // No certificate: the handshake fails, nothing of HBase's protocol is answered.
    let anonymous = TlsClient::from_pem_files(&pki.path("ca.pem"), None).unwrap();
    assert!(served_over_tls(&door, &anonymous, "mallory").is_err());
    // A certificate another CA signed: refused the same way.
    let other_dir = tempfile::tempdir().unwrap();
    let other = TestPki::new(other_dir.path());
    let (cert, key) = other.client("alice");
    let forged =
        TlsClient::from_pem_files(&pki.path("ca.pem"), Some((cert.as_path(), key.as_path())))
            .unwrap();
    assert!(served_over_tls(&door, &forged, "alice").is_err());
    // Plaintext: refused before any call.
    assert_plaintext_refused(&door, b"HBas");
    assert!(door.seen.lock().unwrap().is_empty());

    // Alice's certificate: served, and the connection's user is the certificate's CN, whatever
    // the connection header claims.
    let alice = TlsClient::from_pem_files(
        &pki.path("ca.pem"),
        Some((alice_cert.as_path(), alice_key.as_path())),
    )
    .unwrap();
    served_over_tls(&door, &alice, "root").unwrap();
    let seen = door.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![Seen {
            tls: true,
            certificate_user: Some("alice".into()),
            header_user: "root".into(),
            service: "ClientMetaService".into(),
        }]
    );
}
