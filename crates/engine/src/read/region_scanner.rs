//! Region scanning: merges the stores of one region row by row, forward or reversed (HBase's
//! `RegionScanner`); a Get reads one row with it (`table_read.rs`). Walking a table's regions is
//! `table_scan.rs`.

use super::read_context::ReadContext;
use super::store_scanner::{PieceBudget, RowEnd, StoreScanner};
use crate::api::ReadSpec;
use crate::cell::{cmp_bytes, same_bytes, Cell, CellKey, MAX_ROW_LENGTH};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::region::Region;
use std::borrow::Cow;
use std::ops::Bound;
use std::sync::Arc;

/// Row bounds of a read, in ascending key order whatever the direction.
#[derive(Debug, Clone)]
pub(crate) struct RowRange {
    pub lo: Bound<Vec<u8>>,
    pub hi: Bound<Vec<u8>>,
}

impl RowRange {
    /// True when `row` is not below the range.
    pub(crate) fn above_lo(&self, row: &[u8]) -> bool {
        match &self.lo {
            Bound::Unbounded => true,
            Bound::Included(l) => cmp_bytes(row, l).is_ge(),
            Bound::Excluded(l) => cmp_bytes(row, l).is_gt(),
        }
    }

    /// True when `row` is not above the range.
    pub(crate) fn below_hi(&self, row: &[u8]) -> bool {
        match &self.hi {
            Bound::Unbounded => true,
            Bound::Included(h) => cmp_bytes(row, h).is_le(),
            Bound::Excluded(h) => cmp_bytes(row, h).is_lt(),
        }
    }

    /// Clips to a region's [start, end).
    fn clip(&self, r: &Region) -> RowRange {
        let lo = match &self.lo {
            Bound::Unbounded => Bound::Included(r.start.clone()),
            Bound::Included(l) if cmp_bytes(l, &r.start).is_lt() => {
                Bound::Included(r.start.clone())
            }
            Bound::Excluded(l) if cmp_bytes(l, &r.start).is_lt() => {
                Bound::Included(r.start.clone())
            }
            b => b.clone(),
        };
        let hi = if r.end.is_empty() {
            self.hi.clone()
        } else {
            match &self.hi {
                Bound::Included(h) if cmp_bytes(h, &r.end).is_lt() => Bound::Included(h.clone()),
                Bound::Excluded(h) if cmp_bytes(h, &r.end).is_le() => Bound::Excluded(h.clone()),
                _ => Bound::Excluded(r.end.clone()),
            }
        };
        RowRange { lo, hi }
    }
}

/// What a read asks of every store.
#[derive(Debug, Clone)]
pub(crate) struct ReadRequest<'a> {
    /// The `Get`'s or `Scan`'s read settings; each region scanner reads with its own copy of
    /// the filter (filters keep per-scan state).
    pub spec: Cow<'a, ReadSpec>,
    /// The row of a Get (a scan of one row that stops at its end).
    pub get_row: Option<&'a [u8]>,
    /// A scan's row limit: how far files read ahead of a seek into blocks not in the page cache.
    pub expected_rows: Option<u64>,
    /// A reversed scan: rows in descending order (cells within a row still ascending); false
    /// for a Get.
    pub reversed: bool,
}

/// A read as every store of a region sees it: the read itself (its `ReadSpec`, a Get's row, a
/// scan's expected rows and direction), borrowed, and what only the stores need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoreRead<'a> {
    /// The read.
    pub request: &'a ReadRequest<'a>,
    /// The sequence id up to which cells are visible.
    pub read_point: u64,
    /// The read's time in milliseconds: TTL expiry is decided against it.
    pub now_ms: i64,
    /// The rows the read may return from this region (its range clipped to the region):
    /// files with no row in it are left out.
    pub rows: &'a RowRange,
    /// The region's table (for the family's counters).
    pub table: &'a crate::schema::TableName,
}

/// A piece of a row returned by [`RegionScanner::next_piece`].
#[derive(Debug)]
pub struct Piece {
    /// The cells, in family order.
    pub cells: Vec<Cell>,
    /// The budget ran out inside the row: more of it may follow (HBase's
    /// `Result.mayHaveMoreCellsInRow`).
    pub more_in_row: bool,
    /// The piece used up its budget (it may still have ended with its row).
    pub budget_spent: bool,
}

