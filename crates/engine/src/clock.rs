//! The engine's source of wall-clock time (HBase's `EnvironmentEdge`).
//!
//! Server-assigned timestamps and TTL expiry read the clock through this trait so tests can
//! run time forward deterministically.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A source of milliseconds since the Unix epoch. Implementations must be thread-safe.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Current time in milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

/// A clock that only moves when told to; for tests.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicI64,
}

impl ManualClock {
    /// A manual clock reading `start_ms`.
    pub fn new(start_ms: i64) -> Arc<Self> {
        Arc::new(ManualClock {
            now: AtomicI64::new(start_ms),
        })
    }

    /// Sets the time.
    pub fn set(&self, ms: i64) {
        self.now.store(ms, Ordering::SeqCst);
    }

    /// Moves the time forward by `ms`.
    pub fn advance(&self, ms: i64) {
        self.now.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
}

/// A moment as a calendar in UTC reads it, for the texts that print times (the slow log, the
/// shell's listings, the ZooKeeper façade's `Date.toString()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    /// The year (proleptic Gregorian).
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, 1 to 31.
    pub day: u32,
    /// The hour, 0 to 23.
    pub hour: u32,
    /// The minute, 0 to 59.
    pub minute: u32,
    /// The second, 0 to 59.
    pub second: u32,
    /// The millisecond, 0 to 999.
    pub millis: u32,
    /// The day of the week, 0 for Sunday to 6 for Saturday.
    pub weekday: u32,
}

impl UtcTime {
    /// The time `ms` milliseconds after the Unix epoch (before it when negative).
    pub fn from_millis(ms: i64) -> UtcTime {
        let secs = ms.div_euclid(1000);
        let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let small = |v: i64| u32::try_from(v).unwrap_or(0);
        UtcTime {
            year: yoe + era * 400 + i64::from(month <= 2),
            month: small(month),
            day: small(day),
            hour: small(rem / 3600),
            minute: small(rem / 60 % 60),
            second: small(rem % 60),
            millis: small(ms.rem_euclid(1000)),
            // 1970-01-01 was a Thursday.
            weekday: small((days + 4).rem_euclid(7)),
        }
    }

    /// `YYYY-MM-DD HH:MM:SS.mmm`.
    pub fn text(&self) -> String {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
            self.year, self.month, self.day, self.hour, self.minute, self.second, self.millis
        )
    }
}

#[cfg(test)]
mod tests {
    use super::UtcTime;

    #[test]
    fn times_read_as_a_utc_calendar() {
        assert_eq!(UtcTime::from_millis(0).text(), "1970-01-01 00:00:00.000");
        assert_eq!(UtcTime::from_millis(0).weekday, 4);
        let t = UtcTime::from_millis(1_795_000_000_123);
        assert_eq!(t.text(), "2026-11-18 11:06:40.123");
        assert_eq!(t.weekday, 3, "2026-11-18 is a Wednesday");
        assert_eq!(UtcTime::from_millis(-1).text(), "1969-12-31 23:59:59.999");
        assert_eq!(
            UtcTime::from_millis(951_782_400_000).text(),
            "2000-02-29 00:00:00.000"
        );
    }
}
