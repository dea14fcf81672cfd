//! A server's slow-operation log as a client reads it (`ferrobaseAdmin` `slow_log`): the calls
//! every door of the server kept as slower than its `--slow-ms`, newest first, each with what
//! its reads cost (the explain line).

use crate::{ClientError, Result};
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::ThriftValue;

/// One slow call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowLogEntry {
    /// When it ended, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The door: `thrift`, `thrift2` or `native`.
    pub door: String,
    /// The service and method (`Hbase.getRow`).
    pub method: String,
    /// The table it named, empty when none.
    pub table: String,
    /// The connection's user, empty when the door knows none.
    pub user: String,
    /// How long it ran, in microseconds.
    pub duration_micros: u64,
    /// What it named (row, scanner) and its outcome.
    pub description: String,
    /// What its reads cost (`ReadCost`'s explain line), empty when it read nothing.
    pub explain: String,
}

impl crate::remote::Remote {
    /// The server's slow log, newest first; `Unsupported` through Apache HBase's gateway.
    pub(crate) fn slow_log(&self) -> Result<Vec<SlowLogEntry>> {
        let bad = |what: String| ClientError::Transport(format!("slow_log: {what}"));
        let Some(answer) = self.admin_call(AdminOp::SlowLog, "", b"", &[])? else {
            return Err(bad("no answer".into()));
        };
        let items = Vec::<String>::from_value(answer).map_err(|e| bad(e.to_string()))?;
        items
            .chunks(8)
            .map(|c| {
                let [at, door, method, table, user, micros, description, explain] = c else {
                    return Err(bad(format!("an incomplete entry {c:?}")));
                };
                let number = |s: &String| {
                    s.parse::<u64>()
                        .map_err(|e| bad(format!("{s:?} is not a number: {e}")))
                };
                Ok(SlowLogEntry {
                    at_ms: number(at)?,
                    door: door.clone(),
                    method: method.clone(),
                    table: table.clone(),
                    user: user.clone(),
                    duration_micros: number(micros)?,
                    description: description.clone(),
                    explain: explain.clone(),
                })
            })
            .collect()
    }
}