/// The row a scanner is returning in pieces.
#[derive(Debug, Clone, Copy)]
struct OpenRow {
    /// The store being read (stores before it are done with the row).
    store: usize,
    /// That store has begun the row: its matcher's state carries on.
    resumed: bool,
    /// No piece of the row has been returned yet.
    first_piece: bool,
}

/// Room for cells before the first row's size is known.
const FIRST_ROW_CELLS: usize = 128;

/// Scans one region's stores row by row.
pub struct RegionScanner {
    /// The stores read, the filter's essential families first (in family order), then the
    /// families it loads on demand.
    stores: Vec<StoreScanner>,
    /// How many of `stores` (from the front) the filter needs to decide a row: the others are
    /// read only for rows it keeps (HBase's joined heap, `isFamilyEssential`).
    essential: usize,
    range: RowRange,
    reversed: bool,
    /// Reversed: the exclusive upper bound for the next row (`None` = unbounded).
    upper: Option<Vec<u8>>,
    started: bool,
    /// A Get: one row is read, then the scanner is done (its stores are not moved past it).
    single_row: bool,
    done: bool,
    /// This region's own copy of the read's filter.
    filter: Option<Box<dyn Filter>>,
    metrics: Arc<crate::metrics::Metrics>,
    /// Rows looked at, added to the shared `rows_examined` counter when the scanner is dropped:
    /// a locked increment per row was a tenth of the scanner's own time on cached scans.
    rows_examined: u64,
    /// The current row's key, copied out of its block (cheaper than a shared handle on it: the
    /// block's reference count is not touched), and reused from row to row.
    row_buf: Vec<u8>,
    /// Room the next row's cell vector starts with: what the previous row returned, and
    /// `FIRST_ROW_CELLS` for the first, so a wide row is not copied through a series of
    /// doubling reallocations (a tenth of a 100-column Get was spent in those copies).
    cells_hint: usize,
    /// The row being returned in pieces, if a piece ended inside it.
    open_row: Option<OpenRow>,
    /// The largest row a Get reads whole (`EngineOptions::max_row_size`; unbounded in scans).
    max_row_size: usize,
}

impl std::fmt::Debug for RegionScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegionScanner")
            .field("reversed", &self.reversed)
            .finish()
    }
}

impl Drop for RegionScanner {
    fn drop(&mut self) {
        crate::metrics::Metrics::add(&self.metrics.rows_examined, self.rows_examined);
        let rows = self.rows_examined;
        super::read_cost::record(|c| c.rows_examined += rows);
    }
}

impl RegionScanner {
    /// Opens a scanner of `region`'s rows in `range` (clipped to the region) as of
    /// `read_point`: the one way a read enters a region, a Get's one row included.
    pub(crate) fn open(
        ctx: &dyn ReadContext,
        region: &Region,
        req: &ReadRequest<'_>,
        range: RowRange,
        read_point: u64,
    ) -> Result<RegionScanner> {
        let range = range.clip(region);
        super::read_cost::record(|c| c.regions_visited += 1);
        let read = StoreRead {
            request: req,
            read_point,
            now_ms: ctx.now_ms(),
            rows: &range,
            table: &region.table,
        };
        let reversed = req.reversed;
        let mut stores = Vec::new();
        for store in region.stores().into_values() {
            if let Some(s) = store.scanner(&read, ctx.metrics()) {
                stores.push(s);
            }
        }
        let mut filter = req.spec.filter.clone();
        if let Some(f) = filter.as_mut() {
            f.set_reversed(reversed);
        }
        // HBase loads the families a filter does not need on demand (the region server's
        // default, hbase.hregion.scan.loadColumnFamiliesOnDemand); reversed scans that would
        // are refused before this. Only filters that decide whole rows leave a family out.
        let on_demand = filter.as_ref().filter(|f| !reversed && f.has_filter_row());
        let essential = match on_demand {
            Some(f) => {
                let (mut first, joined): (Vec<_>, Vec<_>) = stores
                    .into_iter()
                    .partition(|s| f.is_family_essential(s.family()));
                let n = first.len();
                first.extend(joined);
                stores = first;
                n
            }
            None => stores.len(),
        };
        Ok(RegionScanner {
            stores,
            essential,
            upper: None,
            range,
            reversed,
            started: false,
            single_row: req.get_row.is_some(),
            done: false,
            filter,
            metrics: ctx.metrics().clone(),
            rows_examined: 0,
            row_buf: Vec::new(),
            cells_hint: FIRST_ROW_CELLS,
            open_row: None,
            // HBase's hbase.table.max.rowsize stops Gets; its scans always return rows in pieces
            // (the client stitches them), so a scan of whole rows is never refused for size.
            max_row_size: if req.get_row.is_some() {
                ctx.max_row_size()
            } else {
                usize::MAX
            },
        })
    }

