//! A table handle of an embedded engine (HBase's `Table`).

use super::{Check, CheckedWrite, Delete, Get, Mutation, Put, RowResult, Scan};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::filter::CompareOp;
use crate::heat_map::{HeatOp, TableHeat};
use crate::metrics::Metrics;
use crate::read::{CostRecording, ReadCost, TimeRange};
use crate::schema::TableName;
use std::sync::{Arc, OnceLock};

/// Reads and writes one table. Cheap to clone; thread-safe.
#[derive(Debug, Clone)]
pub struct Table {
    pub(crate) engine: Engine,
    pub(crate) name: TableName,
    /// The table's heat map, looked up at the first operation that records one: every later
    /// one of this handle (and its threads) records without the engine's map of tables, its
    /// lock and a reference count.
    heat: OnceLock<Arc<TableHeat>>,
}

impl Table {
    pub(crate) fn new(engine: Engine, name: &str) -> Result<Table> {
        Ok(Table {
            engine,
            name: TableName::parse(name)?,
            heat: OnceLock::new(),
        })
    }

    /// Calls `f` with the table's heat, when recording is on and the table tracked.
    fn with_heat(&self, f: impl FnOnce(&TableHeat)) {
        if let Some(h) = self.heat.get() {
            if h.is_current() {
                return f(h);
            }
        }
        let Some(h) = self
            .engine
            .inner
            .heat
            .table(&self.name, || self.region_starts())
        else {
            return;
        };
        // Kept for the next operations unless a heat was kept already (one forgotten since:
        // its table was dropped, and this is the heat of the table made again).
        let kept = self.heat.get_or_init(|| h.clone());
        f(if Arc::ptr_eq(kept, &h) { kept } else { &h });
    }

    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    /// Writes one row atomically.
    pub fn put(&self, put: Put) -> Result<()> {
        self.mutate(vec![Mutation::Put(put)])
    }

    /// Writes many rows; each row is atomic, the batch as a whole is not.
    pub fn put_all(&self, puts: Vec<Put>) -> Result<()> {
        self.mutate(puts.into_iter().map(Mutation::Put).collect())
    }

    /// Applies one delete atomically.
    pub fn delete(&self, delete: Delete) -> Result<()> {
        self.mutate(vec![Mutation::Delete(delete)])
    }

    /// Applies many deletes.
    pub fn delete_all(&self, deletes: Vec<Delete>) -> Result<()> {
        self.mutate(deletes.into_iter().map(Mutation::Delete).collect())
    }

    /// Applies a batch of puts and deletes; each row's mutation is atomic.
    pub fn mutate(&self, mutations: Vec<Mutation>) -> Result<()> {
        self.with_heat(|heat| {
            self.engine
                .inner
                .heat
                .record_mutations_on(heat, &mutations, || self.region_starts())
        });
        self.engine.inner.mutate(&self.name, mutations)
    }

    /// The region start keys, for the heat map when it opens a bucket.
    fn region_starts(&self) -> Vec<crate::Bytes> {
        self.engine.region_starts(&self.name)
    }

    /// Counts a write of `bytes` to `row` in the heat map ([`crate::heat_map`]).
    fn heat_write(&self, row: &[u8], bytes: usize) {
        self.engine
            .inner
            .heat
            .record(&self.name, row, HeatOp::Write, bytes as u64, || {
                self.region_starts()
            });
    }

    /// Adds `amount` to each `(family, qualifier, amount)` column of `row`, treating a missing
    /// cell as 0, and returns the new values. Values are 8-byte big-endian signed longs, as in
    /// HBase; a cell of another length is an
    /// [`Error::IllegalArgument`](crate::Error::IllegalArgument). Atomic for the row;
    /// concurrent increments never lose an update.
    pub fn increment(&self, row: &[u8], columns: &[(&[u8], &[u8], i64)]) -> Result<Vec<i64>> {
        self.increment_with_ttl(row, columns, None)
    }

