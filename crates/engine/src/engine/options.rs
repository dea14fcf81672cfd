//! Engine settings, with defaults close to HBase's.

use crate::clock::{Clock, SystemClock};
use crate::fs::FileSystem;
use crate::hook::Hook;
use crate::schema::Durability;
use std::sync::Arc;
use std::time::Duration;

/// How compactions are chosen (HBase's exploring compaction policy settings).
#[derive(Debug, Clone)]
pub struct CompactionOptions {
    /// Run minor compactions in the background after flushes (default true).
    pub auto: bool,
    /// Fewest files a minor compaction merges (`hbase.hstore.compaction.min`, default 3).
    pub min_files: usize,
    /// Most files a minor compaction merges (`hbase.hstore.compaction.max`, default 10).
    pub max_files: usize,
    /// A file joins a selection only if it is at most this times the sum of the others
    /// (`hbase.hstore.compaction.ratio`, default 1.2).
    pub ratio: f64,
    /// A selection whose total size is below this many bytes skips the ratio test
    /// (`hbase.hstore.compaction.min.size`, default 128 MiB, the memstore flush size).
    pub min_size: u64,
    /// Period of automatic major compactions (`hbase.hregion.majorcompaction`, default 7
    /// days); `None` turns them off.
    pub major_interval: Option<Duration>,
    /// Treat files that share no row as one *sorted run* (default false: HBase's selection):
    /// minor compactions weigh a run as one file, so files flushed from data written in key
    /// order are not merged with each other, and a major compaction leaves a file it would
    /// copy unchanged where it is (`docs/design/compaction.md`). Fewer bytes written for time
    /// series; a store keeps several files after `major_compact` where HBase has one.
    pub sorted_runs: bool,
    /// Merge only files of about the same size (`None`, the default: HBase's ratio-based
    /// selection): a size-tiered choice that rewrites each byte about once per tier where
    /// HBase's ratio lets a large file join smaller ones again and again (1 M random-key cells:
    /// `docs/performance.md`). The selection is no longer HBase's (`docs/design/compaction.md`).
    pub tiers: Option<SizeTiers>,
}

/// The size-tiered selection of [`CompactionOptions::tiers`]: windows of `min_files` to
/// [`CompactionOptions::max_files`] adjacent files whose largest is at most `size_factor`
/// times the smallest, a file below [`CompactionOptions::min_size`] / `min_files` counting as
/// that size. A store of at least twice `max_files` files none of which qualify merges its
/// `min_files` adjacent files of the smallest total.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SizeTiers {
    /// Fewest files of one tier merged (default 5).
    pub min_files: usize,
    /// Largest over smallest file of a selection, at most (default 2.0).
    pub size_factor: f64,
}

impl Default for SizeTiers {
    fn default() -> Self {
        SizeTiers {
            min_files: 5,
            size_factor: 2.0,
        }
    }
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions {
            auto: true,
            min_files: 3,
            max_files: 10,
            ratio: 1.2,
            min_size: 128 << 20,
            major_interval: Some(Duration::from_secs(7 * 24 * 3600)),
            sorted_runs: false,
            tiers: None,
        }
    }
}

/// What opening an engine does with a damaged WAL record ("Recovery rules" in
/// `docs/format/wal.md`). An incomplete record at the end of the newest segment (a write a
/// crash cut, never acknowledged at `FSYNC_WAL`) is cut under either; a complete record whose
/// checksum fails is damage, which no crash produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WalRecovery {
    /// Refuse to open with [`crate::Error::Corruption`] naming the segment and the record's
    /// offset, changing nothing on disk (the default; RocksDB's `kTolerateCorruptedTailRecords`
    /// is the nearest of its modes, HBase fails the log split unless
    /// `hbase.hlog.split.skip.errors`).
    #[default]
    Strict,
    /// Replay up to the first damaged record and skip everything logged after it, as
    /// RocksDB's `kPointInTimeRecovery`: each skipped segment is first copied whole into
    /// `wal-quarantine/<unix-ms>/` beside a `REPORT.txt` of what was skipped (bytes, records
    /// recognised past the damage and their sequence ids), and the report is printed.
    PointInTime,
}

/// The default [`EngineOptions::memory_budget`]: 640 MiB, which gives memstores and block cache
/// 256 MiB each (the block cache's size before the budget; the memstores had 1 GiB, which a
/// load of 5 GB filled while flushes and compactions fell behind: `docs/performance.md`,
/// "Memory budget").
pub const DEFAULT_MEMORY_BUDGET: usize = 640 << 20;

/// The default [`EngineOptions::memstore_chunk_bytes`], 2 MiB: HBase's
/// `hbase.hregion.memstore.mslab.chunksize`.
pub const DEFAULT_MEMSTORE_CHUNK_BYTES: usize = 2 << 20;

/// HBase's `hbase.client.keyvalue.maxsize` default, 10 MiB: the engine's largest cell
/// ([`EngineOptions::max_cell_size`]) and the client's `BufferedMutator` limit.
pub const DEFAULT_MAX_CELL_SIZE: usize = 10 << 20;

