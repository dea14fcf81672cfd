//! Multi-version concurrency control (HBase's `MultiVersionConcurrencyControl`).
//!
//! Every mutation takes a write number (its sequence id) when it begins and completes it when
//! all its cells are in the memstore. The read point is the largest number such that every
//! write up to it is complete; readers ignore cells with a larger sequence id, so no reader
//! sees part of a mutation.
//!
//! Writers and readers take no lock. A write number comes from an atomic counter; a completion
//! marks its number in a ring of slots and moves the read point, an atomic, over every
//! contiguous completed number with compare-and-swaps, whichever thread gets there first (a
//! mutex held for both, as HBase's `writeQueue`, was two lock round trips per write on a line
//! every writer shares). A writer waiting for its write to become visible parks alone and is
//! woken only by a completion that moves the read point to its number.

use crate::lock;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::Thread;

/// Write numbers that may be in flight at once (begun and not passed by the read point): a
/// writer begins one write at a time, so this bounds writing threads, not writes; a write
/// number further ahead waits in [`Mvcc::begin`] for the read point.
const RING: u64 = 4096;

/// Sequence-id allocation and read-point tracking. Thread-safe and lock-free but for parking.
#[derive(Debug)]
pub struct Mvcc {
    /// The next write number to hand out.
    next: AtomicU64,
    /// Every write numbered up to this has completed.
    read_point: AtomicU64,
    /// Completed write numbers the read point has not passed yet, `seq` in slot `seq % RING`
    /// (a slot holding any other number is not complete: numbers of earlier laps never match).
    done: Box<[AtomicU64]>,
    /// Threads parked in `wait_for`, by the write number each waits for.
    parked: Mutex<BTreeMap<u64, Vec<Thread>>>,
    /// Threads in `parked`: a completion takes that lock only when some thread is parked.
    parked_count: AtomicUsize,
}

impl Mvcc {
    /// Starts after `last_seq` (the largest sequence id already durable).
    pub fn new(last_seq: u64) -> Self {
        Mvcc {
            next: AtomicU64::new(last_seq + 1),
            read_point: AtomicU64::new(last_seq),
            // 0 is never handed out (numbers start after `last_seq`), so no slot starts done.
            done: (0..RING).map(|_| AtomicU64::new(0)).collect(),
            parked: Mutex::new(BTreeMap::new()),
            parked_count: AtomicUsize::new(0),
        }
    }

    fn slot(&self, seq: u64) -> &AtomicU64 {
        &self.done[(seq % RING) as usize]
    }

    /// Allocates the next write number.
    pub fn begin(&self) -> u64 {
        let seq = self.next.fetch_add(1, Ordering::SeqCst);
        // Its slot is free once the read point passed the number a lap below it (more than
        // RING writes in flight: never seen, but then this writer waits its turn).
        while seq >= self.read_point.load(Ordering::SeqCst) + RING {
            std::thread::yield_now();
        }
        seq
    }

    /// Marks `seq` complete and advances the read point as far as possible. A number never
    /// handed out, or completed already, changes nothing.
    pub fn complete(&self, seq: u64) {
        if seq <= self.read_point.load(Ordering::SeqCst) || seq >= self.next.load(Ordering::SeqCst)
        {
            return;
        }
        self.slot(seq).store(seq, Ordering::SeqCst);
        self.advance();
    }

