//! The time budget of the call a thread is serving (issue 39, item 3): a door starts one
//! ([`CallBudget::start`]) before it runs a call's reads, and every read on that thread checks it
//! every few cells (or KiB of values) and rows, failing with [`Error::TimeBudget`] once it has run out. A read
//! therefore stops within about one cell's work of its budget, however costly its filter (a
//! regular expression over large values, say), instead of running on after its client has
//! given up. Each scanner batch is its own call, with its own budget. Reads on a thread without
//! a budget (embedded use, background work) are not limited.
//!
//! A door may also tell its calls how to see that their client has gone
//! ([`CallBudget::with_cancel`]): the same checks then look (at most every [`POLL_EVERY`]) and stop
//! the read with [`Error::ClientGone`], so the work of a client that disconnected ends at once
//! rather than at the budget.
//!
//! A door may also hand its calls a [`MemoryPool`] ([`CallBudget::with_memory`]): the cells a
//! read builds are taken from it as they are built (in [`CHARGE_CHUNK`]s), so calls in flight
//! together hold at most the pool's bytes of results; a read that would pass it fails with
//! [`Error::ReadMemory`] (retryable) and drops what it built. The guard gives the bytes back
//! when it drops: a door keeps it until the call's answer is written.
//!
//! A scan's call may also be given a heartbeat deadline ([`Heartbeat::start`], HBase's scanner
//! time limit for clients that handle heartbeat messages): past it, a scan stops between two
//! rows with its position kept ([`Error::Heartbeat`], turned into a short batch by
//! [`crate::ResultScanner::next_batch_or_heartbeat`]) instead of running on to the budget and
//! failing, and the next call goes on from the row after the last one looked at. A scan stops so
//! only after it has looked at one row in the call at least, so every call makes progress.

use crate::error::{Error, Result};
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Memory the calls in flight may hold together, shared by a door's calls.
pub trait MemoryPool: Send + Sync + std::fmt::Debug {
    /// Takes `bytes` from the pool; false (taking nothing) when that would pass its limit.
    fn try_take(&self, bytes: usize) -> bool;
    /// Gives back `bytes` taken.
    fn give_back(&self, bytes: usize);
    /// The pool's limit in bytes.
    fn limit(&self) -> usize;
}

/// Tells whether the client of the running call has gone (closed its connection).
pub trait Cancel: Send + Sync + std::fmt::Debug {
    /// True once the client will never read the call's answer.
    fn client_gone(&self) -> bool;
}

/// Cancelled when either is ([`CallContext::or_cancelled_by`]).
#[derive(Debug)]
struct EitherCancel(Option<Arc<dyn Cancel>>, Arc<dyn Cancel>);

impl Cancel for EitherCancel {
    fn client_gone(&self) -> bool {
        self.1.client_gone() || self.0.as_ref().is_some_and(|c| c.client_gone())
    }
}

