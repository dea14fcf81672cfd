//! Decides which cells a compaction keeps (HBase's compaction `ScanQueryMatcher`s).
//!
//! Per column, newest first, after delete markers:
//! - cells newer than the smallest read point of any open reader are kept untouched;
//! - puts masked by a delete marker are dropped, unless KEEP_DELETED_CELLS keeps them;
//! - a repeated timestamp (an overwritten value) is dropped;
//! - puts beyond VERSIONS are dropped, and past MIN_VERSIONS expired ones too;
//! - delete markers are kept by minor compactions; a major compaction (all files) drops them,
//!   unless KEEP_DELETED_CELLS keeps them (TTL: until they expire);
//! - expired markers are dropped when MIN_VERSIONS is 0;
//! - a put past its own TTL (`Put::ttl`) is dropped by flushes and every compaction, minor ones
//!   too, without counting as a version (HBase's `ScanQueryMatcher.preCheck` in its compaction
//!   matchers).
//!
//! With NEW_VERSION_BEHAVIOR, flushes and minor compactions keep every cell (HBase's
//! `IncludeAllCompactionQueryMatcher`), and a major compaction asks the
//! [`NewVersionTracker`] (HBase's `MajorCompactionScanQueryMatcher` with it): puts it finds
//! deleted or masked go, then versions are counted to VERSIONS (retained delete markers
//! count too, as in HBase), and a column's version limit drops its older cells unread.

use super::delete_tracker::DeleteTracker;
use super::new_version_tracker::{NewVersionTracker, NvbDeleted, NvbVersions};
use crate::cell::{cell_ttl_expired, KeyValue, KeyValueRef};
use crate::schema::{ColumnFamilyDescriptor, KeepDeletedCells};

/// Compaction matcher state for one store.
#[derive(Debug)]
pub struct CompactionMatcher {
    max_versions: u32,
    min_versions: u32,
    oldest_unexpired_ts: i64,
    now_ms: i64,
    keep_deleted: KeepDeletedCells,
    major: bool,
    smallest_read_point: u64,
    /// The current row and column, copied into buffers reused from cell to cell (a flush
    /// reads its cells in place); `in_row` and `in_column` are false before the first cell,
    /// and `in_column` at each new row.
    row: Vec<u8>,
    column: Vec<u8>,
    in_row: bool,
    in_column: bool,
    deletes: DeleteTracker,
    versions: u32,
    last_ts: Option<i64>,
    /// NEW_VERSION_BEHAVIOR's tracker (major compactions of such a family).
    nvb: Option<NewVersionTracker>,
    /// NEW_VERSION_BEHAVIOR: the rest of the current column is dropped unread (HBase seeks
    /// past it; from the empty qualifier a seek is a step to the next cell, so never there).
    skip_column: bool,
    /// NEW_VERSION_BEHAVIOR and not major: every cell is kept.
    keep_all: bool,
}

impl CompactionMatcher {
    /// A matcher for `family` at `now_ms`. `major` means every file of the store is merged.
    pub fn new(
        family: &ColumnFamilyDescriptor,
        now_ms: i64,
        major: bool,
        smallest_read_point: u64,
    ) -> Self {
        let oldest_unexpired_ts = family
            .ttl_ms()
            .map_or(i64::MIN, |t| now_ms.saturating_sub(t));
        let nvb = (family.new_version_behavior && major).then(|| {
            NewVersionTracker::new(
                family.max_versions,
                family.max_versions,
                family.min_versions,
                oldest_unexpired_ts,
                None,
            )
        });
        CompactionMatcher {
            nvb,
            skip_column: false,
            keep_all: family.new_version_behavior && !major,
            max_versions: family.max_versions,
            min_versions: family.min_versions,
            oldest_unexpired_ts,
            now_ms,
            keep_deleted: family.keep_deleted_cells,
            major,
            smallest_read_point,
            row: Vec::new(),
            column: Vec::new(),
            in_row: false,
            in_column: false,
            deletes: DeleteTracker::default(),
            versions: 0,
            last_ts: None,
        }
    }

    /// True when the compaction output keeps `kv`. Cells must come in key order.
    pub fn keep(&mut self, kv: &KeyValue) -> bool {
        self.keep_view(kv.as_view())
    }

    /// [`CompactionMatcher::keep`] of a cell seen in place.
    pub fn keep_view(&mut self, kv: KeyValueRef<'_>) -> bool {
        let k = &kv;
        if !self.in_row || self.row[..] != *k.row {
            self.row.clear();
            self.row.extend_from_slice(k.row);
            self.in_row = true;
            self.deletes.reset_row();
            self.in_column = false;
            if let Some(t) = &mut self.nvb {
                t.reset();
            }
        }
        if !self.in_column || self.column[..] != *k.qualifier {
            self.column.clear();
            self.column.extend_from_slice(k.qualifier);
            self.in_column = true;
            self.deletes.reset_column();
            self.versions = 0;
            self.last_ts = None;
            self.skip_column = false;
        }
        if self.keep_all {
            return true;
        }
        let ts = k.timestamp;
        // HBase's `preCheck` comes first in its compaction matchers: an expired cell goes even
        // when a scanner's read point is older than it (no reader can see it either).
        if cell_ttl_expired(ts, kv.ttl_ms, self.now_ms) {
            return false;
        }
        if self.nvb.is_some() {
            return self.keep_new_version_behavior(kv);
        }
        if k.seq > self.smallest_read_point {
            return true;
        }
        let expired = ts < self.oldest_unexpired_ts;
        let retain_deleted = match self.keep_deleted {
            KeepDeletedCells::False => false,
            KeepDeletedCells::True => true,
            KeepDeletedCells::Ttl => !expired,
        };
        if k.cell_type.is_delete() {
            if expired && self.min_versions == 0 {
                return false;
            }
            if !retain_deleted {
                self.deletes.add(k.cell_type, ts);
            }
            return retain_deleted || !self.major;
        }
        if !retain_deleted && self.deletes.masked(ts).is_some() {
            return false;
        }
        if self.last_ts == Some(ts) {
            return false;
        }
        self.last_ts = Some(ts);
        self.versions += 1;
        if self.versions > self.max_versions {
            return false;
        }
        !(self.versions > self.min_versions && expired)
    }

