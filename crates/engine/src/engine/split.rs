//! Splitting a region in two at a row.
//!
//! The parent is flushed, then writes are held off while every store's files and memstores are
//! rewritten into two children's files; one manifest write swaps the parent for the children.
//! A crash before that write leaves the parent live (the children's files are orphans, removed
//! at open); after it, the children are live and hold everything.

use super::flush::CellSource;
use super::Inner;
use crate::block_file::{CacheMode, FileScanner};
use crate::cell::{CellKey, KeyValue};
use crate::error::{Error, Result};
use crate::hook::HookPoint;
use crate::lock;
use crate::memstore::MemstoreScanner;
use crate::metrics::Metrics;
use crate::read::{MergeCursor, Source};
use crate::region::{CloseReason, Region};
use crate::split_policy;
use crate::store::Store;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Inner {
    /// True when `region` should split, by the split policy (`split_policy.rs`) with this
    /// engine's settings and the region's table (false once the table is gone).
    pub(crate) fn split_due(&self, region: &Region) -> bool {
        self.table_entry(&region.table).is_ok_and(|t| {
            split_policy::split_due(
                self.opts.auto_split,
                self.opts.region_split_size,
                &t.descriptor,
                region,
            )
        })
    }

    /// Splits `region` at `at` (or its midpoint). Returns false when there is no usable split
    /// point (e.g. a region with a single row).
    pub(crate) fn split_region(&self, region: &Arc<Region>, at: Option<Vec<u8>>) -> Result<bool> {
        {
            let _why = crate::job_log::reason(crate::job_log::JobReason::Split);
            self.flush_region(region)?;
        }
        let key = match at {
            Some(k) => {
                if k <= region.start || (!region.end.is_empty() && k >= region.end) {
                    return Err(Error::IllegalArgument(format!(
                        "split key {:?} is not inside the region's range",
                        String::from_utf8_lossy(&k)
                    )));
                }
                k
            }
            None => match split_policy::split_point(region) {
                Some(k) => k,
                None => return Ok(false),
            },
        };
        // Like DDL, a split pauses the region's other jobs: a compaction writing into the
        // parent's directory would lose it when the parent goes.
        let Some(_paused) = region.jobs.pause_for_split() else {
            return Ok(false);
        };
        let _w = lock::write(&region.updates);
        if region.is_closed() || region.jobs.is_offline() {
            return Ok(false);
        }
        self.check_region_serving(region)?;
        let seq = self.mvcc.last_allocated();
        self.mvcc.wait_for(seq);
        // The daughters take the memstores' cells into files: the log before them first.
        self.sync_wal_before_commit()
            .map_err(|e| self.job_failed(region, "split", e))?;
        let left_id = self.next_region.fetch_add(2, Ordering::AcqRel);
        let right_id = left_id + 1;
        let mut left_stores = BTreeMap::new();
        let mut right_stores = BTreeMap::new();
        for (family, store) in region.stores() {
            let desc = store.descriptor();
            let state = store.state();
            let mode = CacheMode::whole_file();
            let mut halves = Vec::new();
            for (lo, hi) in [(Vec::new(), Some(key.clone())), (key.clone(), None)] {
                let mut sources: Vec<Source> = std::iter::once(&state.active)
                    .chain(state.snapshots.iter())
                    .map(|m| Source::Mem(MemstoreScanner::new(m.clone())))
                    .collect();
                sources.extend(
                    state
                        .files
                        .iter()
                        .map(|f| Source::File(FileScanner::new(f.reader.clone(), mode))),
                );
                let mut cursor = MergeCursor::new(sources, u64::MAX);
                cursor
                    .reseek(&CellKey::first_on_row(&lo))
                    .map_err(|e| self.job_failed(region, "split", e))?;
                let mut iter = std::iter::from_fn(|| -> Option<Result<KeyValue>> {
                    let row = cursor.peek()?.row;
                    if hi.as_ref().is_some_and(|h| row >= &h[..]) {
                        return None;
                    }
                    cursor.take().transpose()
                });
                let id = if hi.is_some() { left_id } else { right_id };
                let file = self
                    .write_store_file(id, &desc, false, false, CellSource::Owned(&mut iter))
                    .map_err(|e| {
                        self.remove_daughters(left_id);
                        self.job_failed(region, "split", e)
                    })?;
                halves.push(file);
            }
            let flushed = store.flushed_seq().max(seq);
            let right = halves.pop().flatten();
            let left = halves.pop().flatten();
            left_stores.insert(
                family.clone(),
                Arc::new(Store::new(
                    (*desc).clone(),
                    left.into_iter().collect(),
                    flushed,
                    self.memstore_chunks.clone(),
                )),
            );
            right_stores.insert(
                family.clone(),
                Arc::new(Store::new(
                    (*desc).clone(),
                    right.into_iter().collect(),
                    flushed,
                    self.memstore_chunks.clone(),
                )),
            );
        }
        self.hook(HookPoint::SplitDaughtersWritten { region: region.id });
        let left = Arc::new(Region::new(
            left_id,
            region.table.clone(),
            region.start.clone(),
            key.clone(),
            left_stores,
        ));
        let right = Arc::new(Region::new(
            right_id,
            region.table.clone(),
            key,
            region.end.clone(),
            right_stores,
        ));
        {
            let _m = lock::lock(&self.manifest_lock);
            {
                let mut cat = lock::write(&self.catalog);
                // The table may have been disabled or dropped meanwhile (disabling takes the
                // region offline first): the split is abandoned, the parent stays as it was.
                let pos = cat
                    .tables
                    .get(&region.table)
                    .filter(|t| t.enabled && !region.jobs.is_offline())
                    .and_then(|t| t.regions.iter().position(|r| Arc::ptr_eq(r, region)));
                let Some(pos) = pos else {
                    drop(cat);
                    self.remove_daughters(left_id);
                    return Ok(false);
                };
                let t = cat
                    .tables
                    .get_mut(&region.table)
                    .map(Arc::make_mut)
                    .ok_or_else(|| Error::TableNotFound(region.table.to_string()))?;
                t.regions.splice(pos..=pos, [left, right]);
            }
            self.manifest_table_changed(&region.table);
            region.close(CloseReason::Split);
            // Measured under the manifest lock: a concurrent flush has either installed (and
            // released its bytes) or will find the region closed and release nothing.
            let memstore_bytes = region.memstore_size();
            let persisted = self.persist_job();
            self.release_memstore(memstore_bytes);
            persisted?;
        }
        self.hook(HookPoint::SplitManifestWritten { region: region.id });
        self.memstore_drained.notify_all();
        // The parent's directory goes once the reads still holding its files end (they may
        // need to reopen them), at once when there are none.
        let removal =
            crate::block_file::Removal::dir(self.opts.fs.clone(), &self.region_dir(region.id));
        for store in region.stores().values() {
            for f in &store.state().files {
                self.cache.evict_file(f.number);
                f.reader.hold_until_unused(removal.clone());
            }
        }
        drop(removal);
        Metrics::inc(&self.metrics.splits);
        Ok(true)
    }

    /// Removes the directories of an abandoned split's daughters `left_id` and `left_id + 1`
    /// (their files were never in the manifest; an open would remove them as orphans too).
    fn remove_daughters(&self, left_id: u64) {
        for id in [left_id, left_id + 1] {
            let _ = self.fs().remove_dir_all(&self.region_dir(id));
        }
    }
}
