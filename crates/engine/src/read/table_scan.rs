//! Table scanning: walks a table's regions in key order (or reversed), opening a
//! [`RegionScanner`] on each when reached (HBase's client-side scanner over regions). Opened
//! through the read path's door, `table_read.rs`.

use super::read_context::ReadContext;
use super::read_cost::{CostRecording, ReadCost};
use super::region_scanner::{ReadRequest, RegionScanner, RowRange};
use super::store_scanner::PieceBudget;
use crate::api::{RowResult, Scan};
use crate::cell::same_bytes;
use crate::error::{Error, Result};
use crate::region::{CloseReason, Region, TableEntry};
use crate::schema::{TableDescriptor, TableName};
use std::borrow::Cow;
use std::ops::Bound;
use std::sync::Arc;

/// A scan over a table's regions, opening each region when reached.
pub(crate) struct TableScan {
    ctx: Arc<dyn ReadContext>,
    table: TableName,
    req: ReadRequest<'static>,
    range: RowRange,
    /// What one result may hold; `None` for whole rows.
    piece: Option<PieceBudget>,
    /// The row of the last result when that was a piece flagged as going on. The flag only
    /// says more cells of the row may follow (HBase's `mayHaveMoreCellsInRow`): the next piece
    /// may be another row's when the rest of this one is filtered out, and this row is then
    /// complete all the same.
    in_row: Option<Vec<u8>>,
    limit: Option<usize>,
    read_point: u64,
    current: Option<(Arc<Region>, RegionScanner)>,
    /// Forward: the next region starts at this row. Reversed: the next region ends here.
    next_boundary: Option<Vec<u8>>,
    rows: usize,
    done: bool,
    /// What the scan has cost so far, when it explains itself ([`Scan::explain`]).
    cost: Option<ReadCost>,
}

impl TableScan {
    /// A scan of `table`, whose `entry` the door (`table_read.rs`) has checked.
    pub(super) fn open(
        ctx: Arc<dyn ReadContext>,
        table: TableName,
        entry: &TableEntry,
        scan: &Scan,
    ) -> Result<TableScan> {
        let b = |row: &[u8], inclusive: bool| {
            if row.is_empty() {
                Bound::Unbounded
            } else if inclusive {
                Bound::Included(row.to_vec())
            } else {
                Bound::Excluded(row.to_vec())
            }
        };
        let start = b(&scan.start_row, scan.start_inclusive);
        let stop = b(&scan.stop_row, scan.stop_inclusive);
        let range = if scan.reversed {
            RowRange {
                lo: stop,
                hi: start,
            }
        } else {
            RowRange {
                lo: start,
                hi: stop,
            }
        };
        check_scan_settings(scan)?;
        check_reversed_loads_every_family(scan, &entry.descriptor)?;
        let read_point = ctx.register_read_point(scan.read_point);
        Ok(TableScan {
            req: ReadRequest {
                spec: Cow::Owned(scan.spec.clone()),
                get_row: None,
                expected_rows: scan.limit.map(|n| n as u64),
                reversed: scan.reversed,
            },
            ctx,
            table,
            range,
            piece: piece_budget(scan),
            in_row: None,
            limit: scan.limit,
            read_point,
            current: None,
            next_boundary: None,
            rows: 0,
            done: false,
            cost: scan.explain.then(ReadCost::default),
        })
    }

    fn open_next_region(&mut self) -> Result<bool> {
        let entry = self.ctx.enabled_table(&self.table)?;
        let region = if self.req.reversed {
            match (&self.next_boundary, &self.range.hi) {
                (Some(b), _) => entry.region_before(b),
                (None, Bound::Unbounded) => entry.regions.last().cloned(),
                (None, Bound::Included(h)) => Some(entry.region_for(h)),
                (None, Bound::Excluded(h)) => entry.region_before(h),
            }
        } else {
            Some(match (&self.next_boundary, &self.range.lo) {
                (Some(b), _) => entry.region_for(b),
                (None, Bound::Unbounded) => entry.regions[0].clone(),
                (None, Bound::Included(l)) | (None, Bound::Excluded(l)) => entry.region_for(l),
            })
        };
        let Some(region) = region else {
            return Ok(false);
        };
        let mut range = self.range.clone();
        if let Some(b) = &self.next_boundary {
            if self.req.reversed {
                range.hi = tighter_hi(range.hi, b.clone());
            } else {
                range.lo = tighter_lo(range.lo, b.clone());
            }
        }
        let rs = RegionScanner::open(&*self.ctx, &region, &self.req, range, self.read_point)?;
        self.current = Some((region, rs));
        Ok(true)
    }

    /// What the scan has cost so far, when it explains itself (the open region's rows, cells
    /// and seeks included).
    pub(crate) fn cost(&self) -> Option<ReadCost> {
        let mut cost = self.cost?;
        if let Some((_, rs)) = &self.current {
            cost.add(&rs.pending_cost());
        }
        Some(cost)
    }

    /// The next result; with [`Scan::explain`], its cost is added to the scan's.
    pub(crate) fn next(&mut self) -> Result<Option<RowResult>> {
        let Some(so_far) = self.cost else {
            return self.next_result();
        };
        let recording = CostRecording::resume(so_far);
        let r = self.next_result();
        self.cost = Some(recording.finish());
        r
    }

