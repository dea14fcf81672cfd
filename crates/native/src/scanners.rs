//! Open scanners of the native door, by id, with HBase's lease: a scanner unused for the lease
//! period is closed (`hbase.client.scanner.timeout.period`); a later call naming it gets
//! `UnknownScannerException`, as from HBase.

use ferrobase_engine::call_budget::{adopt, CallContext, Charge, Heartbeat};
use ferrobase_engine::{CostRecording, ReadCost, ResultScanner, RowResult, ScanBatch};
use ferrobase_gateway::read_ahead::ReadAhead;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// Where a scanner's rows come from.
pub(crate) enum Source {
    /// A scan of one region of a table.
    Table(Box<ResultScanner>),
    /// Rows built at open (a scan of `hbase:meta`).
    Rows(VecDeque<RowResult>),
}

impl Source {
    /// Up to `n` rows (or row pieces) within about `max_bytes`; fewer only at the end, or
    /// when a table's scan stops for a heartbeat at the call's deadline
    /// (`ferrobase_engine::call_budget::Heartbeat`).
    pub(crate) fn next_batch(
        &mut self,
        n: usize,
        max_bytes: usize,
    ) -> ferrobase_engine::Result<ScanBatch> {
        match self {
            Source::Table(s) => s.next_batch_or_heartbeat(n, max_bytes),
            Source::Rows(rows) => Ok(ScanBatch {
                rows: rows.drain(..n.min(rows.len())).collect(),
                ..ScanBatch::default()
            }),
        }
    }

    /// The read point a table's scan reads at (`None` for built rows).
    pub(crate) fn read_point(&self) -> Option<u64> {
        match self {
            Source::Table(s) => Some(s.read_point()),
            Source::Rows(_) => None,
        }
    }
}

/// One open scanner.
pub(crate) struct OpenScanner {
    pub(crate) source: Source,
    /// Rows returned so far (for the scan's limit).
    pub(crate) returned: usize,
    /// The row of the last result returned when it was flagged as going on (HBase's
    /// `RegionScannerHolder.rowOfLastPartialResult`).
    pub(crate) partial_row: Option<Vec<u8>>,
    /// The scan's row limit (0: none).
    pub(crate) limit: usize,
    /// Bytes of cells one call returns at most.
    pub(crate) max_bytes: usize,
    /// Set when the scan returns whole rows (no batch, no partial results): a larger row is
    /// `RowTooBigException`, as a get's.
    pub(crate) max_row_size: Option<usize>,
    /// The scan asked for cursors (`Scan.needCursorResult`): a heartbeat carries the row the
    /// scan stands at.
    pub(crate) need_cursor: bool,
    /// Set once the scanner is closed: a read ahead for it stops (`Scanners::close`).
    closed: Arc<AtomicBool>,
    /// Calls that have read it (a read ahead of a call that came first is not kept).
    calls: u64,
    /// Batches in a row that stopped at their count or byte limit (neither the end, nor a
    /// heartbeat): from the second, the next is read ahead.
    full_batches: u32,
    /// The next batch, read ahead.
    ahead: Option<Ahead>,
}

/// How a scanner reads, as the call that opens it says.
#[derive(Debug, Default)]
pub(crate) struct Settings {
    /// The scan's row limit (0: none).
    pub(crate) limit: usize,
    /// Bytes of cells one call returns at most.
    pub(crate) max_bytes: usize,
    /// Whole rows only, at most this large (see [`OpenScanner::max_row_size`]).
    pub(crate) max_row_size: Option<usize>,
    /// The user who opens it (with ACLs on, only that user may use it: HBase's
    /// `requireScannerOwner`).
    pub(crate) owner: String,
    /// The scan asks for cursors.
    pub(crate) need_cursor: bool,
}

/// A batch read ahead of its call on a worker of the door's [`ReadAhead`], while the call
/// before it was encoded and answered; kept in its scanner until the next call.
struct Ahead {
    /// The batch, or what its read met.
    batch: ferrobase_engine::Result<ScanBatch>,
    /// The memory pool bytes its rows hold, taken over by the call that takes them.
    charge: Charge,
    /// The batch found the region's end.
    end: bool,
    /// What the read cost, counted by the worker: the call that takes the rows adds it to its
    /// own (the slow log's explain line).
    cost: ReadCost,
}

/// What a scan call leaves for the read of the scanner's next batch ahead of its call.
pub(crate) struct NextRead {
    /// Rows the next call is expected to ask for.
    pub(crate) rows: usize,
    pub(crate) max_bytes: usize,
    /// How long the read may go before it stops for a heartbeat (`None`: no heartbeats).
    pub(crate) heartbeat_after: Option<Duration>,
}

