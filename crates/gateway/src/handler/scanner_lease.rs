//! Open scanners by id, shared by every connection, each reclaimed after a lease of inactivity
//! (`ferrobase serve --scanner-lease`), as HBase's Thrift handler keeps its `scannerMap`, which
//! expires a scanner `hbase.client.scanner.timeout.period` after its last access.

use super::convert::ColumnOrder;
use super::ServiceError;
use ferrobase_engine::ResultScanner;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An open scanner, its column order, when a call last used it and whether its last batch
/// found its end.
pub(super) struct Entry {
    pub(super) scanner: Source,
    pub(super) order: ColumnOrder,
    pub(super) last_used: Instant,
    /// The last batch read found no more rows (it was short of its count under the byte
    /// limit): `ferrobaseScanner*` close the scanner in the same call.
    pub(super) finished: bool,
    /// Calls that read this scanner so far.
    pub(super) calls: u64,
    /// Full batches in a row so far (a batch of as many rows as asked).
    pub(super) full_batches: u32,
    /// The call reading it now closes it after: nothing is read ahead.
    pub(super) closing: bool,
    /// The next batch, read ahead (`read_ahead.rs`).
    pub(super) ahead: Option<super::read_ahead::Ahead>,
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

/// Who may use a scanner when ACLs are on: the user who opened it (a partly granted scan was
/// narrowed to the readable columns when it opened: `crate::request`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScannerGrant {
    pub(crate) owner: String,
}

/// One open scanner: the scanner under its own lock, and its grant (none until the open's
/// ACL follow-up records it, and without ACLs), which goes with it when it is closed or its
/// lease expires.
pub(super) struct Slot {
    entry: Arc<Mutex<Entry>>,
    grant: Option<ScannerGrant>,
}

/// The scanner table. Thread-safe.
pub struct Scanners {
    next_id: AtomicI32,
    open: Mutex<HashMap<i32, Slot>>,
    lease: Duration,
    /// Scanners closed because their lease ran out, since the start.
    expired: AtomicU64,
}

impl Scanners {
    /// An empty table whose scanners expire after `lease` unused.
    pub fn new(lease: Duration) -> Self {
        Scanners {
            next_id: AtomicI32::new(1),
            open: Mutex::new(HashMap::new()),
            lease,
            expired: AtomicU64::new(0),
        }
    }

    /// The id → scanner map. A poisoned map lock is recovered: every critical section on it is
    /// one `HashMap` insert, remove, get or retain whose closure only reads a timestamp, none of
    /// which can panic half-way (a failed allocation aborts), so the map is consistent. A
    /// scanner's own lock is treated differently (`scanner_get`).
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<i32, Slot>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Scanner `id`, if open.
    pub(super) fn entry(&self, id: i32) -> Option<Arc<Mutex<Entry>>> {
        self.map().get(&id).map(|s| s.entry.clone())
    }

    /// Closes scanner `id`; false when it was not open.
    pub(super) fn remove(&self, id: i32) -> bool {
        self.map().remove(&id).is_some()
    }

    /// Records who may use scanner `id` (no effect when it is no longer open).
    pub(crate) fn set_grant(&self, id: i32, grant: ScannerGrant) {
        if let Some(s) = self.map().get_mut(&id) {
            s.grant = Some(grant);
        }
    }

    /// The grant of scanner `id`: `None` when it is not open, `Some(None)` when it is open with
    /// no grant recorded.
    pub(crate) fn grant(&self, id: i32) -> Option<Option<ScannerGrant>> {
        self.map().get(&id).map(|s| s.grant.clone())
    }

    /// Scanner `id`'s next call closes it after its batch: nothing is read ahead of it.
    pub(super) fn closing(&self, id: i32) {
        if let Some(e) = self.entry(id) {
            if let Ok(mut e) = e.lock() {
                e.closing = true;
            }
        }
    }

    /// Whether scanner `id`'s last batch found its end (true when it is not open).
    pub(super) fn finished(&self, id: i32) -> bool {
        self.entry(id)
            .is_none_or(|e| e.lock().map_or(true, |e| e.finished))
    }

    pub(super) fn insert(&self, scanner: Source, order: ColumnOrder) -> i32 {
        self.expire();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.map().insert(
            id,
            Slot {
                entry: Arc::new(Mutex::new(Entry {
                    scanner,
                    order,
                    last_used: Instant::now(),
                    finished: false,
                    calls: 0,
                    full_batches: 0,
                    closing: false,
                    ahead: None,
                })),
                grant: None,
            },
        );
        id
    }

    /// Closes scanners unused for longer than the lease, their grants with them. Returns how
    /// many were closed.
    pub fn expire(&self) -> usize {
        let mut m = self.map();
        let before = m.len();
        m.retain(|_, s| match s.entry.try_lock() {
            Ok(e) => e.last_used.elapsed() < self.lease,
            Err(_) => true, // in use right now
        });
        let closed = before - m.len();
        self.expired.fetch_add(closed as u64, Ordering::Relaxed);
        closed
    }

    /// Scanners closed because their lease ran out, since the start.
    pub fn expired(&self) -> u64 {
        self.expired.load(Ordering::Relaxed)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn open(s: &Scanners) -> i32 {
        let id = s.insert(
            Source::Failed(ServiceError::Io("x".into())),
            ColumnOrder::Map,
        );
        s.set_grant(
            id,
            ScannerGrant {
                owner: "bob".into(),
            },
        );
        id
    }

    #[test]
    fn a_grant_goes_with_its_scanner_at_close_and_at_lease_expiry() {
        let s = Scanners::new(Duration::from_millis(20));
        let ids: Vec<i32> = (0..100).map(|_| open(&s)).collect();
        assert!(s.grant(ids[0]).unwrap().is_some());
        assert!(s.remove(ids[0]));
        assert_eq!(s.grant(ids[0]), None);
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(s.expire(), 99);
        assert!(s.open.lock().unwrap().is_empty());
        assert!(ids.iter().all(|&id| s.grant(id).is_none()));
        // A grant recorded after its scanner went is not kept.
        s.set_grant(
            ids[1],
            ScannerGrant {
                owner: "eve".into(),
            },
        );
        assert!(s.is_empty());
    }

    #[test]
    fn a_scanner_opened_has_no_grant_until_one_is_recorded() {
        let s = Scanners::new(Duration::from_secs(60));
        let id = s.insert(
            Source::Failed(ServiceError::Io("x".into())),
            ColumnOrder::Map,
        );
        assert_eq!(s.grant(id), Some(None));
    }
}
