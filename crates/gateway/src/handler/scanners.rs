//! The scanner calls (`scannerOpen*`, `scannerGet*`, `scannerClose`) on the open scanners of
//! `scanner_lease.rs`.

use super::convert::{trow, ColumnOrder, PackedRows, RowResults};
use super::names::{parse_column, table_name};
use super::read_ahead;
use super::scanner_lease::Source;
use super::{CallResult, Handler, ServiceError};
use crate::request::{Executor, Failure, Partial, Request, Response};
use crate::thrift::hbase::service::{
    FerrobaseScannerOpenArgs, ScannerCloseArgs, ScannerGetListArgs, ScannerOpenWithScanArgs,
};
use crate::thrift::hbase::{Call, TScan};
use crate::thrift::{Encoded, TStruct, TValue, ThriftValue};
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::{Error, ResultScanner, RowResult, Scan};
use std::time::Instant;

/// Where the scanOpen* forms start.
pub(crate) enum StartRow<'a> {
    /// At this row (empty: the first).
    From(&'a [u8]),
    /// At the first row with this prefix, stopping after the last.
    Prefix(&'a [u8]),
}

/// What the scannerOpen* forms (all but scannerOpenWithScan) scan.
pub(crate) struct ScanRequest<'a> {
    pub table: &'a [u8],
    pub start: StartRow<'a>,
    /// The exclusive stop row; `None`: to the end (or of the prefix).
    pub stop: Option<&'a [u8]>,
    /// Columns or families to read; empty: all.
    pub columns: &'a [Vec<u8>],
    /// Exclusive upper bound of the timestamps read; `None`: every timestamp.
    pub timestamp: Option<i64>,
}

/// Whether a scan that cannot open fails at its first `scannerGet` rather than at the open:
/// what HBase's region server finds (an unknown or disabled table, an unknown family) waits
/// for the first read; the rest (a scan HBase's client refuses to build, an engine failure)
/// is answered at once.
fn fails_at_first_get(e: &Error) -> bool {
    matches!(
        e,
        Error::TableNotFound(_) | Error::TableDisabled(_) | Error::NoSuchColumnFamily { .. }
    )
}

/// What a scanner gave: engine rows (with the scanner's column order) or rows of a catalog
/// table's view (`hbase:meta`, `hbase:namespace`).
enum NextRows {
    Rows(Vec<RowResult>, ColumnOrder),
    Catalog(Vec<crate::thrift::hbase::TRowResult>),
}

/// `TScanBatch`'s fields: the scanner's id (while open) and the rows.
pub(crate) const SCAN_BATCH_ID: i16 = 1;
const SCAN_BATCH_ROWS: i16 = 2;
const SCAN_BATCH_PACKED: i16 = 3;

fn invalid() -> ServiceError {
    ServiceError::IllegalArgument("scanner ID is invalid".into())
}

impl Handler {
    pub(crate) fn open_scanner(
        &self,
        user: &str,
        table: &[u8],
        scan: Scan,
        order: ColumnOrder,
    ) -> CallResult {
        let executor = Executor::new(&self.engine, self.access(), user);
        self.open_scanner_reporting(
            &executor,
            table,
            scan,
            Partial::Narrow,
            order,
            ServiceError::from,
        )
    }

    /// [`Handler::open_scanner`] through `executor` (which authorizes the scan, a partly
    /// granted one as `partial` says), its failures reported as `report` makes them (Thrift2
    /// words them as HBase's client does).
    pub(crate) fn open_scanner_reporting(
        &self,
        executor: &Executor<'_>,
        table: &[u8],
        scan: Scan,
        partial: Partial,
        order: ColumnOrder,
        report: fn(Error) -> ServiceError,
    ) -> CallResult {
        let request = Request::Scan {
            table: table_name(table)?,
            scan,
            partial,
        };
        let source = match executor.execute(request) {
            Ok(Response::Scanner(scanner)) => Source::Rows(scanner),
            Ok(other) => {
                return Err(ServiceError::Internal(format!(
                    "a scan was answered {other:?}"
                )))
            }
            Err(Failure::Denied(d)) => return Err(super::denied(d)),
            Err(Failure::Engine(e)) if fails_at_first_get(&e) => Source::Failed(report(e)),
            Err(Failure::Engine(e)) => return Err(report(e)),
        };
        Ok(Some(TValue::I32(self.scanners.insert(source, order))))
    }

    fn add_columns(mut scan: Scan, columns: &[Vec<u8>]) -> Scan {
        for c in columns {
            scan = match parse_column(c) {
                (f, None) => scan.add_family(f),
                (f, Some(q)) => scan.add_column(f, q),
            };
        }
        scan
    }

