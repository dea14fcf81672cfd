//! Counters of the calls a door served, by method and outcome: read-only figures for the
//! server's `/metrics` (`docs/design/operations.md`). The methods are a fixed list given at
//! creation (a door's declared methods), so the label set stays bounded whatever clients send:
//! a name outside the list is counted under [`CallCounters::OTHER`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a call ended, as the metrics' `outcome` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// Answered with its result.
    Ok,
    /// Answered with an exception the method declares (`IOError`, `IllegalArgument`, a
    /// native RPC exception such as `TableNotFoundException`).
    Exception,
    /// Refused because the server was busy (full call queue, in-flight memory), retryable.
    Busy,
    /// Refused by a limit of the request itself (message too large, too many scanners).
    Refused,
    /// An unknown method, an internal error or a panic.
    Failed,
}

impl CallOutcome {
    /// Every outcome, in label order.
    pub const ALL: [CallOutcome; 5] = [
        CallOutcome::Ok,
        CallOutcome::Exception,
        CallOutcome::Busy,
        CallOutcome::Refused,
        CallOutcome::Failed,
    ];

    /// The label value: `ok`, `exception`, `busy`, `refused` or `failed`.
    pub fn label(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Exception => "exception",
            CallOutcome::Busy => "busy",
            CallOutcome::Refused => "refused",
            CallOutcome::Failed => "failed",
        }
    }
}

/// A (service, method)'s row in [`CallCounters`].
#[derive(Debug, Clone, Copy)]
pub struct CallSlot(usize);

/// Calls by (service, method) and outcome; monotonic, relaxed atomics. Thread-safe; one
/// lookup in an immutable map and one atomic add per call.
#[derive(Debug)]
pub struct CallCounters {
    names: Vec<(&'static str, &'static str)>,
    index: HashMap<(&'static str, &'static str), usize>,
    /// One row per name, then one for [`CallCounters::OTHER`].
    counts: Vec<[AtomicU64; CallOutcome::ALL.len()]>,
}

impl CallCounters {
    /// The (service, method) under which calls outside the fixed list are counted.
    pub const OTHER: (&'static str, &'static str) = ("other", "other");

    /// Counters for the methods `names` ((service, method) pairs).
    pub fn new(names: impl IntoIterator<Item = (&'static str, &'static str)>) -> CallCounters {
        let names: Vec<_> = names.into_iter().collect();
        let index = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let counts = (0..=names.len()).map(|_| Default::default()).collect();
        CallCounters {
            names,
            index,
            counts,
        }
    }

    /// Counts one call of `method` of `service` that ended with `outcome`.
    pub fn record(&self, service: &str, method: &str, outcome: CallOutcome) {
        self.record_at(self.slot(service, method), outcome);
    }

    /// Where the calls of `method` of `service` are counted, looked up once for a call whose
    /// name is gone by the time its outcome is known.
    pub fn slot(&self, service: &str, method: &str) -> CallSlot {
        let index: &HashMap<(&str, &str), usize> = &self.index;
        CallSlot(
            index
                .get(&(service, method))
                .copied()
                .unwrap_or(self.names.len()),
        )
    }

    /// Counts one call counted at `slot` that ended with `outcome`.
    pub fn record_at(&self, slot: CallSlot, outcome: CallOutcome) {
        if let Some(counts) = self.counts.get(slot.0) {
            counts[outcome as usize].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The counts that are not zero: (service, method, outcome, calls).
    pub fn snapshot(&self) -> Vec<(&'static str, &'static str, CallOutcome, u64)> {
        let names = self.names.iter().chain(std::iter::once(&Self::OTHER));
        names
            .zip(&self.counts)
            .flat_map(|(&(service, method), counts)| {
                CallOutcome::ALL.iter().filter_map(move |&outcome| {
                    let n = counts[outcome as usize].load(Ordering::Relaxed);
                    (n > 0).then_some((service, method, outcome, n))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_fold_into_other() {
        let c = CallCounters::new([("Hbase", "get"), ("Hbase", "put")]);
        c.record("Hbase", "get", CallOutcome::Ok);
        c.record("Hbase", "get", CallOutcome::Ok);
        c.record("Hbase", "put", CallOutcome::Busy);
        c.record("Hbase", "no such method", CallOutcome::Failed);
        c.record("Evil", "get", CallOutcome::Failed);
        assert_eq!(
            c.snapshot(),
            vec![
                ("Hbase", "get", CallOutcome::Ok, 2),
                ("Hbase", "put", CallOutcome::Busy, 1),
                ("other", "other", CallOutcome::Failed, 2),
            ]
        );
    }
}
