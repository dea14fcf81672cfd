//! Malformed input on the native RPC port (issue 48): garbage and truncated preambles, a 2 GiB
//! frame length, an unknown service or method, a cell block shorter than its header says, a
//! parameter with a field of the wrong wire type, a 1,000-deep FilterList. Each is a clear error
//! to that client, and the server goes on serving everyone else. With TLS: garbage instead of a
//! ClientHello, a handshake cut short, a client that stalls in it or never begins one: each
//! closed (with a log line), the others served.

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::slow_log::SlowLog;
use ferrobase_gateway::CallOutcome;
use ferrobase_native::proto::client::{Get, GetRequest};
use ferrobase_native::proto::filter::{Filter, FilterList, PrefixFilter};
use ferrobase_native::proto::hbase::{region_specifier::RegionSpecifierType, RegionSpecifier};
use ferrobase_native::proto::registry::GetClusterIdResponse;
use ferrobase_native::proto::rpc::{
    CellBlockMeta, ConnectionHeader, RequestHeader, ResponseHeader, UserInformation,
};
use ferrobase_native::{NativeOptions, NativeServer, NativeStopHandle};
use prost::Message;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

struct Door {
    addr: SocketAddr,
    stop: NativeStopHandle,
    /// Every call (threshold 0).
    slow: Option<Arc<SlowLog>>,
    _dir: tempfile::TempDir,
}

fn start() -> Door {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let slow = Arc::new(SlowLog::new(Duration::ZERO, 16));
    let opts = NativeOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        max_message: 1 << 20,
        max_mutations_per_call: 5,
        slow_log: Some(slow.clone()),
        ..NativeOptions::default()
    };
    let server = NativeServer::bind(engine, opts).unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    std::thread::spawn(move || server.run());
    Door {
        addr,
        stop,
        slow: Some(slow),
        _dir: dir,
    }
}