impl OpenScanner {
    /// The next batch of up to `n` results within about `max_bytes` (with a heartbeat, fewer:
    /// [`Source::next_batch`]): the rows read ahead first (their pool charge taken over by this
    /// call), then read here when they were fewer than asked, under the byte limit and did not
    /// find the end or stop for a heartbeat; rows read ahead beyond `n` stay for the next call.
    /// The answer is the one the call would have read itself.
    pub(crate) fn next_batch(
        &mut self,
        n: usize,
        max_bytes: usize,
    ) -> ferrobase_engine::Result<ScanBatch> {
        self.calls += 1;
        let Some(a) = self.ahead.take() else {
            return self.source.next_batch(n, max_bytes);
        };
        let Ahead {
            batch,
            mut charge,
            end,
            cost,
        } = a;
        // The read was this call's work, done before it came (a batch split between calls is
        // counted by the first).
        CostRecording::credit(&cost);
        // A read that failed holds no rows: its charge goes back at once.
        let mut batch = batch?;
        if batch.rows.len() > n {
            // The first `n` were read before any heartbeat: this batch is full without one.
            let rest = ScanBatch {
                rows: batch.rows.split_off(n),
                heartbeat: std::mem::take(&mut batch.heartbeat),
                cursor: batch.cursor.take(),
            };
            // The rows left for the next call stay counted in the pool until it takes them.
            let kept = charge.split_off(ResultScanner::batch_bytes(&rest.rows));
            adopt(charge);
            self.ahead = Some(Ahead {
                batch: Ok(rest),
                charge: kept,
                end,
                cost: ReadCost::default(),
            });
            return Ok(batch);
        }
        adopt(charge);
        let bytes = ResultScanner::batch_bytes(&batch.rows);
        if batch.rows.len() < n && bytes < max_bytes && !batch.heartbeat && !end {
            let more = self
                .source
                .next_batch(n - batch.rows.len(), max_bytes - bytes)?;
            batch.rows.extend(more.rows);
            batch.heartbeat = more.heartbeat;
            batch.cursor = more.cursor;
        }
        Ok(batch)
    }

    /// Counts the batch a call has just answered (`full`: it stopped at its count or byte
    /// limit, not at the end or a heartbeat), and whether the scanner's next batch may be read
    /// ahead: from the second full batch in a row of a table's scan.
    pub(crate) fn answered(&mut self, full: bool) -> bool {
        self.full_batches = if full { self.full_batches + 1 } else { 0 };
        self.full_batches >= 2 && matches!(self.source, Source::Table(_))
    }
}

/// Queues on `workers` the read of `scanner`'s next batch as `next` says, under this thread's
/// call context (its budget, memory pool and client). The read is dropped when a call on the
/// scanner comes first, and a closed scanner drops what was read.
pub(crate) fn read_ahead(
    workers: &ReadAhead,
    open: &OpenScanner,
    scanner: &Arc<Mutex<OpenScanner>>,
    next: NextRead,
) {
    let call = open.calls;
    let scanner = Arc::downgrade(scanner);
    // Stopped as its client's call would be, and also once the scanner is closed (a close
    // does not wait for a read whose rows nobody will take).
    let context = CallContext::current().or_cancelled_by(open.closed.clone());
    workers.schedule(move || read(&scanner, call, &next, &context));
}

fn read(scanner: &Weak<Mutex<OpenScanner>>, call: u64, next: &NextRead, context: &CallContext) {
    let Some(scanner) = scanner.upgrade() else {
        return; // closed
    };
    // A poisoned lock: a call on it panicked; the next call answers for that.
    let Ok(mut open) = scanner.lock() else {
        return;
    };
    if open.calls != call || open.ahead.is_some() || open.closed.load(Ordering::Acquire) {
        return;
    }
    let budget = context.start();
    let recording = CostRecording::start();
    let batch = {
        let _heartbeat = Heartbeat::start(next.heartbeat_after.map(|d| Instant::now() + d));
        open.source.next_batch(next.rows, next.max_bytes)
    };
    let cost = recording.finish();
    let end = batch.as_ref().is_ok_and(|b| {
        !b.heartbeat && ResultScanner::batch_found_end(&b.rows, next.rows, next.max_bytes)
    });
    let charge = budget.keep_taken();
    drop(budget);
    open.ahead = Some(Ahead {
        batch,
        charge,
        end,
        cost,
    });
}

/// Why a scanner was not opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The server holds `max` scanners.
    Server(usize),
    /// The connection holds `max` scanners.
    Connection(usize),
}

/// An open scanner as the server holds it: what a call checks before it takes the scanner's
/// lock (which a read ahead for it holds while it reads).
struct Entry {
    /// The connection that opened it (its scanners are counted against
    /// `--max-scanners-per-connection`, and closed with it).
    connection: u64,
    /// Who may use it ([`Settings::owner`]).
    owner: Arc<str>,
    /// When a call last named it (its lease runs from there).
    last_used: Instant,
    /// Shared with the scanner ([`OpenScanner::closed`]).
    closed: Arc<AtomicBool>,
    scanner: Arc<Mutex<OpenScanner>>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
    }
}

/// The server's open scanners, by id.
type OpenMap = HashMap<u64, Entry>;

pub(crate) struct Scanners {
    open: Mutex<OpenMap>,
    next_id: AtomicU64,
    lease: Duration,
    max: usize,
    max_per_connection: usize,
    next_connection: AtomicU64,
    /// Scanners closed because their lease ran out, since the start.
    expired: AtomicU64,
}

