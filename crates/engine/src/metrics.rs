//! Engine-wide counters. All are monotonically increasing and read with relaxed ordering.

use crate::error::StallCause;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
    /// Microseconds writers spent waiting at the global memstore limit (each waiting writer's
    /// time, added when it goes on).
    pub write_stall_micros: AtomicU64,
    /// Times writes were suspended by a transient disk error or low free space
    /// (`health.rs`).
    pub write_suspensions: AtomicU64,
    /// Retries of a suspension (failed or successful) run by the background task.
    pub write_resume_retries: AtomicU64,
    /// Milliseconds writes spent suspended, added when they resume (the current suspension's
    /// time is in [`crate::Engine::health`]).
    pub write_suspended_ms: AtomicU64,
    /// Write suspensions by cause, indexed as [`StallCause::ALL`].
    pub write_suspensions_by_cause: [AtomicU64; 4],
    /// Memstore bytes flushes took in (the snapshots' sizes).
    pub flush_bytes_in: AtomicU64,
    /// Block-file bytes flushes wrote.
    pub flush_bytes_out: AtomicU64,
    /// Microseconds flushes ran (from taking the snapshots to installing the files).
    pub flush_micros: AtomicU64,
    /// Block-file bytes compactions read (their inputs' sizes).
    pub compaction_bytes_in: AtomicU64,
    /// Block-file bytes compactions wrote.
    pub compaction_bytes_out: AtomicU64,
    /// Microseconds completed compactions ran (selection to install).
    pub compaction_micros: AtomicU64,
    /// WAL group commits by how many writes each carried: the count of groups of at most
    /// [`WAL_GROUP_BOUNDS`]`[i]` writes (and more than the bound before), the last slot the
    /// groups above every bound.
    pub wal_group_sizes: [AtomicU64; WAL_GROUP_BOUNDS.len() + 1],
    /// Writes carried by every WAL group commit (the histogram's sum).
    pub wal_group_writes: AtomicU64,
    /// Data blocks read by each table's families, from the cache and from the files.
    pub family_reads: FamilyReadsRegistry,
}

/// The upper bounds (inclusive) of [`Metrics::wal_group_sizes`]' buckets, in writes.
pub const WAL_GROUP_BOUNDS: [u64; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// What the reads of one family of one table cost in blocks. Thread-safe, relaxed counters.
#[derive(Debug, Default)]
pub struct FamilyReads {
    /// Data blocks found in the block cache.
    pub blocks_from_cache: AtomicU64,
    /// Data blocks read from the family's files.
    pub blocks_from_disk: AtomicU64,
    /// Gets that left out one of the family's files thanks to its bloom filter.
    pub bloom_negatives: AtomicU64,
}

/// The [`FamilyReads`] of every (table, family) a read has touched, shared by the stores
/// (each holds its own handle; the registry is visited only when a store is opened and when
/// the counters are listed).
#[derive(Debug, Default)]
pub struct FamilyReadsRegistry {
    map: std::sync::Mutex<std::collections::BTreeMap<(String, String), Arc<FamilyReads>>>,
}

impl FamilyReadsRegistry {
    /// The counters of `family` of `table`, created at zero the first time.
    pub(crate) fn of(&self, table: &str, family: &str) -> Arc<FamilyReads> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.entry((table.to_string(), family.to_string()))
            .or_default()
            .clone()
    }

    /// Every (table, family) with its counters, in order, at most `max` of them.
    pub fn list(&self, max: usize) -> Vec<(String, String, Arc<FamilyReads>)> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.iter()
            .take(max)
            .map(|((t, f), r)| (t.clone(), f.clone(), r.clone()))
            .collect()
    }
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

    /// Counts a WAL group commit of `writes` writes.
    pub(crate) fn wal_group(&self, writes: u64) {
        let slot = WAL_GROUP_BOUNDS
            .iter()
            .position(|&b| writes <= b)
            .unwrap_or(WAL_GROUP_BOUNDS.len());
        Metrics::inc(&self.wal_group_sizes[slot]);
        Metrics::add(&self.wal_group_writes, writes);
    }

    /// Counts a write suspension for `cause`.
    pub(crate) fn suspended(&self, cause: StallCause) {
        Metrics::inc(&self.write_suspensions);
        let i = StallCause::ALL
            .iter()
            .position(|&c| c == cause)
            .unwrap_or(0);
        Metrics::inc(&self.write_suspensions_by_cause[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wal_groups_fall_in_their_buckets_and_suspensions_count_by_cause() {
        let m = Metrics::default();
        for n in [1, 2, 3, 128, 129, 1000] {
            m.wal_group(n);
        }
        let counts: Vec<u64> = m.wal_group_sizes.iter().map(Metrics::get).collect();
        assert_eq!(counts, [1, 1, 1, 0, 0, 0, 0, 1, 2]);
        assert_eq!(
            Metrics::get(&m.wal_group_writes),
            1 + 2 + 3 + 128 + 129 + 1000
        );
        m.suspended(StallCause::LowDiskSpace);
        m.suspended(StallCause::LowDiskSpace);
        m.suspended(StallCause::WalWrite);
        let by_cause: Vec<u64> = m
            .write_suspensions_by_cause
            .iter()
            .map(Metrics::get)
            .collect();
        assert_eq!(by_cause, [1, 0, 2, 0]);
        assert_eq!(Metrics::get(&m.write_suspensions), 3);
        let a = m.family_reads.of("t", "cf");
        Metrics::inc(&a.blocks_from_disk);
        assert_eq!(
            Metrics::get(&m.family_reads.of("t", "cf").blocks_from_disk),
            1
        );
        assert_eq!(m.family_reads.list(10).len(), 1);
    }
}