    /// What the scanner has counted and not yet added to the read's cost (it adds its rows,
    /// cells and seeks when it closes): for a look at a scan's cost while it is in a region.
    pub(crate) fn pending_cost(&self) -> super::ReadCost {
        let mut cost = super::ReadCost {
            rows_examined: self.rows_examined,
            ..super::ReadCost::default()
        };
        for s in &self.stores {
            let (cells, seeks) = s.pending_cost();
            cost.cells_examined += cells;
            cost.seeks += seeks;
        }
        cost
    }

    fn start(&mut self) -> Result<()> {
        self.started = true;
        if self.reversed {
            self.upper = match &self.range.hi {
                Bound::Unbounded => None,
                Bound::Excluded(h) => Some(h.clone()),
                Bound::Included(h) => {
                    let mut h = h.clone();
                    h.push(0);
                    Some(h)
                }
            };
            return Ok(());
        }
        let key = match &self.range.lo {
            Bound::Unbounded => CellKey::first_on_row(b""),
            Bound::Included(l) => CellKey::first_on_row(l),
            Bound::Excluded(l) => CellKey::after_row(l),
        };
        for s in &mut self.stores {
            s.seek_row(&key.row)?;
        }
        Ok(())
    }

    /// The cells of the next row with anything to return, in family order. In a Get, a row
    /// larger than `max_row_size` is [`Error::RowTooBig`] (HBase's `RowTooBigException`), found
    /// once that much of it has been read.
    pub fn next_row(&mut self) -> Result<Option<Vec<Cell>>> {
        match self.next_piece(self.whole_row_budget())? {
            Some(p) if p.more_in_row || p.budget_spent => Err(self.row_too_big()),
            p => Ok(p.map(|p| p.cells)),
        }
    }

    /// The next piece of the scan: the rest of the current row or the next row with anything
    /// to return, in family order, ending early once `budget` is spent (then `more_in_row`
    /// is set and the next call goes on inside the row, exactly where this one stopped, with
    /// versions, deletes and the read point unchanged). A row whose filter judges it whole
    /// (`has_filter_row`) is always read whole.
    pub fn next_piece(&mut self, budget: PieceBudget) -> Result<Option<Piece>> {
        if !self.started {
            self.start()?;
        }
        let whole_rows = self.filter.as_ref().is_some_and(|f| f.has_filter_row());
        let budget = if whole_rows {
            self.whole_row_budget()
        } else {
            budget
        };
        let mut row = std::mem::take(&mut self.row_buf);
        let r = self.next_piece_into(&mut row, budget);
        self.row_buf = row;
        match r {
            Ok(Some(p)) if whole_rows && (p.more_in_row || p.budget_spent) => {
                Err(self.row_too_big())
            }
            r => r,
        }
    }

    /// A whole row: any number of cells, up to `max_row_size` bytes.
    fn whole_row_budget(&self) -> PieceBudget {
        PieceBudget {
            cells_left: usize::MAX,
            bytes_left: self.max_row_size,
        }
    }

    fn row_too_big(&self) -> Error {
        Error::RowTooBig {
            row: String::from_utf8_lossy(&self.row_buf).into_owned(),
            limit: self.max_row_size,
        }
    }

    /// Starts the next row with anything in it (the filter's row-key stage passed), with its
    /// key in `row`. False when the scan is done.
    fn begin_row(&mut self, row: &mut Vec<u8>) -> Result<bool> {
        loop {
            // HBase resets the filter after each row, then asks `filterAllRemaining`: a filter
            // whose reset clears it (ColumnCountGetFilter) goes on to the next row.
            if let Some(f) = self.filter.as_mut() {
                f.reset();
            }
            if self.done
                || self
                    .filter
                    .as_ref()
                    .is_some_and(|f| f.filter_all_remaining())
            {
                return Ok(false);
            }
            // Past the call's heartbeat deadline (a door's scan call, HBase's scanner time
            // limit), the scan stops here, between rows, its position kept: the next call
            // begins the next row. `row` still holds the last row looked at, the cursor.
            if !self.single_row && crate::call_budget::heartbeat_due() {
                return Err(Error::Heartbeat {
                    cursor: (!row.is_empty()).then(|| row.clone()),
                });
            }
            if !self.next_candidate(row)? {
                return Ok(false);
            }
            self.done = self.single_row;
            self.rows_examined += 1;
            crate::call_budget::looked_at_row();
            if self
                .rows_examined
                .is_multiple_of(u64::from(crate::call_budget::CHECK_EVERY))
            {
                crate::call_budget::check()?;
            }
            if let Some(f) = self.filter.as_mut() {
                if f.filter_row_key(row) {
                    let hint = f.next_row_hint(row);
                    if !f.filter_all_remaining() {
                        self.drain_row(row)?;
                    }
                    self.skip_row(row, hint)?;
                    continue;
                }
            }
            self.open_row = Some(OpenRow {
                store: 0,
                resumed: false,
                first_piece: true,
            });
            return Ok(true);
        }
    }

