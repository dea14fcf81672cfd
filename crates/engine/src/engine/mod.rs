//! The engine: catalog of tables and regions, write and read paths, flushes, compactions,
//! splits, recovery, and the background workers that drive them.
//!
//! Directory layout (`docs/format/layout.md`): `LOCK`, `MANIFEST`, `wal/<n>.wal`,
//! `data/<region id>/<file number>.blk`.

mod background;
mod catalog;
mod compaction;
mod ddl;
mod flush;
mod manifest_writer;
pub use manifest_writer::ManifestStats;
mod namespace;
mod options;
mod read_modify_write;
mod recovery;
mod region_failure;
mod resume;
pub(crate) mod snapshot;
mod split;
mod write;

pub use snapshot::{check_snapshot_name, snapshot_dir_files, SnapshotInfo};

pub use options::{
    CompactionOptions, EngineOptions, MemoryLimits, SizeTiers, WalRecovery, BLOCK_CACHE_SHARE,
    DEFAULT_MAX_CELL_SIZE, DEFAULT_MEMORY_BUDGET, DEFAULT_MEMSTORE_CHUNK_BYTES,
    MEMSTORE_LOWER_LIMIT, MEMSTORE_SHARE,
};

use crate::block_cache::BlockCache;
use crate::error::{Error, IoContext, Result};
use crate::health::{Health, SpaceGuard, WriteGate};
use crate::lock;
use crate::metrics::Metrics;
use crate::mvcc::Mvcc;
use crate::poison::Poison;
use crate::wal::Wal;
use catalog::Catalog;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::thread::JoinHandle;

/// Work waiting for the background workers.
#[derive(Debug, Default)]
pub(crate) struct WorkQueue {
    flush: std::collections::BTreeSet<u64>,
    compact: std::collections::BTreeSet<(u64, Vec<u8>, bool)>,
    split: std::collections::BTreeSet<u64>,
    stop: bool,
}

/// Shared state of an open engine.
pub(crate) struct Inner {
    pub(crate) dir: PathBuf,
    pub(crate) opts: EngineOptions,
    /// The memstore limits and block cache size derived from `opts` (`opts.memory_limits()`).
    pub(crate) memory: crate::MemoryLimits,
    pub(crate) metrics: Arc<Metrics>,
    /// The flushes and compactions running and the last ones that ended.
    pub(crate) job_log: crate::job_log::JobLog,
    pub(crate) cache: Arc<BlockCache>,
    /// The chunks memstores fill, and those flushed memstores gave back
    /// ([`EngineOptions::memstore_chunk_bytes`]).
    pub(crate) memstore_chunks: Arc<crate::memstore::ChunkPool>,
    /// The open block files, at most `EngineOptions::max_open_files` (`file_handles.rs`).
    pub(crate) handles: Arc<crate::file_handles::FileHandles>,
    pub(crate) wal: Wal,
    pub(crate) mvcc: Mvcc,
    pub(crate) catalog: RwLock<Catalog>,
    /// Serialises table administration (HBase's table lock): taken before any region is
    /// paused and before `manifest_lock`; background jobs never take it.
    pub(crate) ddl_lock: Mutex<()>,
    /// Serialises structural changes and manifest writes.
    pub(crate) manifest_lock: Mutex<()>,
    /// The manifest's snapshot and edit log as written, and what changed since (taken under
    /// `manifest_lock` only; `manifest_writer.rs`).
    pub(crate) manifest_writer: Mutex<manifest_writer::ManifestWriter>,
    pub(crate) next_file: AtomicU64,
    pub(crate) next_region: AtomicU64,
    /// Set by the first failure of shared durable state or panic; shared with the WAL.
    pub(crate) poison: Arc<Poison>,
    /// Closed while writes are suspended by a transient disk error or low free space; shared
    /// with the WAL (`health.rs`, `engine/resume.rs`).
    pub(crate) gate: Arc<WriteGate>,
    /// Refuses writes once free space falls below `EngineOptions::min_free_space`.
    pub(crate) space_guard: SpaceGuard,
    closed: AtomicBool,
    pub(crate) work: Mutex<WorkQueue>,
    pub(crate) work_ready: Condvar,
    pub(crate) global_memstore: AtomicUsize,
    pub(crate) memstore_drained: Condvar,
    pub(crate) memstore_wait: Mutex<()>,
    /// Read points of open scanners, so flushes and compactions keep what they need.
    pub(crate) scanner_read_points: Mutex<ReadPoints>,
    /// Reads and writes per key range and time bucket, recorded by [`crate::Table`].
    pub(crate) heat: crate::heat_map::HeatMap,
    _lock_file: Box<dyn crate::fs::FileLock>,
    /// Dropped last, after the block cache and the memstores.
    _purge: PurgeOnDrop,
}

