//! The `Hbase` service's read methods: `getRowWithColumns(Ts)`, `getVer(Ts)` and the scanner
//! calls (`scannerOpenWithScan`, `scannerGetList`, `scannerClose`).

use super::convert::*;
use super::{reply, Ahead, Fetched, Remote};
use crate::{ClientError, Result, Scanner};
use ferrobase_engine::{Cell, CellType, Get, ReadCost, RowResult, Scan};
use ferrobase_thrift::hbase::service::{
    FerrobaseScannerNextArgs, FerrobaseScannerOpenArgs, GetRowWithColumnsArgs,
    GetRowWithColumnsTsArgs, GetVerArgs, GetVerTsArgs, ScannerCloseArgs, ScannerGetListArgs,
    ScannerOpenWithScanArgs,
};
use ferrobase_thrift::hbase::{TCell, TRowResult};
use std::collections::VecDeque;
use std::sync::Arc;

impl Remote {
    pub(crate) fn scanner(
        self: &Arc<Self>,
        table: &str,
        scan: &Scan,
        filter: Option<&[u8]>,
    ) -> Result<Scanner> {
        if let Some(name) = filter.and_then(crate::filter_language::extension_in) {
            if !self.is_ferrobase()? {
                return Err(ClientError::Unsupported(format!(
                    "{name} is not in Apache HBase's filter language (its Thrift1 gateway's \
                     ParseFilter has no {name}); it is a ferrobase extension"
                )));
            }
        }
        if let Some(why) = super::cell_ops::beyond_tscan(scan, filter) {
            // RAW, VERSIONS or a lower time bound under a filter: a ferrobase gateway's
            // extension reads them, applying every bound itself.
            let id = self.open_typed_scanner(table, scan, filter, why)?;
            return Ok(Scanner::Remote(Box::new(RemoteScanner {
                remote: self.clone(),
                id,
                limit: scan.limit,
                min_ts: 0,
                typed: true,
                returned: 0,
                closed: false,
                explain: scan.explain,
                cost: None,
                batches: None,
                buffered: VecDeque::new(),
                prefetch: false,
                ahead: None,
            })));
        }
        let mut scanner = RemoteScanner {
            remote: self.clone(),
            id: 0,
            limit: scan.limit,
            min_ts: scan.time_range.min,
            typed: false,
            returned: 0,
            closed: false,
            explain: false,
            cost: None,
            batches: None,
            buffered: VecDeque::new(),
            prefetch: scan.async_prefetch,
            ahead: None,
        };
        if self.scan_batches()? {
            // A ferrobase gateway opens the scanner and answers its first rows in the same
            // call, closing it there when they are all (HBase's own scan RPC does as much).
            let nb_rows = scanner.fetch_size(scan.caching);
            let args = FerrobaseScannerOpenArgs {
                table_name: table.as_bytes().to_vec(),
                scan: Self::scan_struct(scan, filter)?,
                nb_rows: rows_arg(nb_rows),
                close: scanner.limit_reached_by(nb_rows),
                attributes: Vec::new(),
                packed: true,
            };
            match self.call_scan_batch(&args) {
                Ok(batch) => {
                    scanner.batches = Some(scan.caching);
                    scanner.take_batch(batch)?;
                    return Ok(Scanner::Remote(Box::new(scanner)));
                }
                Err(ClientError::Transport(m)) if m.contains("Invalid method name") => {
                    self.without_scan_batches()
                }
                Err(e) => return Err(e),
            }
        }
        let args = ScannerOpenWithScanArgs {
            table_name: table.as_bytes().to_vec(),
            scan: Self::scan_struct(scan, filter)?,
            attributes: Vec::new(),
        };
        scanner.id = reply("scannerOpenWithScan", self.call(&args)?)?;
        Ok(Scanner::Remote(Box::new(scanner)))
    }

