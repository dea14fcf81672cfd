//! Decides, cell by cell, what a read returns (HBase's `ScanQueryMatcher` with its
//! `DeleteTracker` and `ColumnTracker`).
//!
//! For one store, cells arrive in key order: by qualifier, then newest timestamp first, delete
//! markers before puts at the same timestamp. The order of checks is HBase's:
//! 1. TTL early-out (when MIN_VERSIONS is 0, an expired cell ends its column); a cell past its
//!    own TTL (`Put::ttl`) is skipped, not counted as a version, whatever MIN_VERSIONS says
//!    (HBase's `ScanQueryMatcher.preCheck`, raw reads included);
//! 2. delete markers are recorded (not returned), if they fall in or after the time range
//!    (with KEEP_DELETED_CELLS: only if they fall inside it);
//! 3. puts masked by a recorded marker are dropped;
//! 4. the time range;
//! 5. the requested columns;
//! 6. version counting (HBase's `UserScanQueryMatcher.matchColumn`): a repeated timestamp is a
//!    replaced value; at most `max_versions` versions (with a filter: the family's VERSIONS),
//!    and past MIN_VERSIONS expired ones are dropped;
//! 7. the filter, which sees only the versions counted in; a version it rejects has still
//!    used up the budget (`mergeFilterResponse`);
//! 8. with a filter, the versions it let through are counted again, up to `max_versions`.
//!
//! When the last wanted version of a column is returned, the matcher says so at once (HBase's
//! INCLUDE_AND_SEEK_NEXT_COL, or INCLUDE_AND_SEEK_NEXT_ROW after the last requested column), so
//! older versions are sought past instead of read one by one.
//!
//! Family delete markers carry the empty qualifier and sort after its newer puts. As in HBase
//! (`ScanQueryMatcher.getKeyForNextColumn`, HBASE-18471), a seek to the next column from the
//! empty qualifier is a step to the next cell, so those markers are seen and its older versions
//! are matched (and reach the filter) one by one. Row seeks and a filter's seek hint do seek, as
//! HBase's (`SEEK_NEXT_USING_HINT` goes to the hint): a hint from a newer empty-qualifier put
//! past the family's marker leaves the columns after it unmasked, as HBase answers.
//!
//! Only the markers and the filter can tell the step from the seek apart: without a filter, the
//! older versions of a column the matcher is done with are dropped whatever they hold. So when
//! no source of the read holds any delete marker (`MatchSpec::no_delete_markers`) and the read
//! has no filter, the empty qualifier seeks like any other: a row updated thousands of times in
//! the memstore (a hot counter, YCSB's zipfian updates) costs a few steps and a seek per read,
//! not a match per version.

use super::delete_tracker::{DeleteTracker, Masked};
use super::new_version_tracker::{NewVersionTracker, NvbColumn, NvbDeleted, NvbVersions};
use super::time_range::TimeRange;
use crate::cell::{cell_ttl_expired, cmp_bytes, same_bytes, CellKey, KeyValueRef};
use crate::filter::{CellRef, Filter, ReturnCode};
use crate::schema::KeepDeletedCells;

/// What to do with a cell, and where the cursor goes next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchCode {
    /// Return the cell; move to the next cell.
    Include,
    /// Return the cell; skip the column's other versions.
    IncludeAndSeekNextCol,
    /// Return the cell; skip the rest of the row in this store.
    IncludeAndSeekNextRow,
    /// Drop the cell; move to the next cell.
    Skip,
    /// Drop the cell and every other version of its column.
    SeekNextCol,
    /// Drop the rest of the row in this store.
    SeekNextRow,
    /// Drop cells up to `key` (a seek hint).
    SeekTo(Box<CellKey>),
    /// The filter rules out everything left (HBase's DONE_SCAN): this store's scanner is done
    /// for the rest of the scan, even if the filter is reset for the next row.
    DoneScan,
}