    /// [`Table::increment`] whose new cells get their own TTL in milliseconds (HBase's
    /// `Increment.setTTL`, see [`Put::ttl`]): once it passes, the counter reads as absent, and
    /// the next increment starts again from 0.
    pub fn increment_with_ttl(
        &self,
        row: &[u8],
        columns: &[(&[u8], &[u8], i64)],
        ttl_ms: Option<i64>,
    ) -> Result<Vec<i64>> {
        let cells = self.increment_cells(row, columns, ttl_ms)?;
        Ok(cells
            .cells
            .iter()
            .map(|c| {
                c.value()
                    .try_into()
                    .map(i64::from_be_bytes)
                    .unwrap_or_default()
            })
            .collect())
    }

    /// [`Table::increment_with_ttl`] answering the new cells (in `columns`' order, values
    /// 8-byte big-endian longs) with the timestamps they were written at, as HBase's
    /// `Table.increment` answers its `Result`.
    pub fn increment_cells(
        &self,
        row: &[u8],
        columns: &[(&[u8], &[u8], i64)],
        ttl_ms: Option<i64>,
    ) -> Result<RowResult> {
        let bytes = columns
            .iter()
            .map(|(f, q, _)| f.len() + q.len() + 8)
            .sum::<usize>();
        self.heat_write(row, row.len() + bytes);
        self.engine
            .inner
            .increment(&self.name, row, columns, ttl_ms)
    }

    /// Appends each `(family, qualifier, suffix)` to the current value (empty when absent) and
    /// returns the new cells, written at `max(old timestamp + 1, now)` as increments are.
    /// Atomic for the row.
    pub fn append(&self, row: &[u8], columns: &[(&[u8], &[u8], &[u8])]) -> Result<RowResult> {
        self.append_with_ttl(row, columns, None)
    }

    /// [`Table::append`] whose new cells get their own TTL in milliseconds (HBase's
    /// `Append.setTTL`, see [`Put::ttl`]).
    pub fn append_with_ttl(
        &self,
        row: &[u8],
        columns: &[(&[u8], &[u8], &[u8])],
        ttl_ms: Option<i64>,
    ) -> Result<RowResult> {
        let bytes = columns
            .iter()
            .map(|(f, q, v)| f.len() + q.len() + v.len())
            .sum::<usize>();
        self.heat_write(row, row.len() + bytes);
        self.engine.inner.append(&self.name, row, columns, ttl_ms)
    }

    /// Applies `mutations` (all on `row`: puts and deletes, as a RowMutations) only if the
    /// check holds, and returns whether they were applied. Atomic for the row.
    ///
    /// The check is HBase's: with `expected = Some(v)`, the newest value `actual` of
    /// `family:qualifier` must exist and satisfy `v OP actual` (so `Less` means the expected
    /// value is less than the stored one); with `None` or an empty value, the column must be
    /// absent or empty (with `NotEqual`: present and not empty).
    pub fn check_and_mutate(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        op: CompareOp,
        expected: Option<&[u8]>,
        mutations: Vec<Mutation>,
    ) -> Result<bool> {
        self.check_and_mutate_when(
            row,
            &Check::Value {
                family: family.to_vec(),
                qualifier: qualifier.to_vec(),
                op,
                expected: expected.map(<[u8]>::to_vec),
                time_range: TimeRange::default(),
            },
            mutations,
        )
    }

    /// Applies `mutations` (all on `row`: puts and deletes, as a RowMutations) only if `check`
    /// holds, and returns whether they were applied. Atomic for the row: the row is locked,
    /// read for the check and written before the lock is released.
    pub fn check_and_mutate_when(
        &self,
        row: &[u8],
        check: &Check,
        mutations: Vec<Mutation>,
    ) -> Result<bool> {
        let checked = match check {
            Check::Value {
                family, qualifier, ..
            } => family.len() + qualifier.len(),
            Check::Read(_) => 0,
        };
        self.heat_write(row, row.len() + checked);
        let (applied, _) = self.engine.inner.check_and_write(
            &self.name,
            row,
            check,
            &CheckedWrite::Mutations(mutations),
        )?;
        Ok(applied)
    }

