//! Filters that decide by row key: PrefixFilter, InclusiveStopFilter, RowFilter,
//! MultiRowRangeFilter, RandomRowFilter, PageFilter.

use super::{CellRef, Comparator, CompareOp, Filter, ReturnCode};
use crate::cell::prefix_successor;

/// Rows starting with a prefix; ends the region's scan once past it (HBase's `PrefixFilter`).
///
/// As HBase's, the row's verdict is kept for `filter_cell` (NEXT_ROW) and `filter_row`, and
/// `reset` sets it to "excluded" until `filter_row_key` has looked at the row: in an OR list
/// that no longer asks it (it is past the prefix), it votes to drop every row.
#[derive(Debug, Clone)]
pub struct PrefixFilter {
    prefix: Vec<u8>,
    reversed: bool,
    passed: bool,
    row_out: bool,
}

impl PrefixFilter {
    /// Rows starting with `prefix`.
    pub fn new(prefix: impl Into<Vec<u8>>) -> Self {
        PrefixFilter {
            prefix: prefix.into(),
            reversed: false,
            passed: false,
            row_out: true,
        }
    }
}

impl Filter for PrefixFilter {
    fn reset(&mut self) {
        self.row_out = true;
    }
    fn filter_all_remaining(&self) -> bool {
        self.passed
    }
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        // HBase compares only rows at least as long as the prefix; shorter ones are dropped
        // without a verdict.
        if self.passed || row.len() < self.prefix.len() {
            return true;
        }
        let head = &row[..self.prefix.len()];
        let cmp = head.cmp(&self.prefix[..]);
        if (!self.reversed && cmp.is_gt()) || (self.reversed && cmp.is_lt()) {
            self.passed = true;
        }
        self.row_out = cmp.is_ne();
        self.row_out
    }
    row_verdict!();

    fn next_row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        if self.reversed {
            // The largest row starting with the prefix is below its successor.
            let succ = prefix_successor(&self.prefix)?;
            (row >= &succ[..]).then_some(succ)
        } else {
            (row < &self.prefix[..]).then(|| self.prefix.clone())
        }
    }
    fn set_reversed(&mut self, r: bool) {
        self.reversed = r;
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Rows up to and including a stop row (HBase's `InclusiveStopFilter`).
#[derive(Debug, Clone)]
pub struct InclusiveStopFilter {
    stop: Vec<u8>,
    reversed: bool,
    done: bool,
}

impl InclusiveStopFilter {
    /// Stops after `stop`.
    pub fn new(stop: impl Into<Vec<u8>>) -> Self {
        InclusiveStopFilter {
            stop: stop.into(),
            reversed: false,
            done: false,
        }
    }
}

/// As HBase's: once past the stop row its cells answer NEXT_ROW, but it has no `filter_row`,
/// so in an OR list it never votes to drop a row.
impl Filter for InclusiveStopFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }
    fn filter_cell(&mut self, _c: &CellRef<'_>) -> ReturnCode {
        if self.done {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        let past = if self.reversed {
            row < &self.stop[..]
        } else {
            row > &self.stop[..]
        };
        if past {
            self.done = true;
        }
        past
    }
    fn set_reversed(&mut self, r: bool) {
        self.reversed = r;
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Rows whose key compares with the comparator under the operator (HBase's `RowFilter`).
#[derive(Debug, Clone)]
pub struct RowFilter {
    op: CompareOp,
    cmp: Comparator,
    /// The current row failed the comparison (HBase's `filterOutRow`).
    row_out: bool,
}

impl RowFilter {
    /// Rows with `row OP comparator`.
    pub fn new(op: CompareOp, cmp: Comparator) -> Self {
        RowFilter {
            op,
            cmp,
            row_out: false,
        }
    }
}

impl Filter for RowFilter {
    fn reset(&mut self) {
        self.row_out = false;
    }
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if !self.cmp.matches(self.op, row) {
            self.row_out = true;
        }
        self.row_out
    }
    row_verdict!();

    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// One range of a [`MultiRowRangeFilter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    /// Start row (empty = unbounded).
    pub start: Vec<u8>,
    /// Whether `start` is included.
    pub start_inclusive: bool,
    /// Stop row (empty = unbounded).
    pub stop: Vec<u8>,
    /// Whether `stop` is included.
    pub stop_inclusive: bool,
}

impl RowRange {
    fn contains(&self, row: &[u8]) -> bool {
        let above = self.start.is_empty()
            || row > &self.start[..]
            || (self.start_inclusive && row == &self.start[..]);
        let below = self.stop.is_empty()
            || row < &self.stop[..]
            || (self.stop_inclusive && row == &self.stop[..]);
        above && below
    }
}

/// Rows inside any of several ranges, seeking from one range to the next (HBase's
/// `MultiRowRangeFilter`).
#[derive(Debug, Clone)]
pub struct MultiRowRangeFilter {
    ranges: Vec<RowRange>,
    reversed: bool,
    done: bool,
    /// The current row lies in no range.
    row_out: bool,
}

impl MultiRowRangeFilter {
    /// Rows in any of `ranges` (sorted and merged as given).
    pub fn new(mut ranges: Vec<RowRange>) -> Self {
        ranges.sort_by(|a, b| a.start.cmp(&b.start));
        MultiRowRangeFilter {
            ranges,
            reversed: false,
            done: false,
            row_out: false,
        }
    }
}

impl Filter for MultiRowRangeFilter {
    /// A HintingFilter in HBase: AND lists ask it about cells an earlier member rejected.
    fn is_hinting(&self) -> bool {
        true
    }
    fn reset(&mut self) {
        self.row_out = false;
    }
    fn filter_all_remaining(&self) -> bool {
        self.done
    }
    row_verdict!();
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.ranges.iter().any(|r| r.contains(row)) {
            return false;
        }
        self.row_out = true;
        let more = if self.reversed {
            self.ranges
                .iter()
                .any(|r| r.start.is_empty() || r.start.as_slice() < row)
        } else {
            self.ranges
                .iter()
                .any(|r| r.stop.is_empty() || r.stop.as_slice() > row)
        };
        if !more {
            self.done = true;
        }
        true
    }
    fn next_row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        if self.reversed {
            // The nearest range below: seek to just above its stop.
            self.ranges
                .iter()
                .filter(|r| !r.stop.is_empty() && r.stop.as_slice() < row)
                .map(|r| {
                    let mut s = r.stop.clone();
                    if r.stop_inclusive {
                        s.push(0);
                    }
                    s
                })
                .max()
        } else {
            self.ranges
                .iter()
                .filter(|r| r.start.as_slice() > row)
                .map(|r| {
                    let mut s = r.start.clone();
                    if !r.start_inclusive {
                        s.push(0);
                    }
                    s
                })
                .min()
        }
    }
    fn set_reversed(&mut self, r: bool) {
        self.reversed = r;
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Keeps each row with a given probability (HBase's `RandomRowFilter`); a fixed seed makes
/// runs repeatable.
#[derive(Debug, Clone)]
pub struct RandomRowFilter {
    chance: f32,
    state: u64,
    /// The dice dropped the current row.
    row_out: bool,
}

impl RandomRowFilter {
    /// Keeps a row with probability `chance` (0..=1).
    pub fn new(chance: f32) -> Self {
        RandomRowFilter {
            chance,
            state: 0x9e37_79b9_7f4a_7c15,
            row_out: false,
        }
    }
}

impl Filter for RandomRowFilter {
    fn reset(&mut self) {
        self.row_out = false;
    }
    row_verdict!();
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        self.row_out = self.roll(row);
        self.row_out
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

impl RandomRowFilter {
    fn roll(&mut self, _row: &[u8]) -> bool {
        if self.chance <= 0.0 {
            return true;
        }
        if self.chance >= 1.0 {
            return false;
        }
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let x = (self.state >> 40) as f32 / (1u64 << 24) as f32;
        x >= self.chance
    }
}

/// At most `page_size` rows per region (HBase's `PageFilter`; clients cap the total).
#[derive(Debug, Clone)]
pub struct PageFilter {
    page_size: u64,
    accepted: u64,
}

impl PageFilter {
    /// At most `page_size` rows.
    pub fn new(page_size: u64) -> Self {
        PageFilter {
            page_size,
            accepted: 0,
        }
    }
}

impl Filter for PageFilter {
    fn filter_all_remaining(&self) -> bool {
        self.accepted >= self.page_size
    }
    fn has_filter_row(&self) -> bool {
        true
    }
    fn filter_row(&mut self) -> bool {
        self.accepted += 1;
        self.accepted > self.page_size
    }
    fn clone_box(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
