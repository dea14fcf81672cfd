//! Row and cell reads: get*, getRow*, getRows*, getRowOrBefore.

use super::args::{open_table, parse_column, Args};
use super::convert::{tcells, trow};
use super::{CallResult, Handler};
use crate::thrift::{TType, TValue};
use ferrobase_engine::{Get, Scan, TimeRange};

fn with_column(get: Get, column: &[u8]) -> Get {
    match parse_column(column) {
        (f, None) => get.add_family(f),
        (f, Some(q)) => get.add_column(f, q),
    }
}

impl Handler {
    /// get / getVer / getVerTs: the versions of one column (or family), newest first.
    /// Timestamps are exclusive upper bounds, as in HBase.
    pub(crate) fn get_cells(&self, a: &Args<'_>, versions: bool, with_ts: bool) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let mut get = with_column(Get::new(a.bytes(2)?), &a.bytes(3)?);
        if with_ts {
            get = get.time_range(TimeRange::new(0, a.i64(4)?)?);
        }
        if versions {
            let n = a.i32(if with_ts { 5 } else { 4 })?;
            get = get.max_versions(n.max(1) as u32);
        }
        let r = t.get(&get)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// getRow, getRowWithColumns, getRowTs, getRowWithColumnsTs and their getRows* forms.
    pub(crate) fn get_rows(
        &self,
        a: &Args<'_>,
        many: bool,
        with_columns: bool,
        with_ts: bool,
    ) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let rows = if many {
            a.byte_list(2)
        } else {
            vec![a.bytes(2)?]
        };
        let mut next = 3;
        let columns = if with_columns {
            next += 1;
            a.byte_list(3)
        } else {
            Vec::new()
        };
        let ts = if with_ts { Some(a.i64(next)?) } else { None };
        let mut out = Vec::new();
        for row in rows {
            let mut get = Get::new(row);
            for c in &columns {
                get = with_column(get, c);
            }
            if let Some(ts) = ts {
                get = get.time_range(TimeRange::new(0, ts)?);
            }
            let r = t.get(&get)?;
            if !r.is_empty() {
                out.push(trow(&r, false));
            }
        }
        Ok(Some(TValue::List(TType::Struct, out)))
    }

    /// The cells of `family` in the last row ≤ `row`.
    pub(crate) fn get_row_or_before(&self, a: &Args<'_>) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let scan = Scan::new()
            .reversed(true)
            .with_start_row(a.bytes(2)?)
            .add_family(parse_column(&a.bytes(3)?).0)
            .limit(1);
        let rows = t.scan_all(&scan)?;
        Ok(Some(tcells(rows.iter().flat_map(|r| r.cells.iter()))))
    }
}
