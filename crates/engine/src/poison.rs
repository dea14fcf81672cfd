//! The engine's poison flag: set once, by the first failure that leaves memory and disk
//! possibly out of step (a failed WAL write or sync, a failed manifest write, a failed fsync of
//! a flushed or compacted file, a background worker that panicked, a lock found poisoned by a
//! panic). From then on every call fails with [`Error::Poisoned`] naming that first reason; a
//! restart replays the WAL into a consistent state. The rule is in
//! `docs/design/concurrency.md` ("Poisoning").

use crate::error::{Error, Result};
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

/// The message of a panic payload (`panic!` with a literal or a formatted string), or a
/// placeholder for any other payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
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
}
