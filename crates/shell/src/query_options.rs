//! The options of `get`, `scan` and the mutations that change nothing a single-replica store
//! without coprocessors or visibility labels returns, read and checked as HBase's `table.rb`
//! reads them: `ATTRIBUTES` (operation attributes, which only coprocessors read),
//! `AUTHORIZATIONS` (visibility labels: ferrobase's cells carry none, so every cell is visible,
//! as on an HBase cluster without the VisibilityController), `CONSISTENCY` (`STRONG` or
//! `TIMELINE`: one replica answers both), `REGION_REPLICA_ID` (0, the only replica),
//! `ISOLATION_LEVEL`, `READ_TYPE`, `MAX_RESULT_SIZE`, `ALLOW_PARTIAL_RESULTS`, `CACHE` and
//! `CACHE_BLOCKS` (how a scan is fetched, not what it returns), and the scan metrics options
//! `METRICS` and `ALL_METRICS`. A value HBase would refuse is refused with HBase's message; a
//! value naming something ferrobase lacks (a second replica) is refused saying so.

use super::args::{boolean, hash, int, text, Res};
use super::format;
use super::syntax::Value;

/// Which scan metrics to print after a scan (`METRICS => [...]`, `ALL_METRICS => true`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub enum MetricsRequest {
    /// No metrics (the default).
    #[default]
    None,
    /// Every metric.
    All,
    /// The named metrics only.
    Named(Vec<String>),
}

/// The scan metrics ferrobase's shell measures, by HBase's names (`ScanMetrics`). Values the
/// client cannot see (server-side block reads, retries that never happen) are 0, as HBase
/// prints them when nothing of the kind occurred.
#[derive(Debug, Default, Clone, Copy)]
pub struct ScanMetrics {
    /// Bytes of the cells returned (key and value of each, HBase's `BYTES_IN_RESULTS`).
    pub bytes_in_results: u64,
    /// Rows returned.
    pub rows_scanned: u64,
    /// Fetches from the scanner (batches), HBase's `RPC_CALLS`.
    pub rpc_calls: u64,
    /// Regions the scan covered.
    pub regions_scanned: u64,
    /// Whether the fetches crossed a network (`--connect`): then the remote counters equal
    /// the totals, as in HBase.
    pub remote: bool,
}

impl ScanMetrics {
    /// The metrics as HBase's shell prints them: a blank line, `METRIC VALUE`, then each
    /// metric (all, or those `request` names) in alphabetical order.
    pub fn lines(&self, request: &MetricsRequest) -> Vec<String> {
        let remote = |v: u64| if self.remote { v } else { 0 };
        let all: [(&str, u64); 13] = [
            ("BLOCK_BYTES_SCANNED", 0),
            ("BYTES_IN_REMOTE_RESULTS", remote(self.bytes_in_results)),
            ("BYTES_IN_RESULTS", self.bytes_in_results),
            ("FS_READ_TIME", 0),
            ("MILLIS_BETWEEN_NEXTS", 0),
            ("NOT_SERVING_REGION_EXCEPTION", 0),
            ("REGIONS_SCANNED", self.regions_scanned),
            ("REMOTE_RPC_CALLS", remote(self.rpc_calls)),
            ("REMOTE_RPC_RETRIES", 0),
            ("ROWS_FILTERED", 0),
            ("ROWS_SCANNED", self.rows_scanned),
            ("RPC_CALLS", self.rpc_calls),
            ("RPC_RETRIES", 0),
        ];
        let mut out = vec![String::new(), format::header("METRIC", "VALUE")];
        for (name, value) in all {
            let wanted = match request {
                MetricsRequest::None => false,
                MetricsRequest::All => true,
                MetricsRequest::Named(names) => names.iter().any(|n| n == name),
            };
            if wanted {
                out.push(format::two_columns(name, &value.to_string()));
            }
        }
        out
    }
}

/// A cell's size as HBase's `PrivateCellUtil.estimatedSerializedSizeOf` counts it for
/// `BYTES_IN_RESULTS`: the KeyValue (key length, value length, row length, row, family length,
/// family, qualifier, timestamp, type, value) and its 4-byte length prefix.
pub fn estimated_serialized_size(c: &ferrobase_engine::Cell) -> u64 {
    (c.row().len() + c.family().len() + c.qualifier().len() + c.value().len() + 24) as u64
}

