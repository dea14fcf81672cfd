//! Open scanners by id, shared by every connection, each reclaimed after a lease of inactivity
//! (`ferrobase serve --scanner-lease`), as HBase's Thrift handler keeps its `scannerMap`, which
//! expires a scanner `hbase.client.scanner.timeout.period` after its last access.

use super::convert::ColumnOrder;
use super::ServiceError;
use ferrobase_engine::ResultScanner;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An open scanner, its column order and when a call last used it.
pub(super) struct Entry {
    pub(super) scanner: Source,
    pub(super) order: ColumnOrder,
    pub(super) last_used: Instant,
}

/// What a scanner id reads from.
pub(super) enum Source {
    /// An open scanner.
    Rows(Box<ResultScanner>),
    /// A scan that could not open: every `scannerGet` answers with this error. HBase's client
    /// opens a scanner without asking the region server (`HTable.getScanner`), so an unknown or
    /// disabled table or an unknown family fails at the first `scannerGet`, not at the open.
    Failed(ServiceError),
    /// Rows of a catalog table's view (`hbase:meta`, `hbase:namespace`), read when the scanner
    /// opened, in the order returned.
    Catalog(std::collections::VecDeque<crate::thrift::hbase::TRowResult>),
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
    pub(super) fn map(&self) -> std::sync::MutexGuard<'_, HashMap<i32, Arc<Mutex<Entry>>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn insert(&self, scanner: Source, order: ColumnOrder) -> i32 {
        self.expire();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.map().insert(
            id,
            Arc::new(Mutex::new(Entry {
                scanner,
                order,
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
