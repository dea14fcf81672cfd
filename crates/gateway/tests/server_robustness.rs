//! The server under bad input and load: malformed requests get an error or a closed
//! connection while other clients keep working; many concurrent connections all progress;
//! shutdown finishes in-flight calls.

mod support;

use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::thrift::{
    Binary, Codec, Compact, MessageHeader, MessageType, TStruct, TType, TValue,
};
use ferrobase_gateway::ServerOptions;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;
use support::replies::exception_message;
use support::server::Running;

fn start() -> Running {
    start_with(EngineOptions::default(), |_| {})
}

fn start_with(
    engine_options: EngineOptions,
    configure: impl FnOnce(&mut ServerOptions),
) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), engine_options).unwrap();
    let mut opts = ServerOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        ..ServerOptions::default()
    };
    opts.limits.max_message = 1 << 20;
    configure(&mut opts);
    support::server::serve(dir, engine, opts)
}

/// Sends one call with the given codec and framing and reads the reply.
fn call<C: Codec>(
    addr: SocketAddr,
    codec: &C,
    framed: bool,
    name: &str,
    args: TStruct,
) -> (MessageHeader, TStruct) {
    let mut s = TcpStream::connect(addr).unwrap();
    call_on(&mut s, codec, framed, name, args)
}

fn call_on<C: Codec>(
    s: &mut TcpStream,
    codec: &C,
    framed: bool,
    name: &str,
    args: TStruct,
) -> (MessageHeader, TStruct) {
    support::calls::call_on(s, codec, framed, name, &args, Duration::from_secs(10))
}

fn table_names(addr: SocketAddr) -> usize {
    let (h, body) = call(addr, &Binary, false, "getTableNames", TStruct::new());
    assert_eq!(h.kind, MessageType::Reply);
    match body.get(0) {
        Some(TValue::List(_, items)) => items.len(),
        other => panic!("unexpected reply {other:?}"),
    }
}

/// Reads until the server closes the connection (after an exception or none) and returns what
/// it sent. A server that keeps the connection open without answering fails the test: the read
/// times out after 10 s. A reset (the server closed with our bytes unread) counts as closed.
fn closed_or_error(s: TcpStream) -> Vec<u8> {
    closed_or_error_within(s, Duration::from_secs(10))
}

fn closed_or_error_within(mut s: TcpStream, timeout: Duration) -> Vec<u8> {
    s.set_read_timeout(Some(timeout)).unwrap();
    let mut buf = Vec::new();
    match s.read_to_end(&mut buf) {
        Ok(_) => buf,
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            panic!("the server neither answered nor closed within {timeout:?} (got {buf:?})")
        }
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted
            ) =>
        {
            buf
        }
        Err(e) => panic!("reading the server's answer failed: {e}"),
    }
}

/// The check itself: a peer that accepts and then says nothing fails it (it used to pass).
#[test]
#[should_panic(expected = "neither answered nor closed")]
fn closed_or_error_fails_on_a_server_that_hangs() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let s = TcpStream::connect(silent.local_addr().unwrap()).unwrap();
    let _held = silent.accept().unwrap();
    closed_or_error_within(s, Duration::from_millis(200));
}

#[test]
fn malformed_requests_close_the_connection_and_others_keep_working() {
    let srv = start();
    let garbage: Vec<Vec<u8>> = vec![
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        vec![0x80, 0x01, 0x00, 0x01, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3], // huge name length
        vec![0x00, 0x00, 0x00, 0x10, 0x80, 0x01],                      // truncated frame
        vec![0x7f, 0xff, 0xff, 0xff, 0x80, 0x01, 0x00, 0x01],          // frame over the limit
        vec![
            0x82, 0x21, 0x07, 0x05, b'g', b'e', b't', b'R', b'o', 0x19, 0xff,
        ], // compact, bad list
        vec![0xff; 64],
    ];
    for g in garbage {
        let mut s = TcpStream::connect(srv.addr).unwrap();
        s.write_all(&g).unwrap();
        let _ = s.shutdown(std::net::Shutdown::Write);
        closed_or_error(s);
        assert_eq!(
            table_names(srv.addr),
            0,
            "server stopped serving after {g:?}"
        );
    }
}

