//! Bounded call execution: at most `handlers` calls run at once (HBase's
//! `hbase.regionserver.handler.count`), at most `max_queued` more wait for a handler in arrival
//! order (HBase's `hbase.ipc.server.max.callqueue.length`), and none waits longer than
//! `timeout`. A call refused either way is answered "busy" (HBase's `CallQueueTooBigException`)
//! and the client may retry; the connection goes on.
//!
//! Connection threads only read and write; the work they may do at once is the handlers'.
//! A freed handler is handed straight to the longest-waiting call (FIFO, one wake-up per
//! release), so a thousand waiting connections do not stampede on every release.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// Sizes of the call queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallQueueOptions {
    /// Calls run at once (default 30, HBase's `hbase.regionserver.handler.count`). At least 1.
    pub handlers: usize,
    /// Calls that may wait for a handler (default 300: HBase's
    /// `hbase.ipc.server.max.callqueue.length`, ten per handler). A call arriving when this many
    /// wait is refused at once. 0 refuses every call that finds all handlers busy.
    pub max_queued: usize,
    /// Longest a call waits for a handler before it is refused (default 60 s, HBase's
    /// `hbase.rpc.timeout`: a client has given up on a call queued longer).
    pub timeout: Duration,
    /// Longest a call's reads may run (default 60 s, HBase's `hbase.rpc.timeout`, after which
    /// its client has given up); past it the read stops and the call fails naming
    /// `--max-read-time` (`ferrobase_engine::call_budget`). `None`: unlimited.
    pub read_budget: Option<Duration>,
}

impl Default for CallQueueOptions {
    fn default() -> Self {
        CallQueueOptions {
            handlers: 30,
            max_queued: 300,
            timeout: Duration::from_secs(60),
            read_budget: Some(Duration::from_secs(60)),
        }
    }
}

/// Why a call got no handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// `max_queued` calls were already waiting.
    Full {
        /// The queue's length limit.
        max_queued: usize,
    },
    /// The call waited `timeout` without a handler coming free.
    TimedOut {
        /// The queue's timeout.
        timeout: Duration,
    },
}

impl Busy {
    /// The client's message: HBase's `CallQueueTooBigException` text ("Call queue is full on
    /// HOST:PORT, too many items queued ?") followed by which limit was met.
    pub fn message(&self, server: &str, handlers: usize) -> String {
        let why = match self {
            Busy::Full { max_queued } => format!(
                "all {handlers} handlers are busy and {max_queued} calls already wait for one \
                 (--handlers, --max-queued-calls)"
            ),
            Busy::TimedOut { timeout } => format!(
                "the call waited {} s for one of {handlers} handlers (--call-queue-timeout)",
                timeout.as_secs_f64()
            ),
        };
        format!(
            "Call queue is full on {server}, too many items queued ? \
             (CallQueueTooBigException: {why}; retry later)"
        )
    }
}

struct Waiter {
    granted: AtomicBool,
    thread: Thread,
}

struct State {
    running: usize,
    waiting: VecDeque<Arc<Waiter>>,
}

/// The handlers and the queue of calls waiting for one. Thread-safe; shared by every
/// connection.
pub struct CallQueue {
    opts: CallQueueOptions,
    state: Mutex<State>,
}

/// A handler held by a running call; dropping it hands the handler to the next waiting call.
#[must_use = "the handler is released when the slot drops"]
pub struct Slot<'a> {
    queue: &'a CallQueue,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.queue.release();
    }
}

impl CallQueue {
    /// A queue of `opts.handlers` handlers (at least one).
    pub fn new(mut opts: CallQueueOptions) -> CallQueue {
        opts.handlers = opts.handlers.max(1);
        CallQueue {
            opts,
            state: Mutex::new(State {
                running: 0,
                waiting: VecDeque::new(),
            }),
        }
    }

    /// The sizes in force.
    pub fn options(&self) -> CallQueueOptions {
        self.opts
    }