/// Per-read settings of a matcher: the read's `ReadSpec` as it applies to one store (the
/// family's requested qualifiers, versions capped by its VERSIONS, the time range and raw flag)
/// and the family's settings. Built by `Store::scanner` from the `StoreRead` it borrows; owned
/// rather than borrowed because a matcher lives in its scan's region scanner, which outlives any
/// borrow of the scan's request (a scan owns its `ReadSpec` beside its open region scanner).
#[derive(Debug, Clone)]
pub struct MatchSpec {
    /// Time range of the read.
    pub time_range: TimeRange,
    /// Versions returned per column (already limited by the family's VERSIONS).
    pub max_versions: u32,
    /// Versions counted before a filter sees a cell (HBase's `maxVersionToCheck` for a read
    /// with a filter): the family's VERSIONS, or unlimited for a raw read. Unused without a
    /// filter, when `max_versions` is the budget.
    pub versions_before_filter: u32,
    /// The family's MIN_VERSIONS.
    pub min_versions: u32,
    /// Cells with a timestamp below this are expired (`i64::MIN` without TTL).
    pub oldest_unexpired_ts: i64,
    /// The read's time in milliseconds, against which cells' own TTLs are checked.
    pub now_ms: i64,
    /// Requested qualifiers, sorted; `None` for all columns.
    pub columns: Option<Vec<Vec<u8>>>,
    /// Raw read: return delete markers and masked cells.
    pub raw: bool,
    /// The family's KEEP_DELETED_CELLS.
    pub keep_deleted_cells: KeepDeletedCells,
    /// A reversed scan: a filter's seek hint, always to a later column, is not followed (HBase's
    /// `StoreScanner` follows a hint only in the scan's direction) and the cell is skipped.
    pub reversed: bool,
    /// The family's NEW_VERSION_BEHAVIOR: deletes mask only earlier writes and versions are
    /// counted against deletes ([`NewVersionTracker`]); raw reads ignore it.
    pub new_version_behavior: bool,
    /// No source of the read (memstore or file) holds a delete marker, so a column seek from
    /// the empty qualifier cannot pass a family marker: it seeks instead of stepping cell by
    /// cell (see the module's documentation).
    pub no_delete_markers: bool,
}

/// Matcher state for one store and one row at a time.
#[derive(Debug)]
pub struct QueryMatcher {
    spec: MatchSpec,
    row: Vec<u8>,
    deletes: DeleteTracker,
    /// The current column's qualifier (meaningful while `in_column`).
    column: Vec<u8>,
    in_column: bool,
    /// Versions of the current column counted before the filter.
    versions: u32,
    /// Versions of the current column the filter let through.
    included: u32,
    last_ts: Option<i64>,
    /// The last `SeekTo` is the filter's hint (HBase's SEEK_NEXT_USING_HINT), not a seek to
    /// the next requested column.
    hinted: bool,
    /// With requested columns: the current column is done (HBase's `ExplicitColumnTracker`
    /// has moved past it), so its later cells, met one by one in the empty-qualifier column,
    /// are dropped at the column check without reaching the versions or the filter.
    column_done: bool,
    /// With NEW_VERSION_BEHAVIOR (not raw): the delete, column and version tracking.
    nvb: Option<NewVersionTracker>,
}

impl QueryMatcher {
    /// A matcher for `spec`.
    pub fn new(spec: MatchSpec) -> Self {
        let nvb = (spec.new_version_behavior && !spec.raw).then(|| {
            NewVersionTracker::new(
                spec.versions_before_filter,
                spec.max_versions,
                spec.min_versions,
                spec.oldest_unexpired_ts,
                spec.columns.clone(),
            )
        });
        QueryMatcher {
            nvb,
            spec,
            row: Vec::new(),
            deletes: DeleteTracker::default(),
            column: Vec::new(),
            in_column: false,
            versions: 0,
            included: 0,
            last_ts: None,
            hinted: false,
            column_done: false,
        }
    }

    /// The qualifier of the column the last matched cell belongs to.
    pub fn column(&self) -> &[u8] {
        &self.column
    }

