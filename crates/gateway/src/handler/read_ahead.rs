//! A long scan's next batch read while its last one is packed and sent, for Thrift1's
//! `scannerGetList`, `ferrobaseScannerNext` and Thrift2's `getScannerRows`: after a scanner's
//! second full batch in a row, the batch after it is read on a worker of the process's
//! [`crate::read_ahead::ReadAhead`], under the same time budget, memory pool and client as the
//! call that asked for the last one ([`CallContext`]), and kept in the scanner's entry for its
//! next call.
//!
//! What the next call sees is what it would have read itself: the same rows at the same read
//! point, or the error the read met (its position moved past the rows it had built, as it would
//! have in the call). A call asking for fewer rows than were read takes what it asked for and
//! leaves the rest for the call after; one asking for more reads the difference itself. The
//! work is skipped when it cannot be used: a scanner closed (or whose call closes it), a call
//! that came first, a batch above [`crate::read_ahead::MAX_BATCH_BYTES`], a full queue.

use super::scanner_lease::{Entry, Source};
use super::ServiceError;
use crate::read_ahead::ReadAhead;
use ferrobase_engine::call_budget::{adopt, CallContext, Charge};
use ferrobase_engine::{CostRecording, ReadCost, ResultScanner, RowResult};
use std::sync::{Arc, Mutex, Weak};

/// A batch read ahead, kept in the scanner's entry until its next call.
pub(super) struct Ahead {
    /// The rows, or what the read met.
    rows: Result<Vec<RowResult>, ServiceError>,
    /// The memory pool bytes they hold, taken over by the call that takes them.
    charge: Charge,
    /// The batch found the scanner's end.
    end: bool,
    /// What the read cost, counted by the worker: the call that takes the rows adds it to its
    /// own (the slow log's explain line).
    cost: ReadCost,
}

/// Reads a scanner's next batch ahead of its call (one job).
struct Job {
    entry: Weak<Mutex<Entry>>,
    /// The scanner's call count when the job was queued: a call after it took its turn.
    call: u64,
    rows: usize,
    max_bytes: usize,
    context: CallContext,
}

/// Queues on `workers` the read of `rows` more rows of `entry` (the call now ending was its
/// `call`-th), under this thread's call context.
pub(super) fn schedule(
    workers: &ReadAhead,
    entry: &Arc<Mutex<Entry>>,
    call: u64,
    rows: usize,
    max_bytes: usize,
) {
    let job = Job {
        entry: Arc::downgrade(entry),
        call,
        rows,
        max_bytes,
        context: CallContext::current(),
    };
    workers.schedule(move || run(job));
}

fn run(job: Job) {
    let Some(entry) = job.entry.upgrade() else {
        return; // closed
    };
    let Ok(mut e) = entry.lock() else {
        return;
    };
    let e = &mut *e;
    if e.calls != job.call || e.closing || e.ahead.is_some() {
        return;
    }
    let Source::Rows(scanner) = &mut e.scanner else {
        return;
    };
    let budget = job.context.start();
    let recording = CostRecording::start();
    let rows = scanner.next_batch_within(job.rows, job.max_bytes);
    let cost = recording.finish();
    let end = rows
        .as_ref()
        .is_ok_and(|r| ResultScanner::batch_found_end(r, job.rows, job.max_bytes));
    let charge = budget.keep_taken();
    drop(budget);
    e.ahead = Some(Ahead {
        rows: rows.map_err(ServiceError::from),
        charge,
        end,
        cost,
    });
}