/// The share of [`EngineOptions::memory_budget`] all memstores together may hold when
/// [`EngineOptions::global_memstore_limit`] is not set: HBase's
/// `hbase.regionserver.global.memstore.size` default, 0.4 of the heap.
pub const MEMSTORE_SHARE: f64 = 0.4;

/// The share of [`EngineOptions::memory_budget`] the block cache holds when
/// [`EngineOptions::block_cache_bytes`] is not set: HBase's `hfile.block.cache.size` default,
/// 0.4 of the heap.
pub const BLOCK_CACHE_SHARE: f64 = 0.4;

/// From this fraction of the global memstore limit on, each write asks for the largest
/// memstore to be flushed (HBase's `hbase.regionserver.global.memstore.size.lower.limit`,
/// 0.95): the flush starts before writers have to wait at the limit.
pub const MEMSTORE_LOWER_LIMIT: f64 = 0.95;

/// The sizes an engine derives from its [`EngineOptions`] memory settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimits {
    /// [`EngineOptions::memory_budget`], in bytes.
    pub budget: usize,
    /// Writers wait while all memstores together hold more than this many bytes.
    pub global_memstore_limit: usize,
    /// From this many bytes of memstores on, the largest is flushed ahead of its flush size
    /// ([`MEMSTORE_LOWER_LIMIT`] of the limit).
    pub global_memstore_lower_limit: usize,
    /// The block cache's capacity in bytes.
    pub block_cache: usize,
}

/// `share` of `bytes`, rounded down.
fn share_of(bytes: usize, share: f64) -> usize {
    (bytes as f64 * share) as usize
}

