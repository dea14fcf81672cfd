//! A Thrift server running on a thread of its own for the gateway's integration tests, stopped
//! and joined when dropped.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::Engine;
use ferrobase_gateway::{Server, ServerOptions, StopHandle};
use std::net::SocketAddr;

/// A running server, its engine and the directory its data is in.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The engine it serves.
    pub engine: Engine,
    stop: StopHandle,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves `engine` (whose data is in `dir`) with `opts` on a thread of its own.
pub fn serve(dir: tempfile::TempDir, engine: Engine, opts: ServerOptions) -> Running {
    let server = Server::bind(engine.clone(), opts).unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    let thread = std::thread::spawn(move || server.run().unwrap());
    Running {
        addr,
        engine,
        stop,
        thread: Some(thread),
        _dir: dir,
    }
}