/// Gives the memory an engine freed back to the OS when the engine is dropped
/// ([`crate::allocator::release_thread_cache_and_purge`]), instead of after the allocator's
/// purge delay: a process that opens another engine next (the peer benchmark, a tool) would
/// otherwise hold the first one's block cache while the second fills its memstores.
pub(crate) struct PurgeOnDrop;

impl Drop for PurgeOnDrop {
    fn drop(&mut self) {
        crate::allocator::release_thread_cache_and_purge();
    }
}

impl Inner {
    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        self.poison.check()
    }

    /// Checks the engine is open and unpoisoned, and returns a guard for the operation that
    /// follows on this thread: if the operation panics, the guard's `Drop` poisons the engine
    /// (a panic may leave a structure behind a lock half-updated; the rule is in `lock.rs`).
    pub(crate) fn enter(&self) -> Result<Operation<'_>> {
        self.check_open()?;
        Ok(Operation(self, crate::poison::running(&self.poison)))
    }

    /// Runs the test hook, if any, at `point` (`hook.rs`).
    pub(crate) fn hook(&self, point: crate::hook::HookPoint) {
        if let Some(h) = &self.opts.hook {
            h.call(point);
        }
    }

    /// Records a failure of shared durable state (the WAL, the manifest, an fsync) that leaves
    /// in-memory and on-disk state possibly out of step; every later call fails with
    /// [`Error::Poisoned`]. A failure on one region's files marks that region instead
    /// (`region_failure.rs`).
    pub(crate) fn poison(&self, why: &str) {
        self.poison.set(why);
    }

    /// The file system every file operation goes through (`EngineOptions::fs`).
    pub(crate) fn fs(&self) -> &dyn crate::fs::FileSystem {
        &*self.opts.fs
    }

    /// Syncs directory `dir`; a failure is [`Error::SyncFailed`] (which poisons the engine
    /// where it is routed through `job_failed` or `persist_job`).
    pub(crate) fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.fs().sync_dir(dir).synced(dir)
    }

    pub(crate) fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    pub(crate) fn region_dir(&self, region_id: u64) -> PathBuf {
        self.data_dir().join(region_id.to_string())
    }

    pub(crate) fn file_path(&self, region_id: u64, number: u64) -> PathBuf {
        self.region_dir(region_id).join(format!("{number:016}.blk"))
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.opts.clock.now_ms()
    }

    /// The smallest read point any open scanner or new reader may use, for a flush or a
    /// compaction that drops what no read at or above it can see: from now on no scan opens
    /// below it ([`Inner::register_read_point`]).
    pub(crate) fn smallest_read_point(&self) -> u64 {
        let mut g = lock::lock(&self.scanner_read_points);
        let rp = self.mvcc.read_point();
        let smallest = g.open.keys().next().map_or(rp, |&s| s.min(rp));
        g.pruned = g.pruned.max(smallest);
        smallest
    }

    /// Registers an opening scan's read point and returns it: the current one, or `wanted`
    /// (a read point an earlier scanner answered, HBase's `Scan.mvccReadPoint`) when no flush or
    /// compaction has since dropped what a read there sees, else the lowest one still whole (a
    /// consistent snapshot as close to `wanted` as the files allow); never above the current
    /// one. Checked and registered under one lock with [`Inner::smallest_read_point`], so no
    /// flush or compaction starting meanwhile drops what the scan needs.
    pub(crate) fn register_read_point(&self, wanted: Option<u64>) -> u64 {
        let mut g = lock::lock(&self.scanner_read_points);
        let current = self.mvcc.read_point();
        let rp = wanted.map_or(current, |w| w.max(g.pruned).min(current));
        *g.open.entry(rp).or_default() += 1;
        rp
    }

    pub(crate) fn release_read_point(&self, rp: u64) {
        let mut g = lock::lock(&self.scanner_read_points);
        if let Some(c) = g.open.get_mut(&rp) {
            *c -= 1;
            if *c == 0 {
                g.open.remove(&rp);
            }
        }
    }

    /// Subtracts flushed or discarded memstore bytes from the global count.
    pub(crate) fn release_memstore(&self, bytes: usize) {
        let _ = self
            .global_memstore
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                Some(v.saturating_sub(bytes))
            });
    }

    pub(crate) fn request(&self, f: impl FnOnce(&mut WorkQueue)) {
        let mut g = lock::lock(&self.work);
        f(&mut g);
        self.work_ready.notify_all();
    }

    /// Asks for a flush of region `id`, waking the workers only when it was not asked for
    /// already: every write to a region past its flush size asks until the flush snapshots the
    /// memstore, and a wake-up each (a `futex` call) was the most frequent lock call of
    /// loads at 16 threads.
    pub(crate) fn request_flush(&self, id: u64) {
        let mut g = lock::lock(&self.work);
        if g.flush.insert(id) {
            self.work_ready.notify_all();
        }
    }
}