    /// The state; recovered when poisoned (every critical section is a counter update or one
    /// `VecDeque` operation, none of which panics half-way).
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes a handler: at once when one is free and no call waits, else after the calls
    /// queued before this one. Refused when the queue is full or the wait passes the timeout.
    pub fn acquire(&self) -> Result<Slot<'_>, Busy> {
        let me = {
            let mut s = self.state();
            if s.running < self.opts.handlers && s.waiting.is_empty() {
                s.running += 1;
                return Ok(Slot { queue: self });
            }
            if s.waiting.len() >= self.opts.max_queued {
                return Err(Busy::Full {
                    max_queued: self.opts.max_queued,
                });
            }
            let me = Arc::new(Waiter {
                granted: AtomicBool::new(false),
                thread: std::thread::current(),
            });
            s.waiting.push_back(me.clone());
            me
        };
        let deadline = Instant::now() + self.opts.timeout;
        loop {
            if me.granted.load(Ordering::Acquire) {
                return Ok(Slot { queue: self });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let mut s = self.state();
                // Granted between the check and the lock: the handler is ours.
                if me.granted.load(Ordering::Acquire) {
                    return Ok(Slot { queue: self });
                }
                s.waiting.retain(|w| !Arc::ptr_eq(w, &me));
                return Err(Busy::TimedOut {
                    timeout: self.opts.timeout,
                });
            }
            std::thread::park_timeout(left);
        }
    }

    /// Gives a handler back: to the longest-waiting call, or to the pool.
    fn release(&self) {
        let mut s = self.state();
        match s.waiting.pop_front() {
            Some(next) => {
                next.granted.store(true, Ordering::Release);
                next.thread.unpark();
            }
            None => s.running -= 1,
        }
    }

    /// Calls running now.
    pub fn running(&self) -> usize {
        self.state().running
    }

    /// Calls waiting for a handler now.
    pub fn queued(&self) -> usize {
        self.state().waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(handlers: usize, max_queued: usize, timeout_ms: u64) -> Arc<CallQueue> {
        Arc::new(CallQueue::new(CallQueueOptions {
            handlers,
            max_queued,
            timeout: Duration::from_millis(timeout_ms),
            read_budget: None,
        }))
    }

    fn wait_until(what: impl Fn() -> bool) {
        let give_up = Instant::now() + Duration::from_secs(20);
        while !what() {
            assert!(Instant::now() < give_up, "condition never reached");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn calls_past_the_handlers_wait_and_past_the_queue_are_refused() {
        let q = queue(2, 1, 60_000);
        let a = q.acquire().unwrap();
        let _b = q.acquire().unwrap();
        assert_eq!(q.running(), 2);
        let waiter = {
            let q = q.clone();
            std::thread::spawn(move || q.acquire().map(|_| ()))
        };
        wait_until(|| q.queued() == 1);
        assert_eq!(q.acquire().err(), Some(Busy::Full { max_queued: 1 }));
        drop(a);
        assert_eq!(waiter.join().unwrap(), Ok(()));
        assert_eq!(q.queued(), 0);
        assert_eq!(q.running(), 1);
    }

    #[test]
    fn a_call_waiting_past_the_timeout_is_refused_and_leaves_the_queue() {
        let q = queue(1, 5, 50);
        let held = q.acquire().unwrap();
        let err = q.acquire().err().unwrap();
        assert_eq!(
            err,
            Busy::TimedOut {
                timeout: Duration::from_millis(50)
            }
        );
        assert_eq!(q.queued(), 0);
        drop(held);
        assert_eq!(q.running(), 0);
        drop(q.acquire().unwrap());
    }

    #[test]
    fn a_freed_handler_goes_to_the_longest_waiting_call() {
        let q = queue(1, 10, 60_000);
        let held = q.acquire().unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut threads = Vec::new();
        for i in 0..4 {
            let (q2, order) = (q.clone(), order.clone());
            threads.push(std::thread::spawn(move || {
                let _slot = q2.acquire().unwrap();
                order.lock().unwrap().push(i);
            }));
            wait_until(|| q.queued() == i + 1);
        }
        drop(held);
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(q.running(), 0);
    }

    #[test]
    fn many_threads_never_hold_more_than_the_handlers_and_every_call_gets_one() {
        // Calls taking and giving back handlers race with calls queueing: no call may be
        // stranded with a handler free, none may run beyond the handlers.
        let q = queue(2, 1000, 60_000);
        let holding = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let (q, holding) = (q.clone(), holding.clone());
                std::thread::spawn(move || {
                    for i in 0..2000 {
                        let _slot = q.acquire().unwrap();
                        let now = holding.fetch_add(1, Ordering::SeqCst) + 1;
                        assert!(now <= 2, "{now} calls hold a handler of 2");
                        if i % 64 == 0 {
                            std::thread::yield_now();
                        }
                        holding.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!((q.running(), q.queued()), (0, 0));
    }

    #[test]
    fn with_no_queue_a_call_finding_every_handler_busy_is_refused() {
        let q = queue(1, 0, 60_000);
        let _held = q.acquire().unwrap();
        assert_eq!(q.acquire().err(), Some(Busy::Full { max_queued: 0 }));
    }

    #[test]
    fn the_busy_message_starts_with_hbase_call_queue_too_big_text() {
        let m = Busy::Full { max_queued: 300 }.message("127.0.0.1:9090", 30);
        assert!(
            m.starts_with("Call queue is full on 127.0.0.1:9090, too many items queued ?"),
            "{m}"
        );
        assert!(m.contains("--max-queued-calls"), "{m}");
        let m = Busy::TimedOut {
            timeout: Duration::from_secs(60),
        }
        .message("h:1", 30);
        assert!(m.contains("waited 60 s") && m.contains("--call-queue-timeout"));
    }
}
