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

use super::delete_tracker::DeleteTracker;
use crate::cell::{cell_ttl_expired, KeyValue};
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
    row: Option<bytes::Bytes>,
    deletes: DeleteTracker,
    column: Option<bytes::Bytes>,
    versions: u32,
    last_ts: Option<i64>,
}

impl CompactionMatcher {
    /// A matcher for `family` at `now_ms`. `major` means every file of the store is merged.
    pub fn new(
        family: &ColumnFamilyDescriptor,
        now_ms: i64,
        major: bool,
        smallest_read_point: u64,
    ) -> Self {
        CompactionMatcher {
            max_versions: family.max_versions,
            min_versions: family.min_versions,
            oldest_unexpired_ts: family
                .ttl_ms()
                .map_or(i64::MIN, |t| now_ms.saturating_sub(t)),
            now_ms,
            keep_deleted: family.keep_deleted_cells,
            major,
            smallest_read_point,
            row: None,
            deletes: DeleteTracker::default(),
            column: None,
            versions: 0,
            last_ts: None,
        }
    }

    /// True when the compaction output keeps `kv`. Cells must come in key order.
    pub fn keep(&mut self, kv: &KeyValue) -> bool {
        let k = &kv.key;
        if self.row.as_deref() != Some(&k.row[..]) {
            self.row = Some(k.row.clone());
            self.deletes.reset_row();
            self.column = None;
        }
        if self.column.as_deref() != Some(&k.qualifier[..]) {
            self.column = Some(k.qualifier.clone());
            self.deletes.reset_column();
            self.versions = 0;
            self.last_ts = None;
        }
        if k.seq > self.smallest_read_point {
            return true;
        }
        let ts = k.timestamp;
        if cell_ttl_expired(ts, kv.ttl_ms, self.now_ms) {
            return false;
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
}