fn connect(door: &Door) -> TcpStream {
    let s = TcpStream::connect(door.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// A connection that has sent the preamble and a header for `service`.
fn rpc(door: &Door, service: &str) -> TcpStream {
    let mut s = connect(door);
    s.write_all(b"HBas\x00\x50").unwrap();
    let header = ConnectionHeader {
        user_info: Some(UserInformation {
            effective_user: Some("tester".into()),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: Some("org.apache.hadoop.hbase.codec.KeyValueCodec".into()),
        ..ConnectionHeader::default()
    };
    let bytes = header.encode_to_vec();
    s.write_all(&(bytes.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&bytes).unwrap();
    s
}

/// Sends a call: header, parameter bytes, cell block.
fn send(
    s: &mut TcpStream,
    id: u32,
    method: &str,
    param: &[u8],
    cells: &[u8],
    claimed: Option<u32>,
) {
    let header = RequestHeader {
        call_id: Some(id),
        method_name: Some(method.into()),
        request_param: Some(true),
        cell_block_meta: claimed.map(|n| CellBlockMeta { length: Some(n) }),
        ..RequestHeader::default()
    };
    let mut frame = Vec::new();
    header.encode_length_delimited(&mut frame).unwrap();
    prost::encoding::encode_varint(param.len() as u64, &mut frame);
    frame.extend_from_slice(param);
    frame.extend_from_slice(cells);
    s.write_all(&(frame.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&frame).unwrap();
}

/// Reads one response: its header and body bytes; `None` once the server closed.
fn receive(s: &mut TcpStream) -> Option<(ResponseHeader, Vec<u8>)> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).ok()?;
    let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut frame).ok()?;
    let mut rest = &frame[..];
    let header = ResponseHeader::decode_length_delimited(&mut rest).unwrap();
    let body = if header.exception.is_none() {
        let n = prost::encoding::decode_varint(&mut rest).unwrap() as usize;
        rest[..n].to_vec()
    } else {
        Vec::new()
    };
    Some((header, body))
}

fn closed(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0) | Err(_))
}

fn exception(h: &ResponseHeader) -> (String, String, bool) {
    let e = h.exception.as_ref().expect("an exception");
    (
        e.exception_class_name.clone().unwrap_or_default(),
        e.stack_trace.clone().unwrap_or_default(),
        e.do_not_retry.unwrap_or(false),
    )
}

/// The door still answers a well-formed client.
fn still_serves(door: &Door) {
    let mut s = rpc(door, "ClientMetaService");
    send(&mut s, 1, "GetClusterId", &[], &[], None);
    let (h, body) = receive(&mut s).expect("an answer");
    assert!(h.exception.is_none(), "{h:?}");
    let id = GetClusterIdResponse::decode(&body[..]).unwrap();
    assert_eq!(id.cluster_id.unwrap().len(), 36);
}

#[test]
fn the_registry_preamble_answers_the_cluster_id_then_closes() {
    let door = start();
    let mut s = connect(&door);
    s.write_all(b"Regist").unwrap();
    let (h, body) = receive(&mut s).unwrap();
    assert_eq!(h.call_id, Some(u32::MAX));
    let id = GetClusterIdResponse::decode(&body[..]).unwrap();
    assert_eq!(id.cluster_id.unwrap().len(), 36);
    assert!(closed(&mut s));
}

#[test]
fn garbage_and_truncated_preambles_are_refused_and_others_are_served() {
    let door = start();
    let mut s = connect(&door);
    s.write_all(b"\x80\x01\x00\x01garbage").unwrap();
    let (h, _) = receive(&mut s).unwrap();
    let (class, message, _) = exception(&h);
    assert_eq!(
        class,
        "org.apache.hadoop.hbase.ipc.FatalConnectionException"
    );
    assert!(message.contains("preamble"), "{message}");
    assert!(closed(&mut s));
    let mut s = connect(&door);
    s.write_all(b"HBa").unwrap();
    drop(s);
    let mut s = connect(&door);
    s.write_all(b"HBas\x01\x50").unwrap();
    let (h, _) = receive(&mut s).unwrap();
    assert!(exception(&h).1.contains("version 1"), "{h:?}");
    still_serves(&door);
}

#[test]
fn a_two_gib_frame_is_refused_without_reading_it() {
    let door = start();
    let mut s = rpc(&door, "ClientService");
    s.write_all(&0x7fff_ffffu32.to_be_bytes()).unwrap();
    let (h, _) = receive(&mut s).unwrap();
    let (class, message, _) = exception(&h);
    assert_eq!(
        class,
        "org.apache.hadoop.hbase.ipc.FatalConnectionException"
    );
    assert!(message.contains("--max-message"), "{message}");
    assert!(closed(&mut s));
    still_serves(&door);
}

#[test]
fn unknown_services_and_methods_are_named_and_the_connection_goes_on() {
    let door = start();
    let mut s = rpc(&door, "NoSuchService");
    send(&mut s, 7, "Anything", &[], &[], None);
    let (h, _) = receive(&mut s).unwrap();
    assert_eq!(h.call_id, Some(7));
    let (class, message, final_) = exception(&h);
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(message.contains("NoSuchService.Anything"), "{message}");
    assert!(final_);
    let mut s = rpc(&door, "ClientMetaService");
    send(&mut s, 1, "Frobnicate", &[], &[], None);
    let (h, _) = receive(&mut s).unwrap();
    assert!(exception(&h).1.contains("ClientMetaService.Frobnicate"));
    send(&mut s, 2, "GetClusterId", &[], &[], None);
    let (h, _) = receive(&mut s).unwrap();
    assert!(h.exception.is_none(), "{h:?}");
    // The metrics' call counters: names outside the served set fold into `other`.
    assert_eq!(
        door.stop.call_counters().snapshot(),
        [
            ("ClientMetaService", "GetClusterId", CallOutcome::Ok, 1),
            ("other", "other", CallOutcome::Exception, 2),
        ]
    );
    // Each answered call timed once, in its method's latency histogram.
    let timed: Vec<_> = door
        .stop
        .call_counters()
        .latencies()
        .into_iter()
        .map(|l| {
            (
                l.service,
                l.method,
                l.count,
                l.buckets.iter().map(|b| b.1).sum::<u64>(),
            )
        })
        .collect();
    assert_eq!(
        timed,
        [
            ("ClientMetaService", "GetClusterId", 1, 1),
            ("other", "other", 2, 2)
        ]
    );
    // --slow-ms 0: each call kept in the slow log, named by door and method.
    let slow: Vec<_> = door
        .slow
        .as_ref()
        .unwrap()
        .entries()
        .into_iter()
        .map(|c| (c.door, c.method))
        .collect();
    assert_eq!(
        slow,
        [
            ("native", "NoSuchService.Anything".to_string()),
            ("native", "ClientMetaService.Frobnicate".to_string()),
            ("native", "ClientMetaService.GetClusterId".to_string()),
        ]
    );
    assert_eq!(door.stop.connections(), 2);
}

#[test]
fn a_cell_block_shorter_than_its_header_says_closes_that_connection_only() {
    let door = start();
    let mut s = rpc(&door, "ClientService");
    send(&mut s, 1, "Mutate", &[], b"abc", Some(100));
    let (h, _) = receive(&mut s).unwrap();
    assert!(exception(&h).1.contains("cell block"), "{h:?}");
    assert!(closed(&mut s));
    still_serves(&door);
}

#[test]
fn a_parameter_that_does_not_decode_is_a_clear_error() {
    let door = start();
    let mut s = rpc(&door, "ClientService");
    // Field 1 (region, a message) sent as a varint.
    send(&mut s, 3, "Get", &[0x08, 0x01], &[], None);
    let (h, _) = receive(&mut s).unwrap();
    let (class, message, _) = exception(&h);
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(message.contains("Get request does not decode"), "{message}");
    still_serves(&door);
}

#[test]
fn a_thousand_deep_filter_list_is_refused() {
    let door = start();
    let mut filter = Filter {
        name: Some("org.apache.hadoop.hbase.filter.PrefixFilter".into()),
        serialized_filter: Some(
            PrefixFilter {
                prefix: Some(b"r".to_vec()),
            }
            .encode_to_vec(),
        ),
    };
    for _ in 0..1000 {
        filter = Filter {
            name: Some("org.apache.hadoop.hbase.filter.FilterList".into()),
            serialized_filter: Some(
                FilterList {
                    operator: Some(1),
                    filters: vec![filter],
                }
                .encode_to_vec(),
            ),
        };
    }
    let req = GetRequest {
        region: Some(RegionSpecifier {
            r#type: Some(RegionSpecifierType::RegionName as i32),
            value: Some(b"hbase:meta,,1".to_vec()),
        }),
        get: Some(Get {
            row: Some(b"t".to_vec()),
            filter: Some(filter),
            ..Get::default()
        }),
    };
    let mut s = rpc(&door, "ClientService");
    send(&mut s, 9, "Get", &req.encode_to_vec(), &[], None);
    let (h, _) = receive(&mut s).unwrap();
    let (class, message, _) = exception(&h);
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(message.contains("100"), "{message}");
    still_serves(&door);
}

/// Issue 39, 3: a Multi of more rows than --max-mutations-per-call is refused whole, with
/// HBase's text for a batch past its size threshold, before any region is looked at.
#[test]
fn a_multi_past_the_row_limit_is_refused_whole() {
    use ferrobase_native::proto::client::{Action, MultiRequest, MutationProto, RegionAction};
    let door = start();
    let actions = (0..6)
        .map(|i| Action {
            index: Some(i),
            mutation: Some(MutationProto {
                row: Some(format!("r{i}").into_bytes()),
                mutate_type: Some(2),
                ..MutationProto::default()
            }),
            ..Action::default()
        })
        .collect();
    let req = MultiRequest {
        region_action: vec![RegionAction {
            region: Some(RegionSpecifier {
                r#type: Some(RegionSpecifierType::RegionName as i32),
                value: Some(b"t,,1.00000000000000000000000000000000.".to_vec()),
            }),
            action: actions,
            ..RegionAction::default()
        }],
        ..MultiRequest::default()
    };
    let mut s = rpc(&door, "ClientService");
    send(&mut s, 4, "Multi", &req.encode_to_vec(), &[], None);
    let (h, _) = receive(&mut s).unwrap();
    let (class, message, final_) = exception(&h);
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(
        message.contains("Requested Number of Rows: 6 , Size Threshold: 5"),
        "{message}"
    );
    assert!(final_);
    still_serves(&door);
}

/// A door serving TLS only (a 1 s handshake timeout), with the PKI's directory kept alive.
fn start_tls() -> (Door, tempfile::TempDir) {
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
        handshake_timeout: Duration::from_secs(1),
        ..NativeOptions::default()
    };
    let server = NativeServer::bind(engine, opts).unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    std::thread::spawn(move || server.run());
    (
        Door {
            addr,
            stop,
            slow: None,
            _dir: dir,
        },
        certs,
    )
}

