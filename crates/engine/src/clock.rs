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
