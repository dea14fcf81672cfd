//! What the shell's `status` prints beyond HBase's shapes, the same facts as the server's
//! console: rows read and written (the heat map's window) and their rate, write suspensions by
//! cause, the flushes and compactions running and the last ones that ended, and (through a
//! server) the serving door's open scanners. Embedded, read from the engine; remote, through
//! `ferrobaseAdmin` `server_status`.

use crate::{ClientError, Result};
use ferrobase_engine::Engine;
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::ThriftValue;

/// The facts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerStatus {
    /// Rows read and written per second, over the last full heat-map bucket and the current one.
    pub requests_per_second: f64,
    /// Rows read over the window.
    pub read_rows: u64,
    /// Rows written over the window.
    pub write_rows: u64,
    /// The window, in seconds.
    pub window_secs: u64,
    /// Write suspensions since the start, by cause (`wal_write`, `flush_write`,
    /// `low_disk_space`, `manifest_write`).
    pub write_suspensions: Vec<(String, u64)>,
    /// Scanners open on the serving door; `None` embedded (no door).
    pub open_scanners: Option<u64>,
    /// The flushes and compactions running, one line each.
    pub running: Vec<String>,
    /// The last ones that ended, newest first, one line each.
    pub recent: Vec<String>,
}

impl ServerStatus {
    /// The facts of an embedded engine.
    pub(crate) fn of(engine: &Engine) -> ServerStatus {
        let counts = engine.request_counts();
        let m = engine.metrics();
        let jobs = engine.background_jobs();
        ServerStatus {
            requests_per_second: counts.per_second,
            read_rows: counts.read_rows,
            write_rows: counts.write_rows,
            window_secs: counts.window_secs,
            write_suspensions: ferrobase_engine::StallCause::ALL
                .iter()
                .zip(&m.write_suspensions_by_cause)
                .map(|(c, n)| (c.label().to_string(), ferrobase_engine::Metrics::get(n)))
                .collect(),
            open_scanners: None,
            running: jobs.running.iter().map(|j| j.summary_line()).collect(),
            recent: jobs.recent.iter().map(|j| j.summary_line()).collect(),
        }
    }

    /// Write suspensions of every cause added.
    pub fn write_suspensions_total(&self) -> u64 {
        self.write_suspensions.iter().map(|c| c.1).sum()
    }
}

impl crate::remote::Remote {
    /// The server's facts; `Unsupported` through Apache HBase's gateway.
    pub(crate) fn server_status(&self) -> Result<ServerStatus> {
        let bad = |what: String| ClientError::Transport(format!("server_status: {what}"));
        let Some(answer) = self.admin_call(AdminOp::ServerStatus, "", b"", &[])? else {
            return Err(bad("no answer".into()));
        };
        let items = Vec::<String>::from_value(answer).map_err(|e| bad(e.to_string()))?;
        let mut s = ServerStatus::default();
        for pair in items.chunks(2) {
            let [key, value] = pair else {
                return Err(bad(format!("a key without a value: {pair:?}")));
            };
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|e| bad(format!("{key} {value:?} is not a number: {e}")))
            };
            match key.as_str() {
                "requests_per_second" => {
                    s.requests_per_second = value
                        .parse()
                        .map_err(|e| bad(format!("{key} {value:?}: {e}")))?
                }
                "read_rows" => s.read_rows = number()?,
                "write_rows" => s.write_rows = number()?,
                "window_secs" => s.window_secs = number()?,
                "open_scanners" => s.open_scanners = Some(number()?),
                "running" => s.running.push(value.clone()),
                "recent" => s.recent.push(value.clone()),
                k => {
                    // A newer server's fact this client does not know is left out.
                    if let Some(cause) = k.strip_prefix("write_suspensions.") {
                        s.write_suspensions.push((cause.to_string(), number()?));
                    }
                }
            }
        }
        Ok(s)
    }
}