    /// A major compaction's verdict on `kv` in a NEW_VERSION_BEHAVIOR family.
    fn keep_new_version_behavior(&mut self, kv: KeyValueRef<'_>) -> bool {
        let k = &kv;
        if self.skip_column {
            return false;
        }
        let Some(tracker) = self.nvb.as_mut() else {
            return true;
        };
        let ts = k.timestamp;
        let expired = ts < self.oldest_unexpired_ts;
        let newer_than_readers = k.seq > self.smallest_read_point;
        let code = if k.cell_type.is_delete() {
            if newer_than_readers {
                return true;
            }
            let retain = match self.keep_deleted {
                KeepDeletedCells::False => false,
                KeepDeletedCells::True => true,
                KeepDeletedCells::Ttl => !expired,
            };
            if !retain {
                tracker.add(k.qualifier, ts, k.cell_type, k.seq);
                return false;
            }
            tracker.check_versions(ts, false)
        } else {
            if tracker.is_deleted(k.qualifier, ts, k.cell_type, k.seq) != NvbDeleted::No {
                return false;
            }
            tracker.check_versions(ts, newer_than_readers)
        };
        let seek = !k.qualifier.is_empty();
        match code {
            NvbVersions::Include => true,
            NvbVersions::IncludeAndSeekNextCol => {
                self.skip_column = seek;
                true
            }
            NvbVersions::SeekNextCol => {
                self.skip_column = seek;
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::{CellKey, CellType};
    use crate::memstore::{ChunkPool, Memstore};
    use bytes::Bytes;

    fn cell(row: &str, q: &str, ts: i64, t: CellType, seq: u64) -> KeyValue {
        KeyValue {
            key: CellKey {
                row: Bytes::copy_from_slice(row.as_bytes()),
                qualifier: Bytes::copy_from_slice(q.as_bytes()),
                timestamp: ts,
                cell_type: t,
                seq,
            },
            value: Bytes::from(format!("{row}/{q}/{ts}")),
            ttl_ms: (q == "ttl").then_some(1),
        }
    }

    /// The kept keys of a memstore's cells, matched through `keep` (cells copied out) or
    /// `keep_view` (cells seen in place).
    fn kept(m: &Memstore, family: &ColumnFamilyDescriptor, views: bool) -> Vec<CellKey> {
        let mut matcher = CompactionMatcher::new(family, 1_000, false, u64::MAX);
        if views {
            m.views()
                .filter(|kv| matcher.keep_view(*kv))
                .map(|kv| kv.to_key())
                .collect()
        } else {
            m.iter()
                .filter(|kv| matcher.keep(kv))
                .map(|kv| kv.key)
                .collect()
        }
    }

    #[test]
    fn a_flush_keeps_the_same_cells_seen_in_place_as_copied_out() {
        let m = Memstore::new(ChunkPool::new(4096, 1 << 20));
        // Rows sharing qualifiers (a column's versions count anew in each row), versions past
        // VERSIONS, a column delete masking older puts, a family delete, a repeated timestamp
        // and cells past their own TTL.
        for row in ["a", "b", "c"] {
            for q in ["", "q", "r", "ttl"] {
                for ts in 1..=4 {
                    m.insert(cell(row, q, ts, CellType::Put, ts as u64));
                }
            }
        }
        // Rows of one column: the next row's column has the same qualifier as the last one's.
        for row in ["d", "e"] {
            for ts in 1..=3 {
                m.insert(cell(row, "q", ts, CellType::Put, ts as u64));
            }
        }
        m.insert(cell("a", "q", 3, CellType::DeleteColumn, 9));
        m.insert(cell("b", "", 5, CellType::DeleteFamily, 9));
        m.insert(cell("c", "r", 4, CellType::Put, 10));
        let mut family = ColumnFamilyDescriptor::new("cf");
        for versions in [1, 2, 5] {
            family.max_versions = versions;
            let copied = kept(&m, &family, false);
            assert_eq!(kept(&m, &family, true), copied, "VERSIONS {versions}");
            let rows_of = |r: &str| copied.iter().filter(|k| &k.row[..] == r.as_bytes()).count();
            // Row c: 3 columns (the TTL column expired) of min(VERSIONS, 4) each.
            assert_eq!(
                rows_of("c"),
                3 * versions.min(4) as usize,
                "VERSIONS {versions}"
            );
            assert_eq!(
                rows_of("e"),
                versions.min(3) as usize,
                "VERSIONS {versions}"
            );
        }
    }
}
