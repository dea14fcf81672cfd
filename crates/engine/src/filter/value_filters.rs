//! Filters that decide by value: ValueFilter, SingleColumnValueFilter (and its Exclude form),
//! ColumnValueFilter, DependentColumnFilter.

use super::{CellRef, Comparator, CompareOp, Filter, ReturnCode};
use crate::cell::Cell;

/// Cells whose value compares under the operator (HBase's `ValueFilter`).
#[derive(Debug, Clone)]
pub struct ValueFilter {
    op: CompareOp,
    cmp: Comparator,
}

impl ValueFilter {
    /// Values with `value OP comparator`.
    pub fn new(op: CompareOp, cmp: Comparator) -> Self {
        ValueFilter { op, cmp }
    }
}

impl Filter for ValueFilter {
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.cmp.matches(self.op, c.value) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Whole rows whose `family:qualifier` value compares under the operator (HBase's
/// `SingleColumnValueFilter`). A row without the column passes unless `filter_if_missing`.
/// With `latest_version_only` (default) only the newest version is tested. The Exclude form
/// drops the tested column from the returned row.
#[derive(Debug, Clone)]
pub struct SingleColumnValueFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    op: CompareOp,
    cmp: Comparator,
    /// Exclude rows that lack the column.
    pub filter_if_missing: bool,
    /// Test only the newest version.
    pub latest_version_only: bool,
    exclude_column: bool,
    found: bool,
    matched: bool,
}

impl SingleColumnValueFilter {
    /// Rows whose `family:qualifier OP comparator`.
    pub fn new(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        op: CompareOp,
        cmp: Comparator,
    ) -> Self {
        SingleColumnValueFilter {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            cmp,
            filter_if_missing: false,
            latest_version_only: true,
            exclude_column: false,
            found: false,
            matched: false,
        }
    }

    /// The `SingleColumnValueExcludeFilter` form: the tested column is not returned.
    pub fn excluding_column(mut self) -> Self {
        self.exclude_column = true;
        self
    }
}

impl Filter for SingleColumnValueFilter {
    fn reset(&mut self) {
        self.found = false;
        self.matched = false;
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.matched {
            return ReturnCode::Include;
        }
        if self.latest_version_only && self.found {
            // Found but not matched: the row is already lost (HBase answers NEXT_ROW).
            return ReturnCode::NextRow;
        }
        if c.family != self.family || c.qualifier != self.qualifier {
            return ReturnCode::Include;
        }
        self.found = true;
        if !self.cmp.matches(self.op, c.value) {
            return if self.latest_version_only {
                ReturnCode::NextRow
            } else {
                ReturnCode::Include
            };
        }
        self.matched = true;
        ReturnCode::Include
    }
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        if self.exclude_column {
            cells.retain(|c| c.family() != self.family || c.qualifier() != self.qualifier);
        }
    }
    fn filter_row(&mut self) -> bool {
        if self.found {
            !self.matched
        } else {
            self.filter_if_missing
        }
    }
    /// Only the tested family, when a row without the column is dropped; else every family
    /// (a row without the column may pass).
    fn is_family_essential(&self, family: &[u8]) -> bool {
        !self.filter_if_missing || family == self.family.as_slice()
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Only the cells of `family:qualifier` whose value compares under the operator (HBase's
/// `ColumnValueFilter`).
#[derive(Debug, Clone)]
pub struct ColumnValueFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    op: CompareOp,
    cmp: Comparator,
}

impl ColumnValueFilter {
    /// Cells of `family:qualifier` with `value OP comparator`.
    pub fn new(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        op: CompareOp,
        cmp: Comparator,
    ) -> Self {
        ColumnValueFilter {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            cmp,
        }
    }
}

impl Filter for ColumnValueFilter {
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if c.family != self.family {
            return ReturnCode::NextRow;
        }
        if c.qualifier != self.qualifier {
            return if c.qualifier < &self.qualifier[..] {
                ReturnCode::SeekNextUsingHint
            } else {
                ReturnCode::NextRow
            };
        }
        if self.cmp.matches(self.op, c.value) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
    fn next_column_hint(&self, _c: &CellRef<'_>) -> Option<Vec<u8>> {
        Some(self.qualifier.clone())
    }
    fn is_family_essential(&self, family: &[u8]) -> bool {
        family == self.family.as_slice()
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Cells whose timestamp equals that of a version of a reference column in the same row
/// (HBase's `DependentColumnFilter`); optionally the reference column's value must compare,
/// and optionally the reference column itself is dropped.
///
/// Every version of the reference column the filter sees lends its timestamp, including
/// versions the read does not return (the matcher shows a filter the newest VERSIONS, as
/// HBase does).
#[derive(Debug, Clone)]
pub struct DependentColumnFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    drop_dependent: bool,
    compare: Option<(CompareOp, Comparator)>,
    stamps: Vec<i64>,
}

impl DependentColumnFilter {
    /// Depends on `family:qualifier`.
    pub fn new(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        drop_dependent: bool,
        compare: Option<(CompareOp, Comparator)>,
    ) -> Self {
        DependentColumnFilter {
            family: family.into(),
            qualifier: qualifier.into(),
            drop_dependent,
            compare,
            stamps: Vec::new(),
        }
    }
}

impl Filter for DependentColumnFilter {
    fn reset(&mut self) {
        self.stamps.clear();
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if c.family != self.family || c.qualifier != self.qualifier {
            return ReturnCode::Include;
        }
        if let Some((op, cmp)) = &self.compare {
            if !cmp.matches(*op, c.value) {
                return ReturnCode::Skip;
            }
        }
        self.stamps.push(c.timestamp);
        if self.drop_dependent {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        let stamps = &self.stamps;
        cells.retain(|c| stamps.contains(&c.timestamp()));
    }
    /// Never by itself (HBase's returns false): a row without the reference column loses its
    /// cells in `filter_row_cells` instead.
    fn filter_row(&mut self) -> bool {
        false
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
