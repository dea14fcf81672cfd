//! Reads of `hbase:meta` (`crate::catalog`'s view of the engine's catalog): getRow*,
//! get/getVer*, and the scanners; writes to it are refused.

use super::convert::ColumnOrder;
use super::meta_order::compare_meta_rows;
use super::names::parse_column;
use super::scanner_lease::Source;
use super::{CallResult, Handler, ServiceError};
use crate::catalog::{meta_rows, CatalogRow, META};
use crate::thrift::hbase::{Call, TCell, TColumn, TRowResult, TScan};
use crate::thrift::{TValue, ThriftValue};
use std::collections::VecDeque;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the epoch, now.
pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Whether a call's table argument names `hbase:meta`.
fn is_meta(table: &[u8]) -> bool {
    table == META.as_bytes()
}

/// The refusal of a write to `hbase:meta`.
fn read_only(method: &str) -> ServiceError {
    ServiceError::Io(format!(
        "org.apache.hadoop.hbase.DoNotRetryIOException: {method}: {META} is read-only in \
         ferrobase (a view of the engine's catalog; create, split and drop tables instead)"
    ))
}

/// Which tables' rows a reader of the view sees.
pub(super) type Visible<'a> = &'a dyn Fn(&str) -> bool;

/// What a read of the view keeps.
struct Selection<'a> {
    /// Columns or families; empty: all.
    columns: &'a [Vec<u8>],
    /// Exclusive upper bound of the cells' timestamps.
    timestamp: Option<i64>,
}

impl Selection<'_> {
    /// The row as a `TRowResult` of the cells kept; `None` when none is.
    fn trow(&self, row: &CatalogRow, ts: i64, order: ColumnOrder) -> Option<TRowResult> {
        if self.timestamp.is_some_and(|bound| ts >= bound) {
            return None;
        }
        let cells: Vec<(Vec<u8>, TCell)> = row
            .cells
            .iter()
            .filter(|c| {
                self.columns.is_empty()
                    || self.columns.iter().any(|col| match parse_column(col) {
                        (f, None) => f == c.family.as_bytes(),
                        (f, Some(q)) => f == c.family.as_bytes() && q == c.qualifier.as_bytes(),
                    })
            })
            .map(|c| {
                let cell = TCell {
                    value: c.value.clone(),
                    timestamp: ts,
                };
                (c.column().into_bytes(), cell)
            })
            .collect();
        if cells.is_empty() {
            return None;
        }
        let mut out = TRowResult {
            row: row.row.clone(),
            ..TRowResult::default()
        };
        match order {
            ColumnOrder::Map => out.columns = Some(cells),
            ColumnOrder::Sorted => {
                let mut cols: Vec<TColumn> = cells
                    .into_iter()
                    .map(|(column_name, cell)| TColumn { column_name, cell })
                    .collect();
                cols.sort_by(|a, b| a.column_name.cmp(&b.column_name));
                out.sorted_columns = Some(cols);
            }
        }
        Some(out)
    }
}

/// The row range of a scan of the view.
struct Range<'a> {
    start: &'a [u8],
    stop: Option<&'a [u8]>,
    prefix: Option<&'a [u8]>,
    reversed: bool,
}

impl Range<'_> {
    /// Whether `row` is in the range, compared as HBase's meta comparator compares rows
    /// (`compare_meta_rows`): a start row `t,` sorts after `t,,ID.` (its tail `t,` is
    /// compared with `ID.`), so HBase's scan from `t,` misses the first region, and so does
    /// this one.
    fn holds(&self, row: &[u8]) -> bool {
        if self.prefix.is_some_and(|p| !row.starts_with(p)) {
            return false;
        }
        let stop = self.stop.filter(|s| !s.is_empty());
        if self.reversed {
            (self.start.is_empty() || compare_meta_rows(row, self.start).is_le())
                && stop.is_none_or(|s| compare_meta_rows(row, s).is_gt())
        } else {
            compare_meta_rows(row, self.start).is_ge()
                && stop.is_none_or(|s| compare_meta_rows(row, s).is_lt())
        }
    }
}

impl Handler {
    /// The start code as a cell timestamp.
    fn meta_ts(&self) -> i64 {
        i64::try_from(self.server.start_code).unwrap_or(i64::MAX)
    }