impl Scanners {
    /// Scanners with a lease, at most `max` open on the server and `max_per_connection` on
    /// one connection.
    pub(crate) fn new(lease: Duration, max: usize, max_per_connection: usize) -> Scanners {
        Scanners {
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            lease,
            max,
            max_per_connection,
            next_connection: AtomicU64::new(1),
            expired: AtomicU64::new(0),
        }
    }

    /// A new connection's id, for [`Scanners::open`] and [`Scanners::close_connection`].
    pub(crate) fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::AcqRel)
    }

    fn map(&self) -> std::sync::MutexGuard<'_, OpenMap> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a scanner of `connection`; refused when the server or the connection holds
    /// its maximum (a connection's scanners closed by their lease no longer count).
    pub(crate) fn open(
        &self,
        source: Source,
        settings: Settings,
        connection: u64,
    ) -> Result<u64, Refused> {
        let mut map = self.map();
        if map.len() >= self.max {
            return Err(Refused::Server(self.max));
        }
        let held = map.values().filter(|e| e.connection == connection).count();
        if held >= self.max_per_connection {
            return Err(Refused::Connection(self.max_per_connection));
        }
        let id = self.next_id.fetch_add(1, Ordering::AcqRel);
        let closed = Arc::new(AtomicBool::new(false));
        let scanner = OpenScanner {
            source,
            returned: 0,
            partial_row: None,
            limit: settings.limit,
            max_bytes: settings.max_bytes,
            max_row_size: settings.max_row_size,
            need_cursor: settings.need_cursor,
            closed: closed.clone(),
            calls: 0,
            full_batches: 0,
            ahead: None,
        };
        let entry = Entry {
            connection,
            owner: settings.owner.into(),
            last_used: Instant::now(),
            closed,
            scanner: Arc::new(Mutex::new(scanner)),
        };
        map.insert(id, entry);
        Ok(id)
    }

    /// Closes every scanner `connection` opened (the connection ended).
    pub(crate) fn close_connection(&self, connection: u64) {
        self.map().retain(|_, e| e.connection != connection);
    }

    /// The scanner `id`, its lease renewed (without waiting for a read ahead for it).
    pub(crate) fn get(&self, id: u64) -> Option<Arc<Mutex<OpenScanner>>> {
        let mut map = self.map();
        let entry = map.get_mut(&id)?;
        entry.last_used = Instant::now();
        Some(entry.scanner.clone())
    }

    /// Who may use the scanner `id` (`None`: not open).
    pub(crate) fn owner(&self, id: u64) -> Option<Arc<str>> {
        self.map().get(&id).map(|e| e.owner.clone())
    }

    /// Closes `id`; whether it was open.
    pub(crate) fn close(&self, id: u64) -> bool {
        self.map().remove(&id).is_some()
    }

    /// Closes every scanner whose lease ran out.
    pub(crate) fn expire(&self) {
        let lease = self.lease;
        let mut map = self.map();
        let before = map.len();
        // One in use right now (a call's, or a read ahead's) stays.
        map.retain(|_, e| e.last_used.elapsed() < lease || e.scanner.try_lock().is_err());
        let closed = (before - map.len()) as u64;
        self.expired.fetch_add(closed, Ordering::Relaxed);
    }

    /// Scanners open now.
    pub(crate) fn len(&self) -> usize {
        self.map().len()
    }

    /// Scanners closed because their lease ran out, since the start.
    pub(crate) fn expired(&self) -> u64 {
        self.expired.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_expire_and_the_limit_holds() {
        let s = Scanners::new(Duration::from_millis(1), 2, 10);
        let a = s
            .open(Source::Rows(VecDeque::new()), Settings::default(), 1)
            .unwrap();
        assert!(s
            .open(Source::Rows(VecDeque::new()), Settings::default(), 2)
            .is_ok());
        assert_eq!(
            s.open(Source::Rows(VecDeque::new()), Settings::default(), 3),
            Err(Refused::Server(2))
        );
        std::thread::sleep(Duration::from_millis(5));
        s.expire();
        assert_eq!(s.len(), 0);
        assert!(s.get(a).is_none());
    }

    #[test]
    fn a_connection_holds_at_most_its_share_and_its_scanners_go_with_it() {
        let s = Scanners::new(Duration::from_secs(60), 100, 2);
        let (one, two) = (s.connection_id(), s.connection_id());
        let rows = || Source::Rows(VecDeque::new());
        let a = s.open(rows(), Settings::default(), one).unwrap();
        s.open(rows(), Settings::default(), one).unwrap();
        assert_eq!(
            s.open(rows(), Settings::default(), one),
            Err(Refused::Connection(2))
        );
        // Another connection is not affected, and closing one frees a place.
        s.open(rows(), Settings::default(), two).unwrap();
        assert!(s.close(a));
        s.open(rows(), Settings::default(), one).unwrap();
        s.close_connection(one);
        assert_eq!(s.len(), 1);
        s.open(rows(), Settings::default(), one).unwrap();
    }
}
