//! Filters that decide by family, qualifier or timestamp: KeyOnlyFilter, FirstKeyOnlyFilter,
//! ColumnPrefixFilter, MultipleColumnPrefixFilter, ColumnCountGetFilter,
//! ColumnPaginationFilter, ColumnRangeFilter, FamilyFilter, QualifierFilter, TimestampsFilter.

use super::{CellRef, Comparator, CompareOp, Filter, ReturnCode};
use crate::cell::Cell;

macro_rules! boxed {
    () => {
        fn clone_box(&self) -> Box<dyn Filter> {
            Box::new(self.clone())
        }
    };
}

/// Returns keys only: values become empty, or their 4-byte length with `len_as_value`.
#[derive(Debug, Clone, Default)]
pub struct KeyOnlyFilter {
    len_as_value: bool,
}

impl KeyOnlyFilter {
    /// Empty values, or with `len_as_value` the value's length as a 4-byte big-endian int.
    pub fn new(len_as_value: bool) -> Self {
        KeyOnlyFilter { len_as_value }
    }
}

impl Filter for KeyOnlyFilter {
    fn transform_cell(&self, cell: Cell) -> Cell {
        let value = if self.len_as_value {
            bytes::Bytes::copy_from_slice(&(cell.value().len() as u32).to_be_bytes())
        } else {
            bytes::Bytes::new()
        };
        cell.with_value(value)
    }
    fn transforms_cells(&self) -> bool {
        true
    }
    boxed!();
}

/// Only the first cell of each row.
#[derive(Debug, Clone, Default)]
pub struct FirstKeyOnlyFilter {
    found: bool,
}

impl FirstKeyOnlyFilter {
    /// The filter.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Filter for FirstKeyOnlyFilter {
    fn reset(&mut self) {
        self.found = false;
    }
    fn filter_cell(&mut self, _c: &CellRef<'_>) -> ReturnCode {
        if self.found {
            return ReturnCode::NextRow;
        }
        self.found = true;
        ReturnCode::Include
    }
    boxed!();
}

/// Columns whose qualifier starts with a prefix; seeks to it.
#[derive(Debug, Clone)]
pub struct ColumnPrefixFilter {
    prefix: Vec<u8>,
}

impl ColumnPrefixFilter {
    /// Qualifiers starting with `prefix`.
    pub fn new(prefix: impl Into<Vec<u8>>) -> Self {
        ColumnPrefixFilter {
            prefix: prefix.into(),
        }
    }
}

impl Filter for ColumnPrefixFilter {
    /// A HintingFilter in HBase: AND lists ask it about cells an earlier member rejected.
    fn is_hinting(&self) -> bool {
        true
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if c.qualifier.starts_with(&self.prefix) {
            ReturnCode::Include
        } else if c.qualifier < &self.prefix[..] {
            ReturnCode::SeekNextUsingHint
        } else {
            ReturnCode::NextRow
        }
    }
    fn next_column_hint(&self, _c: &CellRef<'_>) -> Option<Vec<u8>> {
        Some(self.prefix.clone())
    }
    boxed!();
}

/// Columns whose qualifier starts with any of several prefixes.
#[derive(Debug, Clone)]
pub struct MultipleColumnPrefixFilter {
    /// Sorted, without duplicates.
    prefixes: Vec<Vec<u8>>,
    /// The qualifier of the last seek hint given (HBase's `hint` field): `next_column_hint`
    /// answers it whatever the cell, as HBase's `getNextCellHint` does.
    hint: Option<Vec<u8>>,
}

impl MultipleColumnPrefixFilter {
    /// Qualifiers starting with any of `prefixes`.
    pub fn new(mut prefixes: Vec<Vec<u8>>) -> Self {
        prefixes.sort();
        prefixes.dedup();
        MultipleColumnPrefixFilter {
            prefixes,
            hint: None,
        }
    }
}

impl Filter for MultipleColumnPrefixFilter {
    /// A HintingFilter in HBase: AND lists ask it about cells an earlier member rejected.
    fn is_hinting(&self) -> bool {
        true
    }
    /// HBase's `filterColumn`: only the largest prefix not above the qualifier is tried; past
    /// every prefix the row is done, else the hint is the next prefix.
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.prefixes.is_empty() {
            return ReturnCode::Include;
        }
        let at_or_below = self
            .prefixes
            .partition_point(|p| p.as_slice() <= c.qualifier);
        if let Some(largest) = at_or_below
            .checked_sub(1)
            .and_then(|i| self.prefixes.get(i))
        {
            if c.qualifier.starts_with(largest) {
                return ReturnCode::Include;
            }
        }
        match self.prefixes.get(at_or_below) {
            Some(next) => {
                self.hint = Some(next.clone());
                ReturnCode::SeekNextUsingHint
            }
            None => ReturnCode::NextRow,
        }
    }
    fn next_column_hint(&self, _c: &CellRef<'_>) -> Option<Vec<u8>> {
        self.hint.clone()
    }
    boxed!();
}

/// The first `limit` columns of a row (HBase's `ColumnCountGetFilter`; in a scan, HBase's
/// quirk applies: once a row has more, the region's scan ends).
#[derive(Debug, Clone)]
pub struct ColumnCountGetFilter {
    limit: u64,
    count: u64,
}

impl ColumnCountGetFilter {
    /// At most `limit` columns.
    pub fn new(limit: u64) -> Self {
        ColumnCountGetFilter { limit, count: 0 }
    }
}

