//! Combining filters: FilterList (MUST_PASS_ALL / MUST_PASS_ONE), SkipFilter, WhileMatchFilter.

use super::{CellRef, Filter, ReturnCode};
use crate::cell::Cell;

/// How a [`FilterList`] combines its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOperator {
    /// A cell or row passes only if every member passes it (AND).
    MustPassAll,
    /// A cell or row passes if any member passes it (OR).
    MustPassOne,
}

/// A list of filters combined by AND or OR; lists nest.
///
/// AND (HBase's `FilterListWithAND`) asks its members in order and stops at the first whose
/// answer makes the merged answer exclude the cell, so later members never see that cell;
/// answers merge by the largest step. OR (`FilterListWithOR`) asks every member that is not
/// done, except one whose previous answer already decides the cell (a NEXT_COL in the same
/// column, a NEXT_ROW in the same family, a hint not yet reached); answers merge by the
/// smallest step.
#[derive(Debug, Clone)]
pub struct FilterList {
    op: ListOperator,
    filters: Vec<Box<dyn Filter>>,
    /// Which members excluded the current row by key (or were done): only the row hints use
    /// it; a member's own `filter_cell` and `filter_row` keep its verdict, as in HBase.
    row_excluded: Vec<bool>,
    /// Each member's answer for the current cell (None: not asked).
    last: Vec<Option<ReturnCode>>,
    /// OR: each member's previous answer in this row, with the family and qualifier of the
    /// cell it answered when that answer can decide later cells (HBase's `prevFilterRCList`
    /// and `prevCellList`).
    previous: Vec<Option<PreviousAnswer>>,
    /// The scan runs in descending row order (`set_reversed`).
    reversed: bool,
}

/// A member's previous answer in an OR list, with the family and qualifier of its cell.
#[derive(Debug, Clone)]
struct PreviousAnswer {
    code: ReturnCode,
    family: Vec<u8>,
    qualifier: Vec<u8>,
}

impl FilterList {
    /// Combines `filters` with `op`.
    pub fn new(op: ListOperator, filters: Vec<Box<dyn Filter>>) -> Self {
        let n = filters.len();
        FilterList {
            op,
            filters,
            row_excluded: vec![false; n],
            last: vec![None; n],
            previous: vec![None; n],
            reversed: false,
        }
    }

    /// The operator.
    pub fn operator(&self) -> ListOperator {
        self.op
    }

    /// The members.
    pub fn filters(&self) -> &[Box<dyn Filter>] {
        &self.filters
    }

    /// AND: members in order until the merged answer excludes the cell (HBase's
    /// `FilterListWithAND.filterCell`, HBASE-20565); then the hinting members not yet asked
    /// (HBASE-28622): when any member answers SEEK_NEXT_USING_HINT, so does the list, and
    /// `next_column_hint` gives the furthest of their hints.
    fn filter_cell_all(&mut self, c: &CellRef<'_>) -> ReturnCode {
        let mut rc = ReturnCode::Include;
        let mut asked = self.filters.len();
        for (i, f) in self.filters.iter_mut().enumerate() {
            if f.filter_all_remaining() {
                rc = ReturnCode::NextRow;
                asked = i + 1;
                break;
            }
            let local = f.filter_cell(c);
            self.last[i] = Some(local);
            rc = merge_all(rc, local);
            if !rc.includes() {
                asked = i + 1;
                break;
            }
        }
        for (f, last) in self.filters.iter_mut().zip(&mut self.last).skip(asked) {
            if f.is_hinting() && f.filter_cell(c) == ReturnCode::SeekNextUsingHint {
                *last = Some(ReturnCode::SeekNextUsingHint);
            }
        }
        if self.last.contains(&Some(ReturnCode::SeekNextUsingHint)) {
            return ReturnCode::SeekNextUsingHint;
        }
        rc
    }

    /// OR: every member not done, unless its previous answer decides (HBase's
    /// `FilterListWithOR.filterCell`).
    fn filter_cell_one(&mut self, c: &CellRef<'_>) -> ReturnCode {
        let mut rc: Option<ReturnCode> = None;
        for (i, f) in self.filters.iter_mut().enumerate() {
            if f.filter_all_remaining() {
                continue;
            }
            let previous = self.previous[i].as_ref();
            let local = match decided_by_previous(f.as_ref(), c, previous, self.reversed) {
                Some(code) => code,
                None => f.filter_cell(c),
            };
            self.last[i] = Some(local);
            self.previous[i] = match local {
                ReturnCode::Include | ReturnCode::Skip => None,
                code => Some(PreviousAnswer {
                    code,
                    family: c.family.to_vec(),
                    qualifier: c.qualifier.to_vec(),
                }),
            };
            rc = Some(rc.map_or(local, |rc| merge_one(rc, local)));
        }
        rc.unwrap_or(ReturnCode::Skip)
    }
}