    fn next_result(&mut self) -> Result<Option<RowResult>> {
        loop {
            if self.done || (self.in_row.is_none() && self.limit.is_some_and(|l| self.rows >= l)) {
                self.finish();
                return Ok(None);
            }
            if self.current.is_none() && !self.open_next_region()? {
                self.finish();
                return Ok(None);
            }
            let (region, rs) = self.current.as_mut().expect("a region is open");
            // A region closed under the scan by DDL ends it (HBase's region close fails open
            // scanners); a split parent's snapshot is still read to its end.
            match region.close_reason() {
                Some(CloseReason::Dropped) => {
                    return Err(Error::TableNotFound(self.table.to_string()));
                }
                Some(CloseReason::Truncated) => {
                    return Err(Error::RegionOffline {
                        table: self.table.to_string(),
                        region: region.id,
                        reason: "the table was truncated while the scanner was open".into(),
                    });
                }
                Some(CloseReason::Split) | None => {}
            }
            let next = match self.piece {
                None => rs.next_row()?.map(RowResult::of_cells),
                Some(budget) => rs
                    .next_piece(budget)?
                    .map(|p| RowResult::piece(p.cells, p.more_in_row)),
            };
            match next {
                Some(r) => {
                    let continues = self
                        .in_row
                        .as_deref()
                        .is_some_and(|row| same_bytes(row, r.row()));
                    if !continues {
                        // A new row: past the limit it is not returned, as HBase's
                        // `RSRpcServices.scan` stops on a row change once the limit is reached.
                        if self.limit.is_some_and(|l| self.rows >= l) {
                            self.finish();
                            return Ok(None);
                        }
                        self.rows += 1;
                        super::read_cost::record(|c| c.rows_returned += 1);
                    }
                    let cells = r.cells.len() as u64;
                    super::read_cost::record(|c| c.cells_returned += cells);
                    self.in_row = r.may_have_more_cells_in_row().then(|| r.row().to_vec());
                    return Ok(Some(r));
                }
                None => {
                    self.in_row = None;
                    let region = region.clone();
                    self.current = None;
                    let boundary = if self.req.reversed {
                        &region.start
                    } else {
                        &region.end
                    };
                    if boundary.is_empty() {
                        self.done = true;
                    } else {
                        let past = if self.req.reversed {
                            !self.range.above_lo(boundary)
                                || matches!(&self.range.lo, Bound::Included(l) if l == boundary)
                        } else {
                            !self.range.below_hi(boundary)
                        };
                        if past {
                            self.done = true;
                        }
                        self.next_boundary = Some(boundary.clone());
                    }
                }
            }
        }
    }

    /// The read point the scan reads at.
    pub(crate) fn read_point(&self) -> u64 {
        self.read_point
    }

    fn finish(&mut self) {
        self.done = true;
        self.current = None;
    }
}

impl Drop for TableScan {
    fn drop(&mut self) {
        self.ctx.release_read_point(self.read_point);
    }
}

/// What one result of `scan` may hold, or `None` for whole rows: `batch` cells, and
/// `max_result_size` bytes when partial results are allowed.
fn piece_budget(scan: &Scan) -> Option<PieceBudget> {
    let bytes = scan.max_result_size.filter(|_| scan.allow_partial_results);
    if scan.batch.is_none() && bytes.is_none() {
        return None;
    }
    Some(PieceBudget {
        cells_left: scan.batch.unwrap_or(usize::MAX),
        bytes_left: bytes.unwrap_or(usize::MAX),
    })
}

/// Settings HBase refuses to scan with, whatever the rows: a batch beside a filter that decides
/// whole rows (`has_filter_row`; the region server's `ProtobufUtil.toScan` sets the batch after
/// the filter, so `Scan.setBatch` throws `IncompatibleFilterException`).
fn check_scan_settings(scan: &Scan) -> Result<()> {
    if let Some(f) = &scan.filter {
        if scan.batch.is_some() && f.has_filter_row() {
            return Err(Error::IncompatibleScan(
                "Cannot set batch on a scan using a filter that returns true for \
                 filter.hasFilterRow"
                    .into(),
            ));
        }
    }
    Ok(())
}

/// HBase's reversed region scanner cannot load families on demand (`ReversedRegionScannerImpl`
/// throws `DoNotRetryIOException` when it opens): with a filter, a family of the scan (every
/// family of the table when the scan names none) that the filter does not need to decide a row
/// (`is_family_essential` false, e.g. beside a SingleColumnValueFilter whose `filterIfMissing`
/// is true) would be loaded on demand, so the scan is refused.
fn check_reversed_loads_every_family(scan: &Scan, table: &TableDescriptor) -> Result<()> {
    let Some(f) = scan.filter.as_ref().filter(|_| scan.reversed) else {
        return Ok(());
    };
    let on_demand = if scan.columns.is_empty() {
        table
            .families
            .iter()
            .any(|c| !f.is_family_essential(&c.name))
    } else {
        scan.columns.keys().any(|c| !f.is_family_essential(c))
    };
    if on_demand {
        return Err(Error::IncompatibleScan(
            "Reverse scan with loading CFs on demand is not supported".into(),
        ));
    }
    Ok(())
}

fn tighter_lo(lo: Bound<Vec<u8>>, b: Vec<u8>) -> Bound<Vec<u8>> {
    match &lo {
        Bound::Included(l) | Bound::Excluded(l) if *l >= b => lo,
        _ => Bound::Included(b),
    }
}

fn tighter_hi(hi: Bound<Vec<u8>>, b: Vec<u8>) -> Bound<Vec<u8>> {
    match &hi {
        Bound::Included(h) | Bound::Excluded(h) if *h < b => hi,
        _ => Bound::Excluded(b),
    }
}
