//! Flushing memstores to block files.

use super::Inner;
use crate::block_file::{BlockFileReader, BlockFileWriter, FileOptions};
use crate::cell::{KeyValue, KeyValueRef};
use crate::error::{IoContext, Result};
use crate::hook::HookPoint;
use crate::job_log::{JobKind, JobSizes, JobState};
use crate::lock;
use crate::metrics::Metrics;
use crate::read::CompactionMatcher;
use crate::region::Region;
use crate::schema::ColumnFamilyDescriptor;
use crate::store::StoreFile;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The cells of a new block file, in key order.
pub(crate) enum CellSource<'a, 'c> {
    /// Cells in buffers of their own (what compactions and splits merge from files).
    Owned(&'a mut dyn Iterator<Item = Result<KeyValue>>),
    /// Cells seen in place (a flush writes its snapshot's nodes without copying each out).
    Views(&'a mut dyn Iterator<Item = KeyValueRef<'c>>),
}

impl Inner {
    /// Writes `cells` (in key order) as a new file of `region` for `family`. Without cells,
    /// returns `None`,
    /// or with `keep_empty` an empty file: HBase's flushes and compactions commit their file
    /// whatever their scanner kept (a flush of only expired cells, a major compaction of only
    /// deleted ones), and the file counts toward the compaction policy's minimum of files, so
    /// a later minor compaction selects what HBase's selects (issue 41). Reads skip such files.
    pub(crate) fn write_store_file(
        &self,
        region_id: u64,
        family: &ColumnFamilyDescriptor,
        major: bool,
        keep_empty: bool,
        cells: CellSource<'_, '_>,
    ) -> Result<Option<Arc<StoreFile>>> {
        let fs = self.fs();
        let dir = self.region_dir(region_id);
        fs.create_dir_all(&dir).at(&dir)?;
        let number = self.next_file.fetch_add(1, Ordering::AcqRel);
        let path = self.file_path(region_id, number);
        // A file left part-written (a full disk) is removed at once: it would hold space the
        // retry needs (and `remove_orphans` would remove it at the next open anyway).
        let file = self
            .write_new_store_file(family, major, cells, &path, number)
            .inspect_err(|_| {
                let _ = fs.remove_file(&path);
            })?;
        if file.reader.meta().cell_count == 0 && !keep_empty {
            drop(file);
            let _ = fs.remove_file(&path);
            return Ok(None);
        }
        Ok(Some(file))
    }

    fn write_new_store_file(
        &self,
        family: &ColumnFamilyDescriptor,
        major: bool,
        cells: CellSource<'_, '_>,
        path: &std::path::Path,
        number: u64,
    ) -> Result<Arc<StoreFile>> {
        let fs = self.fs();
        let dir = path.parent().unwrap_or(path).to_path_buf();
        let path = path.to_path_buf();
        let mut w = BlockFileWriter::create(fs, &path, FileOptions::of_family(family, major))?;
        match cells {
            CellSource::Owned(cells) => {
                for kv in cells {
                    w.add(&kv?)?;
                }
            }
            CellSource::Views(cells) => {
                for kv in cells {
                    w.add_view(kv)?;
                }
            }
        }
        let (_meta, size) = w.finish()?;
        // The file's bytes are synced (`finish`); before a manifest may name it, so must be
        // its entry in the region directory and the region directory's entry in `data/`
        // ("Commit protocol" in docs/format/manifest.md): otherwise a power cut after the
        // manifest write and the WAL segment's deletion loses the file and its edits.
        self.sync_dir(&dir)?;
        self.sync_dir(&self.data_dir())?;
        Metrics::add(&self.metrics.bytes_written_files, size);
        self.open_store_file(&path, number)
    }

    /// Opens block file `number` at `path` through the handle cache, as a store holds it.
    pub(crate) fn open_store_file(&self, path: &Path, number: u64) -> Result<Arc<StoreFile>> {
        let reader = BlockFileReader::open(
            &self.handles,
            path,
            number,
            self.cache.clone(),
            self.metrics.clone(),
        )?;
        Ok(Arc::new(StoreFile {
            number,
            reader: Arc::new(reader),
        }))
    }

    /// Makes every WAL record logged so far durable (its buffer written, the segment
    /// fdatasynced; nothing when that is done already), before a flush or split commits
    /// memstore cells to files. Point-in-time order across regions: once the manifest names
    /// the files, their edits survive a power cut, so every edit logged before them must too,
    /// or a cut could keep a later write of this region and lose an earlier one of another
    /// (RocksDB syncs its closed logs before a flush's manifest write for the same reason).
    /// While WAL writes are suspended the log cannot be synced (its tail holds a failed
    /// write's bytes until the retry cuts them off): `WritesSuspended`, and the commit waits
    /// for the retry, which syncs the log before it flushes.
    pub(crate) fn sync_wal_before_commit(&self) -> Result<()> {
        self.wal.sync()
    }

