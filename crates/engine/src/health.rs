//! The engine's write health: healthy, writes suspended by a transient disk error (retried in
//! the background), or poisoned ([`crate::poison`]). The states and their transitions are in
//! `docs/design/durability.md` ("Errors from the disk").
//!
//! A [`WriteGate`] is shared by the engine and its WAL. A transient error of a write (`ENOSPC`,
//! `EDQUOT`, or `EIO` from a WAL `write`; never from a sync) or free space below the reserve
//! closes it: writes fail fast with [`Error::WritesSuspended`] while reads go on, and the
//! flusher thread retries with back-off ([`RETRY_FIRST`] doubling to [`RETRY_MAX`]) until the
//! cause is gone, then opens it again.

use crate::error::{Error, Result, StallCause};
use crate::lock;
use crate::metrics::Metrics;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// First delay before a retry after writes were suspended.
pub const RETRY_FIRST: Duration = Duration::from_millis(100);

/// The longest delay between two retries (the delay doubles from [`RETRY_FIRST`] up to it).
pub const RETRY_MAX: Duration = Duration::from_secs(5);

/// The engine's state as [`crate::Engine::health`] reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    /// Reads and writes are served.
    Healthy,
    /// Writes fail with [`Error::WritesSuspended`]; reads of committed data go on; a background
    /// task retries and resumes writes by itself once the cause is gone.
    Degraded {
        /// What suspended writes.
        cause: StallCause,
        /// The latest failure, naming file and OS error (or the free space and the reserve).
        reason: String,
        /// When writes were suspended.
        since: SystemTime,
        /// Retries that failed so far.
        retries: u64,
    },
    /// Every call fails with [`Error::Poisoned`] until a restart (a failed fsync, a panic).
    Poisoned {
        /// The first failure.
        reason: String,
    },
}

impl std::fmt::Display for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Health::Healthy => f.write_str("healthy"),
            Health::Degraded {
                cause,
                reason,
                since,
                retries,
            } => {
                let secs = SystemTime::now()
                    .duration_since(*since)
                    .unwrap_or_default()
                    .as_secs_f64();
                write!(
                    f,
                    "degraded ({cause}): writes suspended for {secs:.1} s, {retries} retries so \
                     far, reads go on: {reason}"
                )
            }
            Health::Poisoned { reason } => write!(f, "poisoned: {reason}"),
        }
    }
}

#[derive(Debug)]
struct Stall {
    cause: StallCause,
    reason: String,
    since: Instant,
    since_wall: SystemTime,
    retries: u64,
    delay: Duration,
    next_retry: Instant,
    /// Bumped by every failure reported while suspended, so a retry that started before one
    /// does not resume writes over it.
    epoch: u64,
}

/// A retry the background task is due to run: the cause to clear and the epoch it saw.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DueRetry {
    pub(crate) cause: StallCause,
    epoch: u64,
}

/// Open (writes pass) or closed by a transient failure. Thread-safe; the open check is one
/// relaxed atomic load.
#[derive(Debug)]
pub struct WriteGate {
    closed: AtomicBool,
    stall: Mutex<Option<Stall>>,
    metrics: Arc<Metrics>,
}

impl WriteGate {
    /// An open gate counting into `metrics`.
    pub fn new(metrics: Arc<Metrics>) -> Self {
        WriteGate {
            closed: AtomicBool::new(false),
            stall: Mutex::new(None),
            metrics,
        }
    }