#[test]
fn unknown_methods_and_bad_arguments_are_errors_on_a_live_connection() {
    let srv = start();
    for (codec_is_binary, framed) in [(true, false), (true, true), (false, false), (false, true)] {
        let mut s = TcpStream::connect(srv.addr).unwrap();
        let (h, body) = if codec_is_binary {
            call_on(&mut s, &Binary, framed, "noSuchMethod", TStruct::new())
        } else {
            call_on(&mut s, &Compact, framed, "noSuchMethod", TStruct::new())
        };
        assert_eq!(h.kind, MessageType::Exception);
        assert!(
            matches!(body.get(1), Some(TValue::Binary(m)) if String::from_utf8_lossy(m).contains("noSuchMethod"))
        );
        // Same connection: a call with a missing argument gets the declared IOError.
        let (h, body) = if codec_is_binary {
            call_on(&mut s, &Binary, framed, "getRow", TStruct::new())
        } else {
            call_on(&mut s, &Compact, framed, "getRow", TStruct::new())
        };
        assert_eq!(h.kind, MessageType::Reply);
        assert!(matches!(body.get(1), Some(TValue::Struct(_))), "{body:?}");
        // And a good call still works.
        let (h, _) = if codec_is_binary {
            call_on(&mut s, &Binary, framed, "getTableNames", TStruct::new())
        } else {
            call_on(&mut s, &Compact, framed, "getTableNames", TStruct::new())
        };
        assert_eq!(h.kind, MessageType::Reply);
    }
}

#[test]
fn a_missing_argument_is_refused_naming_the_method_and_the_argument() {
    use ferrobase_gateway::thrift::hbase::service::{GetRowTsArgs, MutateRowArgs};
    use ferrobase_gateway::thrift::hbase::Mutation;
    let srv = start();
    assert!(create_table(srv.addr, "t").fields.is_empty());
    // getRowTs declares only IOError: the refusal comes as one.
    let args = TStruct::new()
        .with(GetRowTsArgs::tableName, TValue::string("t"))
        .with(GetRowTsArgs::row, TValue::string("r"));
    for framed in [false, true] {
        let (h, body) = call(srv.addr, &Compact, framed, "getRowTs", args.clone());
        assert_eq!(h.kind, MessageType::Reply);
        assert_eq!(
            exception_message(&body, 1),
            "getRowTs: argument `timestamp` missing"
        );
    }
    // mutateRow declares IllegalArgument; a Mutation without its column is named inside it.
    let mutation = TStruct::new().with(Mutation::value, TValue::string("v"));
    let args = TStruct::new()
        .with(MutateRowArgs::tableName, TValue::string("t"))
        .with(MutateRowArgs::row, TValue::string("r"))
        .with(
            MutateRowArgs::mutations,
            TValue::List(TType::Struct, vec![TValue::Struct(mutation)]),
        );
    let (h, body) = call(srv.addr, &Binary, false, "mutateRow", args);
    assert_eq!(h.kind, MessageType::Reply);
    assert_eq!(
        exception_message(&body, 2),
        "mutateRow: argument `mutations`: Mutation.column missing"
    );
}

/// `createTable(name, [cf:])`; the reply's body (empty on success).
fn create_table(addr: SocketAddr, name: &str) -> TStruct {
    let create = TStruct::new().with(1, TValue::string(name)).with(
        2,
        TValue::List(
            TType::Struct,
            vec![TValue::Struct(
                TStruct::new().with(1, TValue::string("cf:")),
            )],
        ),
    );
    let (h, body) = call(addr, &Binary, false, "createTable", create);
    assert_eq!(h.kind, MessageType::Reply);
    body
}

