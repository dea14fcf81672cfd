//! Multi-version concurrency control (HBase's `MultiVersionConcurrencyControl`).
//!
//! Every mutation takes a write number (its sequence id) when it begins and completes it when
//! all its cells are in the memstore. The read point is the largest number such that every
//! write up to it is complete; readers ignore cells with a larger sequence id, so no reader
//! sees part of a mutation.
//!
//! Readers take no lock: the read point is also published in an atomic, stored under the lock
//! each time it moves (HBase's `readPoint` is an `AtomicLong` for the same reason: every read
//! asks for it, and a mutex there made readers queue behind writers). A writer waiting for its
//! write to become visible parks alone and is woken only when the read point reaches its
//! number, not by every completion (a condition variable woke all of them at each one).

use crate::lock;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread::Thread;

/// Sequence-id allocation and read-point tracking. Thread-safe.
#[derive(Debug)]
pub struct Mvcc {
    inner: Mutex<Inner>,
    /// `Inner::read_point`, stored under `inner` whenever it changes; read without the lock.
    read_point: AtomicU64,
    /// Wakes `advance_past` (rare: imports) when the read point moves.
    advanced: Condvar,
}

#[derive(Debug)]
struct Inner {
    next: u64,
    read_point: u64,
    /// Whether each write from `read_point + 1` up to `next - 1` has completed, oldest first
    /// (numbers are handed out in order, so a queue holds them without allocating per write).
    pending: VecDeque<bool>,
    /// Threads blocked in `advance_past`; completions notify `advanced` only when there are any.
    waiters: usize,
    /// Threads parked in `wait_for`, by the write number each waits for; a completion that
    /// moves the read point to or past a number removes and unparks its threads.
    parked: BTreeMap<u64, Vec<Thread>>,
}

