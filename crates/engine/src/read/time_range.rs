//! Half-open timestamp ranges [min, max) (HBase's `TimeRange`).

/// Timestamps `min <= ts < max`. The default is all time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    /// Inclusive lower bound in ms.
    pub min: i64,
    /// Exclusive upper bound in ms.
    pub max: i64,
}

impl Default for TimeRange {
    fn default() -> Self {
        TimeRange::ALL
    }
}

impl TimeRange {
    /// Every timestamp.
    pub const ALL: TimeRange = TimeRange {
        min: 0,
        max: i64::MAX,
    };

    /// [min, max); an empty or inverted range is an error, as in HBase.
    pub fn new(min: i64, max: i64) -> crate::Result<TimeRange> {
        if min < 0 || max < min {
            return Err(crate::Error::IllegalArgument(format!(
                "invalid time range [{min}, {max}): need 0 <= min <= max"
            )));
        }
        Ok(TimeRange { min, max })
    }

    /// Exactly `ts`.
    pub fn at(ts: i64) -> TimeRange {
        TimeRange {
            min: ts,
            max: ts.saturating_add(1),
        }
    }

    /// True for `min <= ts < max`.
    pub fn contains(&self, ts: i64) -> bool {
        ts >= self.min && ts < self.max
    }

    /// True when this is the whole timeline.
    pub fn is_all(&self) -> bool {
        *self == TimeRange::ALL
    }
}
