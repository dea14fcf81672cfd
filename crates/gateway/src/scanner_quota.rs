//! The scanners one connection holds open, against `--max-scanners-per-connection`: a client
//! that opens scanners without closing them is refused more once it holds the limit (each
//! holds a read point and engine iterators until closed or its lease expires), and its other
//! calls go on.

use crate::handler::Scanners;
use crate::thrift::{TStruct, TValue};
use std::collections::HashSet;

/// Scanner ids opened on one connection and not yet closed. Owned by the connection's thread.
#[derive(Debug)]
pub(crate) struct ScannerQuota {
    limit: usize,
    open: HashSet<i32>,
}

/// Whether a call opens a scanner (`scannerOpen`, `scannerOpenWithScan`, …WithStop,
/// …WithPrefix, …Ts, …WithStopTs, `ferrobaseScannerOpen`, and `ferrobaseAdmin` `scan_open`,
/// whose operation is its argument 1).
pub(crate) fn opens_scanner(method: &str, args: &TStruct) -> bool {
    method.starts_with("scannerOpen")
        || method == "ferrobaseScannerOpen"
        || (method == "ferrobaseAdmin"
            && matches!(args.get(1), Some(TValue::Binary(op))
                if op == crate::thrift::hbase::AdminOp::ScanOpen.name().as_bytes()))
}

impl ScannerQuota {
    /// No scanner open, `limit` allowed.
    pub(crate) fn new(limit: usize) -> ScannerQuota {
        ScannerQuota {
            limit,
            open: HashSet::new(),
        }
    }

    /// Whether one more scanner may be opened. At the limit, scanners closed meanwhile by
    /// their lease are forgotten first; the refusal's message names the limit.
    pub(crate) fn check(&mut self, scanners: &Scanners) -> Result<(), String> {
        if self.open.len() >= self.limit {
            self.open.retain(|&id| scanners.is_open(id));
        }
        if self.open.len() >= self.limit {
            return Err(format!(
                "Too many open scanners on this connection: it holds {} (--max-scanners-per-\
                 connection); close some with scannerClose before opening more",
                self.limit
            ));
        }
        Ok(())
    }

    /// Records a scanner opened on this connection.
    pub(crate) fn opened(&mut self, id: i32) {
        self.open.insert(id);
    }

    /// Records a scanner closed on this connection.
    pub(crate) fn closed(&mut self, id: i32) {
        self.open.remove(&id);
    }
}
