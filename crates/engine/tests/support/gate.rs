//! Pause points for tests: a test hook raises named flags from the engine's threads and waits
//! for the test to raise others, so a race is set up in one chosen order every run.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Named flags raised once and waited for. Thread-safe.
#[derive(Debug, Default)]
pub struct Gate {
    raised: Mutex<BTreeSet<&'static str>>,
    changed: Condvar,
}

impl Gate {
    /// Raises `flag`, waking whoever waits for it.
    pub fn raise(&self, flag: &'static str) {
        self.raised.lock().unwrap().insert(flag);
        self.changed.notify_all();
    }

    /// Waits until `flag` is raised; panics after 30 s (the point was never reached).
    pub fn wait(&self, flag: &'static str) {
        let g = self.raised.lock().unwrap();
        let (_g, timeout) = self
            .changed
            .wait_timeout_while(g, Duration::from_secs(30), |r| !r.contains(flag))
            .unwrap();
        assert!(!timeout.timed_out(), "{flag:?} was never raised");
    }
}