#[test]
fn three_hundred_connections_all_get_answers() {
    let srv = start();
    assert!(create_table(srv.addr, "t").fields.is_empty());
    // Hold 300 idle connections open, then use every one of them.
    let mut conns: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(srv.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    for (i, s) in conns.iter_mut().enumerate() {
        let row = format!("row{i}");
        let mutation = TValue::Struct(
            TStruct::new()
                .with(1, TValue::Bool(false))
                .with(2, TValue::string("cf:q"))
                .with(3, TValue::string(format!("v{i}"))),
        );
        let args = TStruct::new()
            .with(1, TValue::string("t"))
            .with(2, TValue::string(row))
            .with(3, TValue::List(TType::Struct, vec![mutation]))
            .with(4, TValue::Map(TType::Binary, TType::Binary, vec![]));
        let (h, body) = call_on(s, &Binary, false, "mutateRow", args);
        assert_eq!(h.kind, MessageType::Reply);
        assert!(body.fields.is_empty(), "{body:?}");
    }
    let sid_args = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::string(""))
        .with(3, TValue::List(TType::Binary, vec![]))
        .with(4, TValue::Map(TType::Binary, TType::Binary, vec![]));
    let (_, body) = call(srv.addr, &Binary, false, "scannerOpen", sid_args);
    let Some(TValue::I32(id)) = body.get(0) else {
        panic!("{body:?}")
    };
    let (_, body) = call(
        srv.addr,
        &Binary,
        false,
        "scannerGetList",
        TStruct::new()
            .with(1, TValue::I32(*id))
            .with(2, TValue::I32(1000)),
    );
    let Some(TValue::List(_, rows)) = body.get(0) else {
        panic!("{body:?}")
    };
    assert_eq!(rows.len(), 300);
}

