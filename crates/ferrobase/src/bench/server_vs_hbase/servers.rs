//! Starting and watching the two servers: `ferrobase serve` (this binary) and Apache HBase
//! standalone through scripts/hbase-oracle.sh; their CPU time and resident memory from `/proc`.

use anyhow::{anyhow, bail, Context, Result};
use ferrobase_client::Connection;
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// User + system CPU seconds of process `pid` so far.
pub(super) fn cpu_seconds(pid: u32) -> Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("reading /proc/{pid}/stat"))?;
    let after = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| anyhow!("/proc/{pid}/stat has no ')'"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| -> Result<f64> {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .ok_or_else(|| anyhow!("/proc/{pid}/stat: field {i} missing"))
    };
    Ok((field(11)? + field(12)?) / USER_HZ)
}

/// The unit of `/proc/PID/stat`'s utime and stime: clock ticks of USER_HZ, 100 a second on
/// every Linux architecture's user-space ABI.
const USER_HZ: f64 = 100.0;

/// Resident memory of process `pid` in MiB (`VmRSS`), `None` when it cannot be read.
pub(super) fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Waits until the gateway at `url` answers a call; the seconds since `t0`.
pub(super) fn first_answer(url: &str, t0: Instant) -> Result<f64> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match Connection::open(url).and_then(|c| c.list_tables()) {
            Ok(_) => return Ok(t0.elapsed().as_secs_f64()),
            Err(e) if Instant::now() > deadline => return Err(e).context(url.to_string()),
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// `ferrobase serve` (`binary`, or this one) on a free port: (child, url, seconds to its first
/// answer).
pub(super) fn start_ferrobase(
    data: &std::path::Path,
    binary: Option<&std::path::Path>,
) -> Result<(Child, String, f64)> {
    let exe = match binary {
        Some(b) => b.to_path_buf(),
        None => std::env::current_exe()?,
    };
    let t0 = Instant::now();
    let mut child = Command::new(exe)
        .args(["serve", "--port", "0", "--data"])
        .arg(data)
        .stdout(Stdio::piped())
        .spawn()
        .context("starting ferrobase serve")?;
    let mut line = String::new();
    let out = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    std::io::BufReader::new(out).read_line(&mut line)?;
    let addr = line
        .split(" on ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .ok_or_else(|| anyhow!("ferrobase serve printed {line:?}, not its address"))?;
    let url = format!("thrift://{addr}");
    let secs = first_answer(&url, t0)?;
    Ok((child, url, secs))
}

/// scripts/hbase-oracle.sh `cmd` for the bench instance (its state in target/hbase-bench, an
/// absolute path: the script runs Java from tests/hbase-oracle).
pub(super) fn oracle(cmd: &str, heap: &str) -> Command {
    let state_dir = std::env::current_dir()
        .unwrap_or_default()
        .join("target")
        .join("hbase-bench");
    let mut c = Command::new("bash");
    c.args(["scripts/hbase-oracle.sh", cmd])
        .env("HBASE_ORACLE_STATE_DIR", state_dir)
        .env("HBASE_ORACLE_PROFILE", "bench")
        .env("HBASE_ORACLE_HEAP", heap);
    c
}

/// HBase standalone through scripts/hbase-oracle.sh: (pid, url, seconds to its first answer).
pub(super) fn start_hbase(heap: &str) -> Result<(u32, String, f64)> {
    let _ = oracle("stop", heap).stderr(Stdio::null()).status();
    // The build check first, so that the start is timed alone.
    let _ = oracle("status", heap)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let t0 = Instant::now();
    let out = oracle("start", heap)
        .output()
        .context("running scripts/hbase-oracle.sh (run from the repository's root)")?;
    if !out.status.success() {
        bail!(
            "scripts/hbase-oracle.sh start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |k: &str| {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(k))
            .and_then(|v| v.parse::<u32>().ok())
            .ok_or_else(|| anyhow!("no {k} in the oracle's ready line {text:?}"))
    };
    let url = format!("thrift://127.0.0.1:{}", field("thrift1=")?);
    let pid = field("pid=")?;
    let secs = first_answer(&url, t0)?;
    Ok((pid, url, secs))
}

/// The share of one core under which a server counts as idle between turns: above what a
/// server at rest uses (HBase's chores and JVM threads, a fraction of a per cent here) and far
/// below a compaction or a collection.
const QUIET_SHARE: f64 = 0.05;

/// How long each look at the servers' CPU lasts while settling.
const QUIET_WINDOW: Duration = Duration::from_millis(500);

/// Waits, at most `limit`, until every process of `pids` used less than [`QUIET_SHARE`] of a
/// core over two windows of [`QUIET_WINDOW`] in a row, so that a turn does not run beside the
/// other server's flushes, compactions or garbage collection left over from its own turn.
/// Returns the seconds waited and whether the servers came to rest.
pub(super) fn settle(pids: &[u32], limit: Duration) -> Result<(f64, bool)> {
    let t0 = Instant::now();
    let mut quiet_windows = 0;
    while quiet_windows < 2 {
        if t0.elapsed() >= limit {
            return Ok((t0.elapsed().as_secs_f64(), false));
        }
        let before: Vec<f64> = pids
            .iter()
            .map(|&p| cpu_seconds(p))
            .collect::<Result<_>>()?;
        let w0 = Instant::now();
        std::thread::sleep(QUIET_WINDOW);
        let secs = w0.elapsed().as_secs_f64();
        let mut busy = false;
        for (&p, b) in pids.iter().zip(before) {
            busy |= (cpu_seconds(p)? - b) / secs >= QUIET_SHARE;
        }
        quiet_windows = if busy { 0 } else { quiet_windows + 1 };
    }
    Ok((t0.elapsed().as_secs_f64(), true))
}