/// A ClientHello as rustls sends it first (the client trusts nothing: only its bytes matter).
fn client_hello() -> Vec<u8> {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
    let mut conn =
        rustls::ClientConnection::new(std::sync::Arc::new(config), "localhost".try_into().unwrap())
            .unwrap();
    let mut hello = Vec::new();
    while conn.wants_write() {
        conn.write_tls(&mut hello).unwrap();
    }
    hello
}

/// The door, with TLS, still serves a TLS client the whole way to a call.
fn still_serves_tls(door: &Door, certs: &std::path::Path) {
    let client =
        ferrobase_security::tls::TlsClient::from_pem_files(&certs.join("ca.pem"), None).unwrap();
    let mut s = client.connect("localhost", connect(door)).unwrap();
    let header = ConnectionHeader {
        service_name: Some("ClientMetaService".into()),
        ..ConnectionHeader::default()
    };
    let bytes = header.encode_to_vec();
    s.write_all(b"HBas\x00\x50").unwrap();
    s.write_all(&(bytes.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&bytes).unwrap();
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
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut reply = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut reply).unwrap();
    let h = ResponseHeader::decode_length_delimited(&mut &reply[..]).unwrap();
    assert_eq!(h.call_id, Some(3));
    assert!(h.exception.is_none(), "{h:?}");
}