    pub(crate) fn get(
        self: &Arc<Self>,
        table: &str,
        get: &Get,
        filter: Option<&[u8]>,
    ) -> Result<RowResult> {
        let empty = || RowResult::new(get.row.clone(), Vec::new());
        if get.raw || (get.max_versions > 1 && filter.is_some()) {
            // A one-row scan through a ferrobase gateway's extension (refused through
            // Apache HBase's with the reason).
            if !self.is_ferrobase()? {
                return Err(ClientError::Unsupported(if get.raw {
                    RAW_UNSUPPORTED.into()
                } else {
                    "a filtered get of several versions is not expressible through HBase's \
                     Thrift1 API (its getVer has no filter; this gateway is not ferrobase)"
                        .into()
                }));
            }
            let mut scan = Scan::new();
            scan.start_row = get.row.clone();
            scan.stop_row = get.row.clone();
            scan.stop_inclusive = true;
            scan.spec = get.spec.clone();
            scan.spec.filter = None;
            let mut s = self.scanner(table, &scan, filter)?;
            let mut rows = s.next_batch(1)?;
            return Ok(rows.pop().unwrap_or_else(empty));
        }
        let table_name = table.as_bytes().to_vec();
        if get.max_versions > 1 {
            // Learn the columns, then read their versions.
            let newest = self.get(table, &get.clone().max_versions(1), None)?;
            let ts = time_bound(&get.time_range);
            let num_versions = get.max_versions as i32;
            let mut cells = Vec::new();
            for c in &newest.cells {
                let table_name = table_name.clone();
                let row = get.row.clone();
                let column = column(c.family(), Some(c.qualifier()));
                let versions: Vec<TCell> = match ts {
                    Some(timestamp) => reply(
                        "getVerTs",
                        self.call(&GetVerTsArgs {
                            table_name,
                            row,
                            column,
                            timestamp,
                            num_versions,
                            attributes: Vec::new(),
                        })?,
                    )?,
                    None => reply(
                        "getVer",
                        self.call(&GetVerArgs {
                            table_name,
                            row,
                            column,
                            num_versions,
                            attributes: Vec::new(),
                        })?,
                    )?,
                };
                for v in versions {
                    cells.push(Cell::new(
                        get.row.clone(),
                        c.family_bytes(),
                        c.qualifier_bytes(),
                        v.timestamp,
                        CellType::Put,
                        ferrobase_engine::Bytes::from(v.value),
                    ));
                }
            }
            return Ok(
                keep_from(RowResult::new(get.row.clone(), cells), get.time_range.min)
                    .unwrap_or_else(empty),
            );
        }
        if filter.is_none() {
            // One round trip: getRowWithColumns(Ts).
            let row = get.row.clone();
            let columns = columns_of(&get.columns);
            let rows: Vec<TRowResult> = match time_bound(&get.time_range) {
                Some(timestamp) => reply(
                    "getRowWithColumnsTs",
                    self.call(&GetRowWithColumnsTsArgs {
                        table_name,
                        row,
                        columns,
                        timestamp,
                        attributes: Vec::new(),
                    })?,
                )?,
                None => reply(
                    "getRowWithColumns",
                    self.call(&GetRowWithColumnsArgs {
                        table_name,
                        row,
                        columns,
                        attributes: Vec::new(),
                    })?,
                )?,
            };
            return Ok(rows
                .into_iter()
                .next()
                .map(row_result)
                .and_then(|r| keep_from(r, get.time_range.min))
                .unwrap_or_else(empty));
        }
        let mut stop = get.row.clone();
        stop.push(0);
        let mut scan = Scan::new()
            .with_start_row(get.row.clone())
            .with_stop_row(stop)
            .time_range(get.time_range);
        scan.columns = get.columns.clone();
        let mut s = self.scanner(table, &scan, filter)?;
        let mut rows = s.next_batch(1)?;
        Ok(rows.pop().unwrap_or_else(empty))
    }
}

/// A count of rows as a call's `nbRows` (an `i32`; more than it holds asks for all it holds).
fn rows_arg(n: usize) -> i32 {
    n.min(i32::MAX as usize) as i32
}

/// A scanner open on the gateway; closed when exhausted or dropped.
pub struct RemoteScanner {
    remote: Arc<Remote>,
    id: i32,
    limit: Option<usize>,
    /// The scan's time range's lower bound, applied here (Thrift1 carries only the upper).
    min_ts: i64,
    /// Opened through `ferrobaseAdmin` `scan_open`: rows come from `scan_next`, typed.
    typed: bool,
    returned: usize,
    closed: bool,
    /// Opened with `EXPLAIN`: its cost is read from the gateway before it closes.
    explain: bool,
    /// What the scan cost, read when it closed.
    cost: Option<ReadCost>,
    /// Opened with `ferrobaseScannerOpen`: its rows come `caching` (this) at a time, from
    /// `ferrobaseScannerNext`, and the gateway closes it when it answers the last.
    batches: Option<usize>,
    /// Rows received and not yet returned.
    buffered: VecDeque<RowResult>,
    /// Ask for the next rows as soon as a batch arrives (`Scan::async_prefetch`).
    prefetch: bool,
    /// The ticket of the next rows' call, sent ahead and not read yet.
    ahead: Option<u64>,
}