    /// `Err(Error::WritesSuspended)` while writes are suspended, else `Ok`.
    pub fn check(&self) -> Result<()> {
        if !self.closed.load(Ordering::Acquire) {
            return Ok(());
        }
        match &*lock::lock(&self.stall) {
            Some(s) => Err(Error::WritesSuspended {
                cause: s.cause,
                reason: s.reason.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Suspends writes because of `cause`; while already suspended, the first cause stays
    /// and the retry in progress (if any) will not resume writes.
    pub fn suspend(&self, cause: StallCause, reason: impl Into<String>) -> Error {
        let reason = reason.into();
        let mut g = lock::lock(&self.stall);
        match &mut *g {
            Some(s) => {
                s.epoch += 1;
                Error::WritesSuspended {
                    cause,
                    reason: reason.clone(),
                }
            }
            None => {
                eprintln!(
                    "ferrobase: writes suspended ({cause}), retrying in the background: {reason}"
                );
                self.metrics.suspended(cause);
                let now = Instant::now();
                *g = Some(Stall {
                    cause,
                    reason: reason.clone(),
                    since: now,
                    since_wall: SystemTime::now(),
                    retries: 0,
                    delay: RETRY_FIRST,
                    next_retry: now + RETRY_FIRST,
                    epoch: 0,
                });
                self.closed.store(true, Ordering::Release);
                Error::WritesSuspended { cause, reason }
            }
        }
    }

    /// The retry to run now, if writes are suspended and the back-off delay has passed.
    pub(crate) fn due(&self) -> Option<DueRetry> {
        if !self.closed.load(Ordering::Acquire) {
            return None;
        }
        let g = lock::lock(&self.stall);
        let s = g.as_ref()?;
        (Instant::now() >= s.next_retry).then_some(DueRetry {
            cause: s.cause,
            epoch: s.epoch,
        })
    }

    /// A retry failed with `reason`: the delay doubles (up to [`RETRY_MAX`]).
    pub(crate) fn retry_failed(&self, reason: String) {
        Metrics::inc(&self.metrics.write_resume_retries);
        if let Some(s) = &mut *lock::lock(&self.stall) {
            s.retries += 1;
            s.reason = reason;
            s.delay = (s.delay * 2).min(RETRY_MAX);
            s.next_retry = Instant::now() + s.delay;
        }
    }

    /// A retry succeeded: writes resume unless a failure was reported since it started (then
    /// the next retry is due at once). Returns whether writes resumed.
    pub(crate) fn retry_succeeded(&self, due: DueRetry) -> bool {
        Metrics::inc(&self.metrics.write_resume_retries);
        let mut g = lock::lock(&self.stall);
        let Some(s) = &mut *g else {
            return true;
        };
        if s.epoch != due.epoch {
            s.next_retry = Instant::now();
            return false;
        }
        let ms = s.since.elapsed().as_millis() as u64;
        Metrics::add(&self.metrics.write_suspended_ms, ms);
        eprintln!(
            "ferrobase: writes resumed after {ms} ms ({} retries): {}",
            s.retries, s.reason
        );
        *g = None;
        self.closed.store(false, Ordering::Release);
        true
    }

    /// The degraded state, if writes are suspended.
    pub(crate) fn health(&self) -> Option<Health> {
        lock::lock(&self.stall).as_ref().map(|s| Health::Degraded {
            cause: s.cause,
            reason: s.reason.clone(),
            since: s.since_wall,
            retries: s.retries,
        })
    }
}

/// Whether an I/O error of a *write* (never of a sync) is transient: the disk or the quota is
/// full, or the process (`EMFILE`) or the system (`ENFILE`) is out of file descriptors (many
/// client connections; they come back as connections close). A WAL write also treats `EIO` so
/// ([`is_transient_wal_write_error`]).
pub fn is_transient_write_error(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOSPC | libc::EDQUOT | libc::EMFILE | libc::ENFILE)
    ) || e.kind() == std::io::ErrorKind::StorageFull
}

/// Whether an error of a WAL `write(2)` is transient: as [`is_transient_write_error`], and
/// `EIO` too (the bytes of a failed write are cut off and rewritten; a failed *sync* is never
/// transient).
pub fn is_transient_wal_write_error(e: &std::io::Error) -> bool {
    is_transient_write_error(e) || e.raw_os_error() == Some(libc::EIO)
}

/// The free-space guard: refuses writes once free space on the data directory's file system
/// falls below a reserve, so that flushes and compactions can still finish. Checked on the
/// write path at most once per interval (one `statvfs`).
#[derive(Debug)]
pub(crate) struct SpaceGuard {
    /// The reserve in bytes; 0 disables the guard.
    reserve: u64,
    interval_ms: u64,
    base: Instant,
    /// Milliseconds since `base` of the last check, plus one (0: never checked).
    last_check: AtomicU64,
}

/// The automatic reserve: 1 GiB (the default global memstore limit: enough to flush every
/// memstore), but at most 1% of the file system, so a small disk is not refused at once.
pub const AUTO_RESERVE_MAX: u64 = 1 << 30;

impl SpaceGuard {
    /// A guard keeping `reserve` bytes (`None`: automatic, see [`AUTO_RESERVE_MAX`]) free,
    /// checking at most once per `interval`.
    pub(crate) fn new(reserve: Option<u64>, interval: Duration) -> Self {
        SpaceGuard {
            reserve: reserve.unwrap_or(u64::MAX),
            interval_ms: interval.as_millis() as u64,
            base: Instant::now(),
            last_check: AtomicU64::new(0),
        }
    }

    /// The reserve for a file system of `total` bytes.
    fn reserve_for(&self, total: u64) -> u64 {
        if self.reserve == u64::MAX {
            AUTO_RESERVE_MAX.min(total / 100)
        } else {
            self.reserve
        }
    }

    /// Checks the free space now: `Err(reason)` when it is below the reserve.
    pub(crate) fn check_now(
        &self,
        fs: &dyn crate::fs::FileSystem,
        dir: &std::path::Path,
    ) -> std::result::Result<(), String> {
        if self.reserve == 0 {
            return Ok(());
        }
        let now = self.base.elapsed().as_millis() as u64 + 1;
        self.last_check.store(now, Ordering::Relaxed);
        let space = match fs.space(dir) {
            Ok(s) => s,
            // Not knowing is not a reason to refuse writes.
            Err(_) => return Ok(()),
        };
        let reserve = self.reserve_for(space.total);
        if space.available < reserve {
            return Err(format!(
                "free space on {} is {} bytes, below the reserve of {reserve} bytes \
                 (min_free_space; flushes and compactions may still use it)",
                dir.display(),
                space.available
            ));
        }
        Ok(())
    }

    /// Checks the free space if the interval has passed since the last check.
    pub(crate) fn check(
        &self,
        fs: &dyn crate::fs::FileSystem,
        dir: &std::path::Path,
    ) -> std::result::Result<(), String> {
        if self.reserve == 0 {
            return Ok(());
        }
        let last = self.last_check.load(Ordering::Relaxed);
        let now = self.base.elapsed().as_millis() as u64 + 1;
        if last != 0 && now.saturating_sub(last) < self.interval_ms {
            return Ok(());
        }
        // One thread checks per interval; the others pass.
        if self
            .last_check
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return Ok(());
        }
        self.check_now(fs, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suspension_backs_off_and_a_retry_over_a_newer_failure_does_not_resume() {
        let gate = WriteGate::new(Arc::default());
        assert!(gate.check().is_ok());
        assert!(gate.due().is_none());
        gate.suspend(StallCause::WalWrite, "disk full");
        let e = gate.check().unwrap_err();
        assert!(e.is_retryable(), "{e}");
        assert!(e.to_string().contains("disk full"), "{e}");
        assert!(
            gate.due().is_none(),
            "the first retry waits {RETRY_FIRST:?}"
        );
        std::thread::sleep(RETRY_FIRST);
        let due = gate.due().expect("due after the delay");
        gate.suspend(StallCause::FlushWrite, "flush failed too");
        assert!(!gate.retry_succeeded(due), "a failure came in meanwhile");
        let due = gate.due().expect("due at once");
        assert_eq!(due.cause, StallCause::WalWrite, "the first cause stays");
        gate.retry_failed("still full".into());
        assert!(matches!(
            gate.health(),
            Some(Health::Degraded { retries: 1, .. })
        ));
        assert!(gate.due().is_none(), "the delay doubled");
        std::thread::sleep(RETRY_FIRST * 2);
        let due = gate.due().unwrap();
        assert!(gate.retry_succeeded(due));
        assert!(gate.check().is_ok());
        assert!(gate.health().is_none());
    }

    #[test]
    fn the_space_guard_asks_the_file_system_at_most_once_per_interval() {
        let fs = crate::fs::fault::FaultFileSystem::new();
        let dir = std::path::Path::new("/");
        let guard = SpaceGuard::new(Some(1 << 20), Duration::from_secs(3600));
        fs.set_free_space(Some(2 << 20));
        assert!(guard.check(&fs, dir).is_ok());
        fs.set_free_space(Some(1 << 10));
        assert!(
            guard.check(&fs, dir).is_ok(),
            "within the interval: not asked"
        );
        let reason = guard.check_now(&fs, dir).unwrap_err();
        assert!(
            reason.contains("below the reserve of 1048576 bytes"),
            "{reason}"
        );
        let off = SpaceGuard::new(Some(0), Duration::ZERO);
        assert!(off.check(&fs, dir).is_ok() && off.check_now(&fs, dir).is_ok());
    }
}
