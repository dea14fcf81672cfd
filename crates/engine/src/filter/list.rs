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
#[derive(Debug, Clone)]
pub struct FilterList {
    op: ListOperator,
    filters: Vec<Box<dyn Filter>>,
    /// For OR: which members excluded the current row by key (they sit out its cells).
    row_excluded: Vec<bool>,
    /// Each member's answer for the current cell (None: not asked).
    last: Vec<Option<ReturnCode>>,
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
}

/// Order of restrictiveness used to merge member answers.
fn rank(c: ReturnCode) -> u8 {
    match c {
        ReturnCode::Include => 0,
        ReturnCode::IncludeAndNextCol => 1,
        ReturnCode::IncludeAndSeekNextRow => 2,
        ReturnCode::Skip => 3,
        ReturnCode::NextCol => 4,
        ReturnCode::SeekNextUsingHint => 5,
        ReturnCode::NextRow => 6,
    }
}

impl Filter for FilterList {
    fn reset(&mut self) {
        for f in &mut self.filters {
            f.reset();
        }
        self.row_excluded.iter_mut().for_each(|x| *x = false);
        self.last.iter_mut().for_each(|x| *x = None);
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
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let mut any = false;
        let mut all = true;
        for (i, f) in self.filters.iter_mut().enumerate() {
            let out = f.filter_all_remaining() || f.filter_row_key(row);
            self.row_excluded[i] = out;
            any |= out;
            all &= out;
        }
        match self.op {
            ListOperator::MustPassAll => any,
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
        self.last.iter_mut().for_each(|x| *x = None);
        match self.op {
            ListOperator::MustPassAll => {
                let mut worst = ReturnCode::Include;
                for (i, f) in self.filters.iter_mut().enumerate() {
                    let code = f.filter_cell(c);
                    self.last[i] = Some(code);
                    if rank(code) > rank(worst) {
                        worst = code;
                    }
                    if code == ReturnCode::NextRow {
                        break;
                    }
                }
                worst
            }
            ListOperator::MustPassOne => {
                let mut best: Option<ReturnCode> = None;
                for (i, f) in self.filters.iter_mut().enumerate() {
                    if self.row_excluded[i] {
                        continue;
                    }
                    let code = f.filter_cell(c);
                    self.last[i] = Some(code);
                    if best.is_none_or(|b| rank(code) < rank(b)) {
                        best = Some(code);
                    }
                }
                match best {
                    // Including members decide; an include of one means the cell is returned,
                    // but the others may still want to see the column's other versions.
                    Some(ReturnCode::IncludeAndNextCol)
                    | Some(ReturnCode::IncludeAndSeekNextRow) => ReturnCode::Include,
                    Some(code) => code,
                    None => ReturnCode::NextRow,
                }
            }
        }
    }
    /// AND: every member must pass, so the furthest hint is safe. OR: any member may pass, so
    /// only the nearest hint is (members that asked to seek all gave one).
    fn next_column_hint(&self, c: &CellRef<'_>) -> Option<Vec<u8>> {
        let hints = self
            .filters
            .iter()
            .zip(&self.last)
            .filter(|(_, code)| **code == Some(ReturnCode::SeekNextUsingHint))
            .map(|(f, _)| f.next_column_hint(c));
        match self.op {
            ListOperator::MustPassAll => hints.flatten().max(),
            ListOperator::MustPassOne => {
                let all: Option<Vec<Vec<u8>>> = hints.collect();
                all.and_then(|v| v.into_iter().min())
            }
        }
    }
    fn transform_cell(&self, mut cell: Cell) -> Cell {
        for f in &self.filters {
            cell = f.transform_cell(cell);
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
    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        let mut any = false;
        let mut all = true;
        for (i, f) in self.filters.iter_mut().enumerate() {
            let out = f.filter_row() || self.row_excluded[i];
            any |= out;
            all &= out;
        }
        match self.op {
            ListOperator::MustPassAll => any,
            ListOperator::MustPassOne => all,
        }
    }
    fn set_reversed(&mut self, r: bool) {
        for f in &mut self.filters {
            f.set_reversed(r);
        }
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
    fn filter_all_remaining(&self) -> bool {
        self.inner.filter_all_remaining()
    }
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
    fn set_reversed(&mut self, r: bool) {
        self.inner.set_reversed(r);
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
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.inner.filter_row_cells(cells);
    }
    fn filter_row(&mut self) -> bool {
        let out = self.inner.filter_row();
        self.done |= out;
        out
    }
    fn set_reversed(&mut self, r: bool) {
        self.inner.set_reversed(r);
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
