//! `ferrobase serve` under more load than it has handlers for, and against clients that hold
//! resources: forty connections against two handlers and two queued calls each get every call
//! answered (served or busy, and served on retry); a client that sends half a frame and stalls
//! is cut off after `--frame-timeout` while others are served; a connection that opens scanners
//! up to `--max-scanners-per-connection` is refused the next one and goes on with other calls.

mod serve_harness;

#[path = "../../gateway/tests/support/calls.rs"]
mod calls;

use serve_harness::Serve;

use ferrobase_gateway::thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, TStruct, TType, TValue,
};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

fn encode(name: &str, args: &TStruct) -> Vec<u8> {
    calls::call_message(name, 5, args)
}

fn call_on(s: &mut TcpStream, name: &str, args: &TStruct) -> (MessageHeader, TStruct) {
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(&encode(name, args)).unwrap();
    let mut r = s.try_clone().unwrap();
    let mut b = Budget::new(&mut r, &Limits::default());
    let h = Binary.read_header(&mut b).unwrap();
    (h, Binary.read_struct(&mut b).unwrap())
}

/// The message and `canRetry` of the `IOError` in a reply, if it carries one.
fn io_error(body: &TStruct) -> Option<(String, bool)> {
    let Some(TValue::Struct(e)) = body.get(1) else {
        return None;
    };
    let message = match e.get(1) {
        Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
        _ => return None,
    };
    Some((message, e.get(2) == Some(&TValue::Bool(true))))
}

fn create_table(addr: SocketAddr, name: &str) {
    let family = TValue::Struct(TStruct::new().with(1, TValue::string("cf:")));
    let args = TStruct::new()
        .with(1, TValue::string(name))
        .with(2, TValue::List(TType::Struct, vec![family]));
    let (_, body) = call_on(&mut TcpStream::connect(addr).unwrap(), "createTable", &args);
    assert!(body.fields.is_empty(), "{body:?}");
}

fn put_args(table: &str, row: &str, value: &str) -> TStruct {
    let mutation = TStruct::new()
        .with(1, TValue::Bool(false))
        .with(2, TValue::string("cf:q"))
        .with(3, TValue::string(value));
    TStruct::new()
        .with(1, TValue::string(table))
        .with(2, TValue::string(row))
        .with(
            3,
            TValue::List(TType::Struct, vec![TValue::Struct(mutation)]),
        )
}

fn table_count(s: &mut TcpStream) -> usize {
    let (h, body) = call_on(s, "getTableNames", &TStruct::new());
    assert_eq!(h.kind, MessageType::Reply);
    match body.get(0) {
        Some(TValue::List(_, names)) => names.len(),
        other => panic!("getTableNames answered {other:?}"),
    }
}

/// Reads until the server closes the connection; panics if it has not within `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> Vec<u8> {
    s.set_read_timeout(Some(within)).unwrap();
    let mut got = Vec::new();
    match s.read_to_end(&mut got) {
        Ok(_) => got,
        Err(e) if matches!(e.kind(), ErrorKind::ConnectionReset) => got,
        Err(e) => panic!("the server did not close the stalled connection: {e}"),
    }
}

#[test]
fn forty_connections_against_two_handlers_are_each_served_or_told_busy() {
    let serve = Serve::start(&["--handlers", "2", "--max-queued-calls", "2"]);
    create_table(serve.addr, "t");
    let clients: Vec<_> = (0..40)
        .map(|c| {
            let addr = serve.addr;
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                let (mut served, mut busy) = (0, 0);
                while served < 25 {
                    let row = format!("c{c}-r{served}");
                    let (h, body) = call_on(&mut s, "mutateRow", &put_args("t", &row, "v"));
                    assert_eq!(h.kind, MessageType::Reply);
                    match io_error(&body) {
                        None => served += 1,
                        Some((m, true)) if m.starts_with("Call queue is full on") => busy += 1,
                        Some(other) => panic!("mutateRow failed: {other:?}"),
                    }
                }
                busy
            })
        })
        .collect();
    let busy: usize = clients.into_iter().map(|c| c.join().unwrap()).sum();
    // Every write that was acknowledged is there; the busy ones were retried.
    let mut s = TcpStream::connect(serve.addr).unwrap();
    for c in 0..40 {
        for r in 0..25 {
            let args = TStruct::new()
                .with(1, TValue::string("t"))
                .with(2, TValue::string(format!("c{c}-r{r}")));
            let (_, body) = call_on(&mut s, "getRow", &args);
            match body.get(0) {
                Some(TValue::List(_, rows)) => assert_eq!(rows.len(), 1, "c{c}-r{r}"),
                other => panic!("getRow answered {other:?}"),
            }
        }
    }
    eprintln!("{busy} calls were answered busy and retried");
}

#[test]
fn a_client_stalling_mid_frame_is_cut_off_and_others_are_served() {
    let serve = Serve::start(&["--frame-timeout", "1"]);
    let mut other = TcpStream::connect(serve.addr).unwrap();
    assert_eq!(table_count(&mut other), 0);
    // Framed: a length of 100 and 10 bytes of it. Buffered: half a message header.
    let framed = {
        let mut msg = 100u32.to_be_bytes().to_vec();
        msg.extend_from_slice(&encode("getTableNames", &TStruct::new())[..10]);
        msg
    };
    let buffered = encode("getTableNames", &TStruct::new())[..9].to_vec();
    let mut stalled: Vec<TcpStream> = [framed, buffered]
        .iter()
        .map(|half| {
            let mut s = TcpStream::connect(serve.addr).unwrap();
            s.write_all(half).unwrap();
            s
        })
        .collect();
    let started = Instant::now();
    // Served meanwhile, on a connection of its own.
    for _ in 0..5 {
        assert_eq!(table_count(&mut other), 0);
    }
    for s in &mut stalled {
        assert!(closed_within(s, Duration::from_secs(30)).is_empty());
    }
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(table_count(&mut other), 0);
}