/// What a member's previous answer says about cell `c` of the same row, if it decides it
/// (HBase's `calculateReturnCodeByPrevCellAndRC`). A hint decides the cells before it; in a
/// reversed scan HBase's comparison of the cell with the hint is negated (its
/// `FilterListBase.compareCell`), so there it decides the cells at or after the hint instead.
fn decided_by_previous(
    f: &dyn Filter,
    c: &CellRef<'_>,
    previous: Option<&PreviousAnswer>,
    reversed: bool,
) -> Option<ReturnCode> {
    let PreviousAnswer {
        code,
        family,
        qualifier,
    } = previous?;
    let same_family = family.as_slice() == c.family;
    match code {
        ReturnCode::SeekNextUsingHint => {
            let prev = CellRef {
                family,
                qualifier,
                ..*c
            };
            let hint = f.next_column_hint(&prev)?;
            // The hint is the first cell of column `hint` in the previous cell's family.
            let before_hint = match c.family.cmp(family.as_slice()) {
                std::cmp::Ordering::Equal => c.qualifier < hint.as_slice(),
                order => order.is_lt(),
            };
            (before_hint != reversed).then_some(ReturnCode::SeekNextUsingHint)
        }
        ReturnCode::NextCol | ReturnCode::IncludeAndNextCol => {
            (same_family && qualifier.as_slice() == c.qualifier).then_some(ReturnCode::NextCol)
        }
        ReturnCode::NextRow | ReturnCode::IncludeAndSeekNextRow => {
            same_family.then_some(ReturnCode::NextRow)
        }
        ReturnCode::Include | ReturnCode::Skip => None,
    }
}

/// AND's merge: the larger step (HBase's `FilterListWithAND.mergeReturnCode`).
fn merge_all(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
    use ReturnCode::*;
    match (rc, local) {
        (SeekNextUsingHint, _) | (_, SeekNextUsingHint) => SeekNextUsingHint,
        (rc, Include) => rc,
        (_, NextRow) | (NextRow, _) => NextRow,
        (Include | IncludeAndNextCol, IncludeAndNextCol) => IncludeAndNextCol,
        (IncludeAndSeekNextRow, IncludeAndNextCol) => IncludeAndSeekNextRow,
        (Skip | NextCol, IncludeAndNextCol) => NextCol,
        (Include | IncludeAndNextCol | IncludeAndSeekNextRow, IncludeAndSeekNextRow) => {
            IncludeAndSeekNextRow
        }
        (Skip | NextCol, IncludeAndSeekNextRow) => NextRow,
        (Include | Skip, Skip) => Skip,
        (IncludeAndNextCol | NextCol, Skip) => NextCol,
        (IncludeAndSeekNextRow, Skip) => NextRow,
        (Include | IncludeAndNextCol | Skip | NextCol, NextCol) => NextCol,
        (IncludeAndSeekNextRow, NextCol) => NextRow,
    }
}

/// OR's merge: the smaller step (HBase's `FilterListWithOR.mergeReturnCode`).
fn merge_one(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
    use ReturnCode::*;
    match (rc, local) {
        (_, Include) | (Include, _) => Include,
        (Skip | SeekNextUsingHint, IncludeAndNextCol | IncludeAndSeekNextRow) => Include,
        (IncludeAndNextCol | IncludeAndSeekNextRow | NextCol | NextRow, IncludeAndNextCol) => {
            IncludeAndNextCol
        }
        (IncludeAndNextCol | NextCol, IncludeAndSeekNextRow) => IncludeAndNextCol,
        (IncludeAndSeekNextRow | NextRow, IncludeAndSeekNextRow) => IncludeAndSeekNextRow,
        (IncludeAndNextCol | IncludeAndSeekNextRow, Skip | SeekNextUsingHint) => Include,
        (Skip | NextCol | NextRow | SeekNextUsingHint, Skip) => Skip,
        (NextCol | NextRow, NextCol) => NextCol,
        (IncludeAndNextCol | IncludeAndSeekNextRow, NextCol) => IncludeAndNextCol,
        (Skip | SeekNextUsingHint, NextCol | NextRow) => Skip,
        (IncludeAndNextCol, NextRow) => IncludeAndNextCol,
        (IncludeAndSeekNextRow, NextRow) => IncludeAndSeekNextRow,
        (NextCol, NextRow) => NextCol,
        (NextRow, NextRow) => NextRow,
        (Skip | NextCol | NextRow, SeekNextUsingHint) => Skip,
        (SeekNextUsingHint, SeekNextUsingHint) => SeekNextUsingHint,
    }
}

