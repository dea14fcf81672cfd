//! HBase's filters, evaluated inside the read path (HBase's `Filter` interface).
//!
//! A region scanner owns one filter instance (a fresh clone per region, as HBase ships a filter
//! to each region). For every row it calls, in HBase's order: `filter_all_remaining`,
//! `reset`, `filter_row_key` (with `next_row_hint` to seek ahead), `filter_cell` for each cell
//! that survived the time-range, delete and version checks (the version count runs to the
//! family's VERSIONS, as HBase 2.x's `UserScanQueryMatcher` counts before the filter) (with
//! `next_column_hint` for seeks inside the row), `transform_cell` on each cell as it is included
//! (while the filter still knows which of its members included it), then
//! `filter_row_cells` and `filter_row` for the assembled row.

/// `filter_cell` and `filter_row` of a row-key filter that keeps its verdict on the current row
/// in a `row_out` field, as HBase's do: NEXT_ROW for the cells of a row it excluded (asked in
/// an OR list that another member passed), and the verdict again in `filter_row`.
macro_rules! row_verdict {
    () => {
        fn filter_cell(&mut self, _c: &$crate::filter::CellRef<'_>) -> $crate::filter::ReturnCode {
            if self.row_out {
                $crate::filter::ReturnCode::NextRow
            } else {
                $crate::filter::ReturnCode::Include
            }
        }
        fn filter_row(&mut self) -> bool {
            self.row_out
        }
    };
}

mod column_filters;
mod comparator;
mod fuzzy;
mod list;
mod parse_filter;
mod row_filters;
mod value_filters;

pub use column_filters::{
    ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, ColumnRangeFilter,
    FamilyFilter, FirstKeyOnlyFilter, KeyOnlyFilter, MultipleColumnPrefixFilter, QualifierFilter,
    TimestampsFilter,
};
pub use comparator::{BitOp, Comparator, CompareOp};
pub use fuzzy::FuzzyRowFilter;
pub use list::{FilterList, ListOperator, SkipFilter, WhileMatchFilter};
pub use parse_filter::{parse_filter, ParseError};
pub use row_filters::{
    InclusiveStopFilter, MultiRowRangeFilter, PageFilter, PrefixFilter, RandomRowFilter, RowFilter,
    RowRange,
};
pub use value_filters::{
    ColumnValueFilter, DependentColumnFilter, SingleColumnValueFilter, ValueFilter,
};

use crate::cell::{Cell, CellType};

/// What a filter says about one cell (HBase's `Filter.ReturnCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReturnCode {
    /// Return the cell.
    Include,
    /// Return the cell and skip the column's other versions.
    IncludeAndNextCol,
    /// Return the cell and skip the rest of the row in this family.
    IncludeAndSeekNextRow,
    /// Drop the cell.
    Skip,
    /// Drop the cell and the column's other versions.
    NextCol,
    /// Drop the rest of the row in this family.
    NextRow,
    /// Drop cells up to the column `next_column_hint` names.
    SeekNextUsingHint,
}

impl ReturnCode {
    /// True for the three including codes.
    pub fn includes(self) -> bool {
        matches!(
            self,
            ReturnCode::Include | ReturnCode::IncludeAndNextCol | ReturnCode::IncludeAndSeekNextRow
        )
    }
}

/// A borrowed view of a cell offered to a filter.
#[derive(Debug, Clone, Copy)]
pub struct CellRef<'a> {
    /// Row key.
    pub row: &'a [u8],
    /// Family.
    pub family: &'a [u8],
    /// Qualifier.
    pub qualifier: &'a [u8],
    /// Timestamp in ms.
    pub timestamp: i64,
    /// Type (always Put outside raw reads).
    pub cell_type: CellType,
    /// Value.
    pub value: &'a [u8],
}

impl<'a> From<&'a Cell> for CellRef<'a> {
    fn from(c: &'a Cell) -> Self {
        CellRef {
            row: c.row(),
            family: c.family(),
            qualifier: c.qualifier(),
            timestamp: c.timestamp(),
            cell_type: c.cell_type(),
            value: c.value(),
        }
    }
}

/// A filter. Implementations keep per-scan state; `clone_box` makes a fresh copy for each
/// region. All methods have HBase's default behaviour.
pub trait Filter: Send + Sync + std::fmt::Debug {
    /// Called before each row.
    fn reset(&mut self) {}
    /// True when no later row of this region can match: the scan of the region ends.
    fn filter_all_remaining(&self) -> bool {
        false
    }
    /// True to exclude the row by its key alone.
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }
    /// After `filter_row_key` excluded `row`: a row to seek to (the next candidate in scan
    /// direction), to skip rows that cannot match without reading them.
    fn next_row_hint(&self, _row: &[u8]) -> Option<Vec<u8>> {
        None
    }
    /// Judges a cell.
    fn filter_cell(&mut self, _cell: &CellRef<'_>) -> ReturnCode {
        ReturnCode::Include
    }
    /// For `SeekNextUsingHint`: the qualifier (in the same row and family) to seek to.
    fn next_column_hint(&self, _cell: &CellRef<'_>) -> Option<Vec<u8>> {
        None
    }
    /// Rewrites an included cell.
    fn transform_cell(&self, cell: Cell) -> Cell {
        cell
    }
    /// True when `transform_cell` changes cells (else the read skips calling it).
    fn transforms_cells(&self) -> bool {
        false
    }
    /// True when `filter_row_cells`/`filter_row` do something.
    fn has_filter_row(&self) -> bool {
        false
    }
    /// Edits the assembled row.
    fn filter_row_cells(&mut self, _cells: &mut Vec<Cell>) {}
    /// True to exclude the assembled row.
    fn filter_row(&mut self) -> bool {
        false
    }
    /// Tells the filter the scan runs in descending row order.
    fn set_reversed(&mut self, _reversed: bool) {}
    /// False when the filter needs no cell of `family` to decide a row (HBase's
    /// `isFamilyEssential`): such a family is loaded on demand, after the row is decided, which
    /// HBase's reversed scans refuse.
    fn is_family_essential(&self, _family: &[u8]) -> bool {
        true
    }
    /// True for the filters that seek with hints (HBase 2.6's `HintingFilter`: ColumnPrefix,
    /// MultipleColumnPrefix, ColumnRange, Timestamps, FuzzyRow and MultiRowRange): an AND list
    /// keeps a row they pass, and asks them about cells an earlier member rejected, to seek by
    /// their hints (HBASE-28622).
    fn is_hinting(&self) -> bool {
        false
    }
    /// A fresh copy with the same configuration and state.
    fn clone_box(&self) -> Box<dyn Filter>;
}

impl Clone for Box<dyn Filter> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}