#[test]
fn connections_past_the_cap_are_closed_and_a_freed_place_is_reused() {
    let srv = start_with(EngineOptions::default(), |o| o.max_connections = 5);
    let mut held: Vec<TcpStream> = (0..5)
        .map(|_| TcpStream::connect(srv.addr).unwrap())
        .collect();
    for s in &mut held {
        let (h, _) = call_on(s, &Binary, false, "getTableNames", TStruct::new());
        assert_eq!(h.kind, MessageType::Reply);
    }
    // The sixth is accepted and closed at once: its read ends without an answer.
    let mut extra = TcpStream::connect(srv.addr).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 16];
    assert!(matches!(extra.read(&mut buf), Ok(0) | Err(_)));
    // Closing one frees its place.
    drop(held.pop());
    let mut tries = 0;
    loop {
        let mut s = TcpStream::connect(srv.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut msg = Vec::new();
        Binary.write_header(
            &mut msg,
            &MessageHeader {
                name: "getTableNames".into(),
                kind: MessageType::Call,
                seq_id: 1,
            },
        );
        Binary.write_struct(&mut msg, &TStruct::new());
        let _ = s.write_all(&msg);
        if matches!(s.read(&mut buf), Ok(n) if n > 0) {
            break;
        }
        // The server notices the closed connection on its next wait (within 250 ms).
        tries += 1;
        assert!(tries < 100, "a freed place was never reused");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Calls `name(table)` (`disableTable`, `deleteTable`, `majorCompact`) and returns the reply's
/// exception message, if any.
fn table_call(addr: SocketAddr, name: &str, table: &str) -> Option<String> {
    let (h, body) = call(
        addr,
        &Binary,
        false,
        name,
        TStruct::new().with(1, TValue::string(table)),
    );
    assert_eq!(h.kind, MessageType::Reply, "{name}");
    match body.get(1) {
        Some(TValue::Struct(e)) => match e.get(1) {
            Some(TValue::Binary(m)) => Some(String::from_utf8_lossy(m).into_owned()),
            other => Some(format!("{other:?}")),
        },
        _ => None,
    }
}

/// Loads `rows` rows of 256 bytes into `table` over one connection, 100 rows a call.
fn load(addr: SocketAddr, table: &str, first: usize, rows: usize) {
    let mut s = TcpStream::connect(addr).unwrap();
    for chunk in (first..first + rows).collect::<Vec<_>>().chunks(100) {
        let batches = chunk
            .iter()
            .map(|i| {
                let mutation = TValue::Struct(
                    TStruct::new()
                        .with(1, TValue::Bool(false))
                        .with(2, TValue::string("cf:q"))
                        .with(3, TValue::Binary(vec![b'v'; 256])),
                );
                TValue::Struct(
                    TStruct::new()
                        .with(1, TValue::string(format!("row{i:07}")))
                        .with(2, TValue::List(TType::Struct, vec![mutation])),
                )
            })
            .collect();
        let args = TStruct::new()
            .with(1, TValue::string(table))
            .with(2, TValue::List(TType::Struct, batches))
            .with(3, TValue::Map(TType::Binary, TType::Binary, vec![]));
        let (h, body) = call_on(&mut s, &Binary, false, "mutateRows", args);
        assert_eq!(h.kind, MessageType::Reply);
        assert!(body.fields.is_empty(), "{body:?}");
    }
}

/// Issue 33's reproduction, small: drop, recreate and load a table back to back while the
/// previous load's flushes and compactions (and a requested major compaction) still run. The
/// server must never be poisoned and still answer getTableNames and createTable.
#[test]
fn back_to_back_drop_create_load_cycles_leave_the_server_healthy() {
    let mut opts = EngineOptions {
        memstore_flush_size: 64 << 10,
        ..EngineOptions::default()
    };
    opts.compaction.min_files = 3;
    let srv = start_with(opts, |_| {});
    let addr = srv.addr;
    let mut compactions = Vec::new();
    for cycle in 0..8 {
        if cycle > 0 {
            assert_eq!(table_call(addr, "disableTable", "tl"), None);
            assert_eq!(table_call(addr, "deleteTable", "tl"), None);
        }
        assert!(create_table(addr, "tl").fields.is_empty());
        let loaders: Vec<_> = (0..2)
            .map(|l| std::thread::spawn(move || load(addr, "tl", l * 1500, 1500)))
            .collect();
        for l in loaders {
            l.join().unwrap();
        }
        // A major compaction that the next cycle's drop will land on.
        compactions.push(std::thread::spawn(move || {
            table_call(addr, "majorCompact", "tl")
        }));
    }
    for c in compactions {
        if let Some(e) = c.join().unwrap() {
            assert!(e.contains("does not exist"), "majorCompact answered {e}");
        }
    }
    assert_eq!(table_names(addr), 1);
    assert!(create_table(addr, "other").fields.is_empty());
    assert_eq!(table_names(addr), 2);
}

#[test]
fn a_scanner_call_returns_fewer_rows_once_its_results_reach_the_byte_limit() {
    let srv = start_with(EngineOptions::default(), |o| {
        o.handler.max_result_bytes = 1000
    });
    let create = TStruct::new().with(1, TValue::string("t")).with(
        2,
        TValue::List(
            TType::Struct,
            vec![TValue::Struct(
                TStruct::new().with(1, TValue::string("cf:")),
            )],
        ),
    );
    call(srv.addr, &Binary, false, "createTable", create);
    for i in 0..10 {
        let mutation = TValue::Struct(
            TStruct::new()
                .with(1, TValue::Bool(false))
                .with(2, TValue::string("cf:q"))
                .with(3, TValue::Binary(vec![b'v'; 300])),
        );
        let args = TStruct::new()
            .with(1, TValue::string("t"))
            .with(2, TValue::string(format!("r{i:03}")))
            .with(3, TValue::List(TType::Struct, vec![mutation]));
        call(srv.addr, &Binary, false, "mutateRow", args);
    }
    let open = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::Struct(TStruct::new()));
    let (_, body) = call(srv.addr, &Binary, false, "scannerOpenWithScan", open);
    let Some(TValue::I32(id)) = body.get(0) else {
        panic!("{body:?}")
    };
    // Each row is about 316 bytes: the fourth reaches 1000, so calls return 4, 4, 2, 0.
    let mut sizes = Vec::new();
    loop {
        let get = TStruct::new()
            .with(1, TValue::I32(*id))
            .with(2, TValue::I32(100));
        let (_, body) = call(srv.addr, &Binary, false, "scannerGetList", get);
        let Some(TValue::List(_, rows)) = body.get(0) else {
            panic!("{body:?}")
        };
        sizes.push(rows.len());
        if rows.is_empty() {
            break;
        }
    }
    assert_eq!(sizes, vec![4, 4, 2, 0]);
}

#[test]
fn a_full_disk_answers_writes_with_a_retryable_io_error_and_they_resume_when_space_returns() {
    use ferrobase_engine::fs::fault::FaultFileSystem;
    let fs = FaultFileSystem::new();
    let srv = start_with(
        EngineOptions {
            fs: std::sync::Arc::new(fs.clone()),
            // The guard is off: the full disk is met by the WAL write itself.
            min_free_space: Some(0),
            ..EngineOptions::default()
        },
        |_| {},
    );
    let column = TStruct::new().with(1, TValue::string("cf:"));
    let (h, body) = call(
        srv.addr,
        &Binary,
        false,
        "createTable",
        TStruct::new()
            .with(1, TValue::string("t"))
            .with(2, TValue::List(TType::Struct, vec![TValue::Struct(column)])),
    );
    assert_eq!(
        (h.kind, body.fields.len()),
        (MessageType::Reply, 0),
        "{body:?}"
    );
    // The disk is full: the put is refused with a retryable IOError, reads go on.
    fs.set_free_space(Some(0));
    let mutation = TStruct::new()
        .with(1, TValue::Bool(false))
        .with(2, TValue::string("cf:q"))
        .with(3, TValue::string("v"));
    let put = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::string("r"))
        .with(
            3,
            TValue::List(TType::Struct, vec![TValue::Struct(mutation)]),
        )
        .with(4, TValue::Map(TType::Binary, TType::Binary, vec![]));
    let io_error = |name: &str, args: TStruct| -> String {
        let (h, body) = call(srv.addr, &Binary, false, name, args);
        assert_eq!(h.kind, MessageType::Reply, "{name}");
        match body.get(1) {
            Some(TValue::Struct(io)) => match io.get(1) {
                Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                other => panic!("{name}: IOError without a message: {other:?}"),
            },
            _ => panic!("{name} answered {body:?}, not an IOError"),
        }
    };
    let m = io_error("mutateRow", put.clone());
    assert!(
        m.starts_with("writes are suspended (WAL write failed) and can be retried later"),
        "{m}"
    );
    assert!(m.contains("No space left on device"), "{m}");
    let get = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::string("r"))
        .with(3, TValue::Map(TType::Binary, TType::Binary, vec![]));
    let (h, body) = call(srv.addr, &Binary, false, "getRow", get);
    assert_eq!(h.kind, MessageType::Reply);
    assert!(matches!(body.get(0), Some(TValue::List(..))), "{body:?}");
    fs.set_free_space(None);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let (h, body) = call(srv.addr, &Binary, false, "mutateRow", put.clone());
        assert_eq!(h.kind, MessageType::Reply);
        if body.fields.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "writes did not resume: {body:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_poisoned_engine_answers_every_call_with_an_io_error_naming_the_first_failure() {
    use ferrobase_engine::fs::fault::{Fault, FaultFileSystem, OpKind};
    let fs = FaultFileSystem::new();
    let srv = start_with(
        EngineOptions {
            fs: std::sync::Arc::new(fs.clone()),
            ..EngineOptions::default()
        },
        |_| {},
    );
    let column = TStruct::new().with(1, TValue::string("cf:"));
    let (h, body) = call(
        srv.addr,
        &Binary,
        false,
        "createTable",
        TStruct::new()
            .with(1, TValue::string("t"))
            .with(2, TValue::List(TType::Struct, vec![TValue::Struct(column)])),
    );
    assert_eq!(
        (h.kind, body.fields.len()),
        (MessageType::Reply, 0),
        "{body:?}"
    );
    // The next WAL write fails with EROFS (30, the file system went read-only: not a transient
    // error like a full disk): the put is refused and the engine poisoned.
    fs.inject(Fault {
        kind: OpKind::Append,
        path_contains: ".wal".into(),
        nth: 1,
        errno: 30,
    });
    let mutation = TStruct::new()
        .with(1, TValue::Bool(false))
        .with(2, TValue::string("cf:q"))
        .with(3, TValue::string("v"));
    let put = TStruct::new()
        .with(1, TValue::string("t"))
        .with(2, TValue::string("r"))
        .with(
            3,
            TValue::List(TType::Struct, vec![TValue::Struct(mutation)]),
        )
        .with(4, TValue::Map(TType::Binary, TType::Binary, vec![]));
    let io_error = |name: &str, args: TStruct| -> String {
        let (h, body) = call(srv.addr, &Binary, false, name, args);
        assert_eq!(h.kind, MessageType::Reply, "{name}");
        match body.get(1) {
            Some(TValue::Struct(io)) => match io.get(1) {
                Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                other => panic!("{name}: IOError without a message: {other:?}"),
            },
            _ => panic!("{name} answered {body:?}, not an IOError"),
        }
    };
    let first = io_error("mutateRow", put.clone());
    assert!(first.contains("WAL write failed"), "{first}");
    // Every later call, reads included, names the same first failure.
    for (name, args) in [
        ("getTableNames", TStruct::new()),
        ("mutateRow", put),
        (
            "getRow",
            TStruct::new()
                .with(1, TValue::string("t"))
                .with(2, TValue::string("r"))
                .with(3, TValue::Map(TType::Binary, TType::Binary, vec![])),
        ),
    ] {
        let m = io_error(name, args);
        assert!(
            m.starts_with("engine is poisoned after an earlier failure: WAL write failed"),
            "{name}: {m}"
        );
    }
}

