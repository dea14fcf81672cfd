//! Wall-clock time as the applications store it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch (Java's `System.currentTimeMillis()`); 0 if the clock is
/// before 1970.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