    pub(crate) fn scanner_open_with_scan(
        &self,
        user: &str,
        table: &[u8],
        ts: &TScan,
    ) -> CallResult {
        let mut scan = Scan::new().reversed(ts.reversed.unwrap_or(false));
        if let Some(start) = &ts.start_row {
            scan = scan.with_start_row(start.clone());
        }
        if let Some(stop) = &ts.stop_row {
            scan = scan.with_stop_row(stop.clone());
        }
        if let Some(t) = ts.timestamp {
            scan = scan.time_range(super::reads::up_to(t)?);
        }
        scan = Self::add_columns(scan, ts.columns.as_deref().unwrap_or_default());
        if let Some(c) = ts.caching {
            scan = scan.caching(c.max(1) as usize);
        }
        if let Some(f) = &ts.filter_string {
            // HBase parses a set filterString, empty or not; ParseFilter's
            // IllegalArgumentException is undeclared, so the client sees INTERNAL_ERROR.
            if f.is_empty() {
                return Err(ServiceError::Internal(
                    "filter string error: the filter string is empty".into(),
                ));
            }
            let filter = parse_filter(f).map_err(|e| ServiceError::Internal(e.to_string()))?;
            scan = scan.filter(filter);
        }
        if let Some(b) = ts.batch_size {
            if b > 0 {
                scan = scan.batch(b as usize);
            }
        }
        let order = if ts.sort_columns.unwrap_or(false) {
            ColumnOrder::Sorted
        } else {
            ColumnOrder::Map
        };
        self.open_scanner(user, table, scan, order)
    }

    /// scannerOpen, scannerOpenWithStop, scannerOpenWithPrefix, scannerOpenTs,
    /// scannerOpenWithStopTs.
    pub(crate) fn scanner_open(&self, user: &str, req: &ScanRequest<'_>) -> CallResult {
        let mut scan = match req.start {
            StartRow::Prefix(p) => Scan::new().with_row_prefix(p.to_vec()),
            StartRow::From(start) => Scan::new().with_start_row(start.to_vec()),
        };
        if let Some(stop) = req.stop {
            scan = scan.with_stop_row(stop.to_vec());
        }
        scan = Self::add_columns(scan, req.columns);
        if let Some(ts) = req.timestamp {
            scan = scan.time_range(super::reads::up_to(ts)?);
        }
        self.open_scanner(user, req.table, scan, ColumnOrder::Map)
    }

    /// scannerGet (`n` 1) and scannerGetList: the next `n` rows at most.
    pub(crate) fn scanner_get(&self, id: i32, n: usize) -> CallResult {
        Ok(Some(match self.next_rows(id, n)? {
            // The common form, written straight from the cells into the reply.
            NextRows::Rows(rows, ColumnOrder::Map) => {
                TValue::Encoded(Encoded::new(RowResults(rows)))
            }
            NextRows::Rows(rows, order) => rows
                .iter()
                .map(|r| trow(r, order))
                .collect::<Vec<_>>()
                .to_value(),
            NextRows::Catalog(batch) => batch.to_value(),
        }))
    }

    /// The next `n` rows at most of scanner `id` as the engine returns them (delete markers
    /// of a raw scan included), for `ferrobaseAdmin` `scan_next`. A scanner of a catalog table's
    /// view (`hbase:meta`, `hbase:namespace`) has none: it is refused.
    pub(crate) fn scanner_rows(&self, id: i32, n: usize) -> Result<Vec<RowResult>, ServiceError> {
        match self.next_rows(id, n)? {
            NextRows::Rows(rows, _) => Ok(rows),
            NextRows::Catalog(_) => Err(ServiceError::IllegalArgument(format!(
                "ferrobaseAdmin scan_next: scanner {id} reads a catalog table (hbase:meta or \
                 hbase:namespace): read it with scannerGetList"
            ))),
        }
    }

    fn next_rows(&self, id: i32, n: usize) -> Result<NextRows, ServiceError> {
        let entry = self.scanners.entry(id).ok_or_else(invalid)?;
        let Ok(mut guard) = entry.lock() else {
            // A call on this scanner panicked while reading it: where it stopped is unknown,
            // so the scanner is closed rather than continued from a half-advanced position.
            self.scanners.remove(id);
            return Err(ServiceError::Internal(format!(
                "scanner {id} was closed: an earlier call on it failed part-way"
            )));
        };
        let e = &mut *guard;
        e.last_used = Instant::now();
        e.calls += 1;
        let order = e.order;
        let max_bytes = self.max_result_bytes;
        let mut read_ahead = false;
        let (rows, finished) = match &mut e.scanner {
            Source::Rows(scanner) => {
                let rows = match read_ahead::next_batch(&mut e.ahead, scanner, n, max_bytes) {
                    Ok(rows) => rows,
                    Err(error) => {
                        // The rows the failed read had passed are gone with it, and the engine's
                        // scanner is after them: a client asking again would silently miss
                        // them, so the scanner is closed, as at the native door.
                        drop(guard);
                        self.scanners.remove(id);
                        return Err(closed_after(error, id));
                    }
                };
                let finished = ResultScanner::batch_found_end(&rows, n, max_bytes);
                // From the second full batch in a row, the next is read while this one is
                // answered (`read_ahead.rs`).
                e.full_batches = if rows.len() == n {
                    e.full_batches + 1
                } else {
                    0
                };
                read_ahead = !finished
                    && !e.closing
                    && e.full_batches >= 2
                    && self.read_ahead.wanted()
                    && ResultScanner::batch_bytes(&rows) <= crate::read_ahead::MAX_BATCH_BYTES;
                (NextRows::Rows(rows, order), finished)
            }
            Source::Failed(error) => return Err(error.clone()),
            Source::Catalog(rows) => {
                let batch = rows.drain(..n.min(rows.len())).collect();
                (NextRows::Catalog(batch), rows.is_empty())
            }
        };
        e.finished = finished;
        if read_ahead {
            let call = e.calls;
            drop(guard);
            read_ahead::schedule(&self.read_ahead, &entry, call, n, max_bytes);
        }
        Ok(rows)
    }

