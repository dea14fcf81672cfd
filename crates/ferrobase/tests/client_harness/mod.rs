//! What the client suites share: a `ferrobase serve` gateway in this process on a fresh data
//! directory, and Apache HBase's Thrift1 gateway when `FERROBASE_HBASE_THRIFT=host:port` names
//! it (`scripts/test.sh` sets it from the oracle).
#![allow(dead_code, reason = "each test binary uses a part of the harness")]

use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::{Server, ServerOptions, StopHandle};

/// A gateway serving a fresh engine on a free loopback port; stopped and joined when dropped.
pub struct Gateway {
    /// `thrift://127.0.0.1:PORT`.
    pub url: String,
    /// The server's handle: its call counters and open scanners.
    pub stop: StopHandle,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Gateway {
    pub fn start() -> Gateway {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let server = Server::bind(
            engine,
            ServerOptions {
                addr: "127.0.0.1:0".parse().unwrap(),
                ..ServerOptions::default()
            },
        )
        .unwrap();
        let url = format!("thrift://{}", server.local_addr().unwrap());
        let stop = server.stop_handle().unwrap();
        let thread = Some(std::thread::spawn(move || server.run().unwrap()));
        Gateway {
            url,
            stop,
            thread,
            _dir: dir,
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(t) = self.thread.take() {
            // A server that panicked fails the test, unless it is already failing.
            if t.join().is_err() && !std::thread::panicking() {
                panic!("the gateway's thread panicked");
            }
        }
    }
}

/// `thrift://` Apache HBase's gateway and a table name no other run uses, or `None` (with a
/// note) when `FERROBASE_HBASE_THRIFT` is not set.
pub fn apache_hbase(prefix: &str) -> Option<(String, String)> {
    let Ok(addr) = std::env::var("FERROBASE_HBASE_THRIFT") else {
        eprintln!("FERROBASE_HBASE_THRIFT is not set: the Apache HBase run is skipped");
        return None;
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    Some((
        format!("thrift://{addr}"),
        format!("{prefix}_{}_{nanos}", std::process::id()),
    ))
}