    /// Flushes every store of `region` that holds data. A region paused by DDL or offline is
    /// left alone (whoever paused it decides what becomes of its memstores); a failed region
    /// answers [`crate::Error::RegionOffline`].
    pub(crate) fn flush_region(&self, region: &Arc<Region>) -> Result<()> {
        self.flush_region_then(region, true)
    }

    /// [`Inner::flush_region`] whose files are installed in memory but committed by the
    /// caller's next manifest write (`persist_job`), which must follow: the resume after a
    /// failed WAL write flushes every memstore, and the acknowledged ASYNC_WAL records the
    /// failed write lost (in no log any more) must become durable together, not region by
    /// region, or a power cut between two regions' commits keeps a later write and loses an
    /// earlier one. No WAL segment is deleted here (the manifest does not name the files yet).
    pub(crate) fn flush_region_uncommitted(&self, region: &Arc<Region>) -> Result<()> {
        self.flush_region_then(region, false)
    }

    fn flush_region_then(&self, region: &Arc<Region>, commit: bool) -> Result<()> {
        self.check_region_serving(region)?;
        let Some(_job) = region.jobs.start() else {
            return Ok(());
        };
        let _one_at_a_time = lock::lock(&region.flush_lock);
        let started = std::time::Instant::now();
        // Listed as running from here; forgotten if there was nothing to flush.
        let job = self.job_log.start(
            JobKind::Flush,
            region.table.to_string(),
            region.id,
            Vec::new(),
        );
        let (flush_seq, snapshots) = {
            let _w = lock::write(&region.updates);
            let seq = self.mvcc.last_allocated();
            let snaps: Vec<_> = region
                .stores()
                .into_values()
                .map(|s| {
                    s.snapshot();
                    // Flushes are serialised, so any older snapshot is one an earlier, failed
                    // flush left behind (the region was reopened since): it is flushed too.
                    let pending = s.state().snapshots.clone();
                    (s, pending)
                })
                .collect();
            (seq, snaps)
        };
        // A request for this region made before the snapshot (writes past the flush size ask
        // until the flusher gets to it) is answered by this flush: left queued, it would flush
        // the little written since as a file of its own.
        lock::lock(&self.work).flush.remove(&region.id);
        // Every write in the snapshots is complete (we held the update lock); waiting for the
        // read point makes the flushed cells visible to every reader that opens the new file.
        self.mvcc.wait_for(flush_seq);
        let mut installs: Vec<(_, _, Option<Arc<StoreFile>>)> = Vec::new();
        let smallest_read_point = self.smallest_read_point();
        for (store, pending) in &snapshots {
            for snap in pending {
                let family = store.descriptor();
                // A flush writes what a minor compaction would keep of the snapshot (HBase's
                // StoreFlusher scans it as COMPACT_RETAIN_DELETES): delete markers stay, puts
                // they mask, overwritten values and versions beyond VERSIONS go, as do
                // expired cells. Cells newer than an open reader's read point stay.
                let mut matcher =
                    CompactionMatcher::new(&family, self.now_ms(), false, smallest_read_point);
                let mut cells = snap.views().filter(|kv| matcher.keep_view(*kv));
                let file = self
                    .write_store_file(
                        region.id,
                        &family,
                        false,
                        !snap.is_empty(),
                        CellSource::Views(&mut cells),
                    )
                    .map_err(|e| {
                        // The files of this flush written so far are not installed: a retry
                        // writes them again.
                        for (_, _, f) in &installs {
                            if let Some(f) = f {
                                let _ = self.fs().remove_file(f.reader.path());
                            }
                        }
                        self.job_failed(region, "flush", e)
                    })?;
                installs.push((store.clone(), snap.clone(), file));
                self.hook(HookPoint::FlushFileWritten { region: region.id });
            }
        }
        if let Err(e) = self.sync_wal_before_commit() {
            for (_, _, f) in &installs {
                if let Some(f) = f {
                    let _ = self.fs().remove_file(f.reader.path());
                }
            }
            return Err(self.job_failed(region, "flush", e));
        }
        {
            let _m = lock::lock(&self.manifest_lock);
            if region.is_closed() {
                // Split or dropped meanwhile; its data went with it.
                job.end(JobState::Abandoned);
                return Ok(());
            }
            let mut freed = 0;
            for (store, snap, file) in &installs {
                let live = region
                    .store(&store.descriptor().name)
                    .is_some_and(|s| Arc::ptr_eq(&s, store));
                if !live {
                    // The family was deleted meanwhile; its bytes were released with it.
                    if let Some(f) = file {
                        let _ = self.fs().remove_file(f.reader.path());
                    }
                    continue;
                }
                freed += snap.size();
                store.install_flush(snap, file.clone(), flush_seq);
            }
            for (store, pending) in &snapshots {
                if pending.is_empty() {
                    store.advance_flushed_seq(flush_seq);
                }
            }
            self.manifest_region_changed(region);
            // The memstore's bytes are gone from memory whether or not the manifest is
            // written: a full disk suspends writes and the retry writes it (`persist_job`).
            let persisted = if commit { self.persist_job() } else { Ok(()) };
            self.release_memstore(freed);
            persisted?;
        }
        self.memstore_drained.notify_all();
        if !installs.is_empty() {
            Metrics::inc(&self.metrics.flushes);
            for (_, snap, file) in &installs {
                Metrics::add(&self.metrics.flush_bytes_in, snap.size() as u64);
                if let Some(f) = file {
                    Metrics::add(&self.metrics.flush_bytes_out, f.reader.size());
                }
            }
            Metrics::add(
                &self.metrics.flush_micros,
                u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            );
            let mut families: Vec<String> = installs
                .iter()
                .map(|(s, _, _)| String::from_utf8_lossy(&s.descriptor().name).into_owned())
                .collect();
            families.dedup();
            job.finish(
                JobState::Done,
                JobSizes {
                    files_in: 0,
                    bytes_in: installs.iter().map(|(_, s, _)| s.size() as u64).sum(),
                    files_out: installs.iter().filter(|(_, _, f)| f.is_some()).count() as u64,
                    bytes_out: installs
                        .iter()
                        .filter_map(|(_, _, f)| f.as_ref().map(|f| f.reader.size()))
                        .sum(),
                    families: Some(families),
                },
            );
        } else {
            job.discard();
        }
        if !commit {
            return Ok(());
        }
        self.hook(HookPoint::FlushManifestWritten { region: region.id });
        // With every edit flushed, the active WAL segment is closed too, so it is deleted now
        // rather than when it fills (the seq bound is computed after the roll: a write logged
        // in between is still pending in MVCC or unflushed in a memstore, and keeps it).
        // Memstore bytes still held anywhere answer it at once (the walk over every store
        // would cost each flush time in proportion to the regions); a write counted a moment
        // late only makes the walk run.
        let all_flushed = self.global_memstore.load(Ordering::Acquire) == 0
            && lock::read(&self.catalog)
                .all_regions()
                .all(|r| r.min_unflushed_seq() == u64::MAX);
        if all_flushed {
            self.wal.roll_idle()?;
        }
        self.wal.delete_obsolete(self.min_unflushed_seq())?;
        if self.opts.compaction.auto && self.compaction_enabled(region) {
            for (store, _, _) in &installs {
                if store.state().files.len() >= self.opts.compaction.min_files {
                    let key = (region.id, store.descriptor().name.clone(), false);
                    self.request(|w| {
                        w.compact.insert(key);
                    });
                }
            }
        }
        if self.split_due(region) {
            let id = region.id;
            self.request(|w| {
                w.split.insert(id);
            });
        }
        if all_flushed {
            // No write arrived while the flush ran: the pooled chunks would wait for memstores
            // nobody is filling, resident beside the block cache that reads after a load fill
            // (60 MiB more peak RSS in the peer benchmark's reads right after its settling,
            // until the pool's idle trim), so they go back now, with the flushed memstores'
            // own (given back as the last references to them drop, unless a reader holds one).
            drop(installs);
            drop(snapshots);
            if self.memstore_chunks.trim() {
                crate::allocator::release_thread_cache_and_purge();
            }
        }
        Ok(())
    }

    /// False when the region's table has `COMPACTION_ENABLED => false`.
    pub(crate) fn compaction_enabled(&self, region: &Region) -> bool {
        self.table_entry(&region.table)
            .map_or(true, |t| t.descriptor.attributes.compaction_enabled())
    }

    /// The smallest sequence id held only in memory, over every store.
    pub(crate) fn min_unflushed_seq(&self) -> u64 {
        lock::read(&self.catalog)
            .all_regions()
            .map(|r| r.min_unflushed_seq())
            .min()
            .unwrap_or(u64::MAX)
            // A write in flight may be logged but not yet in a memstore.
            .min(self.mvcc.oldest_pending())
    }
}
