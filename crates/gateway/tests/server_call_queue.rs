//! The call queue over real sockets: with every handler held by a call that cannot finish (a
//! major compaction stopped at an engine hook), one more call waits in the queue, a call past
//! the queue is refused at once with HBase's `CallQueueTooBigException` text, a call waiting past
//! `--call-queue-timeout` is refused the same way, and every refused connection is served on its
//! next call once a handler is free.

#[path = "support/calls.rs"]
mod calls;

use ferrobase_engine::TableName;
use ferrobase_engine::{hook, ColumnFamilyDescriptor, Engine, EngineOptions, Put, TableDescriptor};
use ferrobase_gateway::call_queue::CallQueueOptions;
use ferrobase_gateway::thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, TStruct, TValue,
};
use ferrobase_gateway::{Server, ServerOptions, StopHandle};
use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A server whose major compactions stop at their first cell until the test says go.
struct Held {
    addr: SocketAddr,
    stop: StopHandle,
    merging: Receiver<()>,
    go: Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.go.send(());
        self.stop.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn start(calls: CallQueueOptions) -> Held {
    let dir = tempfile::tempdir().unwrap();
    let (merging_tx, merging) = channel();
    let (go, go_rx) = channel::<()>();
    let (merging_tx, go_rx) = (Mutex::new(merging_tx), Mutex::new(go_rx));
    let mut opts = EngineOptions {
        hook: Some(hook::Hook::new(move |p| {
            if let hook::HookPoint::CompactionMerging { major: true, .. } = p {
                let _ = merging_tx.lock().unwrap().send(());
                let _ = go_rx.lock().unwrap().recv();
            }
        })),
        auto_split: false,
        ..EngineOptions::default()
    };
    opts.compaction.auto = false;
    let engine = Engine::open(dir.path(), opts).unwrap();
    let name = TableName::parse("t").unwrap();
    engine
        .admin()
        .create_table(TableDescriptor::new(name).with_family(ColumnFamilyDescriptor::new("cf")))
        .unwrap();
    let table = engine.table("t").unwrap();
    for i in 0..2 {
        table
            .put(Put::new(format!("r{i}")).add_column("cf", "q", "v"))
            .unwrap();
        engine.admin().flush("t").unwrap();
    }
    let server = Server::bind(
        engine,
        ServerOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            calls,
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    let thread = Some(std::thread::spawn(move || server.run().unwrap()));
    Held {
        addr,
        stop,
        merging,
        go,
        thread,
        _dir: dir,
    }
}

fn call_on(s: &mut TcpStream, name: &str, args: TStruct) -> (MessageHeader, TStruct) {
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s.write_all(&calls::call_message(name, 3, &args)).unwrap();
    let mut r = s.try_clone().unwrap();
    let mut b = Budget::new(&mut r, &Limits::default());
    let h = Binary.read_header(&mut b).unwrap();
    (h, Binary.read_struct(&mut b).unwrap())
}

fn get_row_args() -> TStruct {
    TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::string("r0"))
}

/// The `IOError` of a reply: its message and `canRetry`.
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

/// A `getRow` of the row written at start: found, on a working connection.
fn assert_get_row_served(s: &mut TcpStream) {
    let (h, body) = call_on(s, "getRow", get_row_args());
    assert_eq!(h.kind, MessageType::Reply);
    match body.get(0) {
        Some(TValue::List(_, rows)) => assert_eq!(rows.len(), 1, "{body:?}"),
        other => panic!("getRow answered {other:?}"),
    }
}

/// Holds the only handler with a major compaction stopped at its hook.
fn hold_the_handler(server: &Held) -> std::thread::JoinHandle<()> {
    let addr = server.addr;
    let holder = std::thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        let (h, body) = call_on(
            &mut s,
            "majorCompact",
            TStruct::new().with(1, TValue::string("t")),
        );
        assert_eq!(h.kind, MessageType::Reply);
        assert!(body.fields.is_empty(), "{body:?}");
    });
    server
        .merging
        .recv_timeout(Duration::from_secs(60))
        .unwrap();
    assert_eq!(server.stop.running_calls(), 1);
    holder
}

