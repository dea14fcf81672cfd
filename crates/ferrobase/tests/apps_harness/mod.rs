//! Running `ferrobase app ...` and `ferrobase serve` from the seed-application tests.

#![allow(
    dead_code,
    reason = "each test file uses a different part of the harness"
)]

#[path = "../serve_harness/mod.rs"]
mod serve_harness;

use std::process::{Child, Command, Stdio};

/// The binary under test.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_ferrobase")
}

/// Runs `ferrobase app ARGS` to completion; panics with its stderr on failure; returns stdout.
pub fn app(args: &[&str]) -> String {
    let out = Command::new(binary())
        .arg("app")
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ferrobase app {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A `ferrobase serve` on an ephemeral port, stopped on drop.
pub struct Server {
    child: Child,
    /// `thrift://127.0.0.1:PORT`.
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Starts a server on a fresh data directory and waits for its address line.
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    /// Starts a server with extra `ferrobase serve` options on a fresh data directory and
    /// waits for its address line.
    pub fn start_with(options: &[&str]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let (child, addr) = serve_harness::spawn(dir.path(), options, Stdio::inherit());
        Server {
            child,
            url: format!("thrift://{addr}"),
            _dir: dir,
        }
    }

    /// The server's data directory.
    pub fn data_dir(&self) -> &std::path::Path {
        self._dir.path()
    }
}

/// A server process killed (SIGKILL) when dropped, so a failed test leaves none behind.
pub struct Process(pub Child);

impl Process {
    /// Kills the process with SIGKILL and reaps it.
    pub fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `ferrobase serve` on `dir` (not removed with it): the process, to kill and restart
/// over the same data, and `thrift://127.0.0.1:PORT`.
pub fn serve_on(dir: &std::path::Path) -> (Process, String) {
    let (child, addr) = serve_harness::spawn(dir, &[], Stdio::inherit());
    (Process(child), format!("thrift://{addr}"))
}

/// Runs `ferrobase app ARGS` to completion: whether it succeeded, and its stdout.
pub fn app_status(args: &[&str]) -> (bool, String) {
    let out = Command::new(binary())
        .arg("app")
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap())
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
