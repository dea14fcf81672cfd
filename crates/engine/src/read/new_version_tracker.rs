//! Delete and version tracking for families with NEW_VERSION_BEHAVIOR (HBASE-15968), as HBase's
//! `NewVersionBehaviorTracker`, which is both the `DeleteTracker` and the `ColumnTracker` of
//! such a family.
//!
//! A delete marker masks only the puts written before it (a lower sequence id), so a put
//! written after a delete at an older or equal timestamp is seen. Versions are counted per
//! delete: each delete marker of the column (and each family marker) remembers the puts that
//! were visible just before it, and a put is hidden once VERSIONS newer-written puts were
//! visible before some later delete ("version masked"), so deleting the newest version never
//! brings an older, already surplus version back; a masked put counts no further, so once the
//! versions that masked it are deleted, an older put written later may show. A put repeating the
//! previous put's timestamp is an overwritten value. A put past its own TTL never reaches the
//! tracker (the matchers skip it first, as HBase's `ScanQueryMatcher.preCheck`): it neither masks
//! nor counts.
//!
//! The rules are HBase's, quirks included: a row's first cells on the empty qualifier do not
//! start a column, so family markers do not reach them.

use crate::cell::CellType;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the tracker says of a put (HBase's `DeleteResult`, the kinds this tracker gives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvbDeleted {
    /// Visible.
    No,
    /// Hidden by the versions written after it (or an overwritten value).
    VersionMasked,
    /// Deleted by a version marker (Delete or DeleteFamilyVersion) written after it.
    VersionDeleted,
    /// Deleted by a column or family marker written after it.
    ColumnDeleted,
}

/// The version-counting answer (HBase's `checkVersions` match codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvbVersions {
    /// Include the cell.
    Include,
    /// Include it; the column needs nothing older.
    IncludeAndSeekNextCol,
    /// Drop it and the column's older cells.
    SeekNextCol,
}

/// The column check for requested columns (HBase's `checkColumn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NvbColumn {
    /// A requested column (or every column is).
    Include,
    /// Not requested: go on to this requested column.
    SeekTo(Vec<u8>),
    /// Past the last requested column.
    SeekNextRow,
}

/// One delete of many versions (a DeleteColumn or DeleteFamily marker), or the end node: what
/// happened after the previous such delete and before this one.
#[derive(Debug, Clone)]
struct DeleteNode {
    /// The marker's timestamp (`i64::MIN` for the end node).
    ts: i64,
    /// Version deletes written before this node: timestamp → their sequence ids.
    version_deletes: HashMap<i64, BTreeSet<u64>>,
    /// Sequence id of a version delete (or `u64::MAX`) → the sequence ids of the puts visible
    /// just before it.
    visible_before: BTreeMap<u64, BTreeSet<u64>>,
}

impl DeleteNode {
    fn new(ts: i64) -> Self {
        let mut visible_before = BTreeMap::new();
        visible_before.insert(u64::MAX, BTreeSet::new());
        DeleteNode {
            ts,
            version_deletes: HashMap::new(),
            visible_before,
        }
    }

    fn add_version_delete(&mut self, ts: i64, seq: u64) {
        self.version_deletes.entry(ts).or_default().insert(seq);
        // The puts counted against it are those visible before it: written earlier.
        let earlier: BTreeSet<u64> = self
            .visible_before
            .range(seq..)
            .next()
            .map(|(_, later)| later.range(..seq).copied().collect())
            .unwrap_or_default();
        self.visible_before.insert(seq, earlier);
    }
}

/// The tracker's state for one store and one row at a time.
#[derive(Debug)]
pub struct NewVersionTracker {
    /// The family's VERSIONS.
    max_versions: u32,
    /// Versions the read returns per column.
    result_max_versions: u32,
    min_versions: u32,
    oldest_unexpired_ts: i64,
    columns: Option<Vec<Vec<u8>>>,
    column_index: usize,
    versions_counted: u32,
    last_qualifier: Option<Vec<u8>>,
    last_ts: i64,
    last_seq: u64,
    last_type: Option<CellType>,
    /// The current column's nodes by the sequence id of their marker (`u64::MAX`: the end).
    column_nodes: BTreeMap<u64, DeleteNode>,
    /// The row's family-wide nodes, copied into `column_nodes` at each new column.
    family_nodes: BTreeMap<u64, DeleteNode>,
}

impl NewVersionTracker {
    /// A tracker counting `max_versions` (the family's VERSIONS) against deletes and returning
    /// `result_max_versions` per column; `columns` are the requested qualifiers, sorted.
    pub fn new(
        max_versions: u32,
        result_max_versions: u32,
        min_versions: u32,
        oldest_unexpired_ts: i64,
        columns: Option<Vec<Vec<u8>>>,
    ) -> Self {
        let mut t = NewVersionTracker {
            max_versions,
            result_max_versions,
            min_versions,
            oldest_unexpired_ts,
            columns: columns.filter(|c| !c.is_empty()),
            column_index: 0,
            versions_counted: 0,
            last_qualifier: None,
            last_ts: i64::MIN,
            last_seq: 0,
            last_type: None,
            column_nodes: BTreeMap::new(),
            family_nodes: BTreeMap::new(),
        };
        t.reset();
        t
    }

