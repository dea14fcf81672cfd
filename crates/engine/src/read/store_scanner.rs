//! Reads one store row by row, through the query matcher (HBase's `StoreScanner`).

use super::merge_cursor::MergeCursor;
use super::query_matcher::{MatchCode, QueryMatcher};
use crate::cell::{same_bytes, Cell, CellKey};
use crate::error::Result;
use crate::filter::Filter;
use bytes::Bytes;

/// How many cells a column or row skip steps over one by one before it seeks: the next column
/// is usually the next cell, and a step is far cheaper than a seek (HBase's
/// `trySkipToNextColumn`/`trySkipToNextRow`).
const STEPS_BEFORE_SEEK: usize = 8;

/// How much one piece of a row may hold: a result of a scan with `batch` (cells) or a
/// maximum result size (bytes) ends when either is reached, before the rest of the row is read.
#[derive(Debug, Clone, Copy)]
pub struct PieceBudget {
    /// Cells the piece may still take.
    pub cells_left: usize,
    /// Bytes (row, family, qualifier and value of each cell) the piece may still take.
    pub bytes_left: usize,
}

impl PieceBudget {
    fn is_spent(&self) -> bool {
        self.cells_left == 0 || self.bytes_left == 0
    }

    /// Charges the cells appended to `out` since it held `before`.
    fn charge(&mut self, out: &[Cell], before: usize) {
        for c in out.get(before..).unwrap_or_default() {
            self.cells_left = self.cells_left.saturating_sub(1);
            self.bytes_left = self.bytes_left.saturating_sub(c.heap_size());
        }
    }
}

/// Where [`StoreScanner::read_row`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowEnd {
    /// The store holds nothing more of the row; the cursor is after it.
    Finished,
    /// The budget ran out with more cells of the row under the cursor: the next `read_row`
    /// with `resume` goes on from there, the matcher's column, version and delete state intact.
    Paused,
}

/// A cursor over the visible cells of one store.
#[derive(Debug)]
pub struct StoreScanner {
    family: Bytes,
    cursor: MergeCursor,
    matcher: QueryMatcher,
    /// The read is a Get of one row: once the row is done the cursor is not moved past it.
    single_row: bool,
    /// The filter ruled out the rest of the scan while this store read (HBase's DONE_SCAN
    /// closes the store's scanner): the store returns nothing more.
    done: bool,
    /// Cells handled since the call's time budget was last checked.
    unchecked: u32,
    /// Bytes of cells built since the last take from the call's memory pool.
    uncharged: usize,
    /// Cells the matcher looked at, added to the read's cost when the scanner closes.
    cells_examined: u64,
    /// Seeks of the cursor, added to the read's cost when the scanner closes.
    seeks: u64,
}

impl Drop for StoreScanner {
    fn drop(&mut self) {
        let (cells, seeks) = (self.cells_examined, self.seeks);
        super::read_cost::record(|c| {
            c.cells_examined += cells;
            c.seeks += seeks;
        });
    }
}

impl StoreScanner {
    /// A scanner of `family` over `cursor`, judged by `matcher`. Position it with `seek_row`.
    pub fn new(
        family: &[u8],
        cursor: MergeCursor,
        matcher: QueryMatcher,
        single_row: bool,
    ) -> Self {
        StoreScanner {
            family: crate::cell::interned_family(family),
            cursor,
            matcher,
            single_row,
            done: false,
            unchecked: 0,
            uncharged: 0,
            cells_examined: 0,
            seeks: 0,
        }
    }

    /// True once the filter ended this store's part of the scan (HBase's DONE_SCAN).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Cells examined and seeks made so far, added to the read's cost when the scanner
    /// closes.
    pub(crate) fn pending_cost(&self) -> (u64, u64) {
        (self.cells_examined, self.seeks)
    }

    /// The store's family.
    pub fn family(&self) -> &Bytes {
        &self.family
    }

    /// The row of the next cell, if any (it may turn out to hold nothing visible).
    #[inline]
    pub fn peek_row(&self) -> Option<&[u8]> {
        self.cursor.peek_row()
    }

    /// Positions at the first cell of `row` or after.
    pub fn seek_row(&mut self, row: &[u8]) -> Result<()> {
        self.seeks += 1;
        self.cursor.reseek(&CellKey::first_on_row(row))
    }

    /// Moves forward to the first cell at or after `key`.
    pub fn seek_forward(&mut self, key: &CellKey) -> Result<()> {
        self.seeks += 1;
        self.cursor.seek_forward(key)
    }

    /// The largest row < `row` that holds any cell.
    pub fn last_row_before(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        self.seeks += 1;
        self.cursor.last_row_before(row)
    }

    /// Moves `cursor` past every cell of column `q` of `row`: a few steps, then a seek
    /// (counted in `seeks`).
    fn skip_column(cursor: &mut MergeCursor, seeks: &mut u64, row: &[u8], q: &[u8]) -> Result<()> {
        for _ in 0..STEPS_BEFORE_SEEK {
            match cursor.peek() {
                Some(kv) if same_bytes(kv.qualifier, q) && same_bytes(kv.row, row) => {
                    cursor.advance()?
                }
                _ => return Ok(()),
            }
        }
        *seeks += 1;
        cursor.seek_forward(&CellKey::after_column(row, q))
    }

