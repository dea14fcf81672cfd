//! A store: one column family of one region (HBase's `HStore`): an active memstore, memstore
//! snapshots being flushed, and block files, newest first.

use crate::block_cache::Priority;
use crate::block_file::{BlockFileReader, CacheMode, FileScanner, SCAN_READAHEAD};
use crate::cell::KeyValue;
use crate::lock;
use crate::memstore::{ChunkPool, Memstore, MemstoreScanner};
use crate::metrics::Metrics;
use crate::read::{
    record_cost, MatchSpec, MergeCursor, QueryMatcher, Source, StoreRead, StoreScanner,
};
use crate::schema::ColumnFamilyDescriptor;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// A live block file of a store.
#[derive(Debug)]
pub struct StoreFile {
    /// The file's number (its name is `<number>.blk`).
    pub number: u64,
    /// The open reader.
    pub reader: Arc<BlockFileReader>,
}

/// An immutable view of a store's contents; readers hold it for their whole read.
#[derive(Debug, Clone)]
pub struct StoreState {
    /// The memstore taking writes.
    pub active: Arc<Memstore>,
    /// Memstores being flushed, newest first.
    pub snapshots: Vec<Arc<Memstore>>,
    /// Block files, newest (largest max sequence id) first.
    pub files: Vec<Arc<StoreFile>>,
}

/// One family of one region. Thread-safe.
#[derive(Debug)]
pub struct Store {
    family: RwLock<Arc<ColumnFamilyDescriptor>>,
    state: RwLock<Arc<StoreState>>,
    flushed_seq: AtomicU64,
    /// Set while a compaction of this store runs.
    pub compacting: AtomicBool,
    /// Set by a requested major compaction that found a compaction running: a running minor
    /// compaction stops at its next cell and throws its output away (the major one rewrites
    /// every file anyway). Cleared by the major compaction once it runs.
    pub cancel_minor: AtomicBool,
    /// Set by a requested major compaction that found no file to compact, as HBase's
    /// `HStore.forceMajor` stays set when its selection is empty: the store's next compaction,
    /// minor as asked or not, is then major. Cleared when a major compaction runs.
    pub force_major: AtomicBool,
    /// The family's block and bloom counters, looked up once, at the first read.
    reads: std::sync::OnceLock<Arc<crate::metrics::FamilyReads>>,
    /// Where its memstores take their chunks (the engine's pool).
    chunks: Arc<ChunkPool>,
}

impl Store {
    /// A store of `family` with `files` (newest first) whose flushed data reaches `flushed_seq`;
    /// its memstores take their chunks from `chunks`.
    pub fn new(
        family: ColumnFamilyDescriptor,
        files: Vec<Arc<StoreFile>>,
        flushed_seq: u64,
        chunks: Arc<ChunkPool>,
    ) -> Self {
        Store {
            chunks: chunks.clone(),
            family: RwLock::new(Arc::new(family)),
            state: RwLock::new(Arc::new(StoreState {
                active: Memstore::new(chunks.clone()),
                snapshots: Vec::new(),
                files,
            })),
            flushed_seq: AtomicU64::new(flushed_seq),
            compacting: AtomicBool::new(false),
            cancel_minor: AtomicBool::new(false),
            force_major: AtomicBool::new(false),
            reads: std::sync::OnceLock::new(),
        }
    }

    /// The family's current schema.
    pub fn descriptor(&self) -> Arc<ColumnFamilyDescriptor> {
        lock::read(&self.family).clone()
    }

    /// Replaces the schema (online alter).
    pub fn set_descriptor(&self, d: ColumnFamilyDescriptor) {
        *lock::write(&self.family) = Arc::new(d);
    }

    /// The current contents.
    pub fn state(&self) -> Arc<StoreState> {
        lock::read(&self.state).clone()
    }

    fn update(&self, f: impl FnOnce(&mut StoreState)) {
        let mut g = lock::write(&self.state);
        let mut s = (**g).clone();
        f(&mut s);
        *g = Arc::new(s);
    }

    /// Every edit with sequence id ≤ this is in the store's files.
    pub fn flushed_seq(&self) -> u64 {
        self.flushed_seq.load(Ordering::Acquire)
    }

    /// Inserts a cell into the active memstore; returns the bytes added.
    pub fn insert(&self, kv: KeyValue) -> usize {
        lock::read(&self.state).active.insert(kv)
    }

