//! `Get`: the engine's read of one row, and `hbase:meta`'s rows from the catalog.

use super::results::encode_result;
use crate::error::RpcError;
use crate::filters;
use crate::proto::client::{Column, Get as PbGet, GetRequest, GetResponse, Result as PbResult};
use crate::proto::hbase::TimeRange as PbTimeRange;
use crate::regions::{self, Region, Target};
use crate::services::{Ctx, Reply};
use ferrobase_engine::{Bytes, Cell, CellType, ColumnSelection, Get, RowResult, TimeRange};
use ferrobase_gateway::access::Operation;
use ferrobase_gateway::catalog;
use ferrobase_gateway::request::{Partial, Request, Response};

pub(super) fn time_range(tr: Option<&PbTimeRange>) -> TimeRange {
    match tr {
        None => TimeRange::ALL,
        Some(tr) => TimeRange {
            min: tr.from.map_or(0, |v| v as i64),
            max: tr.to.map_or(i64::MAX, |v| v as i64),
        },
    }
}

pub(super) fn columns(cols: &[Column]) -> ColumnSelection {
    let mut sel = ColumnSelection::new();
    for c in cols {
        let family = c.family.clone().unwrap_or_default();
        if c.qualifier.is_empty() {
            sel.insert(family, Vec::new());
        } else {
            let e = sel.entry(family).or_default();
            for q in &c.qualifier {
                if !e.contains(q) {
                    e.push(q.clone());
                }
            }
            e.sort();
        }
    }
    sel
}

pub(super) fn filter(
    f: Option<&crate::proto::filter::Filter>,
) -> Result<Option<Box<dyn ferrobase_engine::filter::Filter>>, RpcError> {
    f.map(filters::to_engine_filter)
        .transpose()
        .map_err(|e| RpcError::unsupported(e.0))
}

/// What of a read ferrobase does not serve, refused naming it.
pub(super) fn refuse_unserved_read(
    store_limit: Option<u32>,
    store_offset: Option<u32>,
    cf_time_ranges: usize,
) -> Result<(), RpcError> {
    if store_limit.is_some_and(|l| l > 0 && l < i32::MAX as u32)
        || store_offset.is_some_and(|o| o > 0)
    {
        return Err(RpcError::unsupported(
            "setMaxResultsPerColumnFamily and setRowOffsetPerColumnFamily are not supported by \
             ferrobase (a ColumnPaginationFilter does the same)",
        ));
    }
    if cf_time_ranges > 0 {
        return Err(RpcError::unsupported(
            "per-family time ranges (setColumnFamilyTimeRange) are not supported by ferrobase",
        ));
    }
    Ok(())
}

pub(super) fn engine_get(g: &PbGet) -> Result<Get, RpcError> {
    refuse_unserved_read(g.store_limit, g.store_offset, g.cf_time_range.len())?;
    if g.closest_row_before.unwrap_or(false) {
        return Err(RpcError::unsupported(
            "closest-row-before gets were removed from HBase; use a reversed scan",
        ));
    }
    let mut get = Get::new(g.row.clone().unwrap_or_default());
    get.spec.columns = columns(&g.column);
    get.spec.time_range = time_range(g.time_range.as_ref());
    get.spec.max_versions = g.max_versions.unwrap_or(1).max(1);
    get.spec.filter = filter(g.filter.as_ref())?;
    Ok(get)
}

/// `hbase:meta` as rows of cells, in meta order (with `--rpc-hide-tables`, the rows of the tables
/// a table listing shows the user).
pub(super) fn meta_rows(ctx: &Ctx) -> Result<Vec<RowResult>, RpcError> {
    let shared = &ctx.shared;
    let server = regions::server_name(shared);
    let rows = catalog::meta_rows(&shared.engine, &server)?;
    Ok(rows
        .into_iter()
        .filter(|r| {
            let table = r.row.split(|&b| b == b',').next().unwrap_or_default();
            ctx.meta_shows(&String::from_utf8_lossy(table))
        })
        .map(|r| {
            let row = Bytes::from(r.row);
            let cells = r
                .cells
                .into_iter()
                .map(|c| {
                    Cell::new(
                        row.clone(),
                        Bytes::from_static(c.family.as_bytes()),
                        Bytes::from_static(c.qualifier.as_bytes()),
                        shared.start_code as i64,
                        CellType::Put,
                        c.value,
                    )
                })
                .collect();
            RowResult::new(row, cells)
        })
        .collect())
}

