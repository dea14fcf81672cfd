//! The worker threads that read a long scan's next batch while its last one is packed and
//! sent, for every door of the process (Thrift1 and Thrift2 in `handler/read_ahead.rs`, the
//! native door in `ferrobase-native`). One connection's full scan then reads on one core while
//! the connection's thread answers on the other (the fourteenth stop's profile: reading the
//! stores is four fifths of a 1,000-row call, packing and writing the reply the rest).
//!
//! A door asks [`ReadAhead::wanted`] when a call has read a batch of a long scan, and gives
//! [`ReadAhead::schedule`] the read: a task that runs under the call's
//! [`ferrobase_engine::call_budget::CallContext`] and leaves its rows in the scanner for the
//! next call. A full queue drops the task (the next call then reads for itself).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Batches above this many bytes of cells are not read ahead: what a scanner holds between
/// two calls stays small beside the memory pool the reads share.
pub const MAX_BATCH_BYTES: usize = 8 << 20;

/// Jobs waiting for a worker; one more is not queued (the next call reads for itself).
const QUEUE: usize = 256;

/// A read to run on a worker.
struct Job {
    task: Box<dyn FnOnce() + Send>,
    /// Counts the job as a running read from when it is queued.
    _reading: Reading,
}

/// The workers that read ahead, started with the first job, stopped (and waited for) when
/// dropped.
pub struct ReadAhead {
    enabled: bool,
    state: Mutex<Option<Workers>>,
    /// Jobs queued or running.
    jobs: Arc<AtomicUsize>,
    /// The cores this process may use.
    cores: usize,
}

/// Counts a scanner read as running while it lives.
struct Reading(Arc<AtomicUsize>);

impl Reading {
    fn new(count: &Arc<AtomicUsize>) -> Reading {
        count.fetch_add(1, Ordering::AcqRel);
        Reading(count.clone())
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

struct Workers {
    jobs: SyncSender<Job>,
    threads: Vec<JoinHandle<()>>,
}

/// Connections of every door of this process in the middle of a call (decoding it, running it
/// or writing its answer): the threads busy on a core, as [`ReadAhead::wanted`] counts them.
static CALLS_IN_PROGRESS: AtomicUsize = AtomicUsize::new(0);

/// Counts a call as in progress while it lives ([`ReadAhead::wanted`]).
#[must_use = "the call counts only while the guard lives"]
pub struct CallInProgress(());

impl CallInProgress {
    /// A call starts on this thread.
    pub fn enter() -> CallInProgress {
        CALLS_IN_PROGRESS.fetch_add(1, Ordering::AcqRel);
        CallInProgress(())
    }
}

impl Drop for CallInProgress {
    fn drop(&mut self) {
        CALLS_IN_PROGRESS.fetch_sub(1, Ordering::AcqRel);
    }
}

impl ReadAhead {
    /// Reads ahead when `enabled`, counting on `cores` (`None`: those this process may use).
    pub fn new(enabled: bool, cores: Option<usize>) -> ReadAhead {
        ReadAhead {
            enabled,
            state: Mutex::new(None),
            jobs: Arc::new(AtomicUsize::new(0)),
            cores: cores.unwrap_or_else(available_cores),
        }
    }

    /// Whether the call now reading a scan should have the scan's next batch read ahead: read
    /// ahead is on, and a core is free for it: the connections in the middle of a call (this
    /// one at least) and the jobs queued or running are fewer than the cores. Where every core
    /// is busy already, a batch read on another thread only moves the work, and costs more
    /// there (rows built on one core are packed and freed on another): measured at eight
    /// connections on two cores, 15–18 % more CPU a row and 11–29 % fewer rows a second when it
    /// read ahead regardless (`docs/performance.md`).
    pub fn wanted(&self) -> bool {
        self.enabled
            && CALLS_IN_PROGRESS.load(Ordering::Acquire).max(1) + self.jobs.load(Ordering::Acquire)
                < self.cores
    }

    /// Reads queued or running now.
    pub fn pending(&self) -> usize {
        self.jobs.load(Ordering::Acquire)
    }

    /// Queues `task` for a worker (dropped when the queue is full). A panic in it is caught:
    /// it poisons whatever lock it held (the scanner's, which its next call closes), and the
    /// worker goes on.
    pub fn schedule(&self, task: impl FnOnce() + Send + 'static) {
        let job = Job {
            task: Box::new(task),
            _reading: Reading::new(&self.jobs),
        };
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.is_none() {
            *state = start_workers();
        }
        if let Some(w) = state.as_ref() {
            match w.jobs.try_send(job) {
                Ok(()) | Err(TrySendError::Full(_)) => {}
                Err(TrySendError::Disconnected(_)) => *state = None,
            }
        }
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some(Workers { jobs, threads }) = state.take() {
            drop(jobs);
            for t in threads {
                let _ = t.join();
            }
        }
    }
}

/// The cores this process may use.
fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One worker a core (at most four); none when no thread can be started (the calls then
/// read for themselves).
fn start_workers() -> Option<Workers> {
    let (jobs, queue) = sync_channel::<Job>(QUEUE);
    let queue = Arc::new(Mutex::new(queue));
    let count = available_cores().min(4);
    let threads: Vec<JoinHandle<()>> = (0..count)
        .filter_map(|_| {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name("ferrobase-ahead".into())
                .spawn(move || work(&queue))
                .ok()
        })
        .collect();
    (!threads.is_empty()).then_some(Workers { jobs, threads })
}

fn work(queue: &Mutex<Receiver<Job>>) {
    loop {
        let job = match queue.lock().unwrap_or_else(|p| p.into_inner()).recv() {
            Ok(job) => job,
            Err(_) => return, // the door has gone
        };
        let Job { task, _reading } = job;
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn tasks_run_and_are_counted_until_done_and_a_panic_leaves_the_workers_going() {
        let ahead = ReadAhead::new(true, Some(64));
        assert!(ahead.wanted());
        let done = Arc::new(AtomicUsize::new(0));
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let d = done.clone();
        ahead.schedule(move || {
            let _ = wait.recv();
            d.fetch_add(1, Ordering::AcqRel);
        });
        assert_eq!(
            ahead.jobs.load(Ordering::Acquire),
            1,
            "counted while it runs"
        );
        ahead.schedule(|| panic!("a read that panics"));
        let d = done.clone();
        ahead.schedule(move || {
            d.fetch_add(1, Ordering::AcqRel);
        });
        go.send(()).unwrap();
        let until = Instant::now() + Duration::from_secs(5);
        while (done.load(Ordering::Acquire) < 2 || ahead.jobs.load(Ordering::Acquire) > 0)
            && Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(done.load(Ordering::Acquire), 2);
        assert_eq!(ahead.jobs.load(Ordering::Acquire), 0);
    }

    #[test]
    fn nothing_is_wanted_when_off_or_without_a_free_core() {
        assert!(!ReadAhead::new(false, Some(64)).wanted());
        assert!(!ReadAhead::new(true, Some(1)).wanted());
        let two = ReadAhead::new(true, Some(2));
        let _a = CallInProgress::enter();
        let _b = CallInProgress::enter();
        assert!(!two.wanted(), "two calls on two cores");
    }
}