    /// Forgets the row.
    pub fn reset(&mut self) {
        self.column_nodes.clear();
        self.family_nodes.clear();
        self.family_nodes
            .insert(u64::MAX, DeleteNode::new(i64::MIN));
        self.last_qualifier = None;
        self.last_ts = i64::MIN;
        self.last_seq = 0;
        self.last_type = None;
        self.column_index = 0;
        self.versions_counted = 0;
    }

    fn column_changed(&self, qualifier: &[u8], t: CellType) -> bool {
        if self.column_nodes.is_empty()
            && self.last_qualifier.is_none()
            && qualifier.is_empty()
            && matches!(t, CellType::DeleteColumn | CellType::Delete)
        {
            return true;
        }
        match &self.last_qualifier {
            None => !qualifier.is_empty(),
            Some(last) => last.as_slice() != qualifier,
        }
    }

    /// Notes the cell; returns the sequence id of the previous put when this one repeats its
    /// timestamp (an overwritten value), else `u64::MAX`.
    fn prepare(&mut self, qualifier: &[u8], ts: i64, t: CellType, seq: u64) -> u64 {
        if self.column_changed(qualifier, t) {
            self.column_nodes = self.family_nodes.clone();
            self.versions_counted = 0;
        } else if self
            .last_type
            .is_some_and(|last| !last.is_delete() && last == t && self.last_ts == ts)
        {
            return self.last_seq;
        }
        match &mut self.last_qualifier {
            Some(q) => {
                q.clear();
                q.extend_from_slice(qualifier);
            }
            None => self.last_qualifier = Some(qualifier.to_vec()),
        }
        self.last_ts = ts;
        self.last_seq = seq;
        self.last_type = Some(t);
        u64::MAX
    }

    /// Records a delete marker.
    pub fn add(&mut self, qualifier: &[u8], ts: i64, t: CellType, seq: u64) {
        self.prepare(qualifier, ts, t, seq);
        match t {
            CellType::DeleteFamily => {
                self.family_nodes.insert(seq, DeleteNode::new(ts));
            }
            CellType::DeleteFamilyVersion => {
                if let Some((_, node)) = self.family_nodes.range_mut(seq..).next() {
                    node.add_version_delete(ts, seq);
                }
            }
            CellType::DeleteColumn => {
                self.column_nodes.insert(seq, DeleteNode::new(ts));
            }
            CellType::Delete => {
                // HBase finds no node here only for a version delete of the empty qualifier
                // after a put of it opened the row (a NullPointerException there); nothing
                // to record.
                if let Some((_, node)) = self.column_nodes.range_mut(seq..).next() {
                    node.add_version_delete(ts, seq);
                }
            }
            _ => {}
        }
    }

    /// Whether a put is deleted or masked; counts it as visible where it is not. Not
    /// idempotent: each put must be asked about once, in key order.
    pub fn is_deleted(&mut self, qualifier: &[u8], ts: i64, t: CellType, seq: u64) -> NvbDeleted {
        let duplicate_seq = self.prepare(qualifier, ts, t, seq);
        let max_versions = self.max_versions as usize;
        for (_, node) in self.column_nodes.range_mut(seq..) {
            let delete_seq = node
                .version_deletes
                .get(&ts)
                .and_then(|s| s.range(seq..).next().copied())
                .unwrap_or(u64::MAX);
            let upto = duplicate_seq.min(delete_seq);
            if seq <= upto {
                for (_, visible) in node.visible_before.range_mut(seq..=upto) {
                    if visible.len() >= max_versions {
                        return NvbDeleted::VersionMasked;
                    }
                    visible.insert(seq);
                }
            }
            if delete_seq < u64::MAX {
                return NvbDeleted::VersionDeleted;
            }
            if ts <= node.ts {
                return NvbDeleted::ColumnDeleted;
            }
        }
        if duplicate_seq < u64::MAX {
            return NvbDeleted::VersionMasked;
        }
        NvbDeleted::No
    }

    /// Checks `qualifier` against the requested columns.
    pub fn check_column(&mut self, qualifier: &[u8]) -> NvbColumn {
        let Some(cols) = &self.columns else {
            return NvbColumn::Include;
        };
        while let Some(c) = cols.get(self.column_index) {
            match qualifier.cmp(c.as_slice()) {
                std::cmp::Ordering::Less => return NvbColumn::SeekTo(c.clone()),
                std::cmp::Ordering::Equal => return NvbColumn::Include,
                std::cmp::Ordering::Greater => self.column_index += 1,
            }
        }
        NvbColumn::SeekNextRow
    }

