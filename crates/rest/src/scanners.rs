//! The door's open scanners (HBase REST's scanner cache): each an engine `ResultScanner` read a
//! cell at a time, as `ScannerResultGenerator` hands out cells, with one cell put back when a
//! `GET` stops mid-row. Bounded in number; one unused longer than the lease is dropped.

use crate::error::RestError;
use ferrobase_engine::{Cell, ResultScanner};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One open scanner.
pub(crate) struct OpenScanner {
    /// `None`: a scanner of a table that does not exist, which HBase opens and whose first
    /// `GET` answers 404.
    scanner: Option<ResultScanner>,
    pending: VecDeque<Cell>,
    /// Cells per `GET` (the model's `batch`).
    pub batch: usize,
    /// The user who opened it, with ACLs on: the only one who may read or delete it.
    pub owner: Option<String>,
}

impl OpenScanner {
    /// A scanner handing out `batch` cells per `GET`.
    pub fn new(scanner: Option<ResultScanner>, batch: usize, owner: Option<String>) -> OpenScanner {
        OpenScanner {
            scanner,
            pending: VecDeque::new(),
            batch,
            owner,
        }
    }

    /// The next cell, `None` when the scan is done.
    pub fn next_cell(&mut self) -> Result<Option<Cell>, RestError> {
        while self.pending.is_empty() {
            let Some(scanner) = self.scanner.as_mut() else {
                return Err(RestError::not_found());
            };
            match scanner.next() {
                None => return Ok(None),
                Some(r) => self.pending.extend(r.map_err(RestError::from)?.cells),
            }
        }
        Ok(self.pending.pop_front())
    }

    /// Gives `cell` back: the next [`OpenScanner::next_cell`] returns it.
    pub fn put_back(&mut self, cell: Cell) {
        self.pending.push_front(cell);
    }
}

type Entry = (Arc<Mutex<OpenScanner>>, Instant);

/// The open scanners by id.
pub(crate) struct Scanners {
    open: Mutex<HashMap<String, Entry>>,
    max: usize,
    lease: Duration,
    next: AtomicU64,
    /// Scanners dropped because their lease ran out, since the start.
    expired: AtomicU64,
}

impl Scanners {
    /// At most `max` open, each dropped `lease` after its last use.
    pub fn new(max: usize, lease: Duration) -> Scanners {
        Scanners {
            open: Mutex::new(HashMap::new()),
            max,
            lease,
            next: AtomicU64::new(1),
            expired: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers `s`: its id (HBase's shape, the time in ms then a hex number).
    pub fn insert(&self, s: OpenScanner, now_ms: i64) -> Result<String, RestError> {
        let mut open = self.lock();
        let lease = self.lease;
        let before = open.len();
        open.retain(|_, (_, used)| used.elapsed() < lease);
        self.expired
            .fetch_add((before - open.len()) as u64, Ordering::Relaxed);
        if open.len() >= self.max {
            return Err(RestError::new(
                503,
                format!(
                    "Unavailable\r\n{} scanners are open, the most the server keeps \
                     (--rest-max-scanners); delete some",
                    self.max
                ),
            ));
        }
        let id = format!("{now_ms}{:x}", self.next.fetch_add(1, Ordering::Relaxed));
        open.insert(id.clone(), (Arc::new(Mutex::new(s)), Instant::now()));
        Ok(id)
    }

    /// The scanner `id`, its lease renewed.
    pub fn get(&self, id: &str) -> Option<Arc<Mutex<OpenScanner>>> {
        let mut open = self.lock();
        let lease = self.lease;
        match open.get_mut(id) {
            Some((s, used)) if used.elapsed() < lease => {
                *used = Instant::now();
                Some(s.clone())
            }
            Some(_) => {
                open.remove(id);
                self.expired.fetch_add(1, Ordering::Relaxed);
                None
            }
            None => None,
        }
    }

    /// Closes `id`; whether it was open.
    pub fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Scanners held now (one past its lease is held until the next open or use sweeps it).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Scanners dropped because their lease ran out, since the start.
    pub fn expired(&self) -> u64 {
        self.expired.load(Ordering::Relaxed)
    }
}
