//! Reads of the catalog tables `hbase:meta` and `hbase:namespace` (`crate::catalog`'s views
//! of the engine's catalog): getRow*, get/getVer*, and the scanners; writes to them are
//! refused.

use super::convert::ColumnOrder;
use super::meta_order::compare_meta_rows;
use super::names::parse_column;
use super::scanner_lease::Source;
use super::{CallResult, Handler, ServiceError};
use crate::catalog::{meta_rows, namespace_rows, CatalogRow, META, NAMESPACE};
use crate::thrift::hbase::{Call, ColumnDescriptor, TCell, TColumn, TRowResult, TScan};
use crate::thrift::{TValue, ThriftValue};
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the epoch, now.
pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A catalog table the gateway serves as a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Catalog {
    /// `hbase:meta`: rows in HBase's meta order.
    Meta,
    /// `hbase:namespace`: one row per namespace, in byte order.
    Namespace,
}

impl Catalog {
    /// The catalog table a call's table argument names, if any.
    pub(super) fn of(table: &[u8]) -> Option<Catalog> {
        if table == META.as_bytes() {
            Some(Catalog::Meta)
        } else if table == NAMESPACE.as_bytes() {
            Some(Catalog::Namespace)
        } else {
            None
        }
    }

    /// The table's name.
    pub(super) fn name(self) -> &'static str {
        match self {
            Catalog::Meta => META,
            Catalog::Namespace => NAMESPACE,
        }
    }

    /// Compares two rows as HBase's comparator for the table does.
    fn compare(self, left: &[u8], right: &[u8]) -> Ordering {
        match self {
            Catalog::Meta => compare_meta_rows(left, right),
            Catalog::Namespace => left.cmp(right),
        }
    }
}