/// The next batch of up to `n` rows within `max_bytes` of `scanner`: the rows read ahead
/// first (their charge taken over by this call), then read here if they were fewer than asked
/// and did not find the end; rows read ahead beyond `n` stay for the next call.
pub(super) fn next_batch(
    ahead: &mut Option<Ahead>,
    scanner: &mut ResultScanner,
    n: usize,
    max_bytes: usize,
) -> Result<Vec<RowResult>, ServiceError> {
    let Some(a) = ahead.take() else {
        return Ok(scanner.next_batch_within(n, max_bytes)?);
    };
    let Ahead {
        rows,
        mut charge,
        end,
        cost,
    } = a;
    // The read was this call's work, done before it came (a batch split between calls is
    // counted by the first).
    CostRecording::credit(&cost);
    // A read that failed holds no rows: its charge goes back at once.
    let mut rows = rows?;
    if rows.len() > n {
        // The rows left for the next call stay counted in the pool until it takes them.
        let rest = rows.split_off(n);
        let kept = charge.split_off(ResultScanner::batch_bytes(&rest));
        adopt(charge);
        *ahead = Some(Ahead {
            rows: Ok(rest),
            charge: kept,
            end,
            cost: ReadCost::default(),
        });
        return Ok(rows);
    }
    adopt(charge);
    let bytes = ResultScanner::batch_bytes(&rows);
    if rows.len() < n && bytes < max_bytes && !end {
        rows.extend(scanner.next_batch_within(n - rows.len(), max_bytes - bytes)?);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::super::convert::ColumnOrder;
    use super::super::{Handler, HandlerOptions, ServiceError};
    use ferrobase_engine::call_budget::{CallBudget, MemoryPool};
    use ferrobase_engine::{
        ColumnFamilyDescriptor, Engine, EngineOptions, Put, RowResult, Scan, TableDescriptor,
        TableName,
    };
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// A memory pool that counts what it holds and refuses what would take it past `limit`.
    #[derive(Debug)]
    struct Pool {
        taken: AtomicUsize,
        limit: usize,
    }

    impl Pool {
        fn with_limit(limit: usize) -> Arc<Pool> {
            Arc::new(Pool {
                taken: AtomicUsize::new(0),
                limit,
            })
        }

        fn held(&self) -> usize {
            self.taken.load(Ordering::Acquire)
        }
    }

    impl MemoryPool for Pool {
        fn try_take(&self, bytes: usize) -> bool {
            self.taken
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                    t.checked_add(bytes).filter(|&t| t <= self.limit)
                })
                .is_ok()
        }
        fn give_back(&self, bytes: usize) {
            self.taken.fetch_sub(bytes, Ordering::AcqRel);
        }
        fn limit(&self) -> usize {
            self.limit
        }
    }

    /// A handler over a table `t` of `rows` rows, some wider than others.
    fn handler(rows: usize, read_ahead: bool) -> (Handler, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let desc = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(ColumnFamilyDescriptor::new("cf"));
        engine.admin().create_table(desc).unwrap();
        let table = engine.table("t").unwrap();
        for i in 0..rows {
            let mut put = Put::new(format!("row{i:05}"));
            for c in 0..1 + i % 4 {
                // 3 KiB values: a 100-row batch passes the engine's charging step (256 KiB).
                let value = format!("value {i} {c} {}", "v".repeat(3 << 10));
                put = put.add_column("cf", format!("q{c}"), value);
            }
            table.put(put).unwrap();
        }
        let opts = HandlerOptions {
            scan_read_ahead: read_ahead,
            ..HandlerOptions::default()
        };
        let mut h = Handler::new(engine, opts);
        // As on a machine with cores to spare, whatever runs beside the test.
        h.read_ahead = crate::read_ahead::ReadAhead::new(read_ahead, Some(64));
        (h, dir)
    }

    fn open(h: &Handler) -> i32 {
        let scan = Scan::new();
        match h.open_scanner("", b"t", scan, ColumnOrder::Map) {
            Ok(Some(crate::thrift::TValue::I32(id))) => id,
            other => panic!("open: {other:?}"),
        }
    }

    fn rows_read(h: &Handler) -> u64 {
        h.engine.metrics().rows_returned.load(Ordering::Acquire)
    }

    /// Waits until the engine has read `n` rows in all (a second at most).
    fn wait_for_rows_read(h: &Handler, n: u64) -> u64 {
        let until = Instant::now() + Duration::from_secs(1);
        while rows_read(h) < n && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        rows_read(h)
    }

    #[test]
    fn a_scan_read_ahead_answers_what_it_would_have_read_itself() {
        // Batch sizes that change (fewer than read ahead, more, one), and pauses of no time and
        // of some, so calls come both before and after the worker has read.
        let sizes = [
            100, 100, 100, 100, 37, 250, 1, 100, 100, 100, 500, 3, 3, 3, 64,
        ];
        let mut answers = Vec::new();
        for read_ahead in [false, true] {
            let (h, _dir) = handler(1_500, read_ahead);
            let want: Vec<RowResult> = h.engine.table("t").unwrap().scan_all(&Scan::new()).unwrap();
            let id = open(&h);
            // Written after the scanner opened: never seen, read ahead or not.
            let table = h.engine.table("t").unwrap();
            table
                .put(Put::new("row00700").add_column("cf", "late", "x"))
                .unwrap();
            table
                .put(Put::new("row99999").add_column("cf", "late", "x"))
                .unwrap();
            let mut got: Vec<RowResult> = Vec::new();
            let mut calls = Vec::new();
            // What each call's explain line says it returned (a slow log's recording).
            let mut explained = 0;
            for (i, n) in sizes.iter().cycle().enumerate() {
                if i % 3 == 1 {
                    std::thread::sleep(Duration::from_millis(3));
                }
                let recording = ferrobase_engine::CostRecording::start();
                let rows = h.scanner_rows(id, *n).unwrap();
                explained += recording.finish().rows_returned;
                let finished = h.scanners.finished(id);
                calls.push((rows.len(), finished));
                got.extend(rows);
                if finished {
                    break;
                }
                assert!(i < 200, "the scan never ended");
            }
            assert_eq!(got.len(), want.len(), "read ahead: {read_ahead}");
            assert!(got == want, "read ahead: {read_ahead}: other rows");
            assert_eq!(
                explained,
                got.len() as u64,
                "read ahead: {read_ahead}: rows read ahead are explained by the calls taking them"
            );
            answers.push(calls);
            h.scanner_close(id).unwrap();
        }
        assert_eq!(answers[0], answers[1], "the same batches, the same end");
    }

    #[test]
    fn the_batch_after_the_second_full_one_is_read_ahead_and_held_in_the_pool() {
        let (h, _dir) = handler(1_000, true);
        let pool = Pool::with_limit(usize::MAX);
        let batch = |id: i32, n: usize| {
            let _call = CallBudget::start(Some(Duration::from_secs(60)))
                .with_memory(Some(pool.clone() as Arc<dyn MemoryPool>));
            h.scanner_rows(id, n).unwrap().len()
        };
        let id = open(&h);
        assert_eq!(batch(id, 100), 100);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(rows_read(&h), 100, "one full batch: nothing read ahead");
        assert_eq!(pool.held(), 0);
        assert_eq!(batch(id, 100), 100);
        assert_eq!(
            wait_for_rows_read(&h, 300),
            300,
            "the third batch read ahead"
        );
        // The worker has read, and (after its lock) stored: its rows are held in the pool.
        let until = Instant::now() + Duration::from_secs(1);
        while pool.held() == 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(pool.held() > 0, "rows read ahead are counted");
        // The next call takes them (and the fourth is read ahead in turn).
        assert_eq!(batch(id, 100), 100);
        assert_eq!(wait_for_rows_read(&h, 400), 400);
        // Closed, the scanner gives back what its read-ahead held.
        std::thread::sleep(Duration::from_millis(20));
        h.scanner_close(id).unwrap();
        assert_eq!(pool.held(), 0, "given back at close");

        // A batch whose call closes the scanner reads nothing ahead.
        let before = rows_read(&h);
        let id = open(&h);
        for _ in 0..2 {
            assert_eq!(batch(id, 100), 100);
        }
        let third = wait_for_rows_read(&h, before + 300);
        assert_eq!(third, before + 300);
        // A call taking fewer rows than were read ahead (and reading none ahead itself, as it
        // closes): the rest stay counted in the pool until a call takes them.
        let until = Instant::now() + Duration::from_secs(1);
        while pool.held() == 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        h.scanners.closing(id);
        assert_eq!(batch(id, 37), 37);
        assert!(
            pool.held() > 0,
            "the 63 rows left of the batch read ahead are still counted"
        );
        assert_eq!(batch(id, 63), 63);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            rows_read(&h),
            before + 300,
            "the closing call's next batch is not read"
        );
        assert_eq!(pool.held(), 0, "taken and answered");
        h.scanner_close(id).unwrap();
        assert_eq!(pool.held(), 0);
    }

    #[test]
    fn a_read_that_fails_part_way_closes_its_scanner_so_no_row_is_skipped() {
        for read_ahead in [false, true] {
            let (h, _dir) = handler(1_000, read_ahead);
            let pool = Pool::with_limit(400 << 10);
            let batch = |id: i32, n: usize| {
                let _call = CallBudget::start(Some(Duration::from_secs(60)))
                    .with_memory(Some(pool.clone() as Arc<dyn MemoryPool>));
                h.scanner_rows(id, n)
            };
            let id = open(&h);
            assert_eq!(batch(id, 30).unwrap().len(), 30);
            // 200 rows of about 7.5 KiB do not fit in 400 KiB: the read fails after passing
            // rows it cannot return.
            let error = batch(id, 200).unwrap_err();
            let message = format!("{error:?}");
            assert!(
                message.contains(&format!("scanner {id} was closed")),
                "{message}"
            );
            assert_eq!(pool.held(), 0, "all given back");
            // Asking again does not go on after the lost rows: the scanner is gone.
            let again = batch(id, 10).unwrap_err();
            assert!(
                matches!(again, ServiceError::IllegalArgument(_)),
                "{again:?}"
            );
            assert!(!h.scanners.is_open(id));
        }
    }

    #[test]
    fn a_scan_reads_only_what_is_asked_without_read_ahead_or_a_free_core() {
        let (off, _dir) = handler(1_000, false);
        let (mut one_core, _dir2) = handler(1_000, true);
        one_core.read_ahead = crate::read_ahead::ReadAhead::new(true, Some(1));
        for h in [off, one_core] {
            let id = open(&h);
            for _ in 0..5 {
                assert_eq!(h.scanner_rows(id, 100).unwrap().len(), 100);
            }
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(rows_read(&h), 500);
        }
    }
}