impl Mvcc {
    /// Starts after `last_seq` (the largest sequence id already durable).
    pub fn new(last_seq: u64) -> Self {
        Mvcc {
            inner: Mutex::new(Inner {
                next: last_seq + 1,
                read_point: last_seq,
                pending: VecDeque::new(),
                waiters: 0,
                parked: BTreeMap::new(),
            }),
            read_point: AtomicU64::new(last_seq),
            advanced: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        lock::lock(&self.inner)
    }

    /// Allocates the next write number.
    pub fn begin(&self) -> u64 {
        let mut g = self.lock();
        let n = g.next;
        g.next += 1;
        g.pending.push_back(false);
        n
    }

    /// Marks `seq` complete and advances the read point as far as possible.
    pub fn complete(&self, seq: u64) {
        let mut g = self.lock();
        let Some(i) = seq
            .checked_sub(g.read_point + 1)
            .and_then(|i| usize::try_from(i).ok())
        else {
            return;
        };
        if let Some(done) = g.pending.get_mut(i) {
            *done = true;
        }
        let mut advanced = false;
        while g.pending.front() == Some(&true) {
            g.pending.pop_front();
            g.read_point += 1;
            advanced = true;
        }
        if advanced {
            let woken = self.published(&mut g);
            drop(g);
            woken.into_iter().for_each(|t| t.unpark());
        }
    }

    /// After the read point moved (under the lock): publishes it, notifies `advance_past`'s
    /// waiters, and returns the parked threads it reached (to unpark once the lock is let go).
    fn published(&self, g: &mut Inner) -> Vec<Thread> {
        self.read_point.store(g.read_point, Ordering::Release);
        if g.waiters > 0 {
            self.advanced.notify_all();
        }
        let mut woken = Vec::new();
        while let Some(entry) = g.parked.first_entry() {
            if *entry.key() > g.read_point {
                break;
            }
            woken.extend(entry.remove());
        }
        woken
    }

    /// The current read point. Takes no lock: every write at or below it has completed and
    /// its cells are in the memstore (the `Release` store after them pairs with this load).
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::Acquire)
    }

    /// The largest write number handed out so far.
    pub fn last_allocated(&self) -> u64 {
        self.lock().next - 1
    }

    /// The smallest write number not yet complete, or the next one to be handed out.
    pub fn oldest_pending(&self) -> u64 {
        let g = self.lock();
        // Everything up to the read point is complete; the first pending write follows it.
        if g.pending.is_empty() {
            g.next
        } else {
            g.read_point + 1
        }
    }

    /// Moves the sequence past `seq` (nothing to do when a write number above it was handed
    /// out already): the next write number follows `seq` and the read point reaches it. For
    /// block files another engine wrote (an imported snapshot's), whose cells carry its
    /// sequence ids; waits for the writes in flight to complete first.
    pub fn advance_past(&self, seq: u64) {
        let mut g = self.lock();
        loop {
            if g.next > seq {
                return;
            }
            if g.pending.is_empty() {
                g.next = seq + 1;
                g.read_point = seq;
                let woken = self.published(&mut g);
                drop(g);
                woken.into_iter().for_each(|t| t.unpark());
                return;
            }
            g.waiters += 1;
            g = lock::wait(&self.advanced, g);
            g.waiters -= 1;
        }
    }

    /// Blocks until the read point reaches `seq`: parked until the completion that moves it
    /// there unparks this thread alone.
    pub fn wait_for(&self, seq: u64) {
        if self.read_point() >= seq {
            return;
        }
        let mut g = self.lock();
        if g.read_point >= seq {
            return;
        }
        g.parked
            .entry(seq)
            .or_default()
            .push(std::thread::current());
        loop {
            drop(g);
            std::thread::park();
            g = self.lock();
            // Only the completion that reached `seq` removed this thread's entry; after a
            // spurious wake-up the entry is still there and the thread parks again.
            if g.read_point >= seq {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advancing_past_a_sequence_moves_the_next_number_and_the_read_point() {
        let m = Mvcc::new(5);
        m.advance_past(3);
        assert_eq!((m.last_allocated(), m.read_point()), (5, 5));
        m.advance_past(1000);
        assert_eq!((m.last_allocated(), m.read_point()), (1000, 1000));
        let s = m.begin();
        assert_eq!(s, 1001);
        m.complete(s);
        assert_eq!(m.read_point(), 1001);
    }

    #[test]
    fn out_of_order_completions_advance_the_read_point_once_contiguous_and_wake_waiters() {
        let m = std::sync::Arc::new(Mvcc::new(0));
        let seqs: Vec<u64> = (0..100).map(|_| m.begin()).collect();
        let waiter = {
            let m = m.clone();
            std::thread::spawn(move || m.wait_for(100))
        };
        for &s in seqs.iter().rev() {
            assert_eq!(m.oldest_pending(), 1);
            m.complete(s);
            assert_eq!(m.read_point(), if s == 1 { 100 } else { 0 });
        }
        waiter.join().expect("waiter woke");
        assert_eq!(m.oldest_pending(), 101);
        // A number completed twice or never handed out changes nothing.
        m.complete(50);
        m.complete(500);
        assert_eq!(m.read_point(), 100);
    }

    #[test]
    fn writers_waiting_for_their_own_numbers_all_wake_whatever_the_completion_order() {
        // Every writer completes and waits for its own number, as `apply_locked` does; each is
        // parked alone and must be woken by whichever completion reaches its number.
        let m = std::sync::Arc::new(Mvcc::new(0));
        let threads: Vec<_> = (0..16)
            .map(|t| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for i in 0..500u64 {
                        let s = m.begin();
                        if (t + i) % 7 == 0 {
                            std::thread::yield_now();
                        }
                        m.complete(s);
                        m.wait_for(s);
                        assert!(m.read_point() >= s);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("writer finished");
        }
        assert_eq!(m.read_point(), 16 * 500);
        assert!(crate::lock::lock(&m.inner).parked.is_empty());
    }

    #[test]
    fn a_waiter_for_a_later_number_stays_parked_until_its_number_completes() {
        let m = std::sync::Arc::new(Mvcc::new(0));
        let (a, b) = (m.begin(), m.begin());
        let waiter = {
            let m = m.clone();
            std::thread::spawn(move || m.wait_for(b))
        };
        m.complete(a);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "woken before its number completed");
        m.complete(b);
        waiter.join().expect("waiter woke");
        assert_eq!(m.read_point(), 2);
    }

    #[test]
    fn read_point_waits_for_the_oldest_pending_write() {
        let m = Mvcc::new(10);
        let a = m.begin();
        let b = m.begin();
        assert_eq!((a, b), (11, 12));
        m.complete(b);
        assert_eq!(m.read_point(), 10);
        m.complete(a);
        assert_eq!(m.read_point(), 12);
    }
}