/// Closed by the server within `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let started = std::time::Instant::now();
    s.set_read_timeout(Some(within + Duration::from_secs(2)))
        .unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return started.elapsed() <= within + Duration::from_secs(1),
            Ok(_) => {} // an alert
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

#[test]
fn malformed_tls_is_closed_and_others_are_served() {
    let (door, certs) = start_tls();
    let hello = client_hello();
    assert_eq!(hello[0], 0x16);
    // Garbage where a ClientHello belongs: a handshake record header over junk, and bytes that
    // are no TLS at all (an HTTP request).
    for garbage in [&b"\x16\x03\x01\x00\x05junk!"[..], b"GET / HTTP/1.1\r\n\r\n"] {
        let mut s = connect(&door);
        s.write_all(garbage).unwrap();
        assert!(closed_within(&mut s, Duration::from_secs(1)));
    }
    // A ClientHello cut short, then the client closes its side.
    let mut s = connect(&door);
    s.write_all(&hello[..hello.len() / 2]).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    assert!(closed_within(&mut s, Duration::from_secs(1)));
    // A client that stalls mid-handshake, and one that never begins: both closed at the
    // handshake timeout (1 s), while others are served meanwhile.
    let mut stalled = connect(&door);
    stalled.write_all(&hello[..10]).unwrap();
    let mut silent = connect(&door);
    still_serves_tls(&door, certs.path());
    assert!(closed_within(&mut stalled, Duration::from_secs(2)));
    assert!(closed_within(&mut silent, Duration::from_secs(2)));
    // Every one of them has let go of its slot.
    let started = std::time::Instant::now();
    while door.stop.connections() > 0 && started.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(door.stop.connections(), 0);
    still_serves_tls(&door, certs.path());
}

/// At `--max-connections`, a newcomer takes the slot of the oldest connection still in its
/// handshake (it is closed), as the Thrift port does; established connections keep theirs, and a
/// newcomer finding only established ones is closed at once.
#[test]
fn silent_connections_give_their_slots_to_newcomers() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let opts = NativeOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        max_connections: 3,
        ..NativeOptions::default()
    };
    let server = NativeServer::bind(engine, opts).unwrap();
    let door = Door {
        addr: server.local_addr().unwrap(),
        stop: server.stop_handle().unwrap(),
        slow: None,
        _dir: dir,
    };
    std::thread::spawn(move || server.run());
    // One established connection (it has answered a call), then two that never send a byte.
    let mut established = rpc(&door, "ClientMetaService");
    send(&mut established, 1, "GetClusterId", &[], &[], None);
    assert!(receive(&mut established).is_some());
    let mut silent: Vec<TcpStream> = (0..2).map(|_| connect(&door)).collect();
    std::thread::sleep(Duration::from_millis(200));
    // Two newcomers, each served: the silent connections are closed, oldest first.
    still_serves(&door);
    assert!(
        closed(&mut silent[0]),
        "the oldest silent connection gave its slot"
    );
    still_serves(&door);
    assert!(
        closed(&mut silent[1]),
        "the next silent connection gave its slot"
    );
    // The established connection kept its slot all along.
    send(&mut established, 2, "GetClusterId", &[], &[], None);
    let (h, _) = receive(&mut established).expect("still served");
    assert!(h.exception.is_none(), "{h:?}");
    // Three established connections: a fourth is closed without an answer.
    let mut a = rpc(&door, "ClientMetaService");
    send(&mut a, 1, "GetClusterId", &[], &[], None);
    assert!(receive(&mut a).is_some());
    let mut b = rpc(&door, "ClientMetaService");
    send(&mut b, 1, "GetClusterId", &[], &[], None);
    assert!(receive(&mut b).is_some());
    let mut refused = connect(&door);
    let _ = refused.write_all(b"HBas\x00\x50");
    assert!(closed(&mut refused), "past the limit: closed");
    door.stop.stop();
}