/// The read points of open scanners, and how far flushes and compactions have pruned.
#[derive(Debug)]
pub(crate) struct ReadPoints {
    /// Read point → scanners open at it.
    open: BTreeMap<u64, usize>,
    /// The largest smallest-read-point a flush or compaction has used: a read below it may
    /// miss a version dropped as overwritten by a write it does not see.
    pruned: u64,
}

impl ReadPoints {
    /// No scanners open; files pruned at read points up to `pruned`.
    pub(crate) fn new(pruned: u64) -> ReadPoints {
        ReadPoints {
            open: BTreeMap::new(),
            pruned,
        }
    }
}

/// An operation in progress on a caller's thread ([`Inner::enter`]): poisons the engine if the
/// operation panics, and marks the thread as running the engine meanwhile (a lock found
/// poisoned on it poisons the engine at once, `lock.rs`).
pub(crate) struct Operation<'a>(&'a Inner, crate::poison::Running<'a>);

impl Drop for Operation<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0
                .poison
                .set("an operation panicked on a caller's thread (see its panic message)");
        }
    }
}

/// An open database directory. Cheap to clone; thread-safe. Dropping the last handle closes
/// the engine (flushing nothing: the WAL holds what the memstores hold).
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
    workers: Arc<Workers>,
}

struct Workers {
    inner: Arc<Inner>,
    handles: Mutex<Vec<JoinHandle<()>>>,
}

impl Drop for Workers {
    fn drop(&mut self) {
        shutdown(&self.inner, &self.handles);
    }
}

fn shutdown(inner: &Arc<Inner>, handles: &Mutex<Vec<JoinHandle<()>>>) {
    inner.request(|w| w.stop = true);
    let hs: Vec<_> = lock::lock(handles).drain(..).collect();
    for h in hs {
        let name = h.thread().name().unwrap_or("worker").to_string();
        // Workers catch their own panics (`background.rs`); one that escaped still poisons.
        if let Err(payload) = h.join() {
            inner.poison(&format!(
                "background {name} panicked: {}",
                crate::poison::panic_message(&*payload)
            ));
        }
    }
    if !inner.closed.swap(true, Ordering::AcqRel) {
        // Buffered (ASYNC_WAL) records are written now; a failure is not lost silently: the
        // WAL poisons the engine and says so, and the records are replayed from what reached
        // the segment at the next open.
        if let Err(e) = inner.wal.flush_buffer() {
            eprintln!("ferrobase: writing buffered WAL records at close failed: {e}");
        }
        inner.wal.close();
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("dir", &self.inner.dir)
            .finish()
    }
}