#[test]
fn a_ddl_meeting_a_full_disk_answers_an_io_error_naming_the_manifest_and_the_server_stays_healthy()
{
    use ferrobase_engine::fs::fault::{Fault, FaultFileSystem, OpKind};
    let fs = FaultFileSystem::new();
    let srv = start_with(
        EngineOptions {
            fs: std::sync::Arc::new(fs.clone()),
            min_free_space: Some(0),
            ..EngineOptions::default()
        },
        |_| {},
    );
    let create = |name: &str| {
        let column = TStruct::new().with(1, TValue::string("cf:"));
        let (h, body) = call(
            srv.addr,
            &Binary,
            false,
            "createTable",
            TStruct::new()
                .with(1, TValue::string(name))
                .with(2, TValue::List(TType::Struct, vec![TValue::Struct(column)])),
        );
        assert_eq!(h.kind, MessageType::Reply, "{name}");
        body
    };
    assert!(create("t").fields.is_empty());
    fs.inject(Fault {
        kind: OpKind::Append,
        path_contains: "MANIFEST.tmp".into(),
        nth: 1,
        errno: 28, // ENOSPC
    });
    let body = create("t2");
    let m = match body.get(1) {
        Some(TValue::Struct(io)) => match io.get(1) {
            Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
            other => panic!("IOError without a message: {other:?}"),
        },
        _ => panic!("createTable answered {body:?}, not an IOError"),
    };
    assert!(m.starts_with("the schema change was not applied"), "{m}");
    assert!(
        m.contains("MANIFEST.tmp") && m.contains("No space left on device"),
        "{m}"
    );
    // Not poisoned: the catalog is as before, and the same call now succeeds.
    assert_eq!(table_names(srv.addr), 1);
    assert!(create("t2").fields.is_empty());
    assert_eq!(table_names(srv.addr), 2);
}

