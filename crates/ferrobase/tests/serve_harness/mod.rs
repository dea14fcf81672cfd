//! Starting `ferrobase serve` from the binary's tests: one place that spawns it on a free port
//! and reads the address from the line it prints once it listens.

#![allow(dead_code, reason = "each test binary uses a part of the harness")]

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Starts `ferrobase serve --port 0 --data DATA EXTRA...` with `stderr` as its standard error
/// and waits for its address line; its standard output stays open with the child.
pub fn spawn(data: &Path, extra: &[&str], stderr: Stdio) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--data"])
        .arg(data)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (child, addr)
}

/// Starts `ferrobase serve --port 0 --rest-port 0 EXTRA... --data DATA` (stderr discarded) and
/// waits for both ports' lines: the child, the REST address, the Thrift address.
pub fn spawn_with_rest(data: &Path, extra: &[&str]) -> (Child, SocketAddr, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--rest-port", "0"])
        .args(extra)
        .arg("--data")
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut rest, mut thrift) = (None, None);
    while rest.is_none() || thrift.is_none() {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "serve exited");
        let addr = line.split_whitespace().find_map(|w| w.parse().ok());
        if line.contains("REST API on") {
            rest = addr;
        } else if line.contains("HBase Thrift API on") {
            thrift = addr;
        }
    }
    (child, rest.unwrap(), thrift.unwrap())
}

/// Sends `raw` (a whole HTTP request) to `addr` and reads the answer to the end.
pub fn http(addr: SocketAddr, raw: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(raw.as_bytes()).unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut s, &mut out).unwrap();
    out
}

/// Runs `ferrobase ARGS` with `env` set and `stdin` on its standard input, to its exit.
pub fn run(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `ferrobase passwd USER`'s line for an `--auth-file`, with password `password`.
pub fn passwd(user: &str, password: &str) -> String {
    let out = run(&["passwd", user], &[], &format!("{password}\n"));
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// A `ferrobase serve` on a fresh data directory, killed (SIGKILL) when dropped.
pub struct Serve {
    /// The server process.
    pub child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Serve {
    /// Starts `ferrobase serve EXTRA...` on a fresh data directory (stderr inherited).
    pub fn start(extra: &[&str]) -> Serve {
        let dir = tempfile::tempdir().unwrap();
        let (child, addr) = spawn(dir.path(), extra, Stdio::inherit());
        Serve {
            child,
            addr,
            _dir: dir,
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
