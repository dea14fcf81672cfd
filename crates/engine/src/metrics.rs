//! Engine-wide counters. All are monotonically increasing and read with relaxed ordering.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters shared by every part of an engine. Thread-safe.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Data blocks found in the block cache.
    pub block_cache_hits: AtomicU64,
    /// Data blocks looked up in the block cache and not found.
    pub block_cache_misses: AtomicU64,
    /// Blocks evicted from the block cache.
    pub block_cache_evictions: AtomicU64,
    /// Data blocks read from files (cache misses plus reads that bypass the cache).
    pub data_blocks_read: AtomicU64,
    /// Bytes of the data blocks reads touched, from the cache or from files (decoded block
    /// sizes, as the block cache holds them): what a cold read would fetch, before compression.
    pub data_block_bytes_touched: AtomicU64,
    /// Rows a read looked at (before filters decided), in every region; a region scanner adds
    /// its count when it closes (at the end of its region, or when the scan is dropped).
    pub rows_examined: AtomicU64,
    /// Rows answered by gets and scans through [`crate::Table`] (not empty: a get of an absent
    /// row answers none). Beside `rows_examined`, what filters and column selection kept.
    pub rows_returned: AtomicU64,
    /// Cells in the rows answered by gets and scans through [`crate::Table`].
    pub cells_returned: AtomicU64,
    /// Gets or row lookups that skipped a file thanks to its bloom filter.
    pub bloom_negatives: AtomicU64,
    /// Files skipped because their time range cannot match a query.
    pub files_skipped_by_time_range: AtomicU64,
    /// Memstore flushes completed.
    pub flushes: AtomicU64,
    /// Compactions completed (minor and major).
    pub compactions: AtomicU64,
    /// Minor compactions stopped part way because a major compaction was requested.
    pub compactions_cancelled: AtomicU64,
    /// Region splits completed.
    pub splits: AtomicU64,
    /// Bytes written to block files by flushes and compactions.
    pub bytes_written_files: AtomicU64,
    /// Bytes written to the write-ahead log.
    pub bytes_written_wal: AtomicU64,
    /// `fdatasync`s of the WAL by writers (one per group commit that held a FSYNC_WAL write;
    /// segment closes not counted).
    pub wal_syncs: AtomicU64,
    /// Times the OS was asked to start writing WAL bytes to disk ahead of a sync (every
    /// `WRITEBACK_BYTES` (`wal/mod.rs`) written without one).
    pub wal_writebacks: AtomicU64,
    /// Times a writer waited because the global memstore limit was reached.
    pub write_stalls: AtomicU64,
    /// Times writes were suspended by a transient disk error or low free space
    /// (`health.rs`).
    pub write_suspensions: AtomicU64,
    /// Retries of a suspension (failed or successful) run by the background task.
    pub write_resume_retries: AtomicU64,
    /// Milliseconds writes spent suspended, added when they resume (the current suspension's
    /// time is in [`crate::Engine::health`]).
    pub write_suspended_ms: AtomicU64,
}

impl Metrics {
    pub(crate) fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Reads a counter.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}