    /// `next_piece`, with `row` the buffer for the row key.
    fn next_piece_into(&mut self, row: &mut Vec<u8>, budget: PieceBudget) -> Result<Option<Piece>> {
        loop {
            if self.open_row.is_none() && !self.begin_row(row)? {
                return Ok(None);
            }
            let mut open = self.open_row.take().expect("a row is open");
            let row = &row[..];
            let mut left = budget;
            let mut cells = Vec::with_capacity(self.cells_hint.min(budget.cells_left));
            let on_demand = self.essential < self.stores.len();
            let mut paused =
                self.read_stores(row, &mut open, &mut cells, &mut left, self.essential)?;
            // With families loaded on demand (only for filters that decide whole rows), the
            // row is decided on the essential families' cells, as HBase's RegionScannerImpl
            // does: none there drops the row; then `filter_row_cells` and `filter_row`; the
            // other families are read only for a row kept, their cells put in family order.
            let mut decided = false;
            if on_demand && !paused && open.first_piece {
                let f = self
                    .filter
                    .as_mut()
                    .expect("families load on demand only with a filter");
                let empty = cells.is_empty();
                f.filter_row_cells(&mut cells);
                if empty || (!cells.is_empty() && f.filter_row()) {
                    self.skip_joined_stores(row)?;
                    self.drop_done_stores();
                    continue;
                }
                decided = true;
                let before = cells.len();
                paused =
                    self.read_stores(row, &mut open, &mut cells, &mut left, self.stores.len())?;
                if cells.len() > before {
                    cells.sort_by(|a, b| cmp_bytes(a.family(), b.family()));
                }
            } else if !paused {
                paused =
                    self.read_stores(row, &mut open, &mut cells, &mut left, self.stores.len())?;
            }
            let whole_row = open.first_piece && !paused;
            open.first_piece = false;
            if paused {
                self.open_row = Some(open);
            }
            // A store the filter ended (HBase's DONE_SCAN closes its scanner) reads no more.
            self.drop_done_stores();
            if let Some(f) = self.filter.as_mut() {
                if whole_row && !decided {
                    if f.has_filter_row() {
                        f.filter_row_cells(&mut cells);
                    }
                    if cells.is_empty() || f.filter_row() {
                        continue;
                    }
                }
            }
            if cells.is_empty() {
                continue;
            }
            self.cells_hint = cells.len();
            if cells.capacity() > 2 * cells.len() {
                // A result may be kept long after the read: no idle room in it.
                cells.shrink_to_fit();
            }
            return Ok(Some(Piece {
                cells,
                more_in_row: paused,
                budget_spent: left.cells_left == 0 || left.bytes_left == 0,
            }));
        }
    }

    /// Reads the open row from the stores `open.store..end` into `cells`; true when the budget
    /// ran out inside a store (the row is then resumed there).
    fn read_stores(
        &mut self,
        row: &[u8],
        open: &mut OpenRow,
        cells: &mut Vec<Cell>,
        left: &mut PieceBudget,
        end: usize,
    ) -> Result<bool> {
        while open.store < end {
            let s = &mut self.stores[open.store];
            if s.peek_row().is_some_and(|r| same_bytes(r, row)) {
                let filter = self.filter.as_mut().map(|f| f.as_mut() as &mut dyn Filter);
                if s.read_row(row, cells, filter, left, open.resumed)? == RowEnd::Paused {
                    open.resumed = true;
                    return Ok(true);
                }
            }
            if !self.reversed
                && !self.single_row
                && s.peek_row().is_some_and(|r| same_bytes(r, row))
            {
                // The matcher stopped early inside the row (all columns found).
                s.seek_forward(&CellKey::after_row(row))?;
            }
            open.store += 1;
            open.resumed = false;
        }
        Ok(false)
    }