impl Filter for FilterList {
    fn reset(&mut self) {
        for f in &mut self.filters {
            f.reset();
        }
        self.row_excluded.iter_mut().for_each(|x| *x = false);
        self.last.iter_mut().for_each(|x| *x = None);
        self.previous.iter_mut().for_each(|x| *x = None);
    }
    fn filter_all_remaining(&self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        match self.op {
            ListOperator::MustPassAll => self.filters.iter().any(|f| f.filter_all_remaining()),
            ListOperator::MustPassOne => self.filters.iter().all(|f| f.filter_all_remaining()),
        }
    }
    /// AND (HBase 2.6's `FilterListWithAND.filterRowKey`): a member that is done excludes the
    /// row at once; otherwise every member is asked, so row-key filters see every row, and the
    /// row is excluded if any member excludes it and no hinting member (`is_hinting`) passed it,
    /// so that member can still give its seek hints (HBASE-28622). OR: every member not done
    /// is asked, and the row is excluded if all exclude it.
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let mut any = false;
        let mut all = true;
        let mut hinting_passed = false;
        for (i, f) in self.filters.iter_mut().enumerate() {
            let done = f.filter_all_remaining();
            if done && self.op == ListOperator::MustPassAll {
                self.row_excluded[i] = true;
                return true;
            }
            let out = done || f.filter_row_key(row);
            self.row_excluded[i] = out;
            hinting_passed |= !out && f.is_hinting();
            any |= out;
            all &= out;
        }
        match self.op {
            ListOperator::MustPassAll => any && !hinting_passed,
            ListOperator::MustPassOne => all && !self.filters.is_empty(),
        }
    }
    fn next_row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        let hints = self
            .filters
            .iter()
            .zip(&self.row_excluded)
            .filter(|(_, ex)| **ex)
            .map(|(f, _)| f.next_row_hint(row));
        match self.op {
            // AND: the row must satisfy every member: the furthest hint is safe.
            ListOperator::MustPassAll => hints.flatten().max(),
            // OR: only as far as the nearest member could match; every excluding member must
            // offer a hint.
            ListOperator::MustPassOne => {
                let all: Option<Vec<Vec<u8>>> = hints.collect();
                all.and_then(|v| v.into_iter().min())
            }
        }
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        if self.filters.is_empty() {
            return ReturnCode::Include;
        }
        self.last.iter_mut().for_each(|x| *x = None);
        match self.op {
            ListOperator::MustPassAll => self.filter_cell_all(c),
            ListOperator::MustPassOne => self.filter_cell_one(c),
        }
    }
    /// AND: every member must pass, so the furthest hint is safe. OR: any member may pass, so
    /// only the nearest hint is (members that asked to seek all gave one).
    fn next_column_hint(&self, c: &CellRef<'_>) -> Option<Vec<u8>> {
        let hints = self
            .filters
            .iter()
            .zip(&self.last)
            .filter(|(f, code)| {
                **code == Some(ReturnCode::SeekNextUsingHint) && !f.filter_all_remaining()
            })
            .map(|(f, _)| f.next_column_hint(c));
        match self.op {
            ListOperator::MustPassAll => hints.flatten().max(),
            ListOperator::MustPassOne => {
                let all: Option<Vec<Vec<u8>>> = hints.collect();
                all.and_then(|v| v.into_iter().min())
            }
        }
    }
    /// AND: every member rewrites the cell in turn (all of them included it). OR: only the
    /// members that included the cell just judged (HBase's `subFiltersIncludedCell`), so a
    /// KeyOnlyFilter in a member that is done or rejected the cell leaves its value alone.
    fn transform_cell(&self, mut cell: Cell) -> Cell {
        for (f, code) in self.filters.iter().zip(&self.last) {
            let included = match self.op {
                ListOperator::MustPassAll => true,
                ListOperator::MustPassOne => code.is_some_and(ReturnCode::includes),
            };
            if included {
                cell = f.transform_cell(cell);
            }
        }
        cell
    }
    fn transforms_cells(&self) -> bool {
        self.filters.iter().any(|f| f.transforms_cells())
    }
    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        for f in &mut self.filters {
            f.filter_row_cells(cells);
        }
    }
    /// AND: true at the first member that excludes the row; OR: false at the first that keeps
    /// it. Later members are not asked, as in HBase (a PageFilter behind them does not count
    /// the row). Each member answers for itself, done or not: an InclusiveStopFilter past its
    /// row has no `filter_row`, so an OR list holding one drops no row by `filter_row`.
    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let mut outs = self.filters.iter_mut().map(|f| f.filter_row());
        match self.op {
            ListOperator::MustPassAll => outs.any(|out| out),
            ListOperator::MustPassOne => outs.all(|out| out),
        }
    }
    fn set_reversed(&mut self, r: bool) {
        self.reversed = r;
        for f in &mut self.filters {
            f.set_reversed(r);
        }
    }
    /// Essential to the list when essential to any member (HBase's `FilterListBase`, AND and OR).
    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| f.is_family_essential(family))
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Excludes a whole row if the inner filter drops any of its cells (HBase's `SkipFilter`).
#[derive(Debug, Clone)]
pub struct SkipFilter {
    inner: Box<dyn Filter>,
    drop_row: bool,
}

impl SkipFilter {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn Filter>) -> Self {
        SkipFilter {
            inner,
            drop_row: false,
        }
    }
}