/// Keeps the cells a column selection asks for.
pub(super) fn select(row: RowResult, sel: &ColumnSelection) -> RowResult {
    if sel.is_empty() {
        return row;
    }
    let key = row.row_bytes();
    let cells = row
        .cells
        .into_iter()
        .filter(|c| match sel.get(c.family()) {
            None => false,
            Some(qs) => qs.is_empty() || qs.iter().any(|q| q.as_slice() == c.qualifier()),
        })
        .collect();
    RowResult::new(key, cells)
}

pub(super) fn get(ctx: &Ctx, req: GetRequest) -> Result<Reply, RpcError> {
    let pb = req
        .get
        .as_ref()
        .ok_or_else(|| RpcError::bad_request("Get without a get"))?;
    let get = engine_get(pb)?;
    let row = match regions::resolve(&ctx.shared, req.region.as_ref())? {
        Target::Meta => {
            ctx.authorize(&Operation::Catalog)?;
            let row = meta_rows(ctx)?
                .into_iter()
                .find(|r| r.row() == get.row.as_slice())
                .map(|r| select(r, &get.spec.columns))
                .unwrap_or_else(|| RowResult::new(Bytes::new(), Vec::new()));
            match pb.existence_only.unwrap_or(false) {
                true => RowOrExists::Exists(!row.is_empty()),
                false => RowOrExists::Row(row),
            }
        }
        Target::Region(region) => RowOrExists::of(ctx, &region, pb, get)?,
    };
    let mut cells = Vec::new();
    let result = row.result(ctx, &mut cells);
    Ok(Reply::with_cells(
        &GetResponse {
            result: Some(result),
        },
        cells,
    ))
}

/// A get's answer: the row, or whether it exists (`Get.setCheckExistenceOnly`).
pub(super) enum RowOrExists {
    Row(RowResult),
    Exists(bool),
}

impl RowOrExists {
    /// `get` of a row of `region`, through the shared executor (authorized first: a partly
    /// granted read narrowed, a whole-row existence check granted whole).
    pub(super) fn of(
        ctx: &Ctx,
        region: &Region,
        pb: &PbGet,
        get: Get,
    ) -> Result<RowOrExists, RpcError> {
        check_row(region, &get.row)?;
        let table = region.table.clone();
        let gets = vec![get];
        if pb.existence_only.unwrap_or(false) {
            match ctx.execute(Request::Exists { table, gets })? {
                Response::Exists(e) => Ok(RowOrExists::Exists(e.first().copied().unwrap_or(false))),
                other => Err(RpcError::bad_request(format!("a get answered {other:?}"))),
            }
        } else {
            match ctx.execute(Request::Get {
                table,
                gets,
                partial: Partial::Narrow,
            })? {
                Response::Rows(mut rows) => {
                    Ok(RowOrExists::Row(rows.pop().unwrap_or_else(|| {
                        RowResult::new(Bytes::new(), Vec::new())
                    })))
                }
                other => Err(RpcError::bad_request(format!("a get answered {other:?}"))),
            }
        }
    }

    /// The answer as a `Result` (its cells into `cells`).
    pub(super) fn result(&self, ctx: &Ctx, cells: &mut Vec<u8>) -> PbResult {
        match self {
            RowOrExists::Exists(e) => PbResult {
                exists: Some(*e),
                stale: Some(false),
                ..PbResult::default()
            },
            RowOrExists::Row(row) => encode_result(ctx.codec, &row.cells, cells),
        }
    }
}

/// HBase's `WrongRegionException` for a row outside the region the request names.
pub(super) fn check_row(region: &Region, row: &[u8]) -> Result<(), RpcError> {
    if region.contains(row) {
        Ok(())
    } else {
        Err(RpcError::fatal(
            "org.apache.hadoop.hbase.regionserver.WrongRegionException",
            format!(
                "Requested row out of range for region {} of {}, row={}",
                region.id,
                region.table,
                String::from_utf8_lossy(row)
            ),
        ))
    }
}
