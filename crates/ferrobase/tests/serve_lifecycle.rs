//! `ferrobase serve` as a process: SIGTERM lets a call in flight finish before the engine
//! closes, and a scanner left unused past its lease is closed with HBase's answer.

mod serve_harness;

#[path = "../../gateway/tests/support/calls.rs"]
mod calls;

use ferrobase_client::Connection;
use ferrobase_engine::{Bytes, TableName};
use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, Get, Put, TableDescriptor};
use ferrobase_gateway::thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, TStruct, TType, TValue,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// A `ferrobase serve` child with its stderr lines forwarded to a channel.
struct Serve {
    child: Child,
    addr: String,
    stderr: Receiver<String>,
    dir: tempfile::TempDir,
}

impl Serve {
    fn start(extra: &[&str]) -> Serve {
        let dir = tempfile::tempdir().unwrap();
        let (mut child, addr) = serve_harness::spawn(dir.path(), extra, Stdio::piped());
        let addr = addr.to_string();
        let (tx, stderr) = channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        Serve {
            child,
            addr,
            stderr,
            dir,
        }
    }

    fn client(&self) -> Connection {
        Connection::open(&format!("thrift://{}", self.addr)).unwrap()
    }

    /// Waits (at most 10 s) for a stderr line containing `text`.
    fn wait_for_stderr(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(l) if l.contains(text) => return,
                Ok(_) => {}
                Err(e) => panic!("no stderr line with {text:?}: {e}"),
            }
        }
    }

    fn sigterm(&self) {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -TERM failed");
    }

    /// Waits (at most 30 s) for the process to exit and returns whether it succeeded.
    fn wait_exit(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            assert!(Instant::now() < deadline, "ferrobase serve did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn create_table(s: &Serve) {
    s.client()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
            &[],
        )
        .unwrap();
}

/// One call's bytes (binary protocol, unframed).
fn encode(name: &str, args: &TStruct) -> Vec<u8> {
    calls::call_message(name, 1, args)
}

/// Reads one reply from `s` (10 s at most).
fn read_reply(s: &mut TcpStream) -> (MessageHeader, TStruct) {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut r: Box<dyn Read> = Box::new(s.try_clone().unwrap());
    let limits = Limits::default();
    let mut b = Budget::new(&mut r, &limits);
    let h = Binary.read_header(&mut b).unwrap();
    let body = Binary.read_struct(&mut b).unwrap();
    (h, body)
}

fn call(s: &mut TcpStream, name: &str, args: TStruct) -> TStruct {
    s.write_all(&encode(name, &args)).unwrap();
    let (h, body) = read_reply(s);
    assert_eq!(h.kind, MessageType::Reply, "{name}: {body:?}");
    body
}

fn bin(s: &str) -> TValue {
    TValue::Binary(s.as_bytes().to_vec())
}

fn no_attributes() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, vec![])
}

#[test]
fn sigterm_lets_a_call_in_flight_finish_and_the_write_is_durable() {
    let mut s = Serve::start(&[]);
    create_table(&s);
    // A mutateRow whose last byte is held back: the server has begun reading it (the call is
    // in flight) when SIGTERM arrives.
    let mutation = TStruct::new()
        .with(1, TValue::Bool(false))
        .with(2, bin("cf:q"))
        .with(3, bin("in flight"))
        .with(4, TValue::Bool(true));
    let args = TStruct::new()
        .with(1, bin("t"))
        .with(2, bin("r1"))
        .with(
            3,
            TValue::List(TType::Struct, vec![TValue::Struct(mutation)]),
        )
        .with(4, no_attributes());
    let bytes = encode("mutateRow", &args);
    let (head, last) = bytes.split_at(bytes.len() - 1);
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    conn.write_all(head).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    s.sigterm();
    s.wait_for_stderr("shutting down");
    // The server has stopped accepting; the call it is reading still gets its answer.
    std::thread::sleep(Duration::from_millis(300));
    conn.write_all(last).unwrap();
    let (h, body) = read_reply(&mut conn);
    assert_eq!(h.kind, MessageType::Reply, "{body:?}");
    assert!(body.fields.is_empty(), "mutateRow failed: {body:?}");
    assert!(s.wait_exit(), "ferrobase serve exited with a failure");
    s.wait_for_stderr("stopped cleanly");
    // The engine was closed after the call: the write is there on the next open.
    let engine = Engine::open(s.dir.path(), EngineOptions::default()).unwrap();
    let row = engine.table("t").unwrap().get(&Get::new("r1")).unwrap();
    assert_eq!(row.value(b"cf", b"q"), Some(&b"in flight"[..]));
}

#[test]
fn a_scanner_unused_past_its_lease_is_closed_and_a_used_one_is_not() {
    let s = Serve::start(&["--scanner-lease", "0.5"]);
    create_table(&s);
    let t = s.client().table("t");
    for r in ["a", "b", "c", "d"] {
        t.put(Put::new(r).add_column("cf", "q", Bytes::from_static(b"v")))
            .unwrap();
    }
    let mut conn = TcpStream::connect(&s.addr).unwrap();
    let open = |conn: &mut TcpStream| {
        let body = call(
            conn,
            "scannerOpen",
            TStruct::new()
                .with(1, bin("t"))
                .with(2, bin(""))
                .with(3, TValue::List(TType::Binary, vec![]))
                .with(4, no_attributes()),
        );
        match body.get(0) {
            Some(TValue::I32(id)) => *id,
            other => panic!("scannerOpen answered {other:?}"),
        }
    };
    let get = |conn: &mut TcpStream, id: i32| {
        call(conn, "scannerGet", TStruct::new().with(1, TValue::I32(id)))
    };
    // Used every 0.3 s for 1.2 s, more than twice the lease: each use renews it.
    let kept = open(&mut conn);
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(300));
        let body = get(&mut conn, kept);
        assert!(
            matches!(body.get(0), Some(TValue::List(_, rows)) if rows.len() == 1),
            "a scanner in use answered {body:?}"
        );
    }
    // Left alone for three leases (the sweeper runs every 0.5 s): closed.
    let idle = open(&mut conn);
    std::thread::sleep(Duration::from_millis(1500));
    let body = get(&mut conn, idle);
    let Some(TValue::Struct(ia)) = body.get(2) else {
        panic!("an expired scanner answered {body:?}, not IllegalArgument");
    };
    assert_eq!(ia.get(1), Some(&bin("scanner ID is invalid")), "{ia:?}");
}

#[test]
fn a_free_space_reserve_larger_than_the_disk_refuses_writes_retryably_and_reads_go_on() {
    // 1 EB: no disk has that much free, so the guard refuses every write at once.
    let s = Serve::start(&[
        "--min-free-space",
        "1000000000000000000",
        "--durability",
        "FSYNC_WAL",
    ]);
    create_table(&s);
    let t = s.client().table("t");
    let err = t
        .put(Put::new("r").add_column("cf", "q", "v"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("can be retried"), "{err}");
    assert!(
        err.contains("below the reserve of 1000000000000000000 bytes"),
        "{err}"
    );
    assert!(t.get(Get::new("r"), None).unwrap().cells.is_empty());
}

#[test]
fn serve_refuses_a_durability_that_is_not_a_server_default() {
    for bad in ["SKIP_WAL", "USE_DEFAULT", "SOMETIMES"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
            .args(["serve", "--port", "0", "--durability", bad])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--durability takes SYNC_WAL, FSYNC_WAL or ASYNC_WAL"),
            "{bad}: {err}"
        );
    }
}