    /// Inserts cells into the active memstore at once ([`Memstore::insert_cells`]); returns
    /// the bytes added and the active memstore's size after them (read under the same lock).
    pub fn insert_cells(&self, cells: &[KeyValue]) -> (usize, usize) {
        let state = lock::read(&self.state);
        let added = state.active.insert_cells(cells);
        (added, state.active.size())
    }

    /// Bytes held in the active memstore (read under the state's lock, without taking a
    /// reference to the state).
    pub fn active_size(&self) -> usize {
        lock::read(&self.state).active.size()
    }

    /// Bytes held in memstores.
    pub fn memstore_size(&self) -> usize {
        let s = self.state();
        s.active.size() + s.snapshots.iter().map(|m| m.size()).sum::<usize>()
    }

    /// Smallest sequence id held only in memory (u64::MAX when none).
    pub fn min_unflushed_seq(&self) -> u64 {
        let s = self.state();
        s.snapshots
            .iter()
            .map(|m| m.min_seq())
            .fold(s.active.min_seq(), u64::min)
    }

    /// Total size of the store's files in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.state().files.iter().map(|f| f.reader.size()).sum()
    }

    /// Moves the active memstore to the snapshots and starts a new one. Returns the snapshot,
    /// or `None` when the active memstore is empty. Callers hold the region's update lock.
    pub fn snapshot(&self) -> Option<Arc<Memstore>> {
        let mut taken = None;
        self.update(|s| {
            if !s.active.is_empty() {
                let old = std::mem::replace(&mut s.active, Memstore::new(self.chunks.clone()));
                s.snapshots.insert(0, old.clone());
                taken = Some(old);
            }
        });
        taken
    }

    /// Replaces a flushed snapshot by its file and records the flushed sequence id.
    pub fn install_flush(
        &self,
        snapshot: &Arc<Memstore>,
        file: Option<Arc<StoreFile>>,
        flushed_seq: u64,
    ) {
        self.update(|s| {
            s.snapshots.retain(|m| !Arc::ptr_eq(m, snapshot));
            if let Some(f) = file {
                s.files.insert(0, f);
                sort_files(&mut s.files);
            }
        });
        self.flushed_seq.fetch_max(flushed_seq, Ordering::AcqRel);
    }

    /// Records that everything up to `seq` is durable without a flush (an empty store).
    pub fn advance_flushed_seq(&self, seq: u64) {
        self.flushed_seq.fetch_max(seq, Ordering::AcqRel);
    }

    /// Replaces the files `removed` by `added`.
    pub fn install_compaction(&self, removed: &[u64], added: Option<Arc<StoreFile>>) {
        self.update(|s| {
            s.files.retain(|f| !removed.contains(&f.number));
            if let Some(f) = added {
                s.files.push(f);
                sort_files(&mut s.files);
            }
        });
    }

    /// Opens a scanner for `read`, or `None` when the read leaves this family out or no
    /// memstore or file can hold a matching cell.
    pub(crate) fn scanner(&self, read: &StoreRead<'_>, metrics: &Metrics) -> Option<StoreScanner> {
        let StoreRead {
            request: req,
            read_point,
            now_ms,
            rows,
            table,
        } = *read;
        let spec = &req.spec;
        let family = self.descriptor();
        // The qualifiers asked of this family, sorted; `None` for all of them.
        let columns = if spec.columns.is_empty() {
            None
        } else {
            match spec.columns.get(&family.name) {
                None => return None,
                Some(q) if q.is_empty() => None,
                Some(q) => Some(q.clone()),
            }
        };
        let state = self.state();
        let reads = self.reads.get_or_init(|| {
            metrics
                .family_reads
                .of(&table.to_string(), &String::from_utf8_lossy(&family.name))
        });
        let oldest_unexpired_ts = family
            .ttl_ms()
            .map_or(i64::MIN, |ttl| now_ms.saturating_sub(ttl));
        let tr = spec.time_range;
        let mode = CacheMode {
            use_cache: family.block_cache,
            priority: if family.in_memory {
                Priority::InMemory
            } else {
                Priority::Normal
            },
            sequential: false,
            seek_readahead: 0,
        };
        let ts_excluded = |min_ts: i64, max_ts: i64, has_deletes: bool| {
            max_ts < tr.min
                || (min_ts >= tr.max && !has_deletes)
                || (family.min_versions == 0 && max_ts < oldest_unexpired_ts)
        };
        let mut sources = Vec::new();
        // Whether any source read may hold a delete marker (the matcher seeks from the empty
        // qualifier only when none does). A memstore counts its markers before they become
        // visible, so one written after the read point was taken is invisible to the read.
        let mut delete_markers = false;
        for m in std::iter::once(&state.active).chain(state.snapshots.iter()) {
            if m.is_empty() {
                continue;
            }
            // As HBase's `SegmentScanner.shouldUseScanner`: a memstore whose cells all lie
            // after the read's time range is not read unless it holds delete markers (which
            // reach back). With NEW_VERSION_BEHAVIOR this matters: its puts would count as
            // versions.
            let (lo, hi) = m.ts_range();
            if ts_excluded(lo, hi, m.has_deletes()) {
                continue;
            }
            record_cost(|c| c.memstores_read += 1);
            delete_markers |= m.has_deletes();
            sources.push(Source::Mem(MemstoreScanner::new(m.clone())));
        }
        for f in &state.files {
            let meta = f.reader.meta();
            if meta.cell_count == 0 {
                continue;
            }
            if ts_excluded(meta.min_ts, meta.max_ts, meta.delete_count > 0) {
                Metrics::inc(&metrics.files_skipped_by_time_range);
                record_cost(|c| c.files_skipped_by_time_range += 1);
                continue;
            }
            // No row of the file in the read's rows (a Get's row, or a region's part of a
            // scan's range): it cannot hold a cell, nor a delete marker, of the read.
            let out_of_range = meta
                .first_key
                .as_ref()
                .is_some_and(|k| !rows.below_hi(&k.row))
                || meta
                    .last_key
                    .as_ref()
                    .is_some_and(|k| !rows.above_lo(&k.row));
            if out_of_range {
                record_cost(|c| c.files_skipped_by_key_range += 1);
                continue;
            }
            if let Some(row) = req.get_row {
                let maybe = match &columns {
                    Some(cols) => {
                        let qs: Vec<&[u8]> = cols.iter().map(|q| &q[..]).collect();
                        f.reader.may_contain_columns(row, &qs)
                    }
                    None => f.reader.may_contain_row(row),
                };
                if !maybe {
                    Metrics::inc(&metrics.bloom_negatives);
                    Metrics::inc(&reads.bloom_negatives);
                    record_cost(|c| c.files_skipped_by_bloom += 1);
                    continue;
                }
            }
            record_cost(|c| c.files_read += 1);
            delete_markers |= meta.delete_count > 0;
            let seek_readahead = req.expected_rows.map_or(0, |rows| {
                let mean_cell = f.reader.size() / meta.cell_count;
                rows.saturating_mul(mean_cell).min(SCAN_READAHEAD)
            });
            let mode = CacheMode {
                seek_readahead,
                ..mode
            };
            sources.push(Source::File(
                FileScanner::new(f.reader.clone(), mode).counting(reads.clone()),
            ));
        }
        if sources.is_empty() {
            return None;
        }
        let max_versions = if spec.raw {
            spec.max_versions
        } else {
            spec.max_versions.min(family.max_versions)
        };
        let versions_before_filter = if spec.raw {
            u32::MAX
        } else {
            family.max_versions
        };
        let matching = MatchSpec {
            time_range: tr,
            max_versions,
            versions_before_filter,
            min_versions: family.min_versions,
            oldest_unexpired_ts,
            now_ms,
            columns,
            raw: spec.raw,
            keep_deleted_cells: family.keep_deleted_cells,
            reversed: req.reversed,
            new_version_behavior: family.new_version_behavior,
            no_delete_markers: !delete_markers,
        };
        Some(StoreScanner::new(
            &family.name,
            MergeCursor::new(sources, read_point),
            QueryMatcher::new(matching),
            req.get_row.is_some(),
        ))
    }
}

fn sort_files(files: &mut [Arc<StoreFile>]) {
    files.sort_by(|a, b| {
        b.reader
            .meta()
            .max_seq
            .cmp(&a.reader.meta().max_seq)
            .then(b.number.cmp(&a.number))
    });
}