impl Filter for SkipFilter {
    fn reset(&mut self) {
        self.inner.reset();
        self.drop_row = false;
    }
    // No `filter_all_remaining` (false) and no `filter_row_key`, as HBase's SkipFilter
    // overrides neither: `SKIP WHILE X` does not end the scan when X first excludes a cell,
    // the next row is asked again (issue 41, `run.py --wide` seeds 1020 and 1023).
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        let code = self.inner.filter_cell(c);
        if code != ReturnCode::Include {
            self.drop_row = true;
        }
        code
    }
    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }
    fn transforms_cells(&self) -> bool {
        self.inner.transforms_cells()
    }
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row(&mut self) -> bool {
        self.drop_row
    }
    /// Not passed on, as in HBase (a FilterBase that does not override `setReversed`): the
    /// inner filter judges rows as in a forward scan, so `WHILE InclusiveStopFilter('r3')` in a
    /// reversed scan from r3 goes on past r3.
    fn set_reversed(&mut self, _r: bool) {}
    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Returns rows until the inner filter first excludes something, then ends the region's
/// scan (HBase's `WhileMatchFilter`).
#[derive(Debug, Clone)]
pub struct WhileMatchFilter {
    inner: Box<dyn Filter>,
    done: bool,
}

impl WhileMatchFilter {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn Filter>) -> Self {
        WhileMatchFilter { inner, done: false }
    }
}

impl Filter for WhileMatchFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }
    fn filter_all_remaining(&self) -> bool {
        self.done || self.inner.filter_all_remaining()
    }
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let out = self.inner.filter_row_key(row);
        self.done |= out;
        out
    }
    fn filter_cell(&mut self, c: &CellRef<'_>) -> ReturnCode {
        let code = self.inner.filter_cell(c);
        if code != ReturnCode::Include {
            self.done = true;
        }
        code
    }
    fn next_column_hint(&self, c: &CellRef<'_>) -> Option<Vec<u8>> {
        self.inner.next_column_hint(c)
    }
    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }
    fn transforms_cells(&self) -> bool {
        self.inner.transforms_cells()
    }
    /// HBase's WhileMatchFilter does not pass `filterRowCells` on: a DependentColumnFilter
    /// inside it drops no cell.
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row(&mut self) -> bool {
        let out = self.inner.filter_row();
        self.done |= out;
        out
    }
    /// Not passed on, as in HBase (a FilterBase that does not override `setReversed`): the
    /// inner filter judges rows as in a forward scan, so `WHILE InclusiveStopFilter('r3')` in a
    /// reversed scan from r3 goes on past r3.
    fn set_reversed(&mut self, _r: bool) {}
    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.inner.is_family_essential(family)
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