/// The refusal of a write to a catalog table.
fn read_only(method: &str, table: Catalog) -> ServiceError {
    let instead = match table {
        Catalog::Meta => "create, split and drop tables instead",
        Catalog::Namespace => "create and drop namespaces instead",
    };
    ServiceError::Io(format!(
        "org.apache.hadoop.hbase.DoNotRetryIOException: {method}: {} is read-only in \
         ferrobase (a view of the engine's catalog; {instead})",
        table.name()
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
    catalog: Catalog,
    start: &'a [u8],
    stop: Option<&'a [u8]>,
    prefix: Option<&'a [u8]>,
    reversed: bool,
}

impl Range<'_> {
    /// Whether `row` is in the range, compared as HBase's comparator for the table compares
    /// rows: for `hbase:meta` its meta comparator (`compare_meta_rows`), where a start row
    /// `t,` sorts after `t,,ID.` (its tail `t,` is compared with `ID.`), so HBase's scan from
    /// `t,` misses the first region, and so does this one.
    fn holds(&self, row: &[u8]) -> bool {
        if self.prefix.is_some_and(|p| !row.starts_with(p)) {
            return false;
        }
        let cmp = |a: &[u8], b: &[u8]| self.catalog.compare(a, b);
        let stop = self.stop.filter(|s| !s.is_empty());
        if self.reversed {
            (self.start.is_empty() || cmp(row, self.start).is_le())
                && stop.is_none_or(|s| cmp(row, s).is_gt())
        } else {
            cmp(row, self.start).is_ge() && stop.is_none_or(|s| cmp(row, s).is_lt())
        }
    }
}

impl Handler {
    /// The start code as a cell timestamp.
    fn meta_ts(&self) -> i64 {
        i64::try_from(self.server.start_code).unwrap_or(i64::MAX)
    }

    /// The view's rows: of `hbase:meta`, those of the tables `visible` accepts (by `ns:table`
    /// or, in the default namespace, bare name); of `hbase:namespace`, every namespace (the
    /// ACL check is made before, on the table itself).
    fn visible_rows(
        &self,
        catalog: Catalog,
        visible: Visible<'_>,
    ) -> Result<Vec<CatalogRow>, ServiceError> {
        if catalog == Catalog::Namespace {
            return Ok(namespace_rows(&self.engine)?);
        }
        let mut rows = meta_rows(&self.engine, &self.server)?;
        rows.retain(|r| {
            let end = r.row.iter().position(|&b| b == b',').unwrap_or(r.row.len());
            visible(&String::from_utf8_lossy(&r.row[..end]))
        });
        Ok(rows)
    }

    /// Answers `call` when it reads or writes `hbase:meta` or `hbase:namespace`; `None` for
    /// every other call. Reads of `hbase:meta` see the rows of the tables `visible` accepts.
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
            return Catalog::of(table).map(|c| Err(read_only(method, c)));
        }
        if let Call::IncrementRows(a) = call {
            return a
                .increments
                .iter()
                .find_map(|i| Catalog::of(&i.table))
                .map(|c| Err(read_only("incrementRows", c)));
        }
        let rows = |table: &[u8], rows: &[Vec<u8>], columns: &[Vec<u8>], ts: Option<i64>| {
            Catalog::of(table).map(|c| {
                self.meta_get(
                    c,
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
            Catalog::of(table).map(|catalog| {
                let sel = Selection {
                    columns,
                    timestamp: ts,
                };
                let range = Range { catalog, ..range };
                self.meta_scanner(visible, &range, &sel, ColumnOrder::Map)
            })
        };
        // The catalog is set by `scan`.
        let from = |start| Range {
            catalog: Catalog::Meta,
            start,
            stop: None,
            prefix: None,
            reversed: false,
        };
        let until = |start, stop| Range {
            catalog: Catalog::Meta,
            start,
            stop: Some(stop),
            prefix: None,
            reversed: false,
        };
        let cells = |table: &[u8], row: &[u8], column: &[u8], ts: Option<i64>| {
            Catalog::of(table).map(|c| self.meta_cells(c, visible, row, column, ts))
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
            Call::Get(a) => cells(&a.table_name, &a.row, &a.column, None),
            Call::GetVer(a) => cells(&a.table_name, &a.row, &a.column, None),
            Call::GetVerTs(a) => cells(&a.table_name, &a.row, &a.column, Some(a.timestamp)),
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
                    catalog: Catalog::Meta,
                    start: &a.start_and_prefix,
                    stop: None,
                    prefix: Some(&a.start_and_prefix),
                    reversed: false,
                },
                &a.columns,
                None,
            ),
            Call::ScannerOpenWithScan(a) => {
                Catalog::of(&a.table_name).map(|c| self.meta_scan(c, visible, &a.scan))
            }
            _ => None,
        }
    }

    /// The rows of the view named in `wanted` (in that order), cut to `sel`.
    fn meta_results(
        &self,
        catalog: Catalog,
        visible: Visible<'_>,
        wanted: &[Vec<u8>],
        sel: &Selection<'_>,
    ) -> Result<Vec<TRowResult>, ServiceError> {
        let rows = self.visible_rows(catalog, visible)?;
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
        catalog: Catalog,
        visible: Visible<'_>,
        wanted: &[Vec<u8>],
        sel: &Selection<'_>,
    ) -> CallResult {
        Ok(Some(
            self.meta_results(catalog, visible, wanted, sel)?.to_value(),
        ))
    }

    /// get / getVer / getVerTs on the view: the one version of a column (or a family's).
    fn meta_cells(
        &self,
        catalog: Catalog,
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
            .meta_results(catalog, visible, &[row.to_vec()], &sel)?
            .into_iter()
            .flat_map(|r| r.columns.unwrap_or_default())
            .map(|(_, c)| c)
            .collect();
        Ok(Some(cells.to_value()))
    }

    /// scannerOpenWithScan on the view: row range, columns, timestamp, reversed and
    /// sortColumns; a filter is refused.
    fn meta_scan(&self, catalog: Catalog, visible: Visible<'_>, ts: &TScan) -> CallResult {
        if ts.filter_string.is_some() {
            return Err(ServiceError::IllegalArgument(format!(
                "scannerOpenWithScan: filters are not supported on {} (ferrobase serves it \
                 as a view of its catalog; filter the rows in the client)",
                catalog.name()
            )));
        }
        let reversed = ts.reversed.unwrap_or(false);
        let range = Range {
            catalog,
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
            .visible_rows(range.catalog, visible)?
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

/// The catalog table a read call reads, if it reads one (writes are refused to everyone).
pub(super) fn catalog_read(call: &Call) -> Option<Catalog> {
    let table = match call {
        Call::GetRow(a) => &a.table_name,
        Call::GetRowWithColumns(a) => &a.table_name,
        Call::GetRowTs(a) => &a.table_name,
        Call::GetRowWithColumnsTs(a) => &a.table_name,
        Call::GetRows(a) => &a.table_name,
        Call::GetRowsWithColumns(a) => &a.table_name,
        Call::GetRowsTs(a) => &a.table_name,
        Call::GetRowsWithColumnsTs(a) => &a.table_name,
        Call::Get(a) => &a.table_name,
        Call::GetVer(a) => &a.table_name,
        Call::GetVerTs(a) => &a.table_name,
        Call::ScannerOpen(a) => &a.table_name,
        Call::ScannerOpenTs(a) => &a.table_name,
        Call::ScannerOpenWithStop(a) => &a.table_name,
        Call::ScannerOpenWithStopTs(a) => &a.table_name,
        Call::ScannerOpenWithPrefix(a) => &a.table_name,
        Call::ScannerOpenWithScan(a) => &a.table_name,
        _ => return None,
    };
    Catalog::of(table)
}

/// The families of a catalog table as HBase 2.6.1's gateway describes them
/// (`getColumnDescriptors`, recorded from the oracle): `hbase:meta` has `info`, `rep_barrier`
/// and `table` (3 versions, all versions for `rep_barrier`; in memory; ROWCOL blooms),
/// `hbase:namespace` has `info` (10 versions, in memory, a ROW bloom).
pub(super) fn catalog_families(catalog: Catalog) -> Vec<ColumnDescriptor> {
    let family = |name: &[u8], max_versions: i32, bloom: &str| ColumnDescriptor {
        name: name.to_vec(),
        max_versions,
        compression: "NONE".into(),
        in_memory: true,
        bloom_filter_type: bloom.into(),
        bloom_filter_vector_size: 0,
        bloom_filter_nb_hashes: 0,
        block_cache_enabled: true,
        time_to_live: i32::MAX,
    };
    match catalog {
        Catalog::Meta => vec![
            family(b"info:", 3, "ROWCOL"),
            family(b"rep_barrier:", i32::MAX, "ROWCOL"),
            family(b"table:", 3, "ROWCOL"),
        ],
        Catalog::Namespace => vec![family(b"info:", 10, "ROW")],
    }
}