    /// Counts a version of the current column (deletes have already dropped the masked ones);
    /// `ignore_count` includes it uncounted (a compaction's cell newer than a reader).
    pub fn check_versions(&mut self, ts: i64, ignore_count: bool) -> NvbVersions {
        if ignore_count {
            return NvbVersions::Include;
        }
        self.versions_counted += 1;
        if ts < self.oldest_unexpired_ts {
            if self.versions_counted == self.min_versions {
                return NvbVersions::IncludeAndSeekNextCol;
            }
            if self.versions_counted > self.min_versions {
                return NvbVersions::SeekNextCol;
            }
        }
        if self.versions_counted == self.result_max_versions {
            return NvbVersions::IncludeAndSeekNextCol;
        }
        if self.versions_counted > self.result_max_versions {
            return NvbVersions::SeekNextCol;
        }
        NvbVersions::Include
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CellType::{Delete, DeleteColumn, DeleteFamily, Put};

    fn tracker(versions: u32) -> NewVersionTracker {
        NewVersionTracker::new(versions, versions, 0, i64::MIN, None)
    }

    #[test]
    fn a_put_written_after_a_column_delete_at_an_older_timestamp_is_visible() {
        let mut t = tracker(3);
        // Key order: ts descending; put a@5 written (seq 3) after the delete (seq 2).
        t.add(b"a", 10, DeleteColumn, 2);
        assert_eq!(t.is_deleted(b"a", 5, Put, 3), NvbDeleted::No);
        assert_eq!(t.is_deleted(b"a", 4, Put, 1), NvbDeleted::ColumnDeleted);
    }

    #[test]
    fn a_family_delete_masks_only_earlier_writes_of_later_columns() {
        let mut t = tracker(3);
        t.add(b"", 10, DeleteFamily, 5);
        assert_eq!(t.is_deleted(b"a", 8, Put, 6), NvbDeleted::No);
        assert_eq!(t.is_deleted(b"a", 7, Put, 4), NvbDeleted::ColumnDeleted);
        assert_eq!(t.is_deleted(b"b", 9, Put, 1), NvbDeleted::ColumnDeleted);
    }

    #[test]
    fn deleting_the_newest_version_does_not_bring_back_a_surplus_one() {
        // VERSIONS 1: put v@1 (seq 1), put v@2 (seq 2), delete version @2 (seq 3).
        let mut t = tracker(1);
        t.add(b"a", 2, Delete, 3);
        assert_eq!(t.is_deleted(b"a", 2, Put, 2), NvbDeleted::VersionDeleted);
        assert_eq!(t.is_deleted(b"a", 1, Put, 1), NvbDeleted::VersionMasked);
    }

    #[test]
    fn a_version_masked_put_stops_counting() {
        // VERSIONS 1: put @14 (seq 1), put @5 (seq 2), version delete @14 (seq 3), put @3
        // (seq 4). The put at 5 is masked just before the delete and counts no further, so
        // the put at 3 is visible (HBase 2.6.1 answers so).
        let mut t = tracker(1);
        t.add(b"a", 14, Delete, 3);
        assert_eq!(t.is_deleted(b"a", 14, Put, 1), NvbDeleted::VersionDeleted);
        assert_eq!(t.is_deleted(b"a", 5, Put, 2), NvbDeleted::VersionMasked);
        assert_eq!(t.is_deleted(b"a", 3, Put, 4), NvbDeleted::No);
    }

    #[test]
    fn an_overwritten_value_is_masked() {
        let mut t = tracker(3);
        assert_eq!(t.is_deleted(b"a", 5, Put, 9), NvbDeleted::No);
        assert_eq!(t.is_deleted(b"a", 5, Put, 4), NvbDeleted::VersionMasked);
        assert_eq!(t.check_versions(5, false), NvbVersions::Include);
    }

    #[test]
    fn a_column_delete_after_an_empty_qualifier_put_is_tracked_where_hbase_fails() {
        // HBase 2.6.1 throws a NullPointerException here (its column map lacks the end node);
        // ferrobase answers (docs/design/hbase-compatibility.md, deliberate difference). The
        // first put is not counted (the row's empty-qualifier cells start no column).
        let mut t = tracker(1);
        assert_eq!(t.is_deleted(b"", 10, Put, 3), NvbDeleted::No);
        t.add(b"", 5, DeleteColumn, 4);
        assert_eq!(t.is_deleted(b"", 4, Put, 5), NvbDeleted::No);
        assert_eq!(t.is_deleted(b"", 3, Put, 1), NvbDeleted::ColumnDeleted);
        t.add(b"", 2, Delete, 6);
    }

    #[test]
    fn requested_columns_seek_to_the_next_and_end_the_row() {
        let mut t = NewVersionTracker::new(1, 1, 0, i64::MIN, Some(vec![b"b".to_vec()]));
        assert_eq!(t.check_column(b"a"), NvbColumn::SeekTo(b"b".to_vec()));
        assert_eq!(t.check_column(b"b"), NvbColumn::Include);
        assert_eq!(t.check_column(b"c"), NvbColumn::SeekNextRow);
    }
}