impl RemoteScanner {
    /// Rows one call asks for when `n` are wanted and `incoming` more are on their way into
    /// the buffer: `n`, at most the scan's limit's remainder.
    fn fetch_size_after(&self, n: usize, incoming: usize) -> usize {
        match self.limit {
            Some(l) => n.min(l.saturating_sub(self.returned + self.buffered.len() + incoming)),
            None => n,
        }
    }

    fn fetch_size(&self, n: usize) -> usize {
        self.fetch_size_after(n, 0)
    }

    /// Whether `n` more rows, after `incoming`, reach the scan's limit (never under a lower
    /// time bound, which this client applies: a row it leaves out does not count).
    fn limit_reached_after(&self, n: usize, incoming: usize) -> bool {
        self.min_ts == 0
            && self
                .limit
                .is_some_and(|l| self.returned + self.buffered.len() + incoming + n >= l)
    }

    fn limit_reached_by(&self, n: usize) -> bool {
        self.limit_reached_after(n, 0)
    }

    /// Keeps a `TScanBatch`'s rows (packed or as `TRowResult`s); the scanner is closed when it
    /// names no id. With prefetching, the next batch is asked for as soon as these rows arrive,
    /// before the caller takes them: for a scan without a limit before they are parsed (the
    /// gateway then works on the next batch while this one is parsed: asked for after the
    /// parse, a 1,000-row full scan left the server idle a quarter of the time), with one after
    /// (the next call's size and `close` count these rows exactly).
    fn take_batch(&mut self, batch: ferrobase_thrift::RawScanBatch) -> Result<()> {
        let ferrobase_thrift::RawScanBatch { id, rows, packed } = batch;
        match id {
            Some(id) => self.id = id,
            None => self.closed = true,
        }
        let early = self.limit.is_none();
        if early {
            self.send_next_batch(0);
        }
        let rows = match packed {
            Some(packed) => packed_row_results(packed)?,
            None => raw_row_results(rows),
        };
        if !early {
            self.send_next_batch(rows.len());
        }
        self.keep_rows(rows);
        Ok(())
    }

    /// With prefetching, sends the call for the next batch ahead, `incoming` rows being on
    /// their way into the buffer.
    fn send_next_batch(&mut self, incoming: usize) {
        if let (true, false, Some(caching)) = (self.prefetch, self.closed, self.batches) {
            let nb_rows = self.fetch_size_after(caching, incoming);
            if nb_rows > 0 {
                let args = FerrobaseScannerNextArgs {
                    id: self.id,
                    nb_rows: rows_arg(nb_rows),
                    close: self.limit_reached_after(nb_rows, incoming),
                    packed: true,
                };
                // A failed send leaves nothing in flight: the next call is made when the
                // rows are wanted, and reports what is wrong with the connection then.
                self.ahead = self.remote.send_ahead(&args, Ahead::Batch).ok();
            }
        }
    }

    /// Puts rows into the buffer, leaving out what the lower time bound excludes.
    fn keep_rows(&mut self, rows: Vec<RowResult>) {
        let min_ts = self.min_ts;
        self.buffered
            .extend(rows.into_iter().filter_map(|r| keep_from(r, min_ts)));
    }

    /// Takes up to `n` buffered rows.
    fn drain(&mut self, n: usize) -> Vec<RowResult> {
        let n = n.min(self.buffered.len());
        let rows: Vec<RowResult> = self.buffered.drain(..n).collect();
        self.returned += rows.len();
        rows
    }