/// Issue 39, 3: a call's reads stop at the client's own timeout when it is shorter than the
/// server's `--max-read-time` (the RequestHeader's `timeout`, HBase's `hbase.rpc.timeout`): a
/// costly filter is answered with the budget's DoNotRetryIOException, and the door serves on.
/// A door with `handlers` handlers over table `slow` (one row of `cells` cells of 5 KB), and a
/// `ClientService.Get` of that row whose value filter (a bounded-repeat regular expression)
/// takes about a second per cell.
fn costly_get(handlers: usize, cells: usize) -> (Door, GetRequest) {
    use ferrobase_engine::{ColumnFamilyDescriptor, Put, TableDescriptor, TableName};
    use ferrobase_native::proto::comparator::{Comparator, RegexStringComparator};
    use ferrobase_native::proto::filter::{CompareFilter, ValueFilter};
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("slow").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let mut p = Put::new("r");
    for q in 0..cells {
        p = p.add_column("cf", format!("q{q}"), "a".repeat(5 * 1024));
    }
    engine.table("slow").unwrap().put(p).unwrap();
    let region = engine.admin().regions("slow").unwrap()[0].id;
    let server = NativeServer::bind(
        engine,
        NativeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            handlers,
            ..NativeOptions::default()
        },
    )
    .unwrap();
    let door = Door {
        addr: server.local_addr().unwrap(),
        stop: server.stop_handle().unwrap(),
        slow: None,
        _dir: dir,
    };
    std::thread::spawn(move || server.run());
    let comparator = Comparator {
        name: Some("org.apache.hadoop.hbase.filter.RegexStringComparator".into()),
        serialized_comparator: Some(
            RegexStringComparator {
                pattern: Some(".{0,1000}.{0,1000}.{0,1000}b".into()),
                pattern_flags: Some(0),
                charset: Some("UTF-8".into()),
                ..RegexStringComparator::default()
            }
            .encode_to_vec(),
        ),
    };
    let filter = Filter {
        name: Some("org.apache.hadoop.hbase.filter.ValueFilter".into()),
        serialized_filter: Some(
            ValueFilter {
                compare_filter: Some(CompareFilter {
                    compare_op: Some(2),
                    comparator: Some(comparator),
                }),
            }
            .encode_to_vec(),
        ),
    };
    let req = GetRequest {
        region: Some(RegionSpecifier {
            r#type: Some(RegionSpecifierType::EncodedRegionName as i32),
            value: Some(
                ferrobase_gateway::catalog::encoded_region_name("slow", b"", region).into_bytes(),
            ),
        }),
        get: Some(Get {
            row: Some(b"r".to_vec()),
            filter: Some(filter),
            ..Get::default()
        }),
    };
    (door, req)
}

/// Sends `req` as call 1 of a new `ClientService` connection, with the call's own `timeout`
/// (milliseconds) when given.
fn send_get(door: &Door, req: &GetRequest, timeout: Option<u32>) -> TcpStream {
    let mut s = rpc(door, "ClientService");
    let header = RequestHeader {
        call_id: Some(1),
        method_name: Some("Get".into()),
        request_param: Some(true),
        timeout,
        ..RequestHeader::default()
    };
    let param = req.encode_to_vec();
    let mut frame = Vec::new();
    header.encode_length_delimited(&mut frame).unwrap();
    prost::encoding::encode_varint(param.len() as u64, &mut frame);
    frame.extend_from_slice(&param);
    s.write_all(&(frame.len() as u32).to_be_bytes()).unwrap();
    s.write_all(&frame).unwrap();
    s
}

#[test]
fn a_read_stops_at_the_calls_own_timeout() {
    let (door, req) = costly_get(NativeOptions::default().handlers, 100);
    let mut s = send_get(&door, &req, Some(200));
    let (h, _) = receive(&mut s).unwrap();
    let (class, message, do_not_retry) = exception(&h);
    assert_eq!(class, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert!(message.contains("time budget of 200 ms"), "{message}");
    assert!(message.contains("--max-read-time"), "{message}");
    assert!(do_not_retry);
    still_serves(&door);
}

/// A read whose client closes its connection stops at once (the connection's reader sees the
/// end and the call's reads look), not at its budget: with one handler, the next client's call
/// is answered within seconds, where it would wait minutes for the abandoned read.
#[test]
fn a_read_whose_client_leaves_stops_at_once() {
    let (door, req) = costly_get(1, 400);
    let s = send_get(&door, &req, None);
    std::thread::sleep(Duration::from_secs(1));
    drop(s);
    let started = std::time::Instant::now();
    still_serves(&door);
    let took = started.elapsed();
    eprintln!("the next call was answered {took:?} after the client left");
    assert!(took < Duration::from_secs(15), "waited {took:?}");
}
