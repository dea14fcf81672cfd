//! A failure's blast radius: a background job that fails on one region's files marks that
//! region, not the engine; only shared durable state (the WAL, the manifest, an fsync) poisons
//! the engine. And bringing a failed region back without a restart. The rule is stated in
//! `docs/design/background-work.md`.

use super::Inner;
use crate::block_file::{BlockFileReader, CacheMode, FileScanner};
use crate::cell::CellKey;
use crate::error::{Error, Result, StallCause};
use crate::health::is_transient_write_error;
use crate::region::Region;
use std::sync::Arc;

impl Inner {
    /// Routes the failure `e` of `job` ("flush", "compaction", "split") on `region`: an fsync
    /// failure poisons the engine (the page cache's state is unknown); a poisoned or closed
    /// engine passes through; anything else marks the region failed, so it refuses writes and
    /// background work, and is returned as [`Error::RegionOffline`] naming region and file.
    pub(crate) fn job_failed(&self, region: &Region, job: &str, e: Error) -> Error {
        match e {
            Error::SyncFailed { .. } => {
                self.poison(&format!("{job} of region {} failed: {e}", region.id));
                e
            }
            Error::Poisoned(_)
            | Error::Closed
            | Error::RegionOffline { .. }
            | Error::WritesSuspended { .. } => e,
            // A full disk is no fault of the region: a flush suspends writes until a retry
            // succeeds (`resume.rs`); a compaction or split is simply tried again later.
            Error::Io { ref source, .. } if is_transient_write_error(source) => {
                if job == "flush" {
                    self.gate.suspend(
                        StallCause::FlushWrite,
                        format!("flush of region {} failed: {e}", region.id),
                    )
                } else {
                    e
                }
            }
            e => {
                let reason = format!("{job} failed: {e}");
                region.fail(reason.clone());
                Error::RegionOffline {
                    table: region.table.to_string(),
                    region: region.id,
                    reason,
                }
            }
        }
    }

    /// Fails with [`Error::RegionOffline`] when `region` is marked failed.
    pub(crate) fn check_region_serving(&self, region: &Region) -> Result<()> {
        match region.failure() {
            None => Ok(()),
            Some(reason) => Err(Error::RegionOffline {
                table: region.table.to_string(),
                region: region.id,
                reason,
            }),
        }
    }

    /// Brings a failed region back: every one of its files is read whole through a fresh
    /// descriptor (every block's checksum checked) and, when all read, the failure is cleared
    /// and a flush requested for whatever its memstores hold. Returns whether the region had
    /// failed. When a file still does not read, the region stays failed and the error says why.
    pub(crate) fn reopen_region(&self, region: &Arc<Region>) -> Result<bool> {
        let _op = self.enter()?;
        if region.failure().is_none() {
            return Ok(false);
        }
        for store in region.stores().values() {
            for f in &store.state().files {
                verify_file(self, f.reader.path())
                    .map_err(|e| self.job_failed(region, "reopen", e))?;
            }
        }
        let dir = self.region_dir(region.id);
        self.fs()
            .create_dir_all(&dir)
            .map_err(|e| self.job_failed(region, "reopen", Error::io(&dir, e)))?;
        region.clear_failure();
        let id = region.id;
        self.request(|w| {
            w.flush.insert(id);
        });
        Ok(true)
    }
}

/// Reads the file at `path` from its first cell to its last.
fn verify_file(inner: &Inner, path: &std::path::Path) -> Result<()> {
    // Its own cache identity: nothing it reads is served to (or from) the live reader's blocks.
    let probe = BlockFileReader::open(
        &inner.handles,
        path,
        u64::MAX,
        inner.cache.clone(),
        inner.metrics.clone(),
    )?;
    let mut scanner = FileScanner::new(Arc::new(probe), CacheMode::whole_file());
    scanner.seek(&CellKey::first_on_row(b""))?;
    while scanner.take()?.is_some() {}
    Ok(())
}
