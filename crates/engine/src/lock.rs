//! Lock acquisition: the one place the engine takes its `std::sync` locks and waits on its
//! condition variables, and the one place the rule for a poisoned lock is written.
//!
//! # The rule
//!
//! A std lock is poisoned when a thread panicked while holding it. The engine does not decide
//! anything from std's poisoning; it decides from its own [`crate::poison::Poison`] flag, and
//! every way a lock can be poisoned sets that flag:
//!
//! - a background worker (flusher, compactor) runs under `catch_unwind`, which poisons the
//!   engine with the panic's message;
//! - an operation on a caller's thread runs inside an operation guard (`Inner::enter`), whose
//!   `Drop` poisons the engine when it runs during a panic;
//! - and because unwinding releases the panicking thread's lock guards before it reaches
//!   either of those, the thread that next takes the lock poisons the engine itself: finding a
//!   lock poisoned here poisons the engine that thread is running (workers and operation
//!   guards mark their thread, `poison::running`).
//!
//! So the functions here hand back the guard of a poisoned lock, with the engine already
//! poisoned: whoever holds it finishes its in-memory step and is refused at its next durable
//! one (a WAL append and a manifest write both check the flag first, so nothing read from a
//! half-updated structure reaches disk), or it is shutdown and `Drop` code that only releases
//! what it holds. Returning an error here instead would make `Drop` implementations and plain
//! accessors fallible without protecting anything more.
//!
//! Every engine lock, what it guards and the order they are taken in is listed in
//! `docs/design/concurrency.md`.

use std::sync::{Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

/// Locks `m` (see the module's rule for a poisoned lock).
pub(crate) fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(recover)
}

/// Takes `l` shared (see the module's rule for a poisoned lock).
pub(crate) fn read<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(recover)
}

/// Takes `l` exclusive (see the module's rule for a poisoned lock).
pub(crate) fn write<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(recover)
}

/// Waits on `cv`, releasing `g` meanwhile (see the module's rule for a poisoned lock).
pub(crate) fn wait<'a, T>(cv: &Condvar, g: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cv.wait(g).unwrap_or_else(recover)
}

/// Waits on `cv` for at most `timeout`, releasing `g` meanwhile (see the module's rule for a
/// poisoned lock). Whether it timed out is not reported: every caller rechecks its condition.
pub(crate) fn wait_timeout<'a, T>(
    cv: &Condvar,
    g: MutexGuard<'a, T>,
    timeout: Duration,
) -> MutexGuard<'a, T> {
    cv.wait_timeout(g, timeout).unwrap_or_else(recover).0
}

/// The module's rule, once: poison the engine this thread runs (see
/// [`crate::poison::found_poisoned_lock`]) and hand back the guard.
fn recover<G>(e: std::sync::PoisonError<G>) -> G {
    crate::poison::found_poisoned_lock();
    e.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_lock_poisoned_by_a_panic_is_still_handed_out() {
        let m = Arc::new(Mutex::new(1));
        let m2 = m.clone();
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            panic!("while holding the lock");
        })
        .join();
        assert!(m.is_poisoned());
        *lock(&m) += 1;
        assert_eq!(*lock(&m), 2);
    }
}