impl Engine {
    /// Opens (creating if needed) the database in `dir`, replaying the WAL and flushing what
    /// it replayed. When that flush or the manifest write meets a full disk (`ENOSPC`,
    /// `EDQUOT`), or free space is below `EngineOptions::min_free_space`, the engine still
    /// opens, degraded ([`Engine::health`]): reads are served, writes fail with the retryable
    /// [`Error::WritesSuspended`] until the background retry succeeds, and the replayed WAL
    /// segments are kept until then. A failed open leaves no new WAL segment behind.
    pub fn open(dir: impl AsRef<Path>, opts: EngineOptions) -> Result<Engine> {
        let inner = Arc::new(recovery::open(dir.as_ref(), opts)?);
        let handles = background::start(&inner);
        let engine = Engine {
            workers: Arc::new(Workers {
                inner: inner.clone(),
                handles: Mutex::new(handles),
            }),
            inner,
        };
        Ok(engine)
    }

    /// Stops the background workers and writes any buffered WAL records. Later calls on any
    /// handle fail with [`Error::Closed`].
    pub fn close(&self) {
        shutdown(&self.inner, &self.workers.handles);
    }

    /// Why the engine is poisoned, once it is: the first failure of shared durable state (a
    /// WAL write or sync, a manifest write, an fsync) or the first panic of a background worker
    /// or an operation. Every call then fails with [`Error::Poisoned`] carrying this reason;
    /// reopening the directory recovers.
    pub fn poisoned(&self) -> Option<String> {
        self.inner.poison.reason().map(str::to_string)
    }

    /// The engine's state: healthy, degraded (writes suspended by a transient disk error or
    /// low free space, retried in the background; reads go on) or poisoned (every call fails
    /// until a restart). Cheap; thread-safe.
    pub fn health(&self) -> Health {
        if let Some(reason) = self.poisoned() {
            return Health::Poisoned { reason };
        }
        self.inner.gate.health().unwrap_or(Health::Healthy)
    }

    /// `table`'s key-range heat map: reads and writes per key range and time bucket
    /// ([`crate::heat_map`]); `None` before any operation on it.
    pub fn heat_map(&self, table: &str) -> Option<crate::heat_map::HeatMapSnapshot> {
        let name = crate::schema::TableName::parse(table).ok()?;
        self.inner.heat.snapshot(&name)
    }