/// Settings of an engine. Construct with `EngineOptions::default()` and adjust fields.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// A region's memstores are flushed past this many bytes (default 128 MiB, as HBase's
    /// `hbase.hregion.memstore.flush.size`).
    pub memstore_flush_size: usize,
    /// The memory the engine plans for, in bytes, as HBase's region server plans by its Java
    /// heap (default [`DEFAULT_MEMORY_BUDGET`], 640 MiB): the global memstore limit and the
    /// block cache are each [`MEMSTORE_SHARE`] and [`BLOCK_CACHE_SHARE`] (0.4) of it unless set
    /// themselves, and the fifth left covers what neither counts: compactions (a block of each
    /// input file, the output's block, index and bloom filter being built), open files'
    /// indexes and bloom filters, scanners, and calls in flight. [`EngineOptions::memory_limits`]
    /// gives the sizes it derives.
    pub memory_budget: usize,
    /// A memstore keeps its cells, each in one skip-list node with its row, qualifier and value,
    /// in buffers of this many bytes filled in turn (default [`DEFAULT_MEMSTORE_CHUNK_BYTES`],
    /// 2 MiB: HBase's MSLAB, `hbase.hregion.memstore.mslab.chunksize`); a flushed memstore gives
    /// them to the engine's pool for the next memstores (HBase's chunk pool; it keeps at most
    /// one flush size of them, and none once no chunk was taken for a quarter of a second). Cells over
    /// 256 KiB get buffers of their own. `0` turns chunks off
    /// (`hbase.hregion.memstore.mslab.enabled=false`): each write's cells get one buffer of
    /// their own, freed with the memstore.
    pub memstore_chunk_bytes: usize,
    /// Writers wait while all memstores together hold more than this many bytes; from
    /// [`MEMSTORE_LOWER_LIMIT`] (0.95) of it on, the largest memstore is flushed ahead of its
    /// flush size, so writers rarely reach it. `None` (the default): [`MEMSTORE_SHARE`] of
    /// [`EngineOptions::memory_budget`] (256 MiB by default).
    pub global_memstore_limit: Option<usize>,
    /// Block cache capacity in bytes. `None` (the default): [`BLOCK_CACHE_SHARE`] of
    /// [`EngineOptions::memory_budget`] (256 MiB by default).
    pub block_cache_bytes: Option<usize>,
    /// A WAL segment is closed past this size (default 64 MiB).
    pub wal_segment_bytes: u64,
    /// Closed WAL segments kept, once their edits are flushed, for the log to write over
    /// instead of new files (default 0: every one is deleted, as HBase and RocksDB do by
    /// default). Writing over a file's cached pages costs less than filling new ones, but each
    /// kept segment is zeroed and synced first: one more WAL byte written per WAL byte, and the
    /// kept files on disk (`docs/format/wal.md`, "Recycled segments").
    pub wal_recycled_segments: usize,
    /// Past this many closed WAL segments the stores holding the oldest edits are flushed
    /// (default 32, as `hbase.regionserver.maxlogs`).
    pub max_wal_segments: usize,
    /// Compaction settings.
    pub compaction: CompactionOptions,
    /// Split a region automatically when its files exceed this many bytes (default 10 GiB,
    /// as `hbase.hregion.max.filesize`).
    pub region_split_size: u64,
    /// Whether regions split automatically (default true).
    pub auto_split: bool,
    /// Largest cell (key plus value) accepted, in bytes (default [`DEFAULT_MAX_CELL_SIZE`], as
    /// `hbase.client.keyvalue.maxsize`).
    pub max_cell_size: usize,
    /// Largest row a Get returns, in bytes of its cells' [`crate::Cell::heap_size`] (default
    /// 1 GiB, as HBase's `hbase.table.max.rowsize`): a Get of a larger row fails with
    /// [`crate::Error::RowTooBig`] instead of holding it. Scans are not limited, as in HBase,
    /// whose scans return rows in pieces its client stitches; a scan with `batch` or partial
    /// results holds one piece at a time.
    pub max_row_size: usize,
    /// Durability of mutations whose table and request say USE_DEFAULT (default SYNC_WAL).
    pub default_durability: Durability,
    /// Writes are refused with [`crate::Error::WritesSuspended`] while free space on the data
    /// directory's file system is below this many bytes, so flushes and compactions can still
    /// finish; they resume once space is back. `None` (the default): 1 GiB (the default
    /// global memstore limit, enough to flush every memstore) but at most 1% of the file
    /// system; `Some(0)` disables the guard.
    pub min_free_space: Option<u64>,
    /// The write path checks free space (one `statvfs`) at most this often (default 1 s).
    pub free_space_check_interval: Duration,
    /// Source of time for timestamps and TTL.
    pub clock: Arc<dyn Clock>,
    /// Every file and directory operation goes through this (default: the operating system's,
    /// [`crate::fs::OsFileSystem`]); tests put an in-memory, fault-injecting one here.
    pub fs: Arc<dyn FileSystem>,
    /// What opening does with a complete WAL record that is damaged (default
    /// [`WalRecovery::Strict`]: refuse to open, naming file and offset).
    pub wal_recovery: WalRecovery,
    /// Test code run at named points of background jobs (default `None`; see
    /// [`crate::hook`]): pause points, panicking jobs, kill points.
    pub hook: Option<Hook>,
    /// The most block files kept open at once (the handle cache, `file_handles.rs`): past it
    /// the least recently read are closed and reopened on their next read. `None` (the
    /// default): derived from the process's soft `RLIMIT_NOFILE` when the engine opens, half
    /// of it less 64 descriptors kept for the WAL, the manifest, files being written and
    /// sockets, at least 16 (256 gives 64, 1,024 gives 448). A server should raise its soft
    /// limit to the hard one before opening (`ferrobase serve` does).
    pub max_open_files: Option<usize>,
    /// Read every block file's index and bloom filter in the background after the open (up to
    /// an eighth of [`EngineOptions::memory_budget`]), so first reads after a restart do not
    /// wait for them (default false: each is read on its file's first use). `ferrobase serve`
    /// turns it on.
    pub warm_file_sections: bool,
    /// The key-range heat map's shape (default: 1-minute buckets for three hours, 32 ranges;
    /// [`crate::heat_map`]).
    pub heat_map: crate::heat_map::HeatMapOptions,
    /// A structural change (flush, compaction, split, DDL) appends a record to the
    /// manifest's edit log once the manifest's snapshot is at least this many bytes (default
    /// 64 KiB, about 600 regions); below it, it writes the whole manifest, which then costs
    /// no more than an append. `0`: always the log. `docs/format/manifest.md`.
    pub manifest_log_threshold: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            memstore_flush_size: 128 << 20,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            memstore_chunk_bytes: DEFAULT_MEMSTORE_CHUNK_BYTES,
            global_memstore_limit: None,
            block_cache_bytes: None,
            wal_segment_bytes: 64 << 20,
            wal_recycled_segments: 0,
            max_wal_segments: 32,
            compaction: CompactionOptions::default(),
            region_split_size: 10 << 30,
            auto_split: true,
            max_cell_size: DEFAULT_MAX_CELL_SIZE,
            max_row_size: 1 << 30,
            default_durability: Durability::SyncWal,
            min_free_space: None,
            free_space_check_interval: Duration::from_secs(1),
            clock: Arc::new(SystemClock),
            fs: crate::fs::os(),
            hook: None,
            max_open_files: None,
            warm_file_sections: false,
            heat_map: crate::heat_map::HeatMapOptions::default(),
            wal_recovery: WalRecovery::Strict,
            manifest_log_threshold: 64 << 10,
        }
    }
}

impl EngineOptions {
    /// The memstore limits and block cache size these options give: each explicit setting,
    /// else its share of [`EngineOptions::memory_budget`].
    pub fn memory_limits(&self) -> MemoryLimits {
        let global_memstore_limit = self
            .global_memstore_limit
            .unwrap_or_else(|| share_of(self.memory_budget, MEMSTORE_SHARE));
        MemoryLimits {
            budget: self.memory_budget,
            global_memstore_limit,
            global_memstore_lower_limit: share_of(global_memstore_limit, MEMSTORE_LOWER_LIMIT),
            block_cache: self
                .block_cache_bytes
                .unwrap_or_else(|| share_of(self.memory_budget, BLOCK_CACHE_SHARE)),
        }
    }
}
