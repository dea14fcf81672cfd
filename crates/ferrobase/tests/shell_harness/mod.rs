//! Runs `ferrobase shell` on a script, for the shell's integration tests.

#![allow(dead_code, reason = "each test binary uses a part of the harness")]

#[path = "../serve_harness/mod.rs"]
mod serve_harness;

use std::process::{Command, Stdio};

#[allow(unused_imports, reason = "each test binary uses a part of the harness")]
pub use serve_harness::{passwd, run};

/// Runs `ferrobase shell ARGS` with `input` on standard input: its standard output and whether
/// it exited successfully.
pub fn shell(args: &[&str], input: &str) -> (String, bool) {
    let args: Vec<&str> = std::iter::once("shell")
        .chain(args.iter().copied())
        .collect();
    let out = run(&args, &[("RUST_BACKTRACE", "0")], input);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

/// Runs `input` in an embedded shell on a fresh data directory.
pub fn embedded(input: &str) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    shell(&["--data", &dir.path().display().to_string()], input)
}

/// The output without `Took ...` lines (their times vary).
pub fn untimed(out: &str) -> String {
    out.lines()
        .filter(|l| !l.starts_with("Took "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Timestamps (`timestamp=NNN`) replaced by `timestamp=T`.
pub fn no_timestamps(out: &str) -> String {
    let re = regex::Regex::new(r"timestamp=\d+").unwrap();
    re.replace_all(out, "timestamp=T").into_owned()
}

/// A `ferrobase serve` process, stopped (SIGTERM, a clean shutdown) when dropped.
pub struct Served(pub std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

/// A `ferrobase serve` on a free port over `dir`; returns the process and `thrift://ADDR`.
pub fn serve(dir: &std::path::Path) -> (Served, String) {
    serve_with(dir, &[])
}

/// [`serve`] with further options of `ferrobase serve` (`--acl`, `--superuser USER`, ...).
pub fn serve_with(dir: &std::path::Path, extra: &[&str]) -> (Served, String) {
    let (server, addr) = serve_harness::spawn(dir, extra, Stdio::inherit());
    (Served(server), format!("thrift://{addr}"))
}