/// Issue 45, 6: a client trickling its SASL handshake a byte at a time meets one deadline for
/// the whole handshake, not a per-read timeout that each byte restarts.
#[test]
fn a_trickling_handshake_is_cut_at_its_deadline() {
    use ferrobase_gateway::sasl::PasswordFile;
    let file = PasswordFile::parse(&PasswordFile::hash_line("bob", b"secret")).unwrap();
    let srv = start_with(EngineOptions::default(), |o| {
        o.passwords = Some(std::sync::Arc::new(file));
        o.handshake_timeout = Duration::from_millis(800);
    });
    let mut s = TcpStream::connect(srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let started = std::time::Instant::now();
    // A SASL START frame announced long, sent a byte every 100 ms.
    let mut closed = false;
    for b in std::iter::once(1u8)
        .chain(std::iter::repeat(b'P'))
        .take(100)
    {
        if s.write_all(&[b]).is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 64];
        if matches!(s.read(&mut buf), Ok(0)) {
            closed = true;
            break;
        }
        if started.elapsed() > Duration::from_secs(5) {
            break;
        }
    }
    assert!(closed, "the trickling handshake was never cut");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "cut after {:?}",
        started.elapsed()
    );
}

/// Issue 45, 6: connections that never send a byte cannot hold every slot: at the limit, a
/// newcomer takes the place of the oldest connection that has not begun a call, and an
/// established client is never the one closed.
#[test]
fn silent_connections_give_their_slots_to_newcomers() {
    let srv = start_with(EngineOptions::default(), |o| o.max_connections = 20);
    let mut established = TcpStream::connect(srv.addr).unwrap();
    let (h, _) = call_on(
        &mut established,
        &Binary,
        false,
        "getTableNames",
        TStruct::new(),
    );
    assert_eq!(h.kind, MessageType::Reply);
    let _silent: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(srv.addr).unwrap())
        .collect();
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let mut s = TcpStream::connect(srv.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let (h, _) = call_on(&mut s, &Binary, false, "getTableNames", TStruct::new());
        assert_eq!(h.kind, MessageType::Reply);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }
    let (h, _) = call_on(
        &mut established,
        &Binary,
        false,
        "getTableNames",
        TStruct::new(),
    );
    assert_eq!(
        h.kind,
        MessageType::Reply,
        "the established client keeps its connection"
    );
}

