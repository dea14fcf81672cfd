//! Counters of the calls a door served, by method and outcome: read-only figures for the
//! server's `/metrics` (`docs/design/operations.md`). The methods are a fixed list given at
//! creation (a door's declared methods), so the label set stays bounded whatever clients send:
//! a name outside the list is counted under [`CallCounters::OTHER`].

use ferrobase_engine::error_class::{self, ErrorClass, ErrorCounts};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The upper bounds of the latency histograms' buckets, in seconds (`le` labels; a last
/// `+Inf` bucket holds every call): from 100 µs (a cached get) to 10 s.
pub const DURATION_BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// The latencies of one (service, method)'s calls: cumulative-free bucket counts (bucket `i`
/// counts calls in `(bound[i-1], bound[i]]`, the last one those over 10 s), their sum in
/// nanoseconds and their count. Relaxed atomics: a scrape may see a call in the count before
/// its bucket, never a call lost.
#[derive(Debug, Default)]
struct Latencies {
    buckets: [AtomicU64; DURATION_BUCKETS.len() + 1],
    sum_nanos: AtomicU64,
    count: AtomicU64,
}

/// A (service, method)'s latency histogram as read by [`CallCounters::latencies`].
#[derive(Debug, Clone, PartialEq)]
pub struct LatencySnapshot {
    /// The service (`Hbase`, `THBaseService`, `ClientService`, ...).
    pub service: &'static str,
    /// The method.
    pub method: &'static str,
    /// (upper bound in seconds, calls over the previous bound and at or under this one), ending
    /// with `f64::INFINITY` for those over 10 s. Not cumulative: Prometheus' `le` buckets are
    /// their running sums (`prometheus-client`'s encoder adds them up).
    pub buckets: Vec<(f64, u64)>,
    /// The calls' durations added, in seconds.
    pub sum_seconds: f64,
    /// Calls timed.
    pub count: u64,
}

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
    /// The calls' durations, in the rows of `counts`.
    latencies: Vec<Latencies>,
    /// The calls that did not end `Ok`, by the class of their failure.
    errors: ErrorCounts,
}

impl CallCounters {
    /// The (service, method) under which calls outside the fixed list are counted.
    pub const OTHER: (&'static str, &'static str) = ("other", "other");

    /// Counters for the methods `names` ((service, method) pairs).
    pub fn new(names: impl IntoIterator<Item = (&'static str, &'static str)>) -> CallCounters {
        let names: Vec<_> = names.into_iter().collect();
        let index = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let counts = (0..=names.len()).map(|_| Default::default()).collect();
        let latencies = (0..=names.len()).map(|_| Default::default()).collect();
        CallCounters {
            names,
            index,
            counts,
            latencies,
            errors: ErrorCounts::default(),
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

    /// Counts one call counted at `slot` that ended with `outcome`. A call that did not end
    /// `Ok` is also counted by the class of its failure: a refusal's own (busy, a limit), else
    /// the class noted on this thread while it ran ([`ferrobase_engine::error_class`]), else
    /// `other` for an answered exception and `internal` for a failed call.
    pub fn record_at(&self, slot: CallSlot, outcome: CallOutcome) {
        if let Some(counts) = self.counts.get(slot.0) {
            counts[outcome as usize].fetch_add(1, Ordering::Relaxed);
        }
        let class = match outcome {
            CallOutcome::Ok => return,
            CallOutcome::Busy => ErrorClass::Busy,
            CallOutcome::Refused => ErrorClass::Limit,
            CallOutcome::Exception => error_class::take().unwrap_or(ErrorClass::Other),
            CallOutcome::Failed => error_class::take().unwrap_or(ErrorClass::Internal),
        };
        self.errors.record(class);
    }

    /// The calls that did not end `Ok`, by class (every class, zeros included).
    pub fn errors(&self) -> Vec<(ErrorClass, u64)> {
        self.errors.snapshot()
    }

    /// Counts one call counted at `slot` that ran for `elapsed` and ended with `outcome`: its
    /// outcome and its duration (the latency histogram). Refusals, which never ran, are
    /// counted with [`CallCounters::record_at`] alone.
    pub fn finish(&self, slot: CallSlot, outcome: CallOutcome, elapsed: Duration) {
        self.record_at(slot, outcome);
        if let Some(l) = self.latencies.get(slot.0) {
            let secs = elapsed.as_secs_f64();
            let bucket = DURATION_BUCKETS
                .iter()
                .position(|&b| secs <= b)
                .unwrap_or(DURATION_BUCKETS.len());
            l.buckets[bucket].fetch_add(1, Ordering::Relaxed);
            let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
            l.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
            l.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The latency histograms of the methods called at least once.
    pub fn latencies(&self) -> Vec<LatencySnapshot> {
        let names = self.names.iter().chain(std::iter::once(&Self::OTHER));
        names
            .zip(&self.latencies)
            .filter_map(|(&(service, method), l)| {
                let count = l.count.load(Ordering::Relaxed);
                if count == 0 {
                    return None;
                }
                let bounds = DURATION_BUCKETS.iter().copied().chain([f64::INFINITY]);
                let buckets = bounds
                    .zip(&l.buckets)
                    .map(|(bound, n)| (bound, n.load(Ordering::Relaxed)))
                    .collect();
                Some(LatencySnapshot {
                    service,
                    method,
                    buckets,
                    sum_seconds: l.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9,
                    count,
                })
            })
            .collect()
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

    #[test]
    fn durations_land_in_their_buckets() {
        let c = CallCounters::new([("Hbase", "get")]);
        let get = c.slot("Hbase", "get");
        c.finish(get, CallOutcome::Ok, Duration::from_micros(80));
        c.finish(get, CallOutcome::Ok, Duration::from_millis(3));
        c.finish(get, CallOutcome::Exception, Duration::from_secs(20));
        let [l] = &c.latencies()[..] else {
            panic!("one histogram")
        };
        assert_eq!((l.service, l.method, l.count), ("Hbase", "get", 3));
        assert_eq!(l.buckets.len(), DURATION_BUCKETS.len() + 1);
        assert_eq!(l.buckets[0], (0.0001, 1));
        assert_eq!(l.buckets[4], (0.0025, 0));
        assert_eq!(l.buckets[5], (0.005, 1));
        assert_eq!(l.buckets[16], (f64::INFINITY, 1));
        assert_eq!(l.buckets.iter().map(|b| b.1).sum::<u64>(), 3);
        assert!((l.sum_seconds - 20.00308).abs() < 1e-9);
        assert_eq!(c.snapshot().len(), 2);
    }
}