    /// Resets the per-row state for `row`.
    pub fn start_row(&mut self, row: &[u8]) {
        self.row.clear();
        self.row.extend_from_slice(row);
        self.deletes.reset_row();
        self.in_column = false;
        if let Some(t) = &mut self.nvb {
            t.reset();
        }
    }

    fn start_column(&mut self, q: &[u8]) {
        // Reuses the buffer: a column change costs a copy of the qualifier, no allocation.
        self.column.clear();
        self.column.extend_from_slice(q);
        self.in_column = true;
        self.deletes.reset_column();
        self.versions = 0;
        self.included = 0;
        self.last_ts = None;
        self.column_done = false;
    }

    /// Classifies `kv`, a cell of the current row.
    /// `family` and `filter` serve the filter stage.
    pub fn match_cell(
        &mut self,
        kv: KeyValueRef<'_>,
        family: &[u8],
        filter: Option<&mut dyn Filter>,
    ) -> MatchCode {
        self.hinted = false;
        let filtered = filter.is_some();
        let code = self.classify(&kv, family, filter);
        if !kv.qualifier.is_empty() {
            return code;
        }
        // HBase never seeks to the next column from the empty qualifier
        // (`ScanQueryMatcher.getKeyForNextColumn`, HBASE-18471: the seek goes to the next cell
        // of that column), so family delete markers, which sort after its newer puts, are
        // seen, and every version of it is matched: its older versions reach the filter, and a
        // ColumnPaginationFilter or ColumnCountGetFilter counts each as a column. A seek to a
        // requested column is such a seek; a row seek and a filter's hint are not. With
        // requested columns, a column seek also moves HBase's ExplicitColumnTracker past the
        // column (`doneWithColumn`), so the column's later versions stop at the column check.
        let column_seek = match &code {
            MatchCode::IncludeAndSeekNextCol | MatchCode::SeekNextCol => true,
            MatchCode::SeekTo(_) => !self.hinted,
            _ => false,
        };
        if column_seek && self.spec.columns.is_some() && self.nvb.is_none() {
            self.column_done = true;
        }
        // Nothing to see in the rest of the column: no family marker can be there, and without
        // a filter the older versions are dropped whatever they hold.
        if self.spec.no_delete_markers && !filtered && self.nvb.is_none() {
            return code;
        }
        match code {
            MatchCode::IncludeAndSeekNextCol => MatchCode::Include,
            MatchCode::SeekNextCol => MatchCode::Skip,
            MatchCode::SeekTo(_) if !self.hinted => MatchCode::Skip,
            other => other,
        }
    }

