//! Open scanners of the native door, by id, with HBase's lease: a scanner unused for the lease
//! period is closed (`hbase.client.scanner.timeout.period`); a later call naming it gets
//! `UnknownScannerException`, as from HBase.

use ferrobase_engine::{ResultScanner, RowResult};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where a scanner's rows come from.
pub(crate) enum Source {
    /// A scan of one region of a table.
    Table(Box<ResultScanner>),
    /// Rows built at open (a scan of `hbase:meta`).
    Rows(VecDeque<RowResult>),
}

impl Source {
    /// Up to `n` rows (or row pieces) within about `max_bytes`; fewer only at the end.
    pub(crate) fn next_batch(
        &mut self,
        n: usize,
        max_bytes: usize,
    ) -> ferrobase_engine::Result<Vec<RowResult>> {
        match self {
            Source::Table(s) => s.next_batch_within(n, max_bytes),
            Source::Rows(rows) => Ok(rows.drain(..n.min(rows.len())).collect()),
        }
    }
}

/// One open scanner.
pub(crate) struct OpenScanner {
    pub(crate) source: Source,
    /// Rows returned so far (for the scan's limit).
    pub(crate) returned: usize,
    /// The scan's row limit (0: none).
    pub(crate) limit: usize,
    /// Bytes of cells one call returns at most.
    pub(crate) max_bytes: usize,
    last_used: Instant,
}

/// The server's open scanners.
pub(crate) struct Scanners {
    open: Mutex<HashMap<u64, Arc<Mutex<OpenScanner>>>>,
    next_id: AtomicU64,
    lease: Duration,
    max: usize,
}

impl Scanners {
    pub(crate) fn new(lease: Duration, max: usize) -> Scanners {
        Scanners {
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            lease,
            max,
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Mutex<OpenScanner>>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a scanner; `None` when the server holds its maximum.
    pub(crate) fn open(&self, source: Source, limit: usize, max_bytes: usize) -> Option<u64> {
        let mut map = self.map();
        if map.len() >= self.max {
            return None;
        }
        let id = self.next_id.fetch_add(1, Ordering::AcqRel);
        map.insert(
            id,
            Arc::new(Mutex::new(OpenScanner {
                source,
                returned: 0,
                limit,
                max_bytes,
                last_used: Instant::now(),
            })),
        );
        Some(id)
    }

    /// The scanner `id`, its lease renewed.
    pub(crate) fn get(&self, id: u64) -> Option<Arc<Mutex<OpenScanner>>> {
        let s = self.map().get(&id).cloned()?;
        s.lock().unwrap_or_else(|p| p.into_inner()).last_used = Instant::now();
        Some(s)
    }

    /// Closes `id`; whether it was open.
    pub(crate) fn close(&self, id: u64) -> bool {
        self.map().remove(&id).is_some()
    }

    /// Closes every scanner whose lease ran out.
    pub(crate) fn expire(&self) {
        let lease = self.lease;
        self.map().retain(|_, s| match s.try_lock() {
            Ok(s) => s.last_used.elapsed() < lease,
            // In use by a call right now.
            Err(_) => true,
        });
    }

    /// Scanners open now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_expire_and_the_limit_holds() {
        let s = Scanners::new(Duration::from_millis(1), 2);
        let a = s.open(Source::Rows(VecDeque::new()), 0, 1).unwrap();
        assert!(s.open(Source::Rows(VecDeque::new()), 0, 1).is_some());
        assert!(s.open(Source::Rows(VecDeque::new()), 0, 1).is_none());
        std::thread::sleep(Duration::from_millis(5));
        s.expire();
        assert_eq!(s.len(), 0);
        assert!(s.get(a).is_none());
    }
}
