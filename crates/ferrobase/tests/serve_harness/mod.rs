//! Starting `ferrobase serve` from the binary's tests: one place that spawns it on a free port
//! and reads the address from the line it prints once it listens.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};

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