/// A flag the door sets when it sees the client leave (a reader thread reading end-of-stream).
impl Cancel for std::sync::atomic::AtomicBool {
    fn client_gone(&self) -> bool {
        self.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// How often, at most, a read asks its call's [`Cancel`] whether the client has gone.
pub const POLL_EVERY: Duration = Duration::from_millis(25);

/// Result bytes a read builds between two takes from the call's memory pool.
pub const CHARGE_CHUNK: usize = 256 << 10;

/// A call's pool and what its reads took from it.
#[derive(Debug)]
struct Memory {
    pool: Arc<dyn MemoryPool>,
    taken: usize,
}

thread_local! {
    /// The running call's deadline and the budget it came from.
    static DEADLINE: Cell<Option<(Instant, Duration)>> = const { Cell::new(None) };
    /// The running call's memory pool, if its door gave one.
    static MEMORY: RefCell<Option<Memory>> = const { RefCell::new(None) };
    /// How the running call sees that its client has gone, and when it last looked.
    static CANCEL: RefCell<Option<(Arc<dyn Cancel>, Instant)>> = const { RefCell::new(None) };
    /// The running call's heartbeat deadline, the rows its reads have looked at since it was
    /// set, and whether the clock was last seen past it.
    static HEARTBEAT: Cell<Option<Beat>> = const { Cell::new(None) };
}

/// A heartbeat deadline in force on a thread ([`HEARTBEAT`]).
#[derive(Debug, Clone, Copy)]
struct Beat {
    at: Instant,
    rows: u32,
    passed: bool,
}

/// How many rows a scan looks at between two looks at the clock for its heartbeat: the first
/// row of a call, then every eighth (the clock costs about 20 ns, as much as a small row's
/// merge step). Between them a row's cells bring the look forward: [`check`], every
/// [`CHECK_EVERY`] cells or 4 KiB of values, notes a heartbeat deadline it finds passed.
const HEARTBEAT_EVERY: u32 = 8;

/// A scan call's heartbeat deadline on this thread, in force until dropped (the previous one,
/// if any, is then back in force).
#[derive(Debug)]
#[must_use = "the deadline holds only while the guard lives"]
pub struct Heartbeat {
    previous: Option<Beat>,
}

impl Heartbeat {
    /// Scans on this thread stop between rows once `at` has passed and they have looked at a
    /// row since this call; `None` lifts any deadline until the guard drops.
    pub fn start(at: Option<Instant>) -> Heartbeat {
        Heartbeat {
            previous: HEARTBEAT.with(|h| {
                h.replace(at.map(|at| Beat {
                    at,
                    rows: 0,
                    passed: false,
                }))
            }),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        HEARTBEAT.with(|h| h.set(self.previous));
    }
}

/// A scan has looked at a row (returned it or filtered it out): with a heartbeat deadline set,
/// the call has made progress and may stop.
#[inline]
pub(crate) fn looked_at_row() {
    HEARTBEAT.with(|h| {
        if let Some(mut beat) = h.get() {
            beat.rows = beat.rows.saturating_add(1);
            h.set(Some(beat));
        }
    });
}

/// Whether a scan on this thread should stop for a heartbeat now: its call has a heartbeat
/// deadline, that has passed, and the call has looked at a row. The clock is read only every
/// [`HEARTBEAT_EVERY`] rows, so a scan stops at most that many rows (or [`CHECK_EVERY`] cells)
/// after the deadline.
#[inline]
pub(crate) fn heartbeat_due() -> bool {
    HEARTBEAT.with(|h| match h.get() {
        Some(beat) if beat.passed => beat.rows > 0,
        // The clock is looked at after the call's first row, then every HEARTBEAT_EVERY rows.
        Some(mut beat) if beat.rows % HEARTBEAT_EVERY == 1 % HEARTBEAT_EVERY => {
            beat.passed = Instant::now() >= beat.at;
            h.set(Some(beat));
            beat.passed
        }
        _ => false,
    })
}

/// The time this thread's call has left of its budget, if it has one.
pub fn remaining() -> Option<Duration> {
    DEADLINE
        .with(Cell::get)
        .map(|(at, _)| at.saturating_duration_since(Instant::now()))
}

/// A call's time budget on this thread, in force until dropped (the previous one, if any, is
/// then back in force).
#[derive(Debug)]
#[must_use = "the budget holds only while the guard lives"]
pub struct CallBudget {
    previous: Option<(Instant, Duration)>,
    previous_memory: Option<Option<Memory>>,
    previous_cancel: Option<Option<(Arc<dyn Cancel>, Instant)>>,
}

impl CallBudget {
    /// Gives this thread's reads `budget` from now; `None` lifts any budget until the guard
    /// drops.
    pub fn start(budget: Option<Duration>) -> CallBudget {
        let deadline = budget.map(|b| (Instant::now() + b, b));
        CallBudget {
            previous: DEADLINE.with(|d| d.replace(deadline)),
            previous_memory: None,
            previous_cancel: None,
        }
    }

    /// The call's reads also stop with [`Error::ClientGone`] once `cancel` says its client
    /// has gone, until the guard drops.
    pub fn with_cancel(mut self, cancel: Option<Arc<dyn Cancel>>) -> CallBudget {
        let cancel = cancel.map(|c| (c, Instant::now()));
        let previous = CANCEL.with(|c| c.replace(cancel));
        self.previous_cancel.get_or_insert(previous);
        self
    }

    /// The call's reads also take the cells they build from `pool`, until the guard drops.
    pub fn with_memory(mut self, pool: Option<Arc<dyn MemoryPool>>) -> CallBudget {
        let memory = pool.map(|pool| Memory { pool, taken: 0 });
        let previous = MEMORY.with(|m| m.replace(memory));
        // Only the first call sets what the drop restores.
        self.previous_memory.get_or_insert(previous);
        self
    }
}

impl Drop for CallBudget {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.previous));
        if let Some(previous) = self.previous_cancel.take() {
            CANCEL.with(|c| c.replace(previous));
        }
        if let Some(previous) = self.previous_memory.take() {
            if let Some(m) = MEMORY.with(|m| m.replace(previous)) {
                m.pool.give_back(m.taken);
            }
        }
    }
}

