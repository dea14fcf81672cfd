//! Issue 45, 6 at the scale on the native RPC port (`--rpc-port`) with TLS: clients
//! trickling their TLS handshake, or their preamble and connection header after it, a byte at a
//! time, and 2,000 TCP connections that never send a byte (twice the connection limit), all at
//! once, cannot hold the door: each trickler is cut at the handshake deadline and a legitimate
//! client (TLS, preamble, header, a call answered) is served within a second throughout.

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_native::proto::rpc::{ConnectionHeader, RequestHeader, ResponseHeader};
use ferrobase_native::{NativeOptions, NativeServer, NativeStopHandle};
use prost::Message;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The door's handshake deadline here (the default is 10 s; shorter keeps the test short).
const HANDSHAKE: Duration = Duration::from_secs(3);
const SILENT: usize = 2_000;
const PROMPT: Duration = Duration::from_secs(1);

/// Raises the soft open-file limit to at least `need`, or says why it cannot.
fn raise_open_files(need: u64) -> Result<(), String> {
    let (soft, hard) = rlimit::Resource::NOFILE
        .get()
        .map_err(|e| format!("the open-file limit cannot be read: {e}"))?;
    if soft >= need {
        return Ok(());
    }
    if hard < need {
        return Err(format!(
            "the hard open-file limit (RLIMIT_NOFILE) is {hard}, under the {need} descriptors \
             this test needs (raise it with `ulimit -Hn`)"
        ));
    }
    rlimit::increase_nofile_limit(need)
        .map(|_| ())
        .map_err(|e| format!("the open-file limit could not be raised to {need}: {e}"))
}

/// A ClientHello as rustls sends it first.
fn client_hello() -> Vec<u8> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
    let mut conn =
        rustls::ClientConnection::new(Arc::new(config), "localhost".try_into().unwrap()).unwrap();
    let mut hello = Vec::new();
    while conn.wants_write() {
        conn.write_tls(&mut hello).unwrap();
    }
    hello
}

/// The preamble and a connection header for `ClientMetaService`, as one byte string.
fn preamble_and_header() -> Vec<u8> {
    let header = ConnectionHeader {
        service_name: Some("ClientMetaService".into()),
        ..ConnectionHeader::default()
    }
    .encode_to_vec();
    let mut out = b"HBas\x00\x50".to_vec();
    out.extend_from_slice(&(header.len() as u32).to_be_bytes());
    out.extend_from_slice(&header);
    out
}

/// A legitimate client: TLS, preamble, header, `GetClusterId` answered. The time it took.
fn legitimate(addr: SocketAddr, ca: &std::path::Path) -> Result<Duration, String> {
    let started = Instant::now();
    let client = ferrobase_security::tls::TlsClient::from_pem_files(ca, None).unwrap();
    let sock = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut s = client
        .connect("localhost", sock)
        .map_err(|e| format!("TLS: {e}"))?;
    s.write_all(&preamble_and_header())
        .map_err(|e| format!("preamble: {e}"))?;
    let request = RequestHeader {
        call_id: Some(3),
        method_name: Some("GetClusterId".into()),
        request_param: Some(true),
        ..RequestHeader::default()
    };
    let mut frame = Vec::new();
    request.encode_length_delimited(&mut frame).unwrap();
    frame.push(0);
    s.write_all(&(frame.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&frame).unwrap();
    s.flush().unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).map_err(|e| format!("answer: {e}"))?;
    let mut reply = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut reply)
        .map_err(|e| format!("answer: {e}"))?;
    let h = ResponseHeader::decode_length_delimited(&mut &reply[..]).unwrap();
    if h.exception.is_some() || h.call_id != Some(3) {
        return Err(format!("answered {h:?}"));
    }
    Ok(started.elapsed())
}