    /// The view's rows of the tables `visible` accepts (by `ns:table` or, in the default
    /// namespace, bare name).
    fn visible_rows(&self, visible: Visible<'_>) -> Result<Vec<CatalogRow>, ServiceError> {
        let mut rows = meta_rows(&self.engine, &self.server)?;
        rows.retain(|r| {
            let end = r.row.iter().position(|&b| b == b',').unwrap_or(r.row.len());
            visible(&String::from_utf8_lossy(&r.row[..end]))
        });
        Ok(rows)
    }

    /// Answers `call` when it reads or writes `hbase:meta`; `None` for every other call.
    /// Reads see the rows of the tables `visible` accepts.
    pub(super) fn meta_call(&self, call: &Call, visible: Visible<'_>) -> Option<CallResult> {
        let all: &[Vec<u8>] = &[];
        let writes = match call {
            Call::MutateRow(a) => Some(("mutateRow", &a.table_name)),
            Call::MutateRowTs(a) => Some(("mutateRowTs", &a.table_name)),
            Call::MutateRows(a) => Some(("mutateRows", &a.table_name)),
            Call::MutateRowsTs(a) => Some(("mutateRowsTs", &a.table_name)),
            Call::AtomicIncrement(a) => Some(("atomicIncrement", &a.table_name)),
            Call::DeleteAll(a) => Some(("deleteAll", &a.table_name)),
            Call::DeleteAllTs(a) => Some(("deleteAllTs", &a.table_name)),
            Call::DeleteAllRow(a) => Some(("deleteAllRow", &a.table_name)),
            Call::DeleteAllRowTs(a) => Some(("deleteAllRowTs", &a.table_name)),
            Call::CheckAndPut(a) => Some(("checkAndPut", &a.table_name)),
            Call::Increment(a) => Some(("increment", &a.increment.table)),
            Call::Append(a) => Some(("append", &a.append.table)),
            Call::CreateTable(a) => Some(("createTable", &a.table_name)),
            Call::DeleteTable(a) => Some(("deleteTable", &a.table_name)),
            Call::DisableTable(a) => Some(("disableTable", &a.table_name)),
            _ => None,
        };
        if let Some((method, table)) = writes {
            return is_meta(table).then(|| Err(read_only(method)));
        }
        if let Call::IncrementRows(a) = call {
            return a
                .increments
                .iter()
                .any(|i| is_meta(&i.table))
                .then(|| Err(read_only("incrementRows")));
        }
        let rows = |table: &[u8], rows: &[Vec<u8>], columns: &[Vec<u8>], ts: Option<i64>| {
            is_meta(table).then(|| {
                self.meta_get(
                    visible,
                    rows,
                    &Selection {
                        columns,
                        timestamp: ts,
                    },
                )
            })
        };
        let one = std::slice::from_ref;
        let scan = |table: &[u8], range: Range<'_>, columns: &[Vec<u8>], ts: Option<i64>| {
            is_meta(table).then(|| {
                let sel = Selection {
                    columns,
                    timestamp: ts,
                };
                self.meta_scanner(visible, &range, &sel, ColumnOrder::Map)
            })
        };
        let from = |start| Range {
            start,
            stop: None,
            prefix: None,
            reversed: false,
        };
        let until = |start, stop| Range {
            start,
            stop: Some(stop),
            prefix: None,
            reversed: false,
        };
        match call {
            Call::GetRow(a) => rows(&a.table_name, one(&a.row), all, None),
            Call::GetRowWithColumns(a) => rows(&a.table_name, one(&a.row), &a.columns, None),
            Call::GetRowTs(a) => rows(&a.table_name, one(&a.row), all, Some(a.timestamp)),
            Call::GetRowWithColumnsTs(a) => {
                rows(&a.table_name, one(&a.row), &a.columns, Some(a.timestamp))
            }
            Call::GetRows(a) => rows(&a.table_name, &a.rows, all, None),
            Call::GetRowsWithColumns(a) => rows(&a.table_name, &a.rows, &a.columns, None),
            Call::GetRowsTs(a) => rows(&a.table_name, &a.rows, all, Some(a.timestamp)),
            Call::GetRowsWithColumnsTs(a) => {
                rows(&a.table_name, &a.rows, &a.columns, Some(a.timestamp))
            }
            Call::Get(a) => {
                is_meta(&a.table_name).then(|| self.meta_cells(visible, &a.row, &a.column, None))
            }
            Call::GetVer(a) => {
                is_meta(&a.table_name).then(|| self.meta_cells(visible, &a.row, &a.column, None))
            }
            Call::GetVerTs(a) => is_meta(&a.table_name)
                .then(|| self.meta_cells(visible, &a.row, &a.column, Some(a.timestamp))),
            Call::ScannerOpen(a) => scan(&a.table_name, from(&a.start_row), &a.columns, None),
            Call::ScannerOpenTs(a) => scan(
                &a.table_name,
                from(&a.start_row),
                &a.columns,
                Some(a.timestamp),
            ),
            Call::ScannerOpenWithStop(a) => scan(
                &a.table_name,
                until(&a.start_row, &a.stop_row),
                &a.columns,
                None,
            ),
            Call::ScannerOpenWithStopTs(a) => scan(
                &a.table_name,
                until(&a.start_row, &a.stop_row),
                &a.columns,
                Some(a.timestamp),
            ),
            Call::ScannerOpenWithPrefix(a) => scan(
                &a.table_name,
                Range {
                    start: &a.start_and_prefix,
                    stop: None,
                    prefix: Some(&a.start_and_prefix),
                    reversed: false,
                },
                &a.columns,
                None,
            ),
            Call::ScannerOpenWithScan(a) => {
                is_meta(&a.table_name).then(|| self.meta_scan(visible, &a.scan))
            }
            _ => None,
        }
    }

    /// The rows of the view named in `wanted` (in that order), cut to `sel`.
    fn meta_results(
        &self,
        visible: Visible<'_>,
        wanted: &[Vec<u8>],
        sel: &Selection<'_>,
    ) -> Result<Vec<TRowResult>, ServiceError> {
        let rows = self.visible_rows(visible)?;
        let ts = self.meta_ts();
        Ok(wanted
            .iter()
            .filter_map(|w| rows.iter().find(|r| &r.row == w))
            .filter_map(|r| sel.trow(r, ts, ColumnOrder::Map))
            .collect())
    }

    /// getRow* and getRows* on the view.
    fn meta_get(
        &self,
        visible: Visible<'_>,
        wanted: &[Vec<u8>],
        sel: &Selection<'_>,
    ) -> CallResult {
        Ok(Some(self.meta_results(visible, wanted, sel)?.to_value()))
    }

    /// get / getVer / getVerTs on the view: the one version of a column (or a family's).
    fn meta_cells(
        &self,
        visible: Visible<'_>,
        row: &[u8],
        column: &[u8],
        ts: Option<i64>,
    ) -> CallResult {
        let sel = Selection {
            columns: &[column.to_vec()],
            timestamp: ts,
        };
        let cells: Vec<TCell> = self
            .meta_results(visible, &[row.to_vec()], &sel)?
            .into_iter()
            .flat_map(|r| r.columns.unwrap_or_default())
            .map(|(_, c)| c)
            .collect();
        Ok(Some(cells.to_value()))
    }

    /// scannerOpenWithScan on the view: row range, columns, timestamp, reversed and
    /// sortColumns; a filter is refused.
    fn meta_scan(&self, visible: Visible<'_>, ts: &TScan) -> CallResult {
        if ts.filter_string.is_some() {
            return Err(ServiceError::IllegalArgument(format!(
                "scannerOpenWithScan: filters are not supported on {META} (ferrobase serves it \
                 as a view of its catalog; filter the rows in the client)"
            )));
        }
        let reversed = ts.reversed.unwrap_or(false);
        let range = Range {
            start: ts.start_row.as_deref().unwrap_or_default(),
            stop: ts.stop_row.as_deref(),
            prefix: None,
            reversed,
        };
        let sel = Selection {
            columns: ts.columns.as_deref().unwrap_or_default(),
            timestamp: ts.timestamp,
        };
        let order = if ts.sort_columns.unwrap_or(false) {
            ColumnOrder::Sorted
        } else {
            ColumnOrder::Map
        };
        self.meta_scanner(visible, &range, &sel, order)
    }

    /// Opens a scanner over the view's rows in `range`, read now.
    fn meta_scanner(
        &self,
        visible: Visible<'_>,
        range: &Range<'_>,
        sel: &Selection<'_>,
        order: ColumnOrder,
    ) -> CallResult {
        let ts = self.meta_ts();
        let mut rows: VecDeque<TRowResult> = self
            .visible_rows(visible)?
            .iter()
            .filter(|r| range.holds(&r.row))
            .filter_map(|r| sel.trow(r, ts, order))
            .collect();
        if range.reversed {
            rows.make_contiguous().reverse();
        }
        Ok(Some(TValue::I32(
            self.scanners.insert(Source::Catalog(rows), order),
        )))
    }
}
