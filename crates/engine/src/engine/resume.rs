//! Suspending writes on a transient disk failure and resuming them without a restart
//! (RocksDB's automatic recovery from a full disk). The states are in `health.rs`; the rules
//! in `docs/design/durability.md` ("Errors from the disk").
//!
//! The flusher thread calls [`Inner::retry_suspended_writes`] every tick; a retry runs when
//! its back-off delay has passed (100 ms, doubling to 5 s) and does, in order: check free
//! space against the reserve; make the WAL writable again ([`crate::wal::Wal::resume`]: cut
//! off the failed write's bytes, sync, probe); flush every memstore when a failed flush or a
//! lost ASYNC_WAL record asks for it; write the manifest (a flush's, compaction's or split's
//! may have met the full disk). Writes resume only when all of these succeed.

use super::Inner;
use crate::error::{Result, StallCause};

impl Inner {
    /// Fails with [`crate::Error::WritesSuspended`] while writes are suspended, or when the
    /// free-space guard (checked at most once per `free_space_check_interval`) finds free
    /// space below the reserve, which suspends them.
    pub(crate) fn check_writable(&self) -> Result<()> {
        self.gate.check()?;
        if let Err(reason) = self.space_guard.check(self.fs(), &self.dir) {
            return Err(self.gate.suspend(StallCause::LowDiskSpace, reason));
        }
        Ok(())
    }

    /// Runs the retry of suspended writes if one is due; resumes writes when it succeeds.
    pub(crate) fn retry_suspended_writes(&self) {
        let Some(due) = self.gate.due() else {
            return;
        };
        match self.try_resume(due.cause) {
            Ok(()) => {
                self.gate.retry_succeeded(due);
            }
            Err(reason) => self.gate.retry_failed(reason),
        }
    }

    fn try_resume(&self, cause: StallCause) -> std::result::Result<(), String> {
        self.poison.check().map_err(|e| e.to_string())?;
        self.space_guard.check_now(self.fs(), &self.dir)?;
        let wal = self.wal.resume().map_err(|e| e.to_string())?;
        if wal.needs_flush || cause == StallCause::FlushWrite {
            // Every memstore holding data is flushed: a failed flush's snapshot, and
            // acknowledged ASYNC_WAL records whose log write failed (only the files hold them
            // now).
            let _why = crate::job_log::reason(crate::job_log::JobReason::Recovery);
            for r in self.all_regions() {
                let holds_data = r
                    .stores()
                    .values()
                    .any(|s| s.min_unflushed_seq() != u64::MAX);
                if holds_data && r.failure().is_none() {
                    // Committed all at once by the manifest write below.
                    self.flush_region_uncommitted(&r).map_err(|e| match e {
                        crate::Error::WritesSuspended { reason, .. } => reason,
                        e => e.to_string(),
                    })?;
                }
            }
            self.wal.flushed_after_failure();
        }
        // A flush, compaction or split whose manifest write met a full disk is installed in
        // memory only; the manifest is written again before writes resume (whatever the first
        // cause: a later failure may have been the manifest's).
        {
            let _m = crate::lock::lock(&self.manifest_lock);
            self.persist_job().map_err(|e| match e {
                crate::Error::WritesSuspended { reason, .. } => reason,
                e => e.to_string(),
            })?;
        }
        // The WAL segments the flushes above made redundant can go now that the manifest
        // names their files.
        self.wal
            .delete_obsolete(self.min_unflushed_seq())
            .map_err(|e| e.to_string())?;
        Ok(())
    }
}
