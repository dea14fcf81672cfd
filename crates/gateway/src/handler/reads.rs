//! Row and cell reads: get*, getRow*, getRows*.

use super::convert::{tcells, trow, ColumnOrder};
use super::names::{open_table, parse_column, table_name};
use super::{CallResult, Handler, ServiceError};
use crate::request::{Executor, Partial, Request, Response};
use crate::thrift::ThriftValue;
use ferrobase_engine::{Get, RowResult, TimeRange};

/// The time range `[0, ts)` of a Thrift1 `...Ts` read. A negative `ts` is HBase's
/// `TimeRange` `IllegalArgumentException`, undeclared by its handlers: an INTERNAL_ERROR.
pub(crate) fn up_to(ts: i64) -> Result<TimeRange, ServiceError> {
    if ts < 0 {
        return Err(ServiceError::Internal(format!(
            "java.lang.IllegalArgumentException: Timestamp cannot be negative. minStamp:0, \
             maxStamp:{ts}"
        )));
    }
    Ok(TimeRange::new(0, ts)?)
}

/// HBase's `Get` refuses an empty row with an `IllegalArgumentException` its handlers do not
/// declare: an INTERNAL_ERROR.
fn check_get_row(row: &[u8]) -> Result<(), ServiceError> {
    if row.is_empty() {
        return Err(ServiceError::Internal(
            "java.lang.IllegalArgumentException: Row length is 0".into(),
        ));
    }
    Ok(())
}

fn with_column(get: Get, column: &[u8]) -> Get {
    match parse_column(column) {
        (f, None) => get.add_family(f),
        (f, Some(q)) => get.add_column(f, q),
    }
}

/// What get / getVer / getVerTs read.
pub(crate) struct CellsRequest<'a> {
    pub table: &'a [u8],
    pub row: &'a [u8],
    /// `family:qualifier`, or a whole family.
    pub column: &'a [u8],
    /// Exclusive upper bound of the timestamps read; `None`: every timestamp.
    pub timestamp: Option<i64>,
    /// Versions to read (positive, else HBase's IOError "versions must be positive");
    /// `None`: the newest only.
    pub versions: Option<i32>,
}

/// What the getRow* and getRows* forms read.
pub(crate) struct RowsRequest<'a> {
    pub table: &'a [u8],
    pub rows: &'a [Vec<u8>],
    /// Columns or families to read; empty: all.
    pub columns: &'a [Vec<u8>],
    /// Exclusive upper bound of the timestamps read; `None`: every timestamp.
    pub timestamp: Option<i64>,
}

impl Handler {
    /// `gets` of `table` run by the shared executor for `user` (authorized first with ACLs on).
    fn read(
        &self,
        user: &str,
        table: &[u8],
        gets: Vec<Get>,
        partial: Partial,
    ) -> Result<Vec<RowResult>, ServiceError> {
        let request = Request::Get {
            table: table_name(table)?,
            gets,
            partial,
        };
        match Executor::new(&self.engine, self.access(), user).execute(request) {
            Ok(Response::Rows(rows)) => Ok(rows),
            Ok(other) => Err(ServiceError::Internal(format!(
                "a get was answered {other:?}"
            ))),
            Err(f) => Err(f.into()),
        }
    }

    /// get / getVer / getVerTs: the versions of one column (or family), newest first.
    /// Timestamps are exclusive upper bounds, as in HBase. The answer names no column, so a
    /// partly granted read (of a family) is refused, not narrowed.
    pub(crate) fn get_cells(&self, user: &str, req: &CellsRequest<'_>) -> CallResult {
        open_table(&self.engine, req.table)?;
        check_get_row(req.row)?;
        let mut get = with_column(Get::new(req.row.to_vec()), req.column);
        if let Some(ts) = req.timestamp {
            get = get.time_range(up_to(ts)?);
        }
        if let Some(n) = req.versions {
            let n = u32::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
                ServiceError::Io("java.io.IOException: versions must be positive".into())
            })?;
            get = get.max_versions(n);
        }
        let rows = self.read(user, req.table, vec![get], Partial::Refuse)?;
        Ok(Some(tcells(rows.iter().flat_map(|r| r.cells.iter()))))
    }

    /// getRow, getRowWithColumns, getRowTs, getRowWithColumnsTs and their getRows* forms; a
    /// partly granted read answers the readable cells.
    pub(crate) fn get_rows(&self, user: &str, req: &RowsRequest<'_>) -> CallResult {
        open_table(&self.engine, req.table)?;
        let mut gets = Vec::with_capacity(req.rows.len());
        for row in req.rows {
            check_get_row(row)?;
            let mut get = Get::new(row.clone());
            for c in req.columns {
                get = with_column(get, c);
            }
            if let Some(ts) = req.timestamp {
                get = get.time_range(up_to(ts)?);
            }
            gets.push(get);
        }
        let rows = self.read(user, req.table, gets, Partial::Narrow)?;
        let out: Vec<_> = rows
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| trow(r, ColumnOrder::Map))
            .collect();
        Ok(Some(out.to_value()))
    }
}
