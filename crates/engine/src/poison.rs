//! The engine's poison flag: set once, by the first failure that leaves memory and disk
//! possibly out of step (a failed WAL write or sync, a failed manifest write, a failed fsync of
//! a flushed or compacted file, a background worker that panicked, a lock found poisoned by a
//! panic). From then on every call fails with [`Error::Poisoned`] naming that first reason; a
//! restart replays the WAL into a consistent state. The rule is in
//! `docs/design/concurrency.md` ("Poisoning").

use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::OnceLock;

/// A set-once failure reason shared by the engine and its WAL. Thread-safe and lock-free: the
/// first [`Poison::set`] wins, later ones are ignored (the first failure is the cause, what
/// follows is its consequence).
#[derive(Debug, Default)]
pub struct Poison {
    reason: OnceLock<String>,
}

impl Poison {
    /// An unset flag.
    pub fn new() -> Self {
        Poison::default()
    }

    /// Poisons with `reason` unless already poisoned; returns the reason in force.
    pub fn set(&self, reason: impl Into<String>) -> &str {
        let reason = reason.into();
        let kept = self.reason.get_or_init(|| {
            eprintln!("ferrobase: engine poisoned: {reason}");
            reason
        });
        kept
    }

    /// The first failure's reason, once poisoned.
    pub fn reason(&self) -> Option<&str> {
        self.reason.get().map(String::as_str)
    }

    /// `Err(Error::Poisoned(reason))` once poisoned, else `Ok`.
    pub fn check(&self) -> Result<()> {
        match self.reason() {
            Some(r) => Err(Error::Poisoned(r.to_string())),
            None => Ok(()),
        }
    }
}

/// The reason a lock found poisoned gives (`lock.rs`).
pub(crate) const POISONED_LOCK: &str =
    "a lock was found poisoned: a thread panicked while holding it (see its panic message)";

thread_local! {
    /// The poison flags of the engines whose code this thread is running, innermost last:
    /// pushed by a caller's operation guard and by each background worker for its life.
    /// Addresses, not reference counts: each entry lives exactly as long as the
    /// [`Running`] guard that pushed it, which borrows the flag (taking and dropping a count
    /// on the engine's flag at every call made every thread's calls meet on one cache line).
    static RUNNING: RefCell<Vec<*const Poison>> = const { RefCell::new(Vec::new()) };
}

/// Marks the current thread as running code of the engine whose flag is `poison` until it
/// drops, so that a lock found poisoned on this thread poisons that engine at once
/// ([`found_poisoned_lock`]). Stays on its thread (not `Send`) and borrows the flag.
pub(crate) struct Running<'a>(std::marker::PhantomData<(&'a Poison, *const Poison)>);

/// Starts a [`Running`] mark for `poison` on the current thread.
pub(crate) fn running(poison: &Poison) -> Running<'_> {
    let _ = RUNNING.try_with(|r| r.borrow_mut().push(std::ptr::from_ref(poison)));
    Running(std::marker::PhantomData)
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        // Guards are locals of the calls they mark and drop innermost first: the last entry
        // is this guard's.
        let _ = RUNNING.try_with(|r| r.borrow_mut().pop());
    }
}

/// Poisons the engine the current thread is running code of (if any) because a lock was found
/// poisoned: some thread panicked while holding it, and its own unwinding may not have
/// reached the engine's flag yet. Called by `lock.rs` only.
pub(crate) fn found_poisoned_lock() {
    let _ = RUNNING.try_with(|r| {
        if let Some(&p) = r.borrow().last() {
            // SAFETY: an entry stays on the stack only while the `Running` guard that pushed
            // it lives (its drop removes it), and that guard borrows the flag, which therefore
            // outlives the entry.
            unsafe { &*p }.set(POISONED_LOCK);
        }
    });
}

/// The message of a panic payload (`panic!` with a literal or a formatted string), or a
/// placeholder for any other payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "a panic without a message"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn first_reason_wins_and_check_names_it() {
        let p = Poison::new();
        assert!(p.check().is_ok());
        p.set("WAL sync failed");
        p.set("later");
        assert_eq!(p.reason(), Some("WAL sync failed"));
        let e = p.check().unwrap_err();
        assert!(
            matches!(&e, Error::Poisoned(r) if r == "WAL sync failed"),
            "{e}"
        );
    }

    #[test]
    fn a_poisoned_lock_poisons_the_engine_the_finding_thread_runs() {
        let m = Arc::new(std::sync::Mutex::new(0));
        let m2 = m.clone();
        // A thread outside any engine panics holding the lock: nothing is poisoned yet.
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            panic!("while holding the lock");
        })
        .join();
        let p = Arc::new(Poison::new());
        *crate::lock::lock(&m) += 1;
        assert_eq!(
            p.reason(),
            None,
            "not running the engine: nothing to poison"
        );
        {
            let _r = running(&p);
            *crate::lock::lock(&m) += 1;
        }
        assert_eq!(p.reason(), Some(POISONED_LOCK));
        assert_eq!(*crate::lock::lock(&m), 2);
    }
}