/// Counts itself in `ready`, then sends `bytes` one every 100 ms until the server closes the
/// connection or 30 s pass; how long the connection lived (`None`: never closed).
fn trickle<W: Write>(
    w: &mut W,
    bytes: &[u8],
    since: Instant,
    ready: &std::sync::atomic::AtomicUsize,
) -> Option<Duration> {
    ready.fetch_add(1, Ordering::AcqRel);
    for b in bytes.iter().cycle() {
        if since.elapsed() > Duration::from_secs(30) {
            return None;
        }
        if w.write_all(&[*b]).and_then(|_| w.flush()).is_err() {
            return Some(since.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

struct Door {
    addr: SocketAddr,
    stop: NativeStopHandle,
    _dir: tempfile::TempDir,
}

impl Drop for Door {
    fn drop(&mut self) {
        self.stop.stop();
    }
}

#[test]
fn tricklers_and_two_thousand_silent_connections_leave_the_door_to_legitimate_clients() {
    if let Err(why) = raise_open_files(3 * SILENT as u64 + 2_000) {
        eprintln!("SKIPPED tricklers_and_two_thousand_silent_connections: {why}");
        return;
    }
    let certs = tempfile::tempdir().unwrap();
    let pki = test_certs::TestPki::new(certs.path());
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let tls = ferrobase_security::tls::TlsServer::from_pem_files(
        &pki.path("server.pem"),
        &pki.path("server.key"),
        None,
    )
    .unwrap();
    let opts = NativeOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        tls: Some(tls),
        handshake_timeout: HANDSHAKE,
        ..NativeOptions::default()
    };
    let server = NativeServer::bind(engine, opts).unwrap();
    let door = Door {
        addr: server.local_addr().unwrap(),
        stop: server.stop_handle().unwrap(),
        _dir: dir,
    };
    std::thread::spawn(move || server.run());
    let ca = pki.path("ca.pem");
    let hello = client_hello();
    let started = Instant::now();
    let ready = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tricklers: Vec<_> = (0..40)
        .map(|i| {
            let (addr, hello, ca, ready) = (door.addr, hello.clone(), ca.clone(), ready.clone());
            std::thread::spawn(move || {
                let sock = TcpStream::connect(addr).unwrap();
                let since = Instant::now();
                if i % 2 == 0 {
                    let mut sock = sock;
                    trickle(&mut sock, &hello, since, &ready)
                } else {
                    // The TLS handshake at full speed, then the preamble and header trickled.
                    let client =
                        ferrobase_security::tls::TlsClient::from_pem_files(&ca, None).unwrap();
                    let mut wire = client.connect("localhost", sock).unwrap();
                    trickle(&mut wire, &preamble_and_header(), since, &ready)
                }
            })
        })
        .collect();
    // The clients' own TLS handshakes (a debug build's, on a shared machine) are not what is
    // measured: the legitimate clients start once every trickler is trickling.
    while ready.load(Ordering::Acquire) < 40 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let done = Arc::new(AtomicBool::new(false));
    let opener = {
        let (addr, done) = (door.addr, done.clone());
        std::thread::spawn(move || {
            let mut held = Vec::with_capacity(SILENT);
            for _ in 0..SILENT {
                match TcpStream::connect(addr) {
                    Ok(s) => held.push(s),
                    Err(e) => panic!("silent connection {}: {e}", held.len()),
                }
            }
            while !done.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(50));
            }
            held.len()
        })
    };
    // Throughout: while the 2,000 silent connections are opened (each accepted, and evicting an
    // older one, in turn) and held, while the tricklers trickle, and past their deadline.
    let mut slowest = Duration::ZERO;
    let mut served = 0;
    while started.elapsed() < HANDSHAKE + Duration::from_secs(2) {
        let took = legitimate(door.addr, &ca)
            .unwrap_or_else(|e| panic!("a legitimate client at {:?}: {e}", started.elapsed()));
        assert!(
            took < PROMPT,
            "a legitimate client took {took:?} at {:?}",
            started.elapsed()
        );
        slowest = slowest.max(took);
        served += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    for (i, t) in tricklers.into_iter().enumerate() {
        let kind = if i % 2 == 0 { "TLS" } else { "preamble" };
        let lived = t
            .join()
            .unwrap()
            .unwrap_or_else(|| panic!("a {kind} trickler was never cut"));
        assert!(
            lived < HANDSHAKE + Duration::from_secs(1),
            "a {kind} trickler lived {lived:?} against a deadline of {HANDSHAKE:?}"
        );
    }
    done.store(true, Ordering::Release);
    assert_eq!(opener.join().unwrap(), SILENT);
    eprintln!(
        "{served} legitimate clients served beside 40 tricklers and {SILENT} silent \
         connections, the slowest in {slowest:?}"
    );
}