/// What a call on this thread runs under (its budget's length, memory pool and cancel), taken
/// by [`CallContext::current`] so that work done for the call on another thread (a scanner's
/// read-ahead) runs under the same: [`CallContext::start`] there gives that thread the same
/// budget from its start, the same pool and the same way to see the client go.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    budget: Option<Duration>,
    pool: Option<Arc<dyn MemoryPool>>,
    cancel: Option<Arc<dyn Cancel>>,
}

impl CallContext {
    /// The context of the call this thread is running (empty on a thread without one).
    pub fn current() -> CallContext {
        CallContext {
            budget: DEADLINE.with(Cell::get).map(|(_, b)| b),
            pool: MEMORY.with(|m| m.borrow().as_ref().map(|m| m.pool.clone())),
            cancel: CANCEL.with(|c| c.borrow().as_ref().map(|(c, _)| c.clone())),
        }
    }

    /// This context, its reads also stopped (as if the client had gone) once `also` says so:
    /// work done for a call on another thread that another event makes useless (a scanner's
    /// rows read ahead, the scanner closed).
    pub fn or_cancelled_by(mut self, also: Arc<dyn Cancel>) -> CallContext {
        self.cancel = Some(Arc::new(EitherCancel(self.cancel.take(), also)));
        self
    }

    /// Runs this context on the calling thread until the guard drops: the budget counted from
    /// now.
    pub fn start(&self) -> CallBudget {
        CallBudget::start(self.budget)
            .with_memory(self.pool.clone())
            .with_cancel(self.cancel.clone())
    }
}

/// Bytes taken from a memory pool by a call that has ended without giving them back
/// ([`CallBudget::keep_taken`]): the results they count wait for a later call, which takes the
/// charge over ([`adopt`]); dropped, the bytes go back to the pool.
#[derive(Debug)]
#[must_use = "a charge dropped gives its bytes back at once"]
pub struct Charge {
    pool: Option<Arc<dyn MemoryPool>>,
    bytes: usize,
}

impl Default for Charge {
    /// Nothing held.
    fn default() -> Self {
        Charge {
            pool: None,
            bytes: 0,
        }
    }
}