#[test]
fn a_connection_at_its_scanner_limit_is_refused_one_more_and_goes_on() {
    let serve = Serve::start(&["--max-scanners-per-connection", "4"]);
    create_table(serve.addr, "t");
    let mut s = TcpStream::connect(serve.addr).unwrap();
    let open = |s: &mut TcpStream| {
        let args = TStruct::new()
            .with(1, TValue::string("t"))
            .with(2, TValue::Struct(TStruct::new()));
        call_on(s, "scannerOpenWithScan", &args).1
    };
    let ids: Vec<TValue> = (0..4)
        .map(|_| {
            let body = open(&mut s);
            assert!(matches!(body.get(0), Some(TValue::I32(_))), "{body:?}");
            body.get(0).unwrap().clone()
        })
        .collect();
    let refused = open(&mut s);
    let (message, can_retry) = io_error(&refused).expect("an IOError");
    assert!(
        message.starts_with("Too many open scanners on this connection")
            && message.contains("--max-scanners-per-connection"),
        "{message}"
    );
    assert!(!can_retry);
    // Other calls go on, and another connection has scanners of its own.
    assert_eq!(table_count(&mut s), 1);
    let mut second = TcpStream::connect(serve.addr).unwrap();
    assert!(matches!(open(&mut second).get(0), Some(TValue::I32(_))));
    // Closing one makes room for one.
    let (_, closed) = call_on(
        &mut s,
        "scannerClose",
        &TStruct::new().with(1, ids[0].clone()),
    );
    assert!(closed.fields.is_empty(), "{closed:?}");
    assert!(matches!(open(&mut s).get(0), Some(TValue::I32(_))));
    assert!(io_error(&open(&mut s)).is_some());
}

/// Scanners opened through `ferrobaseAdmin` `scan_open` (RAW or multi-version scans) hold
/// what Thrift1's do and count against the same limit.
#[test]
fn extension_scanners_count_against_the_connection_scanner_limit() {
    let serve = Serve::start(&["--max-scanners-per-connection", "2"]);
    create_table(serve.addr, "t");
    let mut s = TcpStream::connect(serve.addr).unwrap();
    let open = |s: &mut TcpStream| {
        let args = TStruct::new()
            .with(1, TValue::string("scan_open"))
            .with(2, TValue::string("t"))
            .with(
                4,
                TValue::Map(
                    TType::Binary,
                    TType::Binary,
                    vec![(TValue::string("RAW"), TValue::string("true"))],
                ),
            );
        call_on(s, "ferrobaseAdmin", &args).1
    };
    for _ in 0..2 {
        let body = open(&mut s);
        assert!(matches!(body.get(0), Some(TValue::I32(_))), "{body:?}");
    }
    let (message, _) = io_error(&open(&mut s)).expect("an IOError");
    assert!(
        message.starts_with("Too many open scanners on this connection"),
        "{message}"
    );
}

/// `ferrobaseScannerOpen` counts a scanner it leaves open against the same limit; one it
/// closed in the call (every row answered) holds nothing and is not counted.
#[test]
fn scanners_opened_with_their_rows_count_while_they_stay_open() {
    let serve = Serve::start(&["--max-scanners-per-connection", "2"]);
    create_table(serve.addr, "t");
    let mut s = TcpStream::connect(serve.addr).unwrap();
    for row in ["r1", "r2", "r3"] {
        let (_, body) = call_on(&mut s, "mutateRow", &put_args("t", row, "v"));
        assert!(body.fields.is_empty(), "{body:?}");
    }
    let open = |s: &mut TcpStream, nb_rows: i32| {
        let args = TStruct::new()
            .with(1, TValue::string("t"))
            .with(2, TValue::Struct(TStruct::new()))
            .with(3, TValue::I32(nb_rows));
        call_on(s, "ferrobaseScannerOpen", &args).1
    };
    let id_of = |body: &TStruct| match body.get(0) {
        Some(TValue::Struct(batch)) => batch.get(1).cloned(),
        _ => panic!("no scan batch: {body:?}"),
    };
    // Read whole: closed in the call, however many times.
    for _ in 0..5 {
        assert_eq!(id_of(&open(&mut s, 10)), None);
    }
    // Left open after one row: two fit, the third is refused.
    for _ in 0..2 {
        assert!(matches!(id_of(&open(&mut s, 1)), Some(TValue::I32(_))));
    }
    let (message, _) = io_error(&open(&mut s, 1)).expect("an IOError");
    assert!(
        message.starts_with("Too many open scanners on this connection"),
        "{message}"
    );
}

#[test]
fn each_connection_holds_one_file_descriptor_in_the_server() {
    // Regression: each connection's thread used to hold a duplicate of its socket for setting
    // timeouts, so 1,000 connections needed 2,000 descriptors.
    let serve = Serve::start(&[]);
    let fds = || {
        std::fs::read_dir(format!("/proc/{}/fd", serve.child.id()))
            .unwrap()
            .count()
    };
    let mut first = TcpStream::connect(serve.addr).unwrap();
    assert_eq!(table_count(&mut first), 0);
    let before = fds();
    let mut conns: Vec<TcpStream> = (0..50)
        .map(|_| TcpStream::connect(serve.addr).unwrap())
        .collect();
    for c in &mut conns {
        assert_eq!(table_count(c), 0);
    }
    let after = fds();
    assert!(
        after - before <= 50 + 2,
        "50 connections took {} descriptors",
        after - before
    );
}