    /// Writes `write` to `row` (puts and deletes, or an increment or append of its columns)
    /// only if `check` holds; returns whether it was written and, for an increment or append,
    /// the new cells (HBase's `CheckAndMutateResult`). Atomic for the row.
    pub fn check_and_write(
        &self,
        row: &[u8],
        check: &Check,
        write: &CheckedWrite,
    ) -> Result<(bool, Option<RowResult>)> {
        self.heat_write(row, row.len());
        self.engine
            .inner
            .check_and_write(&self.name, row, check, write)
    }

    /// Reads one row. An absent row gives an empty result.
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        let inner = &self.engine.inner;
        let result = inner.get(&self.name, get)?;
        count_returned(&inner.metrics, &result);
        if !result.cells.is_empty() {
            let cells = result.cells.len() as u64;
            crate::read::record_cost(|c| {
                c.rows_returned += 1;
                c.cells_returned += cells;
            });
        }
        self.with_heat(|heat| {
            inner
                .heat
                .record_read_on(heat, &result, || self.region_starts())
        });
        Ok(result)
    }

    /// Reads one row, as [`Table::get`], and answers what the read cost beside it (scan
    /// explain, [`ReadCost`]).
    pub fn get_explained(&self, get: &Get) -> Result<(RowResult, ReadCost)> {
        let recording = CostRecording::start();
        let result = self.get(get)?;
        Ok((result, recording.finish()))
    }

    /// Reads several rows, in order.
    pub fn get_all(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        gets.iter().map(|g| self.get(g)).collect()
    }

    /// True when the get would return any cell.
    pub fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get)?.is_empty())
    }

    /// Opens a scanner. It reads a consistent snapshot: writes completed after this call are
    /// not seen.
    pub fn scanner(&self, scan: &Scan) -> Result<ResultScanner> {
        Ok(ResultScanner {
            scan: crate::engine::TableScanHandle::new(&self.engine, self.name.clone(), scan)?,
            metrics: self.engine.inner.metrics.clone(),
            heat: self
                .engine
                .inner
                .heat
                .table(&self.name, || self.region_starts()),
            reads: None,
            table: self.clone(),
        })
    }

    /// Runs a scan to the end and collects every result.
    pub fn scan_all(&self, scan: &Scan) -> Result<Vec<RowResult>> {
        self.scanner(scan)?.collect()
    }
}

/// Iterates the results of a scan (HBase's `ResultScanner`).
pub struct ResultScanner {
    scan: crate::engine::TableScanHandle,
    metrics: std::sync::Arc<Metrics>,
    /// For the heat map: the table (its region starts) and its heat, looked up once.
    table: Table,
    heat: Option<std::sync::Arc<crate::heat_map::TableHeat>>,
    /// Rows returned and not yet counted in the heat map.
    reads: Option<crate::heat_map::ReadBatch>,
}

/// Counts a row answered in [`Metrics::rows_returned`] and its cells in
/// [`Metrics::cells_returned`].
fn count_returned(metrics: &Metrics, row: &RowResult) {
    if !row.cells.is_empty() {
        Metrics::inc(&metrics.rows_returned);
        Metrics::add(&metrics.cells_returned, row.cells.len() as u64);
    }
}

impl std::fmt::Debug for ResultScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResultScanner")
    }
}

impl ResultScanner {
    /// What the scan has cost so far when it was opened with [`Scan::explain`], else `None`.
    pub fn cost(&self) -> Option<ReadCost> {
        self.scan.cost()
    }

    /// Up to `n` more results (HBase's `next(int)`).
    pub fn next_batch(&mut self, n: usize) -> Result<Vec<RowResult>> {
        self.next_batch_within(n, usize::MAX)
    }

    /// Whether `rows`, a batch read for at most `n` results within `max_bytes`
    /// ([`ResultScanner::next_batch_within`], or [`ResultScanner::next_batch_or_heartbeat`]
    /// without its heartbeat), found the scanner's end: fewer than `n`, under the byte limit and
    /// not in the middle of a row (a batch stops early only at the byte limit).
    pub fn batch_found_end(rows: &[RowResult], n: usize, max_bytes: usize) -> bool {
        rows.len() < n
            && !rows.last().is_some_and(|r| r.may_have_more_cells_in_row())
            && ResultScanner::batch_bytes(rows) < max_bytes
    }