/// Issue 45, 8: failed password logins back off per address: right after two failures the next
/// password from that address is refused without being checked, saying how long to wait.
#[test]
fn failed_logins_back_off_per_address() {
    use ferrobase_gateway::sasl::{connect_plain, PasswordFile};
    let file = PasswordFile::parse(&PasswordFile::hash_line("bob", b"secret")).unwrap();
    let srv = start_with(EngineOptions::default(), |o| {
        o.passwords = Some(std::sync::Arc::new(file));
    });
    let login = |password: &str| {
        let mut s = TcpStream::connect(srv.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        connect_plain(&mut s, "bob", password).map_err(|e| e.to_string())
    };
    assert!(login("wrong").is_err());
    assert!(login("wrong").is_err());
    let started = std::time::Instant::now();
    let refused = login("secret").unwrap_err();
    assert!(refused.contains("too many failed logins"), "{refused}");
    assert!(
        started.elapsed() < Duration::from_millis(60),
        "{:?}",
        started.elapsed()
    );
    std::thread::sleep(Duration::from_millis(500));
    login("secret").unwrap();
}

/// Issue 39, 3: a call carrying more mutations than --max-mutations-per-call is refused
/// before any is applied, naming the limit; one within it is applied.
#[test]
fn a_call_with_too_many_mutations_is_refused_whole() {
    let srv = start_with(EngineOptions::default(), |o| {
        o.handler.max_mutations_per_call = 100
    });
    let mut s = TcpStream::connect(srv.addr).unwrap();
    let cf = TValue::Struct(TStruct::new().with(1, TValue::string("cf:")));
    let (h, body) = call_on(
        &mut s,
        &Binary,
        false,
        "createTable",
        TStruct::new()
            .with(1, TValue::string("many"))
            .with(2, TValue::List(TType::Struct, vec![cf])),
    );
    assert_eq!(h.kind, MessageType::Reply);
    assert!(body.fields.is_empty(), "{body:?}");
    let mutations = |n: usize| {
        (0..n)
            .map(|i| {
                TValue::Struct(
                    TStruct::new()
                        .with(1, TValue::Bool(false))
                        .with(2, TValue::string(format!("cf:q{i}")))
                        .with(3, TValue::string("v")),
                )
            })
            .collect::<Vec<_>>()
    };
    let args = |n: usize| {
        TStruct::new()
            .with(1, TValue::string("many"))
            .with(2, TValue::string("r1"))
            .with(3, TValue::List(TType::Struct, mutations(n)))
            .with(4, TValue::Map(TType::Binary, TType::Binary, vec![]))
    };
    let (_, body) = call_on(&mut s, &Binary, false, "mutateRow", args(101));
    let message = exception_message(&body, 1);
    assert!(message.contains("--max-mutations-per-call"), "{message}");
    assert!(message.contains("101 mutations"), "{message}");
    let (_, body) = call_on(
        &mut s,
        &Binary,
        false,
        "getRow",
        TStruct::new()
            .with(1, TValue::string("many"))
            .with(2, TValue::string("r1"))
            .with(3, TValue::Map(TType::Binary, TType::Binary, vec![])),
    );
    assert!(
        matches!(body.get(0), Some(TValue::List(_, rows)) if rows.is_empty()),
        "nothing applied: {body:?}"
    );
    let (_, body) = call_on(&mut s, &Binary, false, "mutateRow", args(100));
    assert!(body.fields.is_empty(), "{body:?}");
}