    /// `ferrobaseScannerOpen`: `scannerOpenWithScan`, then [`Handler::scanner_batch`] of the
    /// new scanner, each answered (checked, run, followed up) as that call; a scanner whose
    /// first batch fails is closed.
    pub(crate) fn scanner_open_with_rows(
        &self,
        user: Option<&str>,
        a: FerrobaseScannerOpenArgs,
    ) -> CallResult {
        let FerrobaseScannerOpenArgs {
            table_name,
            scan,
            nb_rows,
            close,
            attributes,
            packed,
        } = a;
        let open = Call::ScannerOpenWithScan(ScannerOpenWithScanArgs {
            table_name,
            scan,
            attributes,
        });
        let id = match self.answer_value(user, open)? {
            TValue::I32(id) => id,
            other => {
                return Err(ServiceError::Internal(format!(
                    "scannerOpenWithScan was answered {other:?}"
                )))
            }
        };
        let batch = self.scanner_batch(user, id, nb_rows, close, packed);
        if batch.is_err() {
            self.scanners.remove(id);
        }
        batch
    }

    /// `ferrobaseScannerNext` (and the rows of `ferrobaseScannerOpen`): `scannerGetList`, then
    /// `scannerClose` when the batch found the scanner's end or `close` asks, each answered as
    /// that call. The answer is a `TScanBatch`: 1: the id while the scanner stays open, 2: the
    /// rows as `scannerGetList` writes them, or with `packed`, 3: the same rows in one
    /// binary ([`PackedRows`]; rows `scannerGetList` answers as a value tree, of a scanner
    /// whose columns keep their order, stay in field 2).
    pub(crate) fn scanner_batch(
        &self,
        user: Option<&str>,
        id: i32,
        nb_rows: i32,
        close: bool,
        packed: bool,
    ) -> CallResult {
        if close {
            self.scanners.closing(id);
        }
        let rows = self.answer_value(
            user,
            Call::ScannerGetList(ScannerGetListArgs { id, nb_rows }),
        )?;
        let stays_open = !close && !self.scanners.finished(id);
        if !stays_open {
            if let Some(Err(e)) = self.answer(user, Call::ScannerClose(ScannerCloseArgs { id })) {
                return Err(e);
            }
        }
        let mut batch = TStruct::new();
        if stays_open {
            batch = batch.with(SCAN_BATCH_ID, TValue::I32(id));
        }
        let packed_rows = match &rows {
            TValue::Encoded(e) if packed => PackedRows::new(e),
            _ => None,
        };
        Ok(Some(TValue::Struct(match packed_rows {
            Some(p) => batch.with(SCAN_BATCH_PACKED, TValue::Encoded(Encoded::new(p))),
            None => batch.with(SCAN_BATCH_ROWS, rows),
        })))
    }

    /// What scanner `id` has cost so far, when it was opened to explain itself (`None` when
    /// not, or when it never opened).
    pub(crate) fn scanner_cost(
        &self,
        id: i32,
    ) -> Result<Option<ferrobase_engine::ReadCost>, ServiceError> {
        let entry = self.scanners.entry(id).ok_or_else(invalid)?;
        let Ok(e) = entry.lock() else {
            return Err(ServiceError::Internal(format!(
                "scanner {id} was closed: an earlier call on it failed part-way"
            )));
        };
        Ok(match &e.scanner {
            Source::Rows(scanner) => scanner.cost(),
            Source::Failed(_) | Source::Catalog(_) => None,
        })
    }

    pub(crate) fn scanner_close(&self, id: i32) -> CallResult {
        if !self.scanners.remove(id) {
            return Err(invalid());
        }
        Ok(None)
    }
}

/// A scanner's read failing part-way, told with the scanner closed after it: the message
/// names the scanner and says what to do (reopen the scan after the last row received).
fn closed_after(error: ServiceError, id: i32) -> ServiceError {
    let note = |m: String| {
        format!(
            "{m} (scanner {id} was closed: a read that fails part-way has passed rows it did not \
             return; open a new scanner after the last row received)"
        )
    };
    match error {
        ServiceError::Io(m) => ServiceError::Io(note(m)),
        ServiceError::IllegalArgument(m) => ServiceError::IllegalArgument(note(m)),
        ServiceError::AlreadyExists(m) => ServiceError::AlreadyExists(note(m)),
        ServiceError::Internal(m) => ServiceError::Internal(note(m)),
    }
}