    fn classify(
        &mut self,
        k: &KeyValueRef<'_>,
        family: &[u8],
        filter: Option<&mut dyn Filter>,
    ) -> MatchCode {
        // HBase's DONE_SCAN: the filter rules out the rest of the scan.
        if filter.as_ref().is_some_and(|f| f.filter_all_remaining()) {
            return MatchCode::DoneScan;
        }
        if !self.in_column || !same_bytes(&self.column, k.qualifier) {
            self.start_column(k.qualifier);
        }
        let ts = k.timestamp;
        let expired = ts < self.spec.oldest_unexpired_ts;
        // 1. TTL early-out.
        if expired && self.spec.min_versions == 0 && self.nvb.is_none() {
            return MatchCode::SeekNextCol;
        }
        // A cell past its own TTL is skipped before any tracker sees it (HBase's `preCheck`),
        // with NEW_VERSION_BEHAVIOR too.
        if cell_ttl_expired(ts, k.ttl_ms, self.spec.now_ms) {
            return MatchCode::Skip;
        }
        if self.nvb.is_some() {
            return self.classify_new_version_behavior(k, family, filter);
        }
        let tr = self.spec.time_range;
        if k.cell_type.is_delete() && !self.spec.raw {
            // 2. Record the marker.
            let track = if self.spec.keep_deleted_cells != KeepDeletedCells::False {
                tr.contains(ts)
            } else {
                ts >= tr.min
            };
            if track {
                self.deletes.add(k.cell_type, ts);
            }
            return MatchCode::Skip;
        }
        if !self.spec.raw {
            // 3. Masked by a marker.
            match self.deletes.masked(ts) {
                Some(Masked::ColumnAndOlder) => return MatchCode::SeekNextCol,
                Some(Masked::ThisVersion) => return MatchCode::Skip,
                None => {}
            }
        }
        // 4. Time range.
        if ts >= tr.max {
            return MatchCode::Skip;
        }
        if ts < tr.min {
            return MatchCode::SeekNextCol;
        }
        // 5. Requested columns.
        if self.column_done {
            return MatchCode::SeekNextCol;
        }
        if let Some(cols) = &self.spec.columns {
            match cols.binary_search_by(|c| cmp_bytes(c, k.qualifier)) {
                Ok(_) => {}
                Err(pos) => {
                    return match cols.get(pos) {
                        Some(next) => {
                            MatchCode::SeekTo(Box::new(CellKey::first_on_column(k.row, next)))
                        }
                        None => MatchCode::SeekNextRow,
                    };
                }
            }
        }
        // 6. Versions, counted before the filter (HBase's `ColumnTracker.checkVersions`): a
        // repeated timestamp is an overwritten value, and a version the filter will reject
        // still uses up the budget. With a filter the budget is the family's VERSIONS (HBase's
        // `maxVersionToCheck`), and the versions the read returns are counted after it.
        if self.last_ts == Some(ts) && !self.spec.raw {
            return MatchCode::Skip;
        }
        self.last_ts = Some(ts);
        self.versions += 1;
        let limit = if filter.is_some() {
            self.spec.versions_before_filter
        } else {
            self.spec.max_versions
        };
        if self.versions > limit {
            return MatchCode::SeekNextCol;
        }
        // Past MIN_VERSIONS, an expired version ends the column. HBase's two column trackers
        // differ here: the wildcard one (a whole-family read) drops it, the explicit one
        // (requested columns) returns it and moves on (`ExplicitColumnTracker.checkVersions`:
        // `count >= minVersions && isExpired` is INCLUDE_AND_SEEK_NEXT_COL).
        let explicit_expired =
            expired && self.spec.columns.is_some() && self.versions >= self.spec.min_versions;
        if explicit_expired {
            self.column_done = true;
        } else if self.versions > self.spec.min_versions && expired {
            return MatchCode::SeekNextCol;
        }
        let code = if (self.versions == limit || explicit_expired) && !self.spec.raw {
            // The column has all its versions: HBase's INCLUDE_AND_SEEK_NEXT_COL, or
            // INCLUDE_AND_SEEK_NEXT_ROW after the last requested column.
            if self.is_last_column(k.qualifier) {
                MatchCode::IncludeAndSeekNextRow
            } else {
                MatchCode::IncludeAndSeekNextCol
            }
        } else {
            MatchCode::Include
        };
        let Some(f) = filter else {
            return code;
        };
        self.filter_stage(k, family, f, code)
    }

