//! The slow-operation log (HBase's `responseTooSlow` and `get_slowlog_responses`): every door's
//! calls that ran longer than a threshold are logged at warn and kept in a bounded ring, newest
//! last, for the HTTP port's `/slowlog` and the console (`docs/design/operations.md`).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// The default threshold of `ferrobase serve --slow-ms`, in milliseconds.
pub const DEFAULT_SLOW_MS: u64 = 1000;

/// Calls kept, at most, by default: the oldest is dropped for a new one.
pub const DEFAULT_CAPACITY: usize = 256;

/// Characters of a slow call's table or description kept, at most.
const MAX_TEXT: usize = 200;

/// One slow call.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowCall {
    /// When it ended, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The door: `thrift`, `thrift2` or `native`.
    pub door: &'static str,
    /// The service and method (`Hbase.getRow`, `ClientService.Scan`).
    pub method: String,
    /// The table it named, empty when none (or a region name's table on the native door).
    pub table: String,
    /// The user of the connection, empty when the door knows none.
    pub user: String,
    /// How long it ran (its wait for a handler included).
    pub duration: Duration,
    /// A short description: the row or scanner it named, its outcome.
    pub description: String,
    /// What the call's reads cost, as an explain line (`rows_examined=... blocks_from_disk=...`,
    /// the engine's `ReadCost`); empty when the call read nothing.
    pub explain: String,
}

/// The ring of slow calls. Thread-safe: a call under the threshold costs one comparison; a
/// slow one takes a mutex for a push.
#[derive(Debug)]
pub struct SlowLog {
    threshold: Duration,
    capacity: usize,
    ring: Mutex<VecDeque<SlowCall>>,
}

impl SlowLog {
    /// A log of the calls that ran at least `threshold` (zero: every call), keeping the last
    /// `capacity` (at least 1).
    pub fn new(threshold: Duration, capacity: usize) -> SlowLog {
        SlowLog {
            threshold,
            capacity: capacity.max(1),
            ring: Mutex::new(VecDeque::new()),
        }
    }

    /// The threshold.
    pub fn threshold(&self) -> Duration {
        self.threshold
    }

    /// True when a call that ran `elapsed` is slow (then describe it and call
    /// [`SlowLog::record`]).
    pub fn is_slow(&self, elapsed: Duration) -> bool {
        elapsed >= self.threshold
    }

    /// Logs `call` at warn and keeps it (the oldest kept call is dropped past the capacity).
    pub fn record(&self, mut call: SlowCall) {
        cut(&mut call.table);
        cut(&mut call.description);
        tracing::warn!(
            door = %call.door,
            method = %call.method,
            table = %call.table,
            user = %call.user,
            duration_ms = call.duration.as_secs_f64() * 1000.0,
            description = %call.description,
            explain = %call.explain,
            "slow operation (over --slow-ms {} ms)",
            self.threshold.as_millis()
        );
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        if ring.len() == self.capacity {
            ring.pop_front();
        }
        ring.push_back(call);
    }

    /// The calls kept, oldest first.
    pub fn entries(&self) -> Vec<SlowCall> {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        ring.iter().cloned().collect()
    }
}

/// The explain line of what a call's reads cost, empty when it read nothing.
pub fn explain_line(cost: &ferrobase_engine::ReadCost) -> String {
    if *cost == ferrobase_engine::ReadCost::default() {
        String::new()
    } else {
        cost.to_string()
    }
}

/// The time now in milliseconds since the Unix epoch (0 before it).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `bytes` as printable text, the shell's way (`\xNN` for other bytes), at most `MAX_TEXT`
/// characters.
pub fn printable(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        if s.len() >= MAX_TEXT {
            s.push('…');
            break;
        }
        if b.is_ascii_graphic() || b == b' ' {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02X}"));
        }
    }
    s
}

fn cut(s: &mut String) {
    if s.len() > MAX_TEXT {
        let mut end = MAX_TEXT;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push('…');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(n: u64) -> SlowCall {
        SlowCall {
            at_ms: n,
            door: "thrift",
            method: "Hbase.getRow".into(),
            table: "t".into(),
            user: String::new(),
            duration: Duration::from_millis(n),
            description: "x".repeat(500),
            explain: String::new(),
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_and_cuts_long_text() {
        let log = SlowLog::new(Duration::from_millis(5), 3);
        assert!(!log.is_slow(Duration::from_millis(4)));
        assert!(log.is_slow(Duration::from_millis(5)));
        for n in 0..5 {
            log.record(call(n));
        }
        let kept = log.entries();
        assert_eq!(
            kept.iter().map(|c| c.at_ms).collect::<Vec<_>>(),
            vec![2, 3, 4]
        );
        assert!(kept[0].description.chars().count() <= MAX_TEXT + 1);
        assert_eq!(printable(b"a\x00b"), "a\\x00b");
    }
}