    /// Reads a row the filter excluded by its key and drops its cells, as HBase's forward
    /// `RegionScannerImpl.nextRow` does (it moves past the row through the stores' scanners,
    /// whose matchers still ask the filter about each cell): a WHILE filter that rejects one of
    /// them ends the scan, and a ColumnCountGetFilter counting past its limit ends the store.
    /// Reversed scans and Gets skip the row unread, as HBase's do.
    fn drain_row(&mut self, row: &[u8]) -> Result<()> {
        if self.reversed || self.single_row {
            return Ok(());
        }
        let mut dropped = Vec::new();
        for s in &mut self.stores {
            if s.peek_row().is_some_and(|r| same_bytes(r, row)) {
                let mut budget = PieceBudget {
                    cells_left: usize::MAX,
                    bytes_left: usize::MAX,
                };
                let filter = self.filter.as_mut().map(|f| f.as_mut() as &mut dyn Filter);
                s.read_row(row, &mut dropped, filter, &mut budget, false)?;
                dropped.clear();
            }
        }
        self.drop_done_stores();
        Ok(())
    }

    /// Moves the stores loaded on demand past `row`, which the filter dropped unread.
    fn skip_joined_stores(&mut self, row: &[u8]) -> Result<()> {
        if self.single_row {
            return Ok(());
        }
        for s in &mut self.stores[self.essential..] {
            if s.peek_row().is_some_and(|r| same_bytes(r, row)) {
                s.seek_forward(&CellKey::after_row(row))?;
            }
        }
        Ok(())
    }

    /// Forgets the stores the filter ended (HBase's DONE_SCAN closes their scanners), keeping
    /// the count of essential ones.
    fn drop_done_stores(&mut self) {
        let mut i = 0;
        let mut essential = 0;
        let before = self.essential;
        self.stores.retain(|s| {
            let keep = !s.is_done();
            essential += usize::from(keep && i < before);
            i += 1;
            keep
        });
        self.essential = essential;
    }

    /// Finds the next row in scan order that any store holds, positioning the stores on it and
    /// copying its key into `row`. False when there is none.
    fn next_candidate(&mut self, row: &mut Vec<u8>) -> Result<bool> {
        if self.reversed {
            let mut best: Option<Vec<u8>> = None;
            for s in &mut self.stores {
                let cand = match &self.upper {
                    Some(u) => s.last_row_before(u)?,
                    None => s.last_row_before(&[0xff; MAX_ROW_LENGTH + 1])?,
                };
                if let Some(c) = cand {
                    if best.as_ref().is_none_or(|b| c > *b) {
                        best = Some(c);
                    }
                }
            }
            let Some(best) = best else { return Ok(false) };
            if !self.range.above_lo(&best) {
                return Ok(false);
            }
            for s in &mut self.stores {
                s.seek_row(&best)?;
            }
            row.clear();
            row.extend_from_slice(&best);
            self.upper = Some(best);
            Ok(true)
        } else {
            let mut best: Option<&[u8]> = None;
            for s in &self.stores {
                if let Some(r) = s.peek_row() {
                    if best.is_none_or(|b| cmp_bytes(r, b).is_lt()) {
                        best = Some(r);
                    }
                }
            }
            let Some(best) = best else { return Ok(false) };
            if !self.range.below_hi(best) {
                return Ok(false);
            }
            row.clear();
            row.extend_from_slice(best);
            Ok(true)
        }
    }

    /// Moves past `row`, or straight to `hint` (a row in scan direction) when a filter gave one.
    fn skip_row(&mut self, row: &[u8], hint: Option<Vec<u8>>) -> Result<()> {
        if self.reversed {
            // `upper` is exclusive: rows < hint are next; a hint equal to a row must stay visible.
            self.upper = Some(match hint {
                Some(mut h) if h.as_slice() < row => {
                    h.push(0);
                    h
                }
                _ => row.to_vec(),
            });
            return Ok(());
        }
        let key = match hint {
            Some(h) if h.as_slice() > row => CellKey::first_on_row(&h),
            _ => CellKey::after_row(row),
        };
        for s in &mut self.stores {
            s.seek_forward(&key)?;
        }
        Ok(())
    }
}
