//! Open scanners by id, shared by every connection, reclaimed after a lease of inactivity.

use super::args::{open_table, parse_column};
use super::convert::trow;
use super::{args::Args, CallResult, Handler, ServiceError};
use crate::thrift::{TStruct, TType, TValue};
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::{ResultScanner, Scan, TimeRange};
use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Entry {
    scanner: ResultScanner,
    sorted: bool,
    last_used: Instant,
}

/// The scanner table. Thread-safe.
pub struct Scanners {
    next_id: AtomicI32,
    open: Mutex<HashMap<i32, Arc<Mutex<Entry>>>>,
    lease: Duration,
}

impl Scanners {
    /// An empty table whose scanners expire after `lease` unused.
    pub fn new(lease: Duration) -> Self {
        Scanners {
            next_id: AtomicI32::new(1),
            open: Mutex::new(HashMap::new()),
            lease,
        }
    }

    /// The id → scanner map. A poisoned map lock is recovered: every critical section on it is
    /// one `HashMap` insert, remove, get or retain whose closure only reads a timestamp, none of
    /// which can panic half-way (a failed allocation aborts), so the map is consistent. A
    /// scanner's own lock is treated differently (`scanner_get`).
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<i32, Arc<Mutex<Entry>>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn insert(&self, scanner: ResultScanner, sorted: bool) -> i32 {
        self.expire();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.map().insert(
            id,
            Arc::new(Mutex::new(Entry {
                scanner,
                sorted,
                last_used: Instant::now(),
            })),
        );
        id
    }

    /// Closes scanners unused for longer than the lease. Returns how many were closed.
    pub fn expire(&self) -> usize {
        let mut m = self.map();
        let before = m.len();
        m.retain(|_, e| match e.try_lock() {
            Ok(e) => e.last_used.elapsed() < self.lease,
            Err(_) => true, // in use right now
        });
        before - m.len()
    }

    /// Whether scanner `id` is open (not closed nor expired).
    pub fn is_open(&self, id: i32) -> bool {
        self.map().contains_key(&id)
    }

    /// Number of open scanners.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// True when no scanner is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn invalid() -> ServiceError {
    ServiceError::IllegalArgument("scanner ID is invalid".into())
}

impl Handler {
    fn open_scanner(&self, table: &[u8], scan: Scan, sorted: bool) -> CallResult {
        let t = open_table(&self.engine, table)?;
        let scanner = t.scanner(&scan)?;
        Ok(Some(TValue::I32(self.scanners.insert(scanner, sorted))))
    }

    fn add_columns(mut scan: Scan, columns: Vec<Vec<u8>>) -> Scan {
        for c in columns {
            scan = match parse_column(&c) {
                (f, None) => scan.add_family(f),
                (f, Some(q)) => scan.add_column(f, q),
            };
        }
        scan
    }

    pub(crate) fn scanner_open_with_scan(&self, a: &Args<'_>) -> CallResult {
        let table = a.bytes(1)?;
        let empty = TStruct::new();
        let ts = Args(a.strukt(2).unwrap_or(&empty));
        let reversed = ts.bool_or(9, false);
        let mut scan = Scan::new().reversed(reversed);
        if let Some(start) = ts.opt_bytes(1) {
            scan = scan.with_start_row(start);
        }
        if let Some(stop) = ts.opt_bytes(2) {
            scan = scan.with_stop_row(stop);
        }
        if let Some(t) = ts.opt_i64(3) {
            scan = scan.time_range(TimeRange::new(0, t)?);
        }
        scan = Self::add_columns(scan, ts.byte_list(4));
        if let Some(c) = ts.opt_i32(5) {
            scan = scan.caching(c.max(1) as usize);
        }
        if let Some(f) = ts.opt_bytes(6) {
            // HBase parses a set filterString, empty or not; ParseFilter's
            // IllegalArgumentException is undeclared, so the client sees INTERNAL_ERROR.
            if f.is_empty() {
                return Err(ServiceError::Internal(
                    "filter string error: the filter string is empty".into(),
                ));
            }
            let filter = parse_filter(&f).map_err(|e| ServiceError::Internal(e.to_string()))?;
            scan = scan.filter(filter);
        }
        if let Some(b) = ts.opt_i32(7) {
            if b > 0 {
                scan = scan.batch(b as usize);
            }
        }
        self.open_scanner(&table, scan, ts.bool_or(8, false))
    }

    /// scannerOpen, scannerOpenWithStop, scannerOpenWithPrefix, scannerOpenTs,
    /// scannerOpenWithStopTs: argument layouts differ only by the optional stop row and timestamp.
    pub(crate) fn scanner_open(
        &self,
        a: &Args<'_>,
        with_stop: bool,
        prefix: bool,
        with_ts: bool,
    ) -> CallResult {
        let table = a.bytes(1)?;
        let start = a.bytes(2)?;
        let mut next = 3;
        let mut scan = if prefix {
            Scan::new().with_row_prefix(start)
        } else {
            Scan::new().with_start_row(start)
        };
        if with_stop {
            scan = scan.with_stop_row(a.bytes(next)?);
            next += 1;
        }
        scan = Self::add_columns(scan, a.byte_list(next));
        next += 1;
        if with_ts {
            scan = scan.time_range(TimeRange::new(0, a.i64(next)?)?);
        }
        self.open_scanner(&table, scan, false)
    }

    pub(crate) fn scanner_get(&self, a: &Args<'_>, list: bool) -> CallResult {
        let id = a.i32(1)?;
        let n = if list { a.i32(2)?.max(0) as usize } else { 1 };
        let entry = self.scanners.map().get(&id).cloned().ok_or_else(invalid)?;
        let Ok(mut e) = entry.lock() else {
            // A call on this scanner panicked while reading it: where it stopped is unknown,
            // so the scanner is closed rather than continued from a half-advanced position.
            self.scanners.map().remove(&id);
            return Err(ServiceError::Internal(format!(
                "scanner {id} was closed: an earlier call on it failed part-way"
            )));
        };
        e.last_used = Instant::now();
        let rows = e.scanner.next_batch_within(n, self.max_result_bytes)?;
        let sorted = e.sorted;
        Ok(Some(TValue::List(
            TType::Struct,
            rows.iter().map(|r| trow(r, sorted)).collect(),
        )))
    }

    pub(crate) fn scanner_close(&self, a: &Args<'_>) -> CallResult {
        let id = a.i32(1)?;
        self.scanners.map().remove(&id).ok_or_else(invalid)?;
        Ok(None)
    }
}
