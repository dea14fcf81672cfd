//! The time budget of the call a thread is serving (issue 39, item 3): a door starts one
//! ([`CallBudget::start`]) before it runs a call's reads, and every read on that thread checks it
//! every few cells (or KiB of values) and rows, failing with [`Error::TimeBudget`] once it has run out. A read
//! therefore stops within about one cell's work of its budget, however costly its filter (a
//! regular expression over large values, say), instead of running on after its client has
//! given up. Each scanner batch is its own call, with its own budget. Reads on a thread without
//! a budget (embedded use, background work) are not limited.

use crate::error::{Error, Result};
use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    /// The running call's deadline and the budget it came from.
    static DEADLINE: Cell<Option<(Instant, Duration)>> = const { Cell::new(None) };
}

/// A call's time budget on this thread, in force until dropped (the previous one, if any, is
/// then back in force).
#[derive(Debug)]
#[must_use = "the budget holds only while the guard lives"]
pub struct CallBudget {
    previous: Option<(Instant, Duration)>,
}

impl CallBudget {
    /// Gives this thread's reads `budget` from now; `None` lifts any budget until the guard
    /// drops.
    pub fn start(budget: Option<Duration>) -> CallBudget {
        let deadline = budget.map(|b| (Instant::now() + b, b));
        CallBudget {
            previous: DEADLINE.with(|d| d.replace(deadline)),
        }
    }
}

impl Drop for CallBudget {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set(self.previous));
    }
}

/// Fails with [`Error::TimeBudget`] when this thread's call has run past its budget.
pub(crate) fn check() -> Result<()> {
    match DEADLINE.with(Cell::get) {
        Some((at, budget)) if Instant::now() >= at => Err(Error::TimeBudget {
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