/// Reads one option of `get` (`scan` too when `scan`) that changes nothing ferrobase returns;
/// `Ok(false)` when `key` is none of them. `metrics` receives `METRICS`/`ALL_METRICS` (scan).
pub fn read(key: &str, v: &Value, scan: bool, metrics: &mut MetricsRequest) -> Res<bool> {
    match key {
        "ATTRIBUTES" => {
            for (_, value) in hash(v, "ATTRIBUTES")? {
                text(&value, "an attribute value")?;
            }
        }
        "AUTHORIZATIONS" => match v {
            Value::Array(labels) => {
                for l in labels {
                    text(l, "an authorization label")?;
                }
            }
            other => {
                return Err(format!(
                    "AUTHORIZATIONS must be an array of labels, got {}",
                    other.kind()
                )
                .into())
            }
        },
        "CONSISTENCY" => enum_constant(
            v,
            "org.apache.hadoop.hbase.client.Consistency",
            &["STRONG", "TIMELINE"],
        )?,
        "REGION_REPLICA_ID" => {
            let id = int(v, "REGION_REPLICA_ID")?;
            if id != 0 {
                return Err(format!(
                    "REGION_REPLICA_ID {id} is not supported (ferrobase has no region replicas; \
                     replica 0 is the only one)"
                )
                .into());
            }
        }
        "ISOLATION_LEVEL" if scan => enum_constant(
            v,
            "org.apache.hadoop.hbase.client.IsolationLevel",
            &["READ_COMMITTED", "READ_UNCOMMITTED"],
        )?,
        "READ_TYPE" if scan => enum_constant(
            v,
            "org.apache.hadoop.hbase.client.Scan.ReadType",
            &["DEFAULT", "STREAM", "PREAD"],
        )?,
        "MAX_RESULT_SIZE" | "CACHE" if scan => {
            int(v, key)?;
        }
        "CACHE_BLOCKS" if scan => {
            // HBase's count accepts 'true' as a string too.
            if !matches!(v, Value::Str(s) if s == b"true" || s == b"false") {
                boolean(v, key)?;
            }
        }
        "ALLOW_PARTIAL_RESULTS" if scan => {
            boolean(v, key)?;
        }
        "ALL_METRICS" if scan => {
            if boolean(v, key)? {
                *metrics = MetricsRequest::All;
            }
        }
        "METRICS" if scan => {
            let names = match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| text(i, "a metric name"))
                    .collect::<Res<Vec<_>>>()?,
                other => vec![text(other, "METRICS")?],
            };
            if *metrics != MetricsRequest::All {
                *metrics = MetricsRequest::Named(names);
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Java's `Enum.valueOf`, as the shell calls it: the constant or HBase's message.
fn enum_constant(v: &Value, class: &str, constants: &[&str]) -> Res<()> {
    let name = text(v, "an enum constant")?;
    if constants.contains(&name.as_str()) {
        Ok(())
    } else {
        Err(format!("No enum constant {class}.{name}").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.as_bytes().to_vec())
    }

    #[test]
    fn timeline_consistency_and_replica_zero_are_accepted_other_replicas_refused() {
        let mut m = MetricsRequest::None;
        assert!(read("CONSISTENCY", &s("TIMELINE"), false, &mut m).unwrap());
        assert!(read("REGION_REPLICA_ID", &Value::Int(0), false, &mut m).unwrap());
        let e = read("REGION_REPLICA_ID", &Value::Int(1), false, &mut m).unwrap_err();
        assert!(e.to_string().contains("no region replicas"), "{e}");
        let e = read("CONSISTENCY", &s("EVENTUAL"), false, &mut m).unwrap_err();
        assert!(
            e.to_string()
                .contains("No enum constant org.apache.hadoop.hbase.client.Consistency.EVENTUAL"),
            "{e}"
        );
    }

    #[test]
    fn scan_only_options_are_not_options_of_get() {
        let mut m = MetricsRequest::None;
        assert!(!read("READ_TYPE", &s("PREAD"), false, &mut m).unwrap());
        assert!(read("READ_TYPE", &s("PREAD"), true, &mut m).unwrap());
        assert!(read("ISOLATION_LEVEL", &s("READ_SOMETIMES"), true, &mut m).is_err());
    }

    #[test]
    fn named_metrics_print_in_alphabetical_order_after_a_blank_line() {
        let mut m = MetricsRequest::None;
        let names = Value::Array(vec![s("RPC_RETRIES"), s("ROWS_FILTERED")]);
        read("METRICS", &names, true, &mut m).unwrap();
        let lines = ScanMetrics::default().lines(&m);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], "");
        assert!(lines[2].contains("ROWS_FILTERED") && lines[3].contains("RPC_RETRIES"));
        read("ALL_METRICS", &Value::Bool(true), true, &mut m).unwrap();
        assert_eq!(ScanMetrics::default().lines(&m).len(), 15);
    }
}
