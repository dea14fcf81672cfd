//! Running compactions: merge a store's selected files into one, dropping what HBase drops.

use super::flush::CellSource;
use super::Inner;
use crate::block_file::{CacheMode, FileScanner};
use crate::cell::{CellKey, CellType, KeyValue};
use crate::compaction_policy;
use crate::error::Result;
use crate::hook::HookPoint;
use crate::job_log::{JobKind, JobSizes, JobState};
use crate::lock;
use crate::metrics::Metrics;
use crate::read::{CompactionMatcher, MergeCursor, Source};
use crate::region::Region;
use crate::schema::ColumnFamilyDescriptor;
use crate::store::{Store, StoreFile};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Clears a store's `compacting` flag when dropped.
struct CompactingGuard<'a>(&'a Store);

impl Drop for CompactingGuard<'_> {
    fn drop(&mut self) {
        self.0.compacting.store(false, Ordering::Release);
    }
}

impl Inner {
    /// Compacts the store of `family` in `region`: every file when `major`, else the files
    /// the policy selects. Returns whether anything was compacted.
    pub(crate) fn compact_store(
        &self,
        region: &Arc<Region>,
        family: &[u8],
        major: bool,
    ) -> Result<bool> {
        // A paused or offline region (DDL changing it, a disabled table) is not compacted.
        let Some(_job) = region.jobs.start() else {
            return Ok(false);
        };
        if region.failure().is_some() {
            // A failed region waits for a reopen; its writes are refused meanwhile.
            return Ok(false);
        }
        let Some(store) = region.store(family) else {
            return Ok(false);
        };
        // A requested major compaction waits for a running one, and stops a running minor one
        // (whose output it would rewrite at once); a background minor one yields.
        while store.compacting.swap(true, Ordering::AcqRel) {
            if !major || region.jobs.stop_requested() {
                return Ok(false);
            }
            store.cancel_minor.store(true, Ordering::Release);
            self.hook(HookPoint::CompactionWaiting { region: region.id });
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let _guard = CompactingGuard(&store);
        let started = std::time::Instant::now();
        if major {
            store.cancel_minor.store(false, Ordering::Release);
        }
        // Only the files: the store's state also holds its memstores, which a state kept for
        // the compaction's whole run would keep in memory after their flushes (a load's peak
        // RSS held two flushed 64 MiB memstores through each compaction).
        let mut files: Vec<Arc<StoreFile>> = store.state().files.clone();
        let store_files = files.len();
        // Oldest first for selection.
        files.reverse();
        // A major compaction requested of a store without files stays pending (HBase's
        // `forceMajor`, cleared only once a major compaction is selected): the next compaction
        // of the store is major, so a minor one after a flush drops the markers (issue 41).
        let major = major || store.force_major.load(Ordering::Acquire);
        let chosen: Vec<Arc<StoreFile>> = if major {
            if files.is_empty() {
                store.force_major.store(true, Ordering::Release);
                return Ok(false);
            }
            store.force_major.store(false, Ordering::Release);
            // With sorted runs on, files a major compaction would copy unchanged stay as they
            // are (RocksDB's bottommost files without a compaction filter;
            // docs/design/compaction.md); off (HBase's way, the default), every file is merged.
            let keep = if self.opts.compaction.sorted_runs {
                unchanged_by_major(&files, &store.descriptor())
            } else {
                Vec::new()
            };
            if keep.len() == files.len() {
                return Ok(false);
            }
            files
                .into_iter()
                .filter(|f| !keep.contains(&f.number))
                .collect()
        } else {
            let c = &self.opts.compaction;
            // Sorted runs only when asked for (`CompactionOptions::sorted_runs`) and where
            // merging a run's files could drop nothing a read sees: no delete marker in the
            // store (a selection of every file purges markers, issue 41) and no TTL on the
            // family. Otherwise every file is a run of its own: HBase's selection exactly
            // (docs/design/compaction.md).
            let runs = c.sorted_runs
                && store.descriptor().ttl_ms().is_none()
                && files.iter().all(|f| f.reader.meta().delete_count == 0);
            let spans: Vec<compaction_policy::FileSpan<'_>> = files
                .iter()
                .map(|f| {
                    let meta = f.reader.meta();
                    compaction_policy::FileSpan {
                        size: f.reader.size(),
                        rows: match (&meta.first_key, &meta.last_key) {
                            (Some(first), Some(last)) if runs && meta.cell_count > 0 => {
                                Some((&first.row[..], &last.row[..]))
                            }
                            _ => None,
                        },
                    }
                })
                .collect();
            let chosen = compaction_policy::select_runs(&spans, |sizes| match c.tiers {
                // Opt-in: files of about one size only (docs/design/compaction.md).
                Some(t) => compaction_policy::select_tiered(
                    sizes,
                    t.min_files,
                    c.max_files,
                    t.size_factor,
                    c.min_size / t.min_files.max(1) as u64,
                ),
                None => {
                    compaction_policy::select(sizes, c.min_files, c.max_files, c.ratio, c.min_size)
                }
            });
            match chosen {
                Some(r) => files[r].to_vec(),
                None => return Ok(false),
            }
        };
        let all_files = chosen.len() == store_files;
        let family_desc = store.descriptor();
        let job = self.job_log.start(
            if major {
                JobKind::MajorCompaction
            } else {
                JobKind::MinorCompaction
            },
            region.table.to_string(),
            region.id,
            vec![String::from_utf8_lossy(family).into_owned()],
        );
        let bytes_in: u64 = chosen.iter().map(|f| f.reader.size()).sum();
        let sizes = |bytes_out: u64, files_out: u64| JobSizes {
            files_in: chosen.len() as u64,
            bytes_in,
            files_out,
            bytes_out,
            families: None,
        };
        let mode = CacheMode::whole_file();
        let sources = chosen
            .iter()
            .map(|f| Source::File(FileScanner::new(f.reader.clone(), mode)))
            .collect();
        let mut cursor = MergeCursor::new(sources, u64::MAX);
        cursor
            .reseek(&CellKey::first_on_row(b""))
            .map_err(|e| self.job_failed(region, "compaction", e))?;
        let smallest_read_point = self.smallest_read_point();
        let mut matcher =
            CompactionMatcher::new(&family_desc, self.now_ms(), all_files, smallest_read_point);
        let mut cancelled = false;
        let mut iter = std::iter::from_fn(|| -> Option<Result<KeyValue>> {
            // Stopped by a major compaction request (minor ones only) or by DDL pausing the
            // region (HBase's region close interrupts compactions the same way).
            if (!major && store.cancel_minor.load(Ordering::Relaxed))
                || region.jobs.stop_requested()
            {
                cancelled = true;
                return None;
            }
            loop {
                let mut kv = match cursor.take() {
                    Ok(kv) => kv?,
                    Err(e) => return Some(Err(e)),
                };
                if matcher.keep(&kv) {
                    // With NEW_VERSION_BEHAVIOR a put's id orders it against the delete
                    // markers KEEP_DELETED_CELLS retains (HBase keeps ids for
                    // `hbase.hstore.compaction.keep.seqId.period`, 5 days): kept.
                    if all_files
                        && !family_desc.new_version_behavior
                        && clears_seq(&kv, smallest_read_point)
                    {
                        kv.key.seq = 0;
                    }
                    return Some(Ok(kv));
                }
            }
        });
        self.hook(HookPoint::CompactionMerging {
            region: region.id,
            major,
        });
        let output = self
            .write_store_file(
                region.id,
                &family_desc,
                all_files,
                // An empty output counts toward the policy's minimum of files (issue 41); a
                // major compaction that kept files unchanged has them to count instead.
                !major || all_files,
                CellSource::Owned(&mut iter),
            )
            .map_err(|e| self.job_failed(region, "compaction", e))?;
        if cancelled {
            // A major compaction or a DDL operation is waiting: the inputs stay, the partial
            // output goes. Nothing is reported: a stopped compaction is not a failure.
            if let Some(f) = &output {
                self.cache.evict_file(f.number);
                let _ = self.fs().remove_file(f.reader.path());
            }
            Metrics::inc(&self.metrics.compactions_cancelled);
            job.finish(JobState::Cancelled, sizes(0, 0));
            return Ok(false);
        }
        self.hook(HookPoint::CompactionFileWritten { region: region.id });
        let removed: Vec<u64> = chosen.iter().map(|f| f.number).collect();
        {
            let _m = lock::lock(&self.manifest_lock);
            if region.is_closed()
                || region
                    .store(family)
                    .is_none_or(|s| !Arc::ptr_eq(&s, &store))
            {
                if let Some(f) = &output {
                    let _ = self.fs().remove_file(f.reader.path());
                }
                job.end(JobState::Abandoned);
                return Ok(false);
            }
            let bytes_out = output.as_ref().map_or(0, |f| f.reader.size());
            let files_out = u64::from(output.is_some());
            store.install_compaction(&removed, output);
            self.manifest_region_changed(region);
            Metrics::add(&self.metrics.compaction_bytes_in, bytes_in);
            Metrics::add(&self.metrics.compaction_bytes_out, bytes_out);
            // On a full disk the inputs stay: the manifest in force still names them.
            self.persist_job()?;
            job.finish(JobState::Done, sizes(bytes_out, files_out));
        }
        for f in &chosen {
            self.cache.evict_file(f.number);
            // Removed once the reads still holding it end (they may need to reopen it).
            f.reader.remove_when_unused();
        }
        Metrics::inc(&self.metrics.compactions);
        Metrics::add(
            &self.metrics.compaction_micros,
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        );
        if self.split_due(region) {
            let id = region.id;
            self.request(|w| {
                w.split.insert(id);
            });
        }
        Ok(true)
    }

    /// Compacts each store of `region` (all files when `major`). The memstore is left alone,
    /// as in HBase: a flush is its own operation.
    pub(crate) fn compact_region(&self, region: &Arc<Region>, major: bool) -> Result<()> {
        for family in region.stores().keys() {
            // A store busy with a background compaction is left to it.
            self.compact_store(region, family, major)?;
        }
        Ok(())
    }
}

/// The numbers of the files (oldest first) a major compaction would copy unchanged: none when
/// the family has a TTL (expired cells go) or any file holds a delete marker (markers and what
/// they mask go). Else a file that shares no row with any other file, records how many cells its
/// columns hold (files written before that are rewritten), holds no column with more cells than
/// VERSIONS keeps (VERSIONS may have been lowered since its flush), no cell with its own TTL and
/// no two cells of one column and timestamp (NEW_VERSION_BEHAVIOR's flushes keep overwritten
/// values): rewriting it would drop nothing, and no cell of another file can mask or
/// out-version one of its cells. Only its cells' sequence ids would be cleared, which order cells of one key, and
/// no other file holds its keys.
fn unchanged_by_major(files: &[Arc<StoreFile>], family: &ColumnFamilyDescriptor) -> Vec<u64> {
    if family.ttl_ms().is_some() || files.iter().any(|f| f.reader.meta().delete_count > 0) {
        return Vec::new();
    }
    let rows = |f: &StoreFile| {
        let m = f.reader.meta();
        match (&m.first_key, &m.last_key) {
            (Some(a), Some(b)) if m.cell_count > 0 => Some((a.row.clone(), b.row.clone())),
            _ => None,
        }
    };
    let spans: Vec<_> = files.iter().map(|f| rows(f)).collect();
    files
        .iter()
        .enumerate()
        .filter(|(i, f)| {
            let m = f.reader.meta();
            let plain = m
                .max_column_cells
                .is_some_and(|c| c <= u64::from(family.max_versions))
                && m.irregular_cells == Some(0);
            let Some((first, last)) = &spans[*i] else {
                return false;
            };
            plain
                && spans.iter().enumerate().all(|(j, other)| {
                    j == *i || other.as_ref().is_none_or(|(a, b)| b < first || a > last)
                })
        })
        .map(|(_, f)| f.number)
        .collect()
}

/// Whether a compaction of every file of a store writes `kv` with sequence id 0 (HBase clears
/// the MVCC number of cells older than every reader the same way): a put that every open
/// reader sees. Ids only order cells of the same key, and a put surviving the matcher at or
/// below the smallest read point is the only one of its key there (a repeated timestamp is
/// dropped); anything newer, in the memstore or a later flush, keeps its larger id. Delete
/// markers keep theirs, as KEEP_DELETED_CELLS may keep several of one key.
fn clears_seq(kv: &KeyValue, smallest_read_point: u64) -> bool {
    kv.key.cell_type == CellType::Put && kv.key.seq <= smallest_read_point
}
