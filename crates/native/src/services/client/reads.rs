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
    let mut get = engine_get(pb)?;
    let row = match regions::resolve(&ctx.shared, req.region.as_ref())? {
        Target::Meta => {
            ctx.authorize(&Operation::Catalog)?;
            meta_rows(ctx)?
                .into_iter()
                .find(|r| r.row() == get.row.as_slice())
                .map(|r| select(r, &get.spec.columns))
                .unwrap_or_else(|| RowResult::new(Bytes::new(), Vec::new()))
        }
        Target::Region(region) => {
            check_row(&region, &get.row)?;
            authorize_exists(ctx, pb, &region.table, &get.spec.columns)?;
            ctx.authorize_read(&region.table, &mut get.spec.columns)?;
            ctx.shared.engine.table(&region.table)?.get(&get)?
        }
    };
    let mut cells = Vec::new();
    let result = if pb.existence_only.unwrap_or(false) {
        PbResult {
            exists: Some(!row.is_empty()),
            stale: Some(false),
            ..PbResult::default()
        }
    } else {
        encode_result(ctx.codec, &row.cells, &mut cells)
    };
    Ok(Reply::with_cells(
        &GetResponse {
            result: Some(result),
        },
        cells,
    ))
}

/// An existence check of a whole row (`Table.exists` of a `Get` naming no family) needs READ on
/// every family, unfiltered: HBase's `preExists` runs before the region fills in the table's
/// families, so with none named it asks for the table's READ and refuses a partial grant, where
/// a `get` of the same row is filtered to the granted columns.
pub(super) fn authorize_exists(
    ctx: &Ctx,
    pb: &PbGet,
    table: &str,
    columns: &ColumnSelection,
) -> Result<(), RpcError> {
    if ctx.acl().is_none() || !pb.existence_only.unwrap_or(false) || !columns.is_empty() {
        return Ok(());
    }
    let families = ctx.families(table).into_iter().map(|f| (f, None)).collect();
    ctx.authorize(&Operation::Read {
        table: table.to_string(),
        families,
        filterable: false,
    })
    .map(drop)
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