    /// Moves the read point over every contiguous completed number and wakes the threads
    /// parked for the numbers it reached. Any completing thread may move it: each stores its
    /// slot before it reads the read point, and each move is a compare-and-swap before it reads
    /// the next slot (all sequentially consistent), so of two completions of adjacent numbers
    /// at least one sees the other's.
    fn advance(&self) {
        let mut moved = false;
        loop {
            let rp = self.read_point.load(Ordering::SeqCst);
            let n = rp + 1;
            if self.slot(n).load(Ordering::SeqCst) != n {
                break;
            }
            moved |= self
                .read_point
                .compare_exchange(rp, n, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok();
        }
        // A parked thread counts itself before it reads the read point; a mover reads the
        // count after its move: one of them sees the other.
        if moved && self.parked_count.load(Ordering::SeqCst) > 0 {
            self.wake_reached();
        }
    }

    /// The current read point: every write at or below it has completed and its cells are in
    /// the memstore (the compare-and-swap that moved it came after them).
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::Acquire)
    }

    /// The largest write number handed out so far.
    pub fn last_allocated(&self) -> u64 {
        self.next.load(Ordering::SeqCst) - 1
    }

    /// The smallest write number not yet complete, or the next one to be handed out. Never
    /// above the true one (a completion meanwhile can only make it smaller than the truth, so
    /// the WAL a flush keeps for it is never too little).
    pub fn oldest_pending(&self) -> u64 {
        let first = self.read_point.load(Ordering::SeqCst) + 1;
        first.min(self.next.load(Ordering::SeqCst))
    }

    /// Moves the sequence past `seq` (nothing to do when a write number above it was handed
    /// out already): the next write number follows `seq` and the read point reaches it. For
    /// block files another engine wrote (an imported snapshot's), whose cells carry its
    /// sequence ids; waits for the writes in flight to complete first.
    pub fn advance_past(&self, seq: u64) {
        loop {
            let n = self.next.load(Ordering::SeqCst);
            if n > seq {
                return;
            }
            if self.read_point.load(Ordering::SeqCst) + 1 != n {
                // Writes in flight (rare: an import): let them complete.
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
            if self
                .next
                .compare_exchange(n, seq + 1, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                continue;
            }
            // No write is numbered `n..=seq`, and none below is pending: the read point
            // jumps to `seq` (nothing else moves it meanwhile: slot `n` never holds `n`), then
            // goes on over writes numbered after it that completed already.
            self.read_point.store(seq, Ordering::SeqCst);
            self.advance();
            if self.parked_count.load(Ordering::SeqCst) > 0 {
                self.wake_reached();
            }
            return;
        }
    }

    /// Unparks every thread parked for a number the read point has reached.
    fn wake_reached(&self) {
        let rp = self.read_point.load(Ordering::SeqCst);
        let mut woken = Vec::new();
        {
            let mut parked = lock::lock(&self.parked);
            while let Some(entry) = parked.first_entry() {
                if *entry.key() > rp {
                    break;
                }
                woken.extend(entry.remove());
            }
            self.parked_count.fetch_sub(woken.len(), Ordering::SeqCst);
        }
        woken.into_iter().for_each(|t| t.unpark());
    }

    /// Blocks until the read point reaches `seq`: parked until the completion that moves it
    /// there unparks this thread alone.
    pub fn wait_for(&self, seq: u64) {
        if self.read_point() >= seq {
            return;
        }
        let me = std::thread::current();
        let id = me.id();
        {
            let mut parked = lock::lock(&self.parked);
            parked.entry(seq).or_default().push(me);
            self.parked_count.fetch_add(1, Ordering::SeqCst);
        }
        loop {
            if self.read_point.load(Ordering::SeqCst) >= seq {
                // Reached: take this thread's entry out if no completion did (none is left
                // when the count is 0, the usual case: the completion that woke it took it).
                if self.parked_count.load(Ordering::SeqCst) == 0 {
                    return;
                }
                let mut parked = lock::lock(&self.parked);
                if let Some(threads) = parked.get_mut(&seq) {
                    if let Some(i) = threads.iter().position(|t| t.id() == id) {
                        threads.swap_remove(i);
                        self.parked_count.fetch_sub(1, Ordering::SeqCst);
                        if threads.is_empty() {
                            parked.remove(&seq);
                        }
                    }
                }
                return;
            }
            std::thread::park();
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
        assert!(crate::lock::lock(&m.parked).is_empty());
        assert_eq!(m.parked_count.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn the_read_point_never_passes_a_write_not_yet_complete() {
        use std::sync::atomic::AtomicBool;
        let (writers, per) = if cfg!(miri) { (3, 30) } else { (8, 2_000) };
        let m = std::sync::Arc::new(Mvcc::new(0));
        let complete: std::sync::Arc<Vec<AtomicBool>> = std::sync::Arc::new(
            (0..=writers * per)
                .map(|_| AtomicBool::new(false))
                .collect(),
        );
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let reader = {
            let (m, complete, stop) = (m.clone(), complete.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut seen = 0;
                while !stop.load(Ordering::SeqCst) {
                    let rp = m.read_point();
                    for s in seen + 1..=rp {
                        assert!(complete[s as usize].load(Ordering::SeqCst), "{s} passed");
                    }
                    seen = seen.max(rp);
                }
            })
        };
        let threads: Vec<_> = (0..writers)
            .map(|t| {
                let (m, complete) = (m.clone(), complete.clone());
                std::thread::spawn(move || {
                    for i in 0..per {
                        let s = m.begin();
                        if (t + i) % 5 == 0 {
                            std::thread::yield_now();
                        }
                        complete[s as usize].store(true, Ordering::SeqCst);
                        m.complete(s);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("writer finished");
        }
        stop.store(true, Ordering::SeqCst);
        reader.join().expect("no write passed before it completed");
        assert_eq!(m.read_point(), (writers * per) as u64);
        assert_eq!(m.oldest_pending(), (writers * per) as u64 + 1);
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