    /// Steps 2–8 for a family with NEW_VERSION_BEHAVIOR (HBase's `NormalUserScanQueryMatcher`
    /// with a `NewVersionBehaviorTracker` as delete and column tracker): no TTL early-out, every
    /// put goes through the tracker (which counts it), a deleted put is skipped (not sought
    /// past: an older put may have been written later), then the time range, the requested
    /// columns and the version count, then the filter.
    fn classify_new_version_behavior(
        &mut self,
        k: &KeyValueRef<'_>,
        family: &[u8],
        filter: Option<&mut dyn Filter>,
    ) -> MatchCode {
        let Some(tracker) = self.nvb.as_mut() else {
            return MatchCode::Skip;
        };
        let ts = k.timestamp;
        let tr = self.spec.time_range;
        if k.cell_type.is_delete() {
            let track = if self.spec.keep_deleted_cells != KeepDeletedCells::False {
                tr.contains(ts)
            } else {
                ts >= tr.min
            };
            if track {
                tracker.add(k.qualifier, ts, k.cell_type, k.seq);
            }
            return MatchCode::Skip;
        }
        if tracker.is_deleted(k.qualifier, ts, k.cell_type, k.seq) != NvbDeleted::No {
            return MatchCode::Skip;
        }
        if ts >= tr.max {
            return MatchCode::Skip;
        }
        if ts < tr.min {
            return MatchCode::SeekNextCol;
        }
        match tracker.check_column(k.qualifier) {
            NvbColumn::Include => {}
            NvbColumn::SeekTo(next) => {
                return MatchCode::SeekTo(Box::new(CellKey::first_on_column(k.row, &next)))
            }
            NvbColumn::SeekNextRow => return MatchCode::SeekNextRow,
        }
        let code = match tracker.check_versions(ts, false) {
            NvbVersions::SeekNextCol => return MatchCode::SeekNextCol,
            NvbVersions::IncludeAndSeekNextCol => MatchCode::IncludeAndSeekNextCol,
            NvbVersions::Include => MatchCode::Include,
        };
        match filter {
            Some(f) => self.filter_stage(k, family, f, code),
            None => code,
        }
    }

    /// Steps 7 and 8: the filter's answer about a counted version, merged with `code`, the
    /// version check's.
    fn filter_stage(
        &mut self,
        k: &KeyValueRef<'_>,
        family: &[u8],
        f: &mut dyn Filter,
        code: MatchCode,
    ) -> MatchCode {
        let ts = k.timestamp;
        // 7. The filter stage, merged with the version check as HBase's
        // `UserScanQueryMatcher.mergeFilterResponse` does.
        let cell = CellRef {
            row: k.row,
            family,
            qualifier: k.qualifier,
            timestamp: ts,
            cell_type: k.cell_type,
            value: k.value,
        };
        let merged = match f.filter_cell(&cell) {
            ReturnCode::Include => code,
            ReturnCode::IncludeAndNextCol => match code {
                MatchCode::Include => MatchCode::IncludeAndSeekNextCol,
                other => other,
            },
            ReturnCode::IncludeAndSeekNextRow => MatchCode::IncludeAndSeekNextRow,
            ReturnCode::Skip => {
                return match code {
                    MatchCode::Include => MatchCode::Skip,
                    MatchCode::IncludeAndSeekNextCol => MatchCode::SeekNextCol,
                    _ => MatchCode::SeekNextRow,
                };
            }
            ReturnCode::NextCol => {
                return if code == MatchCode::IncludeAndSeekNextRow
                    || self.is_last_column(k.qualifier)
                {
                    MatchCode::SeekNextRow
                } else {
                    MatchCode::SeekNextCol
                };
            }
            ReturnCode::NextRow => return MatchCode::SeekNextRow,
            ReturnCode::SeekNextUsingHint => {
                if self.spec.reversed {
                    return MatchCode::Skip;
                }
                return match f.next_column_hint(&cell) {
                    Some(q) if cmp_bytes(&q, k.qualifier).is_gt() => {
                        self.hinted = true;
                        MatchCode::SeekTo(Box::new(CellKey::first_on_column(k.row, &q)))
                    }
                    _ => MatchCode::Skip,
                };
            }
        };
        // 8. Versions again, after the filter (HBase's `versionsAfterFilter`): the versions
        // the filter let through, up to the number the read returns.
        self.included += 1;
        if self.included > self.spec.max_versions {
            return if merged == MatchCode::IncludeAndSeekNextRow {
                MatchCode::SeekNextRow
            } else {
                MatchCode::SeekNextCol
            };
        }
        merged
    }

    /// True when `q` is the last of the requested columns (never for a whole-family read).
    fn is_last_column(&self, q: &[u8]) -> bool {
        self.spec
            .columns
            .as_ref()
            .is_some_and(|cols| cols.last().is_some_and(|last| same_bytes(last, q)))
    }
}