    /// Moves past every cell of `row`: a few steps, then a seek. A Get's scanner stays put.
    fn skip_row(&mut self, row: &[u8]) -> Result<()> {
        if self.single_row {
            return Ok(());
        }
        for _ in 0..STEPS_BEFORE_SEEK {
            match self.cursor.peek() {
                Some(kv) if same_bytes(kv.row, row) => self.cursor.advance()?,
                _ => return Ok(()),
            }
        }
        self.seeks += 1;
        self.cursor.seek_forward(&CellKey::after_row(row))
    }

    /// Consumes the cells of `row` under the cursor, appending those the read returns to `out`
    /// as client cells of this store's family, until the row ends in this store (the cursor is
    /// then after the row) or `budget` is spent (the cursor stays inside the row: call again
    /// with `resume` to go on). `filter` runs at the matcher's filter stage, and rewrites each
    /// cell it included (`transform_cell`).
    ///
    /// As HBase's `StoreScanner.next` matches the cell after the row too, and its matcher asks
    /// `filter_all_remaining` before it looks at the row: a filter that rules out the rest of
    /// the scan once this store has read the row (ColumnCountGetFilter past its count) ends the
    /// store (`is_done`), though the filter is reset for the next row and the other stores go on.
    pub fn read_row(
        &mut self,
        row: &[u8],
        out: &mut Vec<Cell>,
        mut filter: Option<&mut dyn Filter>,
        budget: &mut PieceBudget,
        resume: bool,
    ) -> Result<RowEnd> {
        let end = self.read_row_cells(
            row,
            out,
            filter.as_mut().map(|f| &mut **f as &mut dyn Filter),
            budget,
            resume,
        )?;
        if end == RowEnd::Finished
            && !self.single_row
            && filter.is_some_and(|f| f.filter_all_remaining())
        {
            self.done = true;
        }
        Ok(end)
    }

    /// `read_row` without the end-of-row check.
    fn read_row_cells(
        &mut self,
        row: &[u8],
        out: &mut Vec<Cell>,
        mut filter: Option<&mut dyn Filter>,
        budget: &mut PieceBudget,
        resume: bool,
    ) -> Result<RowEnd> {
        if !resume {
            self.matcher.start_row(row);
        }
        loop {
            let Some(kv) = self.cursor.peek() else {
                return Ok(RowEnd::Finished);
            };
            if !same_bytes(kv.row, row) {
                return Ok(RowEnd::Finished);
            }
            // The call's time budget is checked every 16 cells or 4 KiB of values, whichever
            // comes first: what a filter costs grows with the bytes it reads (a regular
            // expression over large values), and the clock costs as much as a small cell.
            let weight = u32::try_from(kv.value.len() >> 8).unwrap_or(u32::MAX);
            self.unchecked = self.unchecked.saturating_add(1).saturating_add(weight);
            if self.unchecked >= crate::call_budget::CHECK_EVERY {
                self.unchecked = 0;
                crate::call_budget::check()?;
            }
            if budget.is_spent() {
                return Ok(RowEnd::Paused);
            }
            self.cells_examined += 1;
            let before = out.len();
            let f = filter.as_mut().map(|f| &mut **f as &mut dyn Filter);
            match self.matcher.match_cell(kv, &self.family, f) {
                MatchCode::Include => {
                    self.cursor.take_cell(&self.family, out)?;
                }
                MatchCode::IncludeAndSeekNextCol => {
                    if self.cursor.take_cell(&self.family, out)? {
                        Self::skip_column(
                            &mut self.cursor,
                            &mut self.seeks,
                            row,
                            self.matcher.column(),
                        )?;
                    }
                }
                MatchCode::IncludeAndSeekNextRow => {
                    if self.single_row {
                        // A Get's last wanted column: nothing after it is read (the next cell
                        // may open a block the Get does not need); rewritten like every
                        // included cell.
                        self.cursor.take_last_cell(&self.family, out)?;
                        transform_last(filter.as_deref(), out, before);
                        budget.charge(out, before);
                        return Ok(RowEnd::Finished);
                    }
                    self.cursor.take_cell(&self.family, out)?;
                    self.skip_row(row)?;
                }
                MatchCode::Skip => self.cursor.advance()?,
                MatchCode::SeekNextCol => {
                    // The matcher holds a copy of the column: the cursor moves under the cell.
                    Self::skip_column(
                        &mut self.cursor,
                        &mut self.seeks,
                        row,
                        self.matcher.column(),
                    )?;
                }
                MatchCode::SeekNextRow => {
                    if self.single_row {
                        return Ok(RowEnd::Finished);
                    }
                    self.skip_row(row)?;
                }
                MatchCode::SeekTo(key) => {
                    self.seeks += 1;
                    self.cursor.seek_forward(&key)?
                }
                MatchCode::DoneScan => {
                    self.done = true;
                    return Ok(RowEnd::Finished);
                }
            }
            transform_last(filter.as_deref(), out, before);
            budget.charge(out, before);
            for c in out.get(before..).unwrap_or_default() {
                self.uncharged += c.heap_size();
            }
            if self.uncharged >= crate::call_budget::CHARGE_CHUNK {
                crate::call_budget::charge(std::mem::take(&mut self.uncharged))?;
            }
        }
    }
}

/// The filter rewrites each cell it included, at once (HBase's `StoreScanner.next` calls
/// `transformCell` after the match), while it still knows which of its members included that
/// cell: the cell `out` gained past `before`, if any.
fn transform_last(filter: Option<&dyn Filter>, out: &mut Vec<Cell>, before: usize) {
    if let Some(f) = filter.filter(|f| f.transforms_cells()) {
        if let Some(cell) = (out.len() > before).then(|| out.pop()).flatten() {
            out.push(f.transform_cell(cell));
        }
    }
}