    /// The bytes of cells of `rows` as a batch's byte limit counts them (cells'
    /// [`crate::Cell::heap_size`]).
    pub fn batch_bytes(rows: &[RowResult]) -> usize {
        rows.iter()
            .flat_map(|r| r.cells.iter())
            .map(|c| c.heap_size())
            .sum()
    }

    /// Up to `n` results, stopping early once they hold `max_bytes` (cells'
    /// [`crate::Cell::heap_size`]; the result crossing it is kept, so at least one comes back).
    /// HBase's `hbase.server.scanner.max.result.size` per scanner call.
    pub fn next_batch_within(&mut self, n: usize, max_bytes: usize) -> Result<Vec<RowResult>> {
        let mut out = Vec::with_capacity(n.min(BATCH_RESERVE));
        let mut bytes = 0usize;
        while out.len() < n && bytes < max_bytes {
            match self.next() {
                Some(r) => {
                    let r = r?;
                    bytes = bytes.saturating_add(r.cells.iter().map(|c| c.heap_size()).sum());
                    out.push(r);
                }
                None => break,
            }
        }
        Ok(out)
    }
}

/// Results a batch reserves room for at once: a batch of up to this many grows its vector
/// no more (a thousand-row batch grew it ten times, copying and faulting in its pages), and
/// a batch asking for more rows than a scan holds reserves no more than this.
const BATCH_RESERVE: usize = 1024;

/// What one call of [`ResultScanner::next_batch_or_heartbeat`] read.
#[derive(Debug, Default)]
pub struct ScanBatch {
    /// The results, as [`ResultScanner::next_batch_within`] returns them.
    pub rows: Vec<RowResult>,
    /// The scan stopped early at its call's heartbeat deadline (more may follow).
    pub heartbeat: bool,
    /// With `heartbeat`: the last row the scan looked at, if known (HBase's scan cursor).
    pub cursor: Option<Vec<u8>>,
}

impl ResultScanner {
    /// As [`ResultScanner::next_batch_within`], but a scan that passes its call's heartbeat
    /// deadline ([`crate::call_budget::Heartbeat`]) stops between rows and returns what it has
    /// so far, with `heartbeat` set; the next call goes on exactly where it stopped.
    pub fn next_batch_or_heartbeat(&mut self, n: usize, max_bytes: usize) -> Result<ScanBatch> {
        let mut batch = ScanBatch {
            rows: Vec::with_capacity(n.min(BATCH_RESERVE)),
            ..ScanBatch::default()
        };
        let mut bytes = 0usize;
        while batch.rows.len() < n && bytes < max_bytes {
            match self.next() {
                Some(Ok(r)) => {
                    bytes = bytes.saturating_add(r.cells.iter().map(|c| c.heap_size()).sum());
                    batch.rows.push(r);
                }
                Some(Err(Error::Heartbeat { cursor })) => {
                    batch.heartbeat = true;
                    batch.cursor = cursor;
                    break;
                }
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        Ok(batch)
    }

    /// The read point the scan reads at: every write completed before it is visible, none
    /// after (HBase's `ScanResponse.mvcc_read_point`).
    pub fn read_point(&self) -> u64 {
        self.scan.read_point()
    }
}

impl ResultScanner {
    /// Counts the rows gathered for the heat map.
    fn flush_reads(&mut self) {
        if let Some(b) = self.reads.take() {
            let t = &self.table;
            t.engine.inner.heat.flush_reads(b, || t.region_starts());
        }
    }
}

impl Drop for ResultScanner {
    fn drop(&mut self) {
        self.flush_reads();
    }
}

impl Iterator for ResultScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        let row = self.scan.next().transpose();
        if let Some(Ok(r)) = &row {
            count_returned(&self.metrics, r);
            if let Some(heat) = &self.heat {
                let t = &self.table;
                t.engine
                    .inner
                    .heat
                    .scan_read(&mut self.reads, heat, r, || t.region_starts());
            }
        } else {
            self.flush_reads();
        }
        row
    }
}