    /// [`RemoteScanner::next_batch`] of a scanner opened with `ferrobaseScannerOpen`: up to
    /// `n` buffered rows, fetching `caching` (or `n`, if more) when none are left.
    fn next_buffered(&mut self, n: usize, caching: usize) -> Result<Vec<RowResult>> {
        while self.buffered.is_empty() && !self.closed {
            let batch = match self.ahead.take() {
                Some(ticket) => match self.remote.receive_ahead(ticket)? {
                    Fetched::Batch(batch) => batch,
                    Fetched::Rows(_) => {
                        return Err(ClientError::Transport(
                            "a scanner's batch came back as rows".into(),
                        ))
                    }
                },
                None => {
                    let nb_rows = self.fetch_size(n.max(caching));
                    if nb_rows == 0 {
                        self.close();
                        break;
                    }
                    let args = FerrobaseScannerNextArgs {
                        id: self.id,
                        nb_rows: rows_arg(nb_rows),
                        close: self.limit_reached_by(nb_rows),
                        packed: true,
                    };
                    self.remote.call_scan_batch(&args)?
                }
            };
            self.take_batch(batch)?;
        }
        Ok(self.drain(n))
    }

    pub(crate) fn next_batch(&mut self, n: usize) -> Result<Vec<RowResult>> {
        if let Some(caching) = self.batches {
            return self.next_buffered(n, caching);
        }
        if self.typed {
            return self.next_typed(n);
        }
        // HBase's scanner calls: `n` rows a call; rows left empty by the lower time bound are
        // skipped, and an empty list means the end.
        while self.buffered.is_empty() && !self.closed {
            let raw = match self.ahead.take() {
                Some(ticket) => match self.remote.receive_ahead(ticket)? {
                    Fetched::Rows(raw) => raw,
                    Fetched::Batch(..) => {
                        return Err(ClientError::Transport(
                            "a scanner's rows came back as a batch".into(),
                        ))
                    }
                },
                None => {
                    let want = self.fetch_size(n);
                    if want == 0 {
                        self.close();
                        break;
                    }
                    // Read straight into the rows, without a value tree.
                    self.remote.call_rows(&ScannerGetListArgs {
                        id: self.id,
                        nb_rows: rows_arg(want),
                    })?
                }
            };
            let Some(raw) = raw.filter(|r| !r.rows.is_empty()) else {
                self.close();
                break;
            };
            if self.prefetch {
                let next = self.fetch_size_after(n, raw.rows.len());
                if next > 0 {
                    let args = ScannerGetListArgs {
                        id: self.id,
                        nb_rows: rows_arg(next),
                    };
                    self.ahead = self.remote.send_ahead(&args, Ahead::Rows).ok();
                }
            }
            self.keep_rows(raw_row_results(raw));
        }
        Ok(self.drain(n))
    }

    /// [`RemoteScanner::next_batch`] of a scanner opened through `ferrobaseAdmin`
    /// `scan_open`: `n` typed rows a call.
    fn next_typed(&mut self, n: usize) -> Result<Vec<RowResult>> {
        if self.closed {
            return Ok(Vec::new());
        }
        let want = self.fetch_size(n);
        if want == 0 {
            self.close();
            return Ok(Vec::new());
        }
        loop {
            let rows = self.remote.typed_rows(self.id, want)?;
            if rows.is_empty() {
                self.close();
                return Ok(Vec::new());
            }
            let rows: Vec<RowResult> = rows
                .into_iter()
                .filter_map(|r| keep_from(r, self.min_ts))
                .collect();
            if !rows.is_empty() {
                self.returned += rows.len();
                return Ok(rows);
            }
        }
    }

    /// What the scan has cost so far (`scan_cost`), when opened with `EXPLAIN`.
    pub(crate) fn cost(&mut self) -> Result<Option<ReadCost>> {
        if !self.explain || self.closed {
            return Ok(self.cost);
        }
        self.remote.scan_cost(self.id)
    }

    fn close(&mut self) {
        if let Some(ticket) = self.ahead.take() {
            // The reply to the call sent ahead is read (the connection's next reply is another
            // call's); a batch that closed the scanner needs no close.
            if let Ok(Fetched::Batch(b)) = self.remote.receive_ahead(ticket) {
                self.closed |= b.id.is_none();
            }
        }
        if !self.closed {
            if self.explain {
                // Its last figures, read before the gateway forgets the scanner.
                self.cost = self.remote.scan_cost(self.id).ok().flatten();
            }
            self.closed = true;
            let _ = self.remote.call(&ScannerCloseArgs { id: self.id });
        }
    }
}

impl Drop for RemoteScanner {
    fn drop(&mut self) {
        self.close();
    }
}