impl Filter for ColumnCountGetFilter {
    fn reset(&mut self) {
        self.count = 0;
    }
    fn filter_all_remaining(&self) -> bool {
        self.count > self.limit
    }
    fn filter_cell(&mut self, _c: &CellRef<'_>) -> ReturnCode {
        self.count += 1;
        if self.filter_all_remaining() {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        }
    }
    boxed!();
}

/// A page of columns per row: `limit` columns after skipping `offset` columns, or after a
/// column qualifier (HBase's `ColumnPaginationFilter`).
#[derive(Debug, Clone)]
pub struct ColumnPaginationFilter {
    limit: u64,
    offset: u64,
    column_offset: Option<Vec<u8>>,
    count: u64,
}

impl ColumnPaginationFilter {
    /// `limit` columns after the first `offset`.
    pub fn new(limit: u64, offset: u64) -> Self {
        ColumnPaginationFilter {
            limit,
            offset,
            column_offset: None,
            count: 0,
        }
    }

    /// `limit` columns starting at qualifier `column_offset`.
    pub fn with_column_offset(limit: u64, column_offset: impl Into<Vec<u8>>) -> Self {
        ColumnPaginationFilter {
            limit,
            offset: 0,
            column_offset: Some(column_offset.into()),
            count: 0,
        }
    }
}

impl Filter for ColumnPaginationFilter {
    fn reset(&mut self) {
        self.count = 0;
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if let Some(co) = &self.column_offset {
            if self.count >= self.limit {
                return ReturnCode::NextRow;
            }
            if c.qualifier < &co[..] && self.count == 0 {
                return ReturnCode::SeekNextUsingHint;
            }
            self.count += 1;
            return ReturnCode::IncludeAndNextCol;
        }
        if self.count >= self.offset + self.limit {
            return ReturnCode::NextRow;
        }
        let code = if self.count < self.offset {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        };
        self.count += 1;
        code
    }
    fn next_column_hint(&self, _c: &CellRef<'_>) -> Option<Vec<u8>> {
        self.column_offset.clone()
    }
    boxed!();
}

/// Qualifiers within [min, max], each bound optionally exclusive and optional (empty).
#[derive(Debug, Clone)]
pub struct ColumnRangeFilter {
    min: Vec<u8>,
    min_inclusive: bool,
    max: Vec<u8>,
    max_inclusive: bool,
}

impl ColumnRangeFilter {
    /// Qualifiers between `min` and `max` (empty = unbounded).
    pub fn new(
        min: impl Into<Vec<u8>>,
        min_inclusive: bool,
        max: impl Into<Vec<u8>>,
        max_inclusive: bool,
    ) -> Self {
        ColumnRangeFilter {
            min: min.into(),
            min_inclusive,
            max: max.into(),
            max_inclusive,
        }
    }
}

impl Filter for ColumnRangeFilter {
    /// A HintingFilter in HBase: AND lists ask it about cells an earlier member rejected.
    fn is_hinting(&self) -> bool {
        true
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        let q = c.qualifier;
        if !self.min.is_empty() {
            if q < &self.min[..] {
                return ReturnCode::SeekNextUsingHint;
            }
            if q == &self.min[..] && !self.min_inclusive {
                return ReturnCode::NextCol;
            }
        }
        if !self.max.is_empty()
            && (q > &self.max[..] || (q == &self.max[..] && !self.max_inclusive))
        {
            return ReturnCode::NextRow;
        }
        ReturnCode::Include
    }
    fn next_column_hint(&self, _c: &CellRef<'_>) -> Option<Vec<u8>> {
        Some(self.min.clone())
    }
    boxed!();
}

/// Cells of families comparing under the operator (HBase's `FamilyFilter`).
#[derive(Debug, Clone)]
pub struct FamilyFilter {
    op: CompareOp,
    cmp: Comparator,
}

impl FamilyFilter {
    /// Families with `family OP comparator`.
    pub fn new(op: CompareOp, cmp: Comparator) -> Self {
        FamilyFilter { op, cmp }
    }
}

impl Filter for FamilyFilter {
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.cmp.matches(self.op, c.family) {
            ReturnCode::Include
        } else {
            ReturnCode::NextRow
        }
    }
    boxed!();
}

/// Cells whose qualifier compares under the operator (HBase's `QualifierFilter`).
#[derive(Debug, Clone)]
pub struct QualifierFilter {
    op: CompareOp,
    cmp: Comparator,
}

impl QualifierFilter {
    /// Qualifiers with `qualifier OP comparator`.
    pub fn new(op: CompareOp, cmp: Comparator) -> Self {
        QualifierFilter { op, cmp }
    }
}

impl Filter for QualifierFilter {
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.cmp.matches(self.op, c.qualifier) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
    boxed!();
}

/// Cells whose timestamp is one of a list (HBase's `TimestampsFilter`).
#[derive(Debug, Clone)]
pub struct TimestampsFilter {
    stamps: Vec<i64>,
}

impl TimestampsFilter {
    /// Timestamps in `stamps`.
    pub fn new(mut stamps: Vec<i64>) -> Self {
        stamps.sort_unstable();
        stamps.dedup();
        TimestampsFilter { stamps }
    }
}

impl Filter for TimestampsFilter {
    /// A HintingFilter in HBase: AND lists ask it about cells an earlier member rejected.
    fn is_hinting(&self) -> bool {
        true
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.stamps.binary_search(&c.timestamp).is_ok() {
            ReturnCode::Include
        } else if self.stamps.first().is_none_or(|&m| c.timestamp < m) {
            // Versions come newest first: nothing older can match.
            ReturnCode::NextCol
        } else {
            ReturnCode::Skip
        }
    }
    boxed!();
}
