//! ferrobase's engine under the benchmark interface.

use crate::store::{CellIn, Settings, Store};
use anyhow::Result;
use ferrobase_engine::filter::ColumnCountGetFilter;
use ferrobase_engine::{
    BloomType, ColumnFamilyDescriptor, Compression, Durability, Engine, EngineOptions, Get, Put,
    Scan, Table, TableDescriptor, TableName,
};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The engine's memory budget (`--ferrobase-memory-budget`); not set: the engine's default. The
/// block cache is the run's (the same as the peers'); the memstores get their share of the budget.
pub static MEMORY_BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The memstores' chunk size (`--ferrobase-memstore-chunk-bytes`; 0: no chunks); not set: the
/// engine's default.
pub static MEMSTORE_CHUNK_BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// `--ferrobase-hbase-selection`: minor compactions as HBase's exploring policy chooses, not by
/// size tiers.
pub static HBASE_SELECTION: AtomicBool = AtomicBool::new(false);

/// `--ferrobase-tier-min-files`: the size tiers' fewest files a merge; not set: the engine's.
pub static TIER_MIN_FILES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// `--ferrobase-jobs`: list the flushes and compactions on stderr when a data set is done.
pub static LIST_JOBS: AtomicBool = AtomicBool::new(false);

pub struct Ferro {
    engine: Engine,
    table: Table,
}

impl Ferro {
    pub fn open(dir: &Path, s: Settings) -> Result<Ferro> {
        let mut opts = EngineOptions {
            block_cache_bytes: Some(s.block_cache),
            memstore_flush_size: 64 << 20,
            ..EngineOptions::default()
        };
        // Files that share no row are left as they are, as RocksDB moves them down without a
        // rewrite (`CompactionOptions::sorted_runs`, off by default as in HBase).
        opts.compaction.sorted_runs = true;
        // Minor compactions merge files of about one size (as Cassandra's size-tiered and
        // RocksDB's universal compactions; `CompactionOptions::tiers`, off by default as in
        // HBase) unless `--ferrobase-hbase-selection`.
        opts.compaction.tiers = (!HBASE_SELECTION.load(Ordering::Relaxed)).then(|| {
            let mut tiers = ferrobase_engine::SizeTiers::default();
            if let Some(&n) = TIER_MIN_FILES.get() {
                tiers.min_files = n;
            }
            tiers
        });
        // As `ferrobase serve` runs it: indexes and blooms read after the open, as RocksDB reads
        // them when it opens a table file.
        opts.warm_file_sections = true;
        if let Some(budget) = MEMORY_BUDGET.get() {
            opts.memory_budget = *budget;
        }
        if let Some(chunk) = MEMSTORE_CHUNK_BYTES.get() {
            opts.memstore_chunk_bytes = *chunk;
        }
        let engine = Engine::open(dir, opts)?;
        if !engine.admin().table_exists("t")? {
            let mut cf = ColumnFamilyDescriptor::new("cf");
            cf.compression = Compression::Lz4;
            cf.max_versions = 1;
            cf.block_size = 64 << 10;
            cf.bloom_filter = if s.bloom {
                BloomType::Row
            } else {
                BloomType::None
            };
            engine
                .admin()
                .create_table(TableDescriptor::new(TableName::parse("t")?).with_family(cf))?;
        }
        let table = engine.table("t")?;
        Ok(Ferro { engine, table })
    }
}

/// Prints what the engine's flushes did to stderr when the data set is done: how many, their
/// average size in and out, and the time writers waited at the global memstore limit (a lower
/// limit must not turn into many small files or long waits).
impl Drop for Ferro {
    fn drop(&mut self) {
        use ferrobase_engine::Metrics;
        if LIST_JOBS.load(Ordering::Relaxed) {
            let jobs = self.engine.background_jobs();
            let t0 = jobs.recent.iter().map(|j| j.started_ms).min().unwrap_or(0);
            for j in jobs.recent.iter().rev() {
                eprintln!(
                    "  ferrobase job at +{:.2} s: {}",
                    (j.started_ms - t0) as f64 / 1e3,
                    j.summary_line()
                );
            }
        }
        let m = self.engine.metrics();
        let flushes = Metrics::get(&m.flushes).max(1) as f64;
        eprintln!(
            "  ferrobase: {} flushes of {:.1} MiB in, {:.1} MiB out on average; writers waited \
             {} times, {:.2} s in all",
            Metrics::get(&m.flushes),
            Metrics::get(&m.flush_bytes_in) as f64 / flushes / 1048576.0,
            Metrics::get(&m.flush_bytes_out) as f64 / flushes / 1048576.0,
            Metrics::get(&m.write_stalls),
            Metrics::get(&m.write_stall_micros) as f64 / 1e6
        );
        let mib = |c: &std::sync::atomic::AtomicU64| Metrics::get(c) as f64 / 1048576.0;
        let groups = m
            .wal_group_sizes
            .iter()
            .map(Metrics::get)
            .sum::<u64>()
            .max(1) as f64;
        eprintln!(
            "  ferrobase: WAL {:.1} MiB, block files {:.1} MiB (flushes {:.1}, compactions {:.1} \
             MiB out of {:.1} MiB in, {} compactions, {} cancelled); {} WAL fsyncs, {:.2} writes a WAL group",
            mib(&m.bytes_written_wal),
            mib(&m.bytes_written_files),
            Metrics::get(&m.flush_bytes_out) as f64 / 1048576.0,
            mib(&m.compaction_bytes_out),
            mib(&m.compaction_bytes_in),
            Metrics::get(&m.compactions),
            Metrics::get(&m.compactions_cancelled),
            Metrics::get(&m.wal_syncs),
            Metrics::get(&m.wal_group_writes) as f64 / groups
        );
    }
}

impl Store for Ferro {
    fn write(&self, cells: Vec<CellIn>, fsync: bool) -> Result<()> {
        let d = if fsync {
            Durability::FsyncWal
        } else {
            Durability::SyncWal
        };
        let puts = cells
            .into_iter()
            .map(|c| {
                Put::new(c.row)
                    .add_column_ts("cf", c.qualifier, c.ts, c.value)
                    .durability(d)
            })
            .collect();
        Ok(self.table.put_all(puts)?)
    }
    fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
        Ok(!self
            .table
            .get(&Get::new(row).add_column("cf", qualifier))?
            .is_empty())
    }
    fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
        Ok(self
            .table
            .scanner(&Scan::new().with_row_prefix(prefix).limit(n))?
            .count())
    }
    fn scan_from(&self, start: &[u8], n: usize) -> Result<usize> {
        Ok(self
            .table
            .scanner(&Scan::new().with_start_row(start).limit(n))?
            .count())
    }
    fn wide(&self, row: &[u8], n: usize) -> Result<usize> {
        let g = Get::new(row).filter(Box::new(ColumnCountGetFilter::new(n as u64)));
        Ok(self.table.get(&g)?.cells.len())
    }
    fn settle(&self) -> Result<()> {
        // As the peers' settle: the memstores flushed first (RocksDB's `flush` before
        // `compact_range`, fjall's `rotate_memtable_and_wait`), so every engine reads from files
        // and counts every byte written.
        let admin = self.engine.admin();
        admin.flush("t")?;
        Ok(admin.major_compact("t")?)
    }
}