    /// The region start keys of `table` (empty when it is unknown), for the heat map's ranges.
    pub(crate) fn region_starts(&self, table: &crate::schema::TableName) -> Vec<bytes::Bytes> {
        self.inner
            .table_entry(table)
            .map(|e| {
                e.regions
                    .iter()
                    .map(|r| bytes::Bytes::copy_from_slice(&r.start))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The engine's counters.
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    /// Rows read and written over the heat map's window (every table's), and their rate now.
    pub fn request_counts(&self) -> crate::heat_map::RequestCounts {
        self.inner.heat.request_counts()
    }

    /// The flushes and compactions running now and the last
    /// [`crate::job_log::RECENT_JOBS`] that ended (newest first).
    pub fn background_jobs(&self) -> crate::job_log::BackgroundJobs {
        self.inner.job_log.snapshot()
    }

    /// The handle cache of open block files: how many are open, its capacity, and how many
    /// opens and closes it made.
    pub fn file_handles(&self) -> &crate::file_handles::FileHandles {
        &self.inner.handles
    }

    /// The manifest's snapshot and edit log as written: generation, records and bytes of
    /// the log in force, snapshots and records written by this process.
    #[doc(hidden)]
    pub fn manifest_stats(&self) -> ManifestStats {
        self.inner.manifest_stats()
    }

    /// The shared block cache.
    pub fn block_cache(&self) -> &BlockCache {
        &self.inner.cache
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Administrative operations.
    pub fn admin(&self) -> crate::api::Admin {
        crate::api::Admin::new(self.clone())
    }

    /// A handle on table `name` (checked when used).
    pub fn table(&self, name: &str) -> Result<crate::api::Table> {
        crate::api::Table::new(self.clone(), name)
    }

    /// The memstore limits and block cache size this engine runs with
    /// ([`EngineOptions::memory_limits`] of the options it was opened with).
    pub fn memory_limits(&self) -> crate::MemoryLimits {
        self.inner.opts.memory_limits()
    }

    /// Bytes held in all memstores.
    pub fn memstore_bytes(&self) -> usize {
        self.inner.global_memstore.load(Ordering::Acquire)
    }

    /// Bytes of memstore chunks allocated: the memstores' (active ones, those being flushed,
    /// flushed ones a read still holds) and the pool's (not in [`Engine::memstore_bytes`]).
    /// Cells too large for a chunk have
    /// buffers of their own, not counted here.
    pub fn memstore_chunk_bytes(&self) -> usize {
        self.inner.memstore_chunks.live_bytes()
    }

    /// Total bytes of live block files and WAL segments on disk.
    pub fn disk_bytes(&self) -> u64 {
        fn walk(fs: &dyn crate::fs::FileSystem, p: &Path) -> u64 {
            fs.list_dir(p)
                .map(|entries| {
                    entries
                        .iter()
                        .map(|e| {
                            if e.is_dir {
                                walk(fs, &p.join(&e.name))
                            } else {
                                e.len
                            }
                        })
                        .sum()
                })
                .unwrap_or(0)
        }
        walk(self.inner.fs(), &self.inner.dir)
    }
}

impl Inner {
    /// Reads one row of `table` through the read path's door (`read/table_read.rs`).
    pub(crate) fn get(
        &self,
        table: &crate::schema::TableName,
        get: &crate::api::Get,
    ) -> Result<crate::api::RowResult> {
        let _op = self.enter()?;
        crate::read::get(self, table, get)
    }
}

/// The engine as the read path sees it.
impl crate::read::ReadContext for Inner {
    fn check_open(&self) -> Result<()> {
        Inner::check_open(self)
    }

    fn enabled_table(
        &self,
        table: &crate::schema::TableName,
    ) -> Result<Arc<crate::region::TableEntry>> {
        Inner::enabled_table(self, table)
    }

    fn now_ms(&self) -> i64 {
        Inner::now_ms(self)
    }

    fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    fn max_row_size(&self) -> usize {
        self.opts.max_row_size
    }

    fn read_point(&self) -> u64 {
        self.mvcc.read_point()
    }

    fn register_read_point(&self, wanted: Option<u64>) -> u64 {
        Inner::register_read_point(self, wanted)
    }

    fn release_read_point(&self, read_point: u64) {
        Inner::release_read_point(self, read_point);
    }
}

/// A table scan bound to an engine; the client's `ResultScanner` wraps it.
pub(crate) struct TableScanHandle(crate::read::TableScan);

impl TableScanHandle {
    /// Opens a scan of `table` through the read path's door (`read/table_read.rs`).
    pub(crate) fn new(
        engine: &Engine,
        table: crate::schema::TableName,
        scan: &crate::api::Scan,
    ) -> Result<Self> {
        Ok(TableScanHandle(crate::read::scan(
            engine.inner.clone(),
            table,
            scan,
        )?))
    }

    pub(crate) fn next(&mut self) -> Result<Option<crate::api::RowResult>> {
        self.0.next()
    }

    pub(crate) fn read_point(&self) -> u64 {
        self.0.read_point()
    }

    /// What the scan has cost so far, when it was asked to record it.
    pub(crate) fn cost(&self) -> Option<crate::read::ReadCost> {
        self.0.cost()
    }
}
