//! Multi-version concurrency control (HBase's `MultiVersionConcurrencyControl`).
//!
//! Every mutation takes a write number (its sequence id) when it begins and completes it when
//! all its cells are in the memstore. The read point is the largest number such that every
//! write up to it is complete; readers ignore cells with a larger sequence id, so no reader
//! sees part of a mutation.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex};

/// Sequence-id allocation and read-point tracking. Thread-safe.
#[derive(Debug)]
pub struct Mvcc {
    inner: Mutex<Inner>,
    advanced: Condvar,
}

#[derive(Debug)]
struct Inner {
    next: u64,
    read_point: u64,
    pending: BTreeSet<u64>,
}

impl Mvcc {
    /// Starts after `last_seq` (the largest sequence id already durable).
    pub fn new(last_seq: u64) -> Self {
        Mvcc {
            inner: Mutex::new(Inner {
                next: last_seq + 1,
                read_point: last_seq,
                pending: BTreeSet::new(),
            }),
            advanced: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Allocates the next write number.
    pub fn begin(&self) -> u64 {
        let mut g = self.lock();
        let n = g.next;
        g.next += 1;
        g.pending.insert(n);
        n
    }

    /// Marks `seq` complete and advances the read point as far as possible.
    pub fn complete(&self, seq: u64) {
        let mut g = self.lock();
        g.pending.remove(&seq);
        let new_rp = match g.pending.first() {
            Some(&first) => first - 1,
            None => g.next - 1,
        };
        if new_rp > g.read_point {
            g.read_point = new_rp;
            self.advanced.notify_all();
        }
    }

    /// The current read point.
    pub fn read_point(&self) -> u64 {
        self.lock().read_point
    }

    /// The largest write number handed out so far.
    pub fn last_allocated(&self) -> u64 {
        self.lock().next - 1
    }

    /// The smallest write number not yet complete, or the next one to be handed out.
    pub fn oldest_pending(&self) -> u64 {
        let g = self.lock();
        g.pending.first().copied().unwrap_or(g.next)
    }

    /// Blocks until the read point reaches `seq`.
    pub fn wait_for(&self, seq: u64) {
        let mut g = self.lock();
        while g.read_point < seq {
            g = self.advanced.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