fn wait_until(what: impl Fn() -> bool) {
    let give_up = Instant::now() + Duration::from_secs(60);
    while !what() {
        assert!(Instant::now() < give_up, "condition never reached");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_call_past_the_queue_is_refused_as_busy_and_its_connection_is_served_next() {
    let server = start(CallQueueOptions {
        handlers: 1,
        max_queued: 1,
        timeout: Duration::from_secs(120),
        ..CallQueueOptions::default()
    });
    let holder = hold_the_handler(&server);
    let queued = {
        let addr = server.addr;
        std::thread::spawn(move || assert_get_row_served(&mut TcpStream::connect(addr).unwrap()))
    };
    let stop = server.stop.clone();
    wait_until(|| stop.queued_calls() == 1);

    let mut refused = TcpStream::connect(server.addr).unwrap();
    let (h, body) = call_on(&mut refused, "getRow", get_row_args());
    assert_eq!(h.kind, MessageType::Reply);
    let (message, can_retry) = io_error(&body).expect("an IOError");
    let expected = format!(
        "Call queue is full on {}, too many items queued ?",
        server.addr
    );
    assert!(message.starts_with(&expected), "{message}");
    assert!(message.contains("--max-queued-calls"), "{message}");
    assert!(can_retry);
    // A method without arguments declares no IOError: an application exception, as for every
    // refusal of one.
    let (h, _) = call_on(&mut refused, "getTableNames", TStruct::new());
    assert_eq!(h.kind, MessageType::Exception);

    server.go.send(()).unwrap();
    holder.join().unwrap();
    queued.join().unwrap();
    assert_get_row_served(&mut refused);
    assert_eq!((stop.running_calls(), stop.queued_calls()), (0, 0));
}

#[test]
fn a_call_waiting_past_the_queue_timeout_is_refused_and_its_connection_is_served_next() {
    let server = start(CallQueueOptions {
        handlers: 1,
        max_queued: 10,
        timeout: Duration::from_millis(300),
        ..CallQueueOptions::default()
    });
    let holder = hold_the_handler(&server);
    let mut waiting = TcpStream::connect(server.addr).unwrap();
    let (_, body) = call_on(&mut waiting, "getRow", get_row_args());
    let (message, can_retry) = io_error(&body).expect("an IOError");
    assert!(message.starts_with("Call queue is full on"), "{message}");
    assert!(
        message.contains("waited 0.3 s") && message.contains("--call-queue-timeout"),
        "{message}"
    );
    assert!(can_retry);
    assert_eq!(server.stop.queued_calls(), 0);

    server.go.send(()).unwrap();
    holder.join().unwrap();
    assert_get_row_served(&mut waiting);
}

#[test]
fn every_connection_is_served_while_others_wait_for_the_handlers() {
    // More connections than handlers and queue together, each doing calls back to back: every
    // call is answered with its result or the busy error, and each connection's calls succeed
    // once it retries.
    let server = start(CallQueueOptions {
        handlers: 2,
        max_queued: 2,
        timeout: Duration::from_secs(120),
        ..CallQueueOptions::default()
    });
    let served = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let busy = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let clients: Vec<_> = (0..24)
        .map(|_| {
            let (addr, served, busy) = (server.addr, served.clone(), busy.clone());
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                let mut ok = 0;
                while ok < 20 {
                    let (h, body) = call_on(&mut s, "getRow", get_row_args());
                    assert_eq!(h.kind, MessageType::Reply);
                    match io_error(&body) {
                        None => {
                            ok += 1;
                            served.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        Some((m, true)) if m.starts_with("Call queue is full on") => {
                            busy.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        Some(other) => panic!("getRow failed: {other:?}"),
                    }
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    assert_eq!(served.load(std::sync::atomic::Ordering::Relaxed), 24 * 20);
    assert_eq!(
        (server.stop.running_calls(), server.stop.queued_calls()),
        (0, 0)
    );
}

#[test]
fn a_scanner_close_is_never_refused_as_busy() {
    // Regression: under overload happybase's scannerClose (in a `finally`) was refused like any
    // call, leaving the scanner open until its lease; it only frees, so it needs no handler.
    let server = start(CallQueueOptions {
        handlers: 1,
        max_queued: 0,
        timeout: Duration::from_secs(120),
        ..CallQueueOptions::default()
    });
    let mut s = TcpStream::connect(server.addr).unwrap();
    let open = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::Struct(TStruct::new()));
    let (_, body) = call_on(&mut s, "scannerOpenWithScan", open);
    let id = body.get(0).cloned().expect("a scanner id");
    let holder = hold_the_handler(&server);
    let (_, refused) = call_on(&mut s, "getRow", get_row_args());
    assert!(io_error(&refused).is_some_and(|(m, _)| m.starts_with("Call queue is full on")));
    let (h, closed) = call_on(&mut s, "scannerClose", TStruct::new().with(1, id.clone()));
    assert_eq!(h.kind, MessageType::Reply);
    assert!(closed.fields.is_empty(), "{closed:?}");
    // Closed for good: a second close names the id invalid (an IllegalArgument, field 2).
    let (_, again) = call_on(&mut s, "scannerClose", TStruct::new().with(1, id));
    assert!(again.get(2).is_some(), "{again:?}");
    server.go.send(()).unwrap();
    holder.join().unwrap();
}
