//! Row and cell reads: get*, getRow*, getRows*.

use super::convert::{tcells, trow, ColumnOrder};
use super::names::{open_table, parse_column};
use super::{CallResult, Handler, ServiceError};
use crate::thrift::ThriftValue;
use ferrobase_engine::{Get, TimeRange};

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
    /// get / getVer / getVerTs: the versions of one column (or family), newest first.
    /// Timestamps are exclusive upper bounds, as in HBase.
    pub(crate) fn get_cells(&self, req: &CellsRequest<'_>) -> CallResult {
        let t = open_table(&self.engine, req.table)?;
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
        let r = t.get(&get)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// getRow, getRowWithColumns, getRowTs, getRowWithColumnsTs and their getRows* forms.
    pub(crate) fn get_rows(&self, req: &RowsRequest<'_>) -> CallResult {
        let t = open_table(&self.engine, req.table)?;
        let mut out = Vec::new();
        for row in req.rows {
            check_get_row(row)?;
            let mut get = Get::new(row.clone());
            for c in req.columns {
                get = with_column(get, c);
            }
            if let Some(ts) = req.timestamp {
                get = get.time_range(up_to(ts)?);
            }
            let r = t.get(&get)?;
            if !r.is_empty() {
                out.push(trow(&r, ColumnOrder::Map));
            }
        }
        Ok(Some(out.to_value()))
    }
}
