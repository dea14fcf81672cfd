//! Row and cell reads: get*, getRow*, getRows*.

use super::convert::{tcells, trow, ColumnOrder};
use super::names::{open_table, parse_column};
use super::{CallResult, Handler};
use crate::thrift::ThriftValue;
use ferrobase_engine::{Get, TimeRange};

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
    /// Versions to read (at least one); `None`: the newest only.
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
        let mut get = with_column(Get::new(req.row.to_vec()), req.column);
        if let Some(ts) = req.timestamp {
            get = get.time_range(TimeRange::new(0, ts)?);
        }
        if let Some(n) = req.versions {
            get = get.max_versions(n.max(1) as u32);
        }
        let r = t.get(&get)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// getRow, getRowWithColumns, getRowTs, getRowWithColumnsTs and their getRows* forms.
    pub(crate) fn get_rows(&self, req: &RowsRequest<'_>) -> CallResult {
        let t = open_table(&self.engine, req.table)?;
        let mut out = Vec::new();
        for row in req.rows {
            let mut get = Get::new(row.clone());
            for c in req.columns {
                get = with_column(get, c);
            }
            if let Some(ts) = req.timestamp {
                get = get.time_range(TimeRange::new(0, ts)?);
            }
            let r = t.get(&get)?;
            if !r.is_empty() {
                out.push(trow(&r, ColumnOrder::Map));
            }
        }
        Ok(Some(out.to_value()))
    }
}