impl Charge {
    /// The bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Moves up to `bytes` of this charge into a charge of its own on the same pool (rows read
    /// ahead split between the call that takes some and the call after, which takes the rest).
    pub fn split_off(&mut self, bytes: usize) -> Charge {
        let moved = bytes.min(self.bytes);
        self.bytes -= moved;
        Charge {
            pool: self.pool.clone(),
            bytes: moved,
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        if let Some(pool) = &self.pool {
            pool.give_back(self.bytes);
        }
    }
}

impl CallBudget {
    /// What this thread's call has taken from its pool so far, kept past the guard's drop as a
    /// [`Charge`] (the call's pool then counts nothing taken).
    pub fn keep_taken(&self) -> Charge {
        MEMORY.with(|m| match m.borrow_mut().as_mut() {
            Some(m) => Charge {
                pool: Some(m.pool.clone()),
                bytes: std::mem::take(&mut m.taken),
            },
            None => Charge::default(),
        })
    }
}

/// This thread's call takes `charge` over: its bytes go back to the pool when the call's guard
/// drops, as if its own reads had taken them. On a thread whose call has another pool (or
/// none), the charge is given back at once.
pub fn adopt(mut charge: Charge) {
    let Some(pool) = charge.pool.take() else {
        return;
    };
    let bytes = std::mem::take(&mut charge.bytes);
    MEMORY.with(|m| match m.borrow_mut().as_mut() {
        Some(m) if Arc::ptr_eq(&m.pool, &pool) => m.taken += bytes,
        _ => pool.give_back(bytes),
    });
}

/// Takes `bytes` a read has built from this thread's call's memory pool: [`Error::ReadMemory`]
/// when the pool has no room.
pub(crate) fn charge(bytes: usize) -> Result<()> {
    MEMORY.with(|m| match m.borrow_mut().as_mut() {
        None => Ok(()),
        Some(m) if m.pool.try_take(bytes) => {
            m.taken += bytes;
            Ok(())
        }
        Some(m) => Err(Error::ReadMemory {
            limit: m.pool.limit(),
        }),
    })
}

/// Fails with [`Error::TimeBudget`] when this thread's call has run past its budget, and with
/// [`Error::ClientGone`] when its client has gone (looked at every [`POLL_EVERY`] at most).
pub(crate) fn check() -> Result<()> {
    let deadline = DEADLINE.with(Cell::get);
    let gone = CANCEL.with(|c| match c.borrow_mut().as_mut() {
        Some((cancel, last)) if last.elapsed() >= POLL_EVERY => {
            *last = Instant::now();
            cancel.client_gone()
        }
        _ => false,
    });
    if gone {
        return Err(Error::ClientGone);
    }
    let beat = HEARTBEAT.with(Cell::get).filter(|b| !b.passed);
    if deadline.is_none() && beat.is_none() {
        return Ok(());
    }
    let now = Instant::now();
    if let Some(mut beat) = beat.filter(|b| now >= b.at) {
        beat.passed = true;
        HEARTBEAT.with(|h| h.set(Some(beat)));
    }
    match deadline {
        Some((at, budget)) if now >= at => Err(Error::TimeBudget {
            budget_ms: u64::try_from(budget.as_millis()).unwrap_or(u64::MAX),
        }),
        _ => Ok(()),
    }
}

/// How many cells or rows a read handles between two looks at the clock.
pub(crate) const CHECK_EVERY: u32 = 16;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Debug)]
    struct Pool {
        used: AtomicUsize,
        limit: usize,
    }

    impl MemoryPool for Pool {
        fn try_take(&self, bytes: usize) -> bool {
            self.used
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                    u.checked_add(bytes).filter(|&t| t <= self.limit)
                })
                .is_ok()
        }
        fn give_back(&self, bytes: usize) {
            self.used.fetch_sub(bytes, Ordering::AcqRel);
        }
        fn limit(&self) -> usize {
            self.limit
        }
    }

    #[test]
    fn reads_take_from_the_pool_and_the_guard_gives_it_back() {
        let pool = Arc::new(Pool {
            used: AtomicUsize::new(0),
            limit: 100,
        });
        assert!(charge(1 << 30).is_ok(), "no pool: no limit");
        {
            let _call = CallBudget::start(None).with_memory(Some(pool.clone()));
            assert!(charge(60).is_ok());
            assert!(matches!(charge(60), Err(Error::ReadMemory { limit: 100 })));
            assert_eq!(pool.used.load(Ordering::Acquire), 60);
        }
        assert_eq!(pool.used.load(Ordering::Acquire), 0);
        assert!(charge(1 << 30).is_ok());
    }

    #[test]
    fn a_charge_kept_past_its_call_goes_back_with_the_call_that_adopts_it() {
        let pool = Arc::new(Pool {
            used: AtomicUsize::new(0),
            limit: 100,
        });
        let other = Arc::new(Pool {
            used: AtomicUsize::new(0),
            limit: 100,
        });
        let caller = {
            let _call = CallBudget::start(Some(Duration::from_secs(7)))
                .with_memory(Some(pool.clone() as Arc<dyn MemoryPool>));
            CallContext::current()
        };
        assert!(CallContext::current().pool.is_none(), "the guard dropped");
        // Another thread runs under the caller's context and keeps what it took.
        let kept = std::thread::spawn(move || {
            let call = caller.start();
            assert!(remaining().is_some_and(|r| r <= Duration::from_secs(7)));
            assert!(charge(30).is_ok());
            call.keep_taken()
        })
        .join()
        .unwrap();
        assert_eq!((kept.bytes(), pool.used.load(Ordering::Acquire)), (30, 30));
        {
            let _next = CallBudget::start(None).with_memory(Some(pool.clone()));
            adopt(kept);
            assert_eq!(
                pool.used.load(Ordering::Acquire),
                30,
                "held while the call runs"
            );
        }
        assert_eq!(
            pool.used.load(Ordering::Acquire),
            0,
            "given back with the call"
        );
        // Split: the part adopted goes back with its call, the part kept stays taken.
        let mut whole = {
            let call = CallBudget::start(None).with_memory(Some(pool.clone()));
            assert!(charge(50).is_ok());
            call.keep_taken()
        };
        let rest = whole.split_off(20);
        assert_eq!((whole.bytes(), rest.bytes()), (30, 20));
        assert_eq!(whole.split_off(1_000).bytes(), 30, "no more than it holds");
        {
            let _call = CallBudget::start(None).with_memory(Some(pool.clone()));
            adopt(whole);
        }
        assert_eq!(pool.used.load(Ordering::Acquire), 20, "the rest still held");
        drop(rest);
        assert_eq!(pool.used.load(Ordering::Acquire), 0);
        // A call on another pool does not take it over: given back at once.
        let dropped = {
            let call = CallBudget::start(None).with_memory(Some(pool.clone()));
            assert!(charge(20).is_ok());
            call.keep_taken()
        };
        {
            let _elsewhere = CallBudget::start(None).with_memory(Some(other.clone()));
            adopt(dropped);
            assert_eq!(pool.used.load(Ordering::Acquire), 0);
            assert_eq!(other.used.load(Ordering::Acquire), 0);
        }
        // A charge dropped unadopted gives its bytes back.
        let call = CallBudget::start(None).with_memory(Some(pool.clone()));
        assert!(charge(10).is_ok());
        let lost = call.keep_taken();
        drop(call);
        assert_eq!(pool.used.load(Ordering::Acquire), 10);
        drop(lost);
        assert_eq!(pool.used.load(Ordering::Acquire), 0);
    }

    #[derive(Debug, Default)]
    struct Gone(std::sync::atomic::AtomicBool);

    impl Cancel for Gone {
        fn client_gone(&self) -> bool {
            self.0.load(Ordering::Acquire)
        }
    }

    #[test]
    fn a_read_stops_once_its_client_is_gone_and_the_guard_forgets_the_client() {
        let gone = Arc::new(Gone::default());
        {
            let _call = CallBudget::start(None).with_cancel(Some(gone.clone()));
            assert!(check().is_ok());
            gone.0.store(true, Ordering::Release);
            // Looked at again only after POLL_EVERY.
            std::thread::sleep(POLL_EVERY);
            assert!(matches!(check(), Err(Error::ClientGone)));
        }
        std::thread::sleep(POLL_EVERY);
        assert!(check().is_ok(), "the guard dropped: no client to ask");
    }

    #[test]
    fn a_heartbeat_is_due_past_its_deadline_once_a_row_was_looked_at() {
        assert!(!heartbeat_due(), "no deadline: never due");
        looked_at_row();
        assert!(!heartbeat_due());
        {
            let _hb = Heartbeat::start(Some(Instant::now()));
            assert!(!heartbeat_due(), "no row looked at yet in this call");
            looked_at_row();
            assert!(heartbeat_due());
            {
                let _later = Heartbeat::start(Some(Instant::now() + Duration::from_secs(60)));
                looked_at_row();
                assert!(!heartbeat_due());
                let _lifted = Heartbeat::start(None);
                assert!(!heartbeat_due());
            }
            assert!(
                heartbeat_due(),
                "the outer deadline and its progress are back"
            );
        }
        assert!(!heartbeat_due());
        assert_eq!(remaining(), None);
        let _call = CallBudget::start(Some(Duration::from_secs(60)));
        assert!(remaining().is_some_and(|r| r > Duration::from_secs(59)));
    }

    #[test]
    fn the_clock_is_read_for_a_heartbeat_every_few_rows_or_when_the_cells_check() {
        let _hb = Heartbeat::start(Some(Instant::now() + Duration::from_millis(30)));
        looked_at_row();
        assert!(!heartbeat_due(), "the first row: the clock read, not yet");
        std::thread::sleep(Duration::from_millis(40));
        // Rows 2 to 8 do not read the clock; the ninth does.
        let mut due_at = None;
        for row in 2..=20 {
            looked_at_row();
            if heartbeat_due() {
                due_at = Some(row);
                break;
            }
        }
        assert_eq!(due_at, Some(HEARTBEAT_EVERY + 1));
        let _next = Heartbeat::start(Some(Instant::now() + Duration::from_millis(30)));
        looked_at_row();
        assert!(!heartbeat_due());
        std::thread::sleep(Duration::from_millis(40));
        looked_at_row();
        assert!(!heartbeat_due(), "the second row does not read the clock");
        // A wide row's cells check the budget every few cells: that look notes the heartbeat.
        assert!(check().is_ok());
        assert!(heartbeat_due());
    }

    #[test]
    fn a_budget_runs_out_and_its_guard_restores_the_previous_one() {
        assert!(check().is_ok());
        {
            let _outer = CallBudget::start(Some(Duration::ZERO));
            assert!(matches!(check(), Err(Error::TimeBudget { budget_ms: 0 })));
            {
                let _inner = CallBudget::start(Some(Duration::from_secs(60)));
                assert!(check().is_ok());
            }
            assert!(check().is_err());
            let _lifted = CallBudget::start(None);
            assert!(check().is_ok());
        }
        assert!(check().is_ok());
    }
}
