//! `ClientService` (Client.proto): `Get`, `Mutate`, `Multi` and `Scan`, translated into the
//! engine's typed reads and writes. A request names its region; a region the engine no longer
//! has is `NotServingRegionException` (the client looks it up again), and a scan reads only its
//! region's rows, so the client moves region by region as on HBase. `hbase:meta`'s region is
//! answered from the catalog the Thrift door serves.

use super::{decode, unknown_method, Ctx, Reply};
use crate::cellblock::{self, BlockCell, Codec};
use crate::error::{RpcError, UNKNOWN_SCANNER};
use crate::filters;
use crate::proto::cell::{Cell as PbCell, CellType as PbCellType};
use crate::proto::client::mutation_proto::{DeleteType, Durability as PbDurability, MutationType};
use crate::proto::client::{
    Column, Condition, Get as PbGet, GetRequest, GetResponse, MultiRequest, MultiResponse,
    MutateRequest, MutateResponse, MutationProto, RegionAction, RegionActionResult,
    Result as PbResult, ResultOrException, Scan as PbScan, ScanRequest, ScanResponse,
};
use crate::proto::hbase::{NameBytesPair, TimeRange as PbTimeRange};
use crate::regions::{self, Region, Target};
use crate::scanners::Source;
use crate::server::Shared;
use ferrobase_engine::{
    Bytes, Cell, CellType, ColumnSelection, Delete, Durability, Get, Mutation, MutationCell, Put,
    RowResult, Scan, TimeRange, LATEST_TIMESTAMP,
};
use ferrobase_gateway::catalog;
use std::cmp::Ordering;
use std::collections::VecDeque;

pub(super) fn call(ctx: &Ctx, method: &str, param: &[u8], cells: &[u8]) -> Result<Reply, RpcError> {
    let mut block = Block::new(cells, ctx.codec)?;
    match method {
        "Get" => get(ctx, decode(param, method)?),
        "Mutate" => mutate(ctx, decode(param, method)?, &mut block),
        "Multi" => multi(ctx, decode(param, method)?, &mut block),
        "Scan" => scan(ctx, decode(param, method)?),
        "BulkLoadHFile" | "PrepareBulkLoad" | "CleanupBulkLoad" => Err(RpcError::unsupported(
            "bulk load is not served by ferrobase yet: load rows with puts (BufferedMutator)",
        )),
        other => Err(unknown_method("ClientService", other)),
    }
}

/// The cells a request carried in its cell block, taken in order by the mutations that say
/// how many are theirs (`associated_cell_count`).
struct Block {
    cells: VecDeque<BlockCell>,
}

impl Block {
    fn new(bytes: &[u8], codec: Codec) -> Result<Block, RpcError> {
        if bytes.is_empty() {
            return Ok(Block {
                cells: VecDeque::new(),
            });
        }
        if codec == Codec::None {
            return Err(RpcError::bad_request(
                "a cell block arrived on a connection that named no codec",
            ));
        }
        let cells = cellblock::decode_block(bytes, codec).map_err(RpcError::bad_request)?;
        Ok(Block {
            cells: cells.into(),
        })
    }

    fn take(&mut self, n: usize) -> Result<Vec<BlockCell>, RpcError> {
        if n > self.cells.len() {
            return Err(RpcError::bad_request(format!(
                "a mutation claims {n} cells of the cell block, {} are left",
                self.cells.len()
            )));
        }
        Ok(self.cells.drain(..n).collect())
    }
}

// ---- results ------------------------------------------------------------------------------

/// Encodes `rows` for the connection: cells in the cell block with their counts (a codec), or
/// inside each `Result` (no codec).
fn encode_results(codec: Codec, rows: &[RowResult], out: &mut Vec<u8>) -> Vec<PbResult> {
    rows.iter()
        .map(|r| encode_result(codec, &r.cells, out))
        .collect()
}

fn encode_result(codec: Codec, cells: &[Cell], out: &mut Vec<u8>) -> PbResult {
    if codec == Codec::None {
        PbResult {
            cell: cells.iter().map(pb_cell).collect(),
            stale: Some(false),
            ..PbResult::default()
        }
    } else {
        for c in cells {
            cellblock::encode_cell(out, c, codec);
        }
        PbResult {
            associated_cell_count: Some(cells.len() as i32),
            stale: Some(false),
            ..PbResult::default()
        }
    }
}

fn pb_cell(c: &Cell) -> PbCell {
    let t = match c.cell_type() {
        CellType::Put => PbCellType::Put,
        CellType::Delete => PbCellType::Delete,
        CellType::DeleteFamilyVersion => PbCellType::DeleteFamilyVersion,
        CellType::DeleteColumn => PbCellType::DeleteColumn,
        CellType::DeleteFamily => PbCellType::DeleteFamily,
        CellType::Minimum => PbCellType::Minimum,
        CellType::Maximum => PbCellType::Maximum,
    };
    let mut cell = PbCell {
        row: Some(c.row().to_vec()),
        family: Some(c.family().to_vec()),
        qualifier: Some(c.qualifier().to_vec()),
        timestamp: Some(c.timestamp() as u64),
        value: Some(c.value().to_vec()),
        ..PbCell::default()
    };
    cell.set_cell_type(t);
    cell
}

// ---- reads --------------------------------------------------------------------------------

fn time_range(tr: Option<&PbTimeRange>) -> TimeRange {
    match tr {
        None => TimeRange::ALL,
        Some(tr) => TimeRange {
            min: tr.from.map_or(0, |v| v as i64),
            max: tr.to.map_or(i64::MAX, |v| v as i64),
        },
    }
}

fn columns(cols: &[Column]) -> ColumnSelection {
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

fn filter(
    f: Option<&crate::proto::filter::Filter>,
) -> Result<Option<Box<dyn ferrobase_engine::filter::Filter>>, RpcError> {
    f.map(filters::to_engine_filter)
        .transpose()
        .map_err(|e| RpcError::unsupported(e.0))
}

/// What of a read ferrobase does not serve, refused naming it.
fn refuse_unserved_read(
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

fn engine_get(g: &PbGet) -> Result<Get, RpcError> {
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

/// `hbase:meta` as rows of cells, in meta order.
fn meta_rows(shared: &Shared) -> Result<Vec<RowResult>, RpcError> {
    let server = regions::server_name(shared);
    let rows = catalog::meta_rows(&shared.engine, &server)?;
    Ok(rows
        .into_iter()
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
fn select(row: RowResult, sel: &ColumnSelection) -> RowResult {
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

fn get(ctx: &Ctx, req: GetRequest) -> Result<Reply, RpcError> {
    let pb = req
        .get
        .as_ref()
        .ok_or_else(|| RpcError::bad_request("Get without a get"))?;
    let get = engine_get(pb)?;
    let row = match regions::resolve(&ctx.shared, req.region.as_ref())? {
        Target::Meta => meta_rows(&ctx.shared)?
            .into_iter()
            .find(|r| r.row() == get.row.as_slice())
            .map(|r| select(r, &get.spec.columns))
            .unwrap_or_else(|| RowResult::new(Bytes::new(), Vec::new())),
        Target::Region(region) => {
            check_row(&region, &get.row)?;
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

/// HBase's `WrongRegionException` for a row outside the region the request names.
fn check_row(region: &Region, row: &[u8]) -> Result<(), RpcError> {
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

// ---- writes -------------------------------------------------------------------------------

/// A mutation decoded: what the engine applies.
enum Write {
    Mutation(Mutation),
    Increment {
        row: Vec<u8>,
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        ttl_ms: Option<i64>,
    },
    Append {
        row: Vec<u8>,
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        ttl_ms: Option<i64>,
    },
}

/// One cell of a mutation: family, qualifier, timestamp, type code, value.
type RawCell = (Vec<u8>, Vec<u8>, i64, u8, Vec<u8>);

fn durability(m: &MutationProto) -> Durability {
    match m.durability() {
        PbDurability::UseDefault => Durability::UseDefault,
        PbDurability::SkipWal => Durability::SkipWal,
        PbDurability::AsyncWal => Durability::AsyncWal,
        PbDurability::SyncWal => Durability::SyncWal,
        PbDurability::FsyncWal => Durability::FsyncWal,
    }
}

/// The `_ttl` attribute of a mutation (8-byte milliseconds), as `Mutation.setTTL` sends it.
fn ttl(attrs: &[NameBytesPair]) -> Result<Option<i64>, RpcError> {
    for a in attrs {
        if a.name.as_deref() == Some("_ttl") {
            let v = a.value.as_deref().unwrap_or_default();
            let b: [u8; 8] = v
                .try_into()
                .map_err(|_| RpcError::bad_request("the _ttl attribute is not 8 bytes"))?;
            return Ok(Some(i64::from_be_bytes(b)));
        }
    }
    Ok(None)
}

/// The cells of a mutation, from the protobuf or the cell block.
fn raw_cells(m: &MutationProto, block: &mut Block) -> Result<Vec<RawCell>, RpcError> {
    let default_ts = m.timestamp.map_or(LATEST_TIMESTAMP, |t| t as i64);
    let count = m.associated_cell_count.unwrap_or(0);
    if count > 0 {
        return Ok(block
            .take(count as usize)?
            .into_iter()
            .map(|c| {
                (
                    c.family.to_vec(),
                    c.qualifier.to_vec(),
                    c.timestamp,
                    c.type_code,
                    c.value.to_vec(),
                )
            })
            .collect());
    }
    let mut out = Vec::new();
    for cv in &m.column_value {
        let family = cv.family.clone().unwrap_or_default();
        for qv in &cv.qualifier_value {
            let code = match m.mutate_type() {
                MutationType::Delete => match qv.delete_type() {
                    DeleteType::DeleteOneVersion => CellType::Delete.code(),
                    DeleteType::DeleteMultipleVersions => CellType::DeleteColumn.code(),
                    DeleteType::DeleteFamily => CellType::DeleteFamily.code(),
                    DeleteType::DeleteFamilyVersion => CellType::DeleteFamilyVersion.code(),
                },
                _ => CellType::Put.code(),
            };
            out.push((
                family.clone(),
                qv.qualifier.clone().unwrap_or_default(),
                qv.timestamp.map_or(default_ts, |t| t as i64),
                code,
                qv.value.clone().unwrap_or_default(),
            ));
        }
    }
    Ok(out)
}

fn to_write(m: &MutationProto, block: &mut Block) -> Result<Write, RpcError> {
    let row = m.row.clone().unwrap_or_default();
    let cells = raw_cells(m, block)?;
    let ttl_ms = ttl(&m.attribute)?;
    let default_ts = m.timestamp.map_or(LATEST_TIMESTAMP, |t| t as i64);
    Ok(match m.mutate_type() {
        MutationType::Put => {
            let mut put = Put::with_timestamp(row, default_ts).durability(durability(m));
            put.ttl_ms = ttl_ms;
            for (family, qualifier, timestamp, code, value) in cells {
                if code != CellType::Put.code() {
                    return Err(RpcError::bad_request(format!(
                        "a put carries a cell of type {code}"
                    )));
                }
                put.cells.push(MutationCell {
                    family,
                    qualifier,
                    timestamp,
                    cell_type: CellType::Put,
                    value,
                });
            }
            Write::Mutation(Mutation::Put(put))
        }
        MutationType::Delete => {
            let mut del = Delete::with_timestamp(row, default_ts).durability(durability(m));
            for (family, qualifier, timestamp, code, _) in cells {
                let cell_type = cellblock::cell_type(code)
                    .filter(|t| t.is_delete())
                    .ok_or_else(|| {
                        RpcError::bad_request(format!("a delete carries a cell of type {code}"))
                    })?;
                del.cells.push(MutationCell {
                    family,
                    qualifier,
                    timestamp,
                    cell_type,
                    value: Vec::new(),
                });
            }
            Write::Mutation(Mutation::Delete(del))
        }
        MutationType::Increment => {
            let mut columns = Vec::new();
            for (family, qualifier, _, _, value) in cells {
                let amount: [u8; 8] = value.as_slice().try_into().map_err(|_| {
                    RpcError::fatal(
                        "org.apache.hadoop.hbase.DoNotRetryIOException",
                        format!(
                            "Attempted to increment field that isn't 64 bits wide (family {}, \
                             qualifier {})",
                            String::from_utf8_lossy(&family),
                            String::from_utf8_lossy(&qualifier)
                        ),
                    )
                })?;
                columns.push((family, qualifier, i64::from_be_bytes(amount)));
            }
            Write::Increment {
                row,
                columns,
                ttl_ms,
            }
        }
        MutationType::Append => Write::Append {
            row,
            columns: cells.into_iter().map(|(f, q, _, _, v)| (f, q, v)).collect(),
            ttl_ms,
        },
    })
}

/// Applies one write; its result cells (an increment's or append's new values).
fn apply(ctx: &Ctx, region: &Region, w: Write) -> Result<Vec<Cell>, RpcError> {
    let table = ctx.shared.engine.table(&region.table)?;
    match w {
        Write::Mutation(m) => {
            check_row(region, m.row())?;
            table.mutate(vec![m])?;
            Ok(Vec::new())
        }
        Write::Increment {
            row,
            columns,
            ttl_ms,
        } => {
            check_row(region, &row)?;
            let cols: Vec<(&[u8], &[u8], i64)> = columns
                .iter()
                .map(|(f, q, a)| (f.as_slice(), q.as_slice(), *a))
                .collect();
            let values = table.increment_with_ttl(&row, &cols, ttl_ms)?;
            let now = now_ms();
            let row = Bytes::from(row);
            Ok(columns
                .into_iter()
                .zip(values)
                .map(|((f, q, _), v)| {
                    Cell::new(
                        row.clone(),
                        f,
                        q,
                        now,
                        CellType::Put,
                        v.to_be_bytes().to_vec(),
                    )
                })
                .collect())
        }
        Write::Append {
            row,
            columns,
            ttl_ms,
        } => {
            check_row(region, &row)?;
            let cols: Vec<(&[u8], &[u8], &[u8])> = columns
                .iter()
                .map(|(f, q, v)| (f.as_slice(), q.as_slice(), v.as_slice()))
                .collect();
            Ok(table.append_with_ttl(&row, &cols, ttl_ms)?.cells)
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The region a write names: a user region (`hbase:meta` is written only by the server).
fn write_region(
    ctx: &Ctx,
    spec: Option<&crate::proto::hbase::RegionSpecifier>,
) -> Result<Region, RpcError> {
    match regions::resolve(&ctx.shared, spec)? {
        Target::Region(r) => Ok(r),
        Target::Meta => Err(RpcError::fatal(
            "org.apache.hadoop.hbase.security.AccessDeniedException",
            "hbase:meta is written by the server only",
        )),
    }
}

/// `(op, expected)` of a condition on one column (`checkAndMutate`'s `ifEquals`/`ifMatches`
/// with a `BinaryComparator`, `ifNotExists` with a `NullComparator`).
fn condition(
    c: &Condition,
) -> Result<(ferrobase_engine::filter::CompareOp, Option<Vec<u8>>), RpcError> {
    if c.filter.is_some() {
        return Err(RpcError::unsupported(
            "checkAndMutate with a filter condition is not supported by ferrobase yet",
        ));
    }
    if c.time_range
        .as_ref()
        .is_some_and(|tr| time_range(Some(tr)) != TimeRange::ALL)
    {
        return Err(RpcError::unsupported(
            "checkAndMutate with a time range is not supported by ferrobase yet",
        ));
    }
    let op =
        filters::compare_op(c.compare_type.unwrap_or(2)).map_err(|e| RpcError::unsupported(e.0))?;
    let comparator = c
        .comparator
        .as_ref()
        .ok_or_else(|| RpcError::bad_request("a condition without a comparator"))?;
    let expected = match comparator.name.as_deref().unwrap_or_default() {
        "org.apache.hadoop.hbase.filter.NullComparator" => None,
        "org.apache.hadoop.hbase.filter.BinaryComparator" => {
            use prost::Message;
            let b = crate::proto::comparator::BinaryComparator::decode(
                comparator
                    .serialized_comparator
                    .as_deref()
                    .unwrap_or_default(),
            )
            .map_err(|e| RpcError::bad_request(format!("BinaryComparator does not decode: {e}")))?;
            // An empty value means "absent or empty", as HBase's checkAndMutate reads it
            // (`ifNotExists` sends one).
            b.comparable.and_then(|c| c.value).filter(|v| !v.is_empty())
        }
        other => {
            return Err(RpcError::unsupported(format!(
                "checkAndMutate with comparator {other} is not supported by ferrobase yet \
                 (BinaryComparator and NullComparator are)"
            )))
        }
    };
    Ok((op, expected))
}

/// `checkAndMutate` of `mutations` (puts and deletes of the condition's row).
fn check_and_mutate(
    ctx: &Ctx,
    region: &Region,
    c: &Condition,
    writes: Vec<Write>,
) -> Result<bool, RpcError> {
    let (op, expected) = condition(c)?;
    let row = c.row.clone().unwrap_or_default();
    check_row(region, &row)?;
    let mut mutations = Vec::new();
    for w in writes {
        match w {
            Write::Mutation(m) => mutations.push(m),
            _ => {
                return Err(RpcError::unsupported(
                    "checkAndMutate of an increment or append is not supported by ferrobase yet",
                ))
            }
        }
    }
    Ok(ctx.shared.engine.table(&region.table)?.check_and_mutate(
        &row,
        c.family.as_deref().unwrap_or_default(),
        c.qualifier.as_deref().unwrap_or_default(),
        op,
        expected.as_deref(),
        mutations,
    )?)
}

fn mutate(ctx: &Ctx, req: MutateRequest, block: &mut Block) -> Result<Reply, RpcError> {
    let region = write_region(ctx, req.region.as_ref())?;
    let m = req
        .mutation
        .as_ref()
        .ok_or_else(|| RpcError::bad_request("Mutate without a mutation"))?;
    let w = to_write(m, block)?;
    if let Some(c) = &req.condition {
        let processed = check_and_mutate(ctx, &region, c, vec![w])?;
        return Ok(Reply::pb(&MutateResponse {
            result: None,
            processed: Some(processed),
        }));
    }
    let cells = apply(ctx, &region, w)?;
    let mut block_out = Vec::new();
    let result = (!cells.is_empty()).then(|| encode_result(ctx.codec, &cells, &mut block_out));
    Ok(Reply::with_cells(
        &MutateResponse {
            result,
            processed: Some(true),
        },
        block_out,
    ))
}

fn exception(e: &RpcError) -> NameBytesPair {
    NameBytesPair {
        name: Some(e.class.clone()),
        value: Some(format!("{}: {}", e.class, e.message).into_bytes()),
    }
}

fn multi(ctx: &Ctx, req: MultiRequest, block: &mut Block) -> Result<Reply, RpcError> {
    let mut out = Vec::new();
    let mut results = Vec::new();
    for ra in &req.region_action {
        results.push(region_action(ctx, ra, block, &mut out)?);
    }
    Ok(Reply::with_cells(
        &MultiResponse {
            region_action_result: results,
            processed: None,
            region_statistics: None,
        },
        out,
    ))
}

/// One region's actions: each answered by its index, its failure its own; an atomic group
/// (RowMutations, checkAndMutate of several mutations) all or nothing.
fn region_action(
    ctx: &Ctx,
    ra: &RegionAction,
    block: &mut Block,
    out: &mut Vec<u8>,
) -> Result<RegionActionResult, RpcError> {
    // Decode every action's cells first: the block's order is the actions' order.
    let mut decoded = Vec::new();
    for a in &ra.action {
        let w = a.mutation.as_ref().map(|m| to_write(m, block));
        decoded.push(w);
    }
    let region = match regions::resolve(&ctx.shared, ra.region.as_ref()) {
        Ok(Target::Region(r)) => r,
        Ok(Target::Meta) => {
            return Ok(RegionActionResult {
                exception: Some(exception(&RpcError::fatal(
                    "org.apache.hadoop.hbase.security.AccessDeniedException",
                    "hbase:meta is written by the server only",
                ))),
                ..RegionActionResult::default()
            })
        }
        Err(e) => {
            return Ok(RegionActionResult {
                exception: Some(exception(&e)),
                ..RegionActionResult::default()
            })
        }
    };
    if ra.atomic.unwrap_or(false) || ra.condition.is_some() {
        let mut writes = Vec::new();
        for w in decoded.into_iter().flatten() {
            match w {
                Ok(w) => writes.push(w),
                Err(e) => {
                    return Ok(RegionActionResult {
                        exception: Some(exception(&e)),
                        ..RegionActionResult::default()
                    })
                }
            }
        }
        let outcome = match &ra.condition {
            Some(c) => check_and_mutate(ctx, &region, c, writes),
            None => atomic_mutations(ctx, &region, writes).map(|()| true),
        };
        return Ok(match outcome {
            Ok(processed) => RegionActionResult {
                result_or_exception: ra
                    .action
                    .iter()
                    .map(|a| ResultOrException {
                        index: a.index,
                        result: Some(PbResult::default()),
                        ..ResultOrException::default()
                    })
                    .collect(),
                exception: None,
                processed: Some(processed),
            },
            Err(e) => RegionActionResult {
                exception: Some(exception(&e)),
                ..RegionActionResult::default()
            },
        });
    }
    let mut roe = Vec::new();
    for (a, w) in ra.action.iter().zip(decoded) {
        let outcome = match (w, &a.get) {
            (Some(w), _) => w.and_then(|w| apply(ctx, &region, w)).map(|cells| {
                if cells.is_empty() {
                    PbResult::default()
                } else {
                    encode_result(ctx.codec, &cells, out)
                }
            }),
            (None, Some(g)) => engine_get(g).and_then(|get| {
                check_row(&region, &get.row)?;
                let row = ctx.shared.engine.table(&region.table)?.get(&get)?;
                Ok(if g.existence_only.unwrap_or(false) {
                    PbResult {
                        exists: Some(!row.is_empty()),
                        stale: Some(false),
                        ..PbResult::default()
                    }
                } else {
                    encode_result(ctx.codec, &row.cells, out)
                })
            }),
            (None, None) => Err(RpcError::unsupported(
                "coprocessor service calls are not served by ferrobase",
            )),
        };
        roe.push(match outcome {
            Ok(result) => ResultOrException {
                index: a.index,
                result: Some(result),
                ..ResultOrException::default()
            },
            Err(e) => ResultOrException {
                index: a.index,
                exception: Some(exception(&e)),
                ..ResultOrException::default()
            },
        });
    }
    Ok(RegionActionResult {
        result_or_exception: roe,
        exception: None,
        processed: None,
    })
}

/// `Table.mutateRow`: puts and deletes of one row, atomically.
fn atomic_mutations(ctx: &Ctx, region: &Region, writes: Vec<Write>) -> Result<(), RpcError> {
    let mut mutations = Vec::new();
    for w in writes {
        match w {
            Write::Mutation(m) => {
                check_row(region, m.row())?;
                mutations.push(m);
            }
            _ => {
                return Err(RpcError::unsupported(
                    "an increment or append inside RowMutations is not supported by ferrobase yet",
                ))
            }
        }
    }
    if let Some(first) = mutations.first().map(|m| m.row().to_vec()) {
        if let Some(other) = mutations.iter().find(|m| m.row() != first.as_slice()) {
            return Err(RpcError::fatal(
                "org.apache.hadoop.hbase.DoNotRetryIOException",
                format!(
                    "Action's getRow must match: {} and {}",
                    String::from_utf8_lossy(&first),
                    String::from_utf8_lossy(other.row())
                ),
            ));
        }
    }
    ctx.shared.engine.table(&region.table)?.mutate(mutations)?;
    Ok(())
}

// ---- scans --------------------------------------------------------------------------------

/// The engine's scan of `s`, limited to `region`'s rows.
fn engine_scan(s: &PbScan, region: Option<&Region>) -> Result<Scan, RpcError> {
    refuse_unserved_read(s.store_limit, s.store_offset, s.cf_time_range.len())?;
    let mut scan = Scan::new();
    scan.reversed = s.reversed.unwrap_or(false);
    scan.start_row = s.start_row.clone().unwrap_or_default();
    scan.start_inclusive = s.include_start_row.unwrap_or(true);
    scan.stop_row = s.stop_row.clone().unwrap_or_default();
    scan.stop_inclusive = s.include_stop_row.unwrap_or(false);
    scan.spec.columns = columns(&s.column);
    scan.spec.time_range = time_range(s.time_range.as_ref());
    scan.spec.max_versions = s.max_versions.unwrap_or(1).max(1);
    scan.spec.filter = filter(s.filter.as_ref())?;
    scan.batch = s.batch_size.filter(|&b| b > 0).map(|b| b as usize);
    scan.allow_partial_results = s.allow_partial_results.unwrap_or(false);
    // With partial results allowed, one result holds at most this many bytes of a row.
    scan.max_result_size = s
        .max_result_size
        .filter(|&m| m > 0)
        .map(|m| m.min(usize::MAX as u64) as usize);
    if let Some(r) = region {
        clamp(&mut scan, r);
    }
    Ok(scan)
}

/// Limits a scan to a region: forward from the region's start to its end, reversed from its
/// end down to its start.
fn clamp(scan: &mut Scan, r: &Region) {
    if !scan.reversed {
        if scan.start_row.as_slice() < r.start.as_slice() {
            scan.start_row = r.start.clone();
            scan.start_inclusive = true;
        }
        if !r.end.is_empty()
            && (scan.stop_row.is_empty()
                || r.end.as_slice() < scan.stop_row.as_slice()
                || (r.end == scan.stop_row && scan.stop_inclusive))
        {
            scan.stop_row = r.end.clone();
            scan.stop_inclusive = false;
        }
    } else {
        if !r.end.is_empty()
            && (scan.start_row.is_empty() || scan.start_row.as_slice() >= r.end.as_slice())
        {
            scan.start_row = r.end.clone();
            scan.start_inclusive = false;
        }
        if !r.start.is_empty()
            && (scan.stop_row.is_empty() || scan.stop_row.as_slice() < r.start.as_slice())
        {
            scan.stop_row = r.start.clone();
            scan.stop_inclusive = true;
        }
    }
}

/// Whether a meta row lies in a scan's range (meta order).
fn in_meta_range(row: &[u8], s: &PbScan) -> bool {
    let start = s.start_row.as_deref().unwrap_or_default();
    let stop = s.stop_row.as_deref().unwrap_or_default();
    let start_incl = s.include_start_row.unwrap_or(true);
    let stop_incl = s.include_stop_row.unwrap_or(false);
    let cmp = |a: &[u8], b: &[u8]| catalog::compare_meta_rows(a, b);
    if !s.reversed.unwrap_or(false) {
        let after_start = start.is_empty()
            || match cmp(row, start) {
                Ordering::Greater => true,
                Ordering::Equal => start_incl,
                Ordering::Less => false,
            };
        let before_stop = stop.is_empty()
            || match cmp(row, stop) {
                Ordering::Less => true,
                Ordering::Equal => stop_incl,
                Ordering::Greater => false,
            };
        after_start && before_stop
    } else {
        let below_start = start.is_empty()
            || match cmp(row, start) {
                Ordering::Less => true,
                Ordering::Equal => start_incl,
                Ordering::Greater => false,
            };
        let above_stop = stop.is_empty()
            || match cmp(row, stop) {
                Ordering::Greater => true,
                Ordering::Equal => stop_incl,
                Ordering::Less => false,
            };
        below_start && above_stop
    }
}

fn scan(ctx: &Ctx, req: ScanRequest) -> Result<Reply, RpcError> {
    let shared = &ctx.shared;
    let id = match req.scanner_id {
        Some(id) => id,
        None => {
            let pb = req
                .scan
                .as_ref()
                .ok_or_else(|| RpcError::bad_request("Scan without a scan or a scanner id"))?;
            let source = match regions::resolve(shared, req.region.as_ref())? {
                Target::Meta => {
                    let sel = columns(&pb.column);
                    let mut rows: Vec<RowResult> = meta_rows(shared)?
                        .into_iter()
                        .filter(|r| in_meta_range(r.row(), pb))
                        .map(|r| select(r, &sel))
                        .filter(|r| !r.is_empty())
                        .collect();
                    if pb.reversed.unwrap_or(false) {
                        rows.reverse();
                    }
                    if pb.filter.is_some() {
                        return Err(RpcError::unsupported(
                            "a filtered scan of hbase:meta is not supported by ferrobase",
                        ));
                    }
                    Source::Rows(rows.into())
                }
                Target::Region(region) => {
                    let scan = engine_scan(pb, Some(&region))?;
                    Source::Table(Box::new(
                        shared.engine.table(&region.table)?.scanner(&scan)?,
                    ))
                }
            };
            let limit = req.limit_of_rows.unwrap_or(0) as usize;
            let max_bytes = pb
                .max_result_size
                .filter(|&m| m > 0)
                .map_or(shared.opts.max_result_bytes, |m| {
                    (m.min(usize::MAX as u64) as usize).min(shared.opts.max_result_bytes)
                });
            shared
                .scanners
                .open(source, limit, max_bytes)
                .ok_or_else(|| {
                    RpcError::retry(
                        "java.io.IOException",
                        format!(
                            "the server holds its maximum of {} open scanners; close scanners or \
                         try again later",
                            shared.opts.max_scanners
                        ),
                    )
                })?
        }
    };
    let Some(open) = shared.scanners.get(id) else {
        if req.close_scanner.unwrap_or(false) {
            return Ok(Reply::pb(&ScanResponse {
                scanner_id: Some(id),
                more_results: Some(false),
                ..ScanResponse::default()
            }));
        }
        return Err(RpcError::fatal(
            UNKNOWN_SCANNER,
            format!(
                "Unknown scanner '{id}'. This can happen due to any of the following reasons: \
                 a) Scanner id given is wrong, b) Scanner lease expired because of long wait \
                 between consecutive client checkins, c) Server may be closing down, d) \
                 RegionServer restart during upgrade.\nIf the issue is due to reason (b), a \
                 possible fix would be increasing the value of \
                 'hbase.client.scanner.timeout.period' configuration."
            ),
        ));
    };
    let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
    let mut want = req.number_of_rows.unwrap_or(0) as usize;
    if open.limit > 0 {
        want = want.min(open.limit.saturating_sub(open.returned));
    }
    let max_bytes = open.max_bytes;
    let rows = if want > 0 {
        open.source.next_batch(want, max_bytes)?
    } else {
        Vec::new()
    };
    open.returned += rows
        .iter()
        .filter(|r| !r.may_have_more_cells_in_row())
        .count();
    let limit_reached = open.limit > 0 && open.returned >= open.limit;
    // Fewer rows than asked, under the byte limit and not in the middle of a row: the region
    // has no more (the engine's batch stops early only at the byte limit).
    let bytes: usize = rows
        .iter()
        .flat_map(|r| r.cells.iter())
        .map(Cell::heap_size)
        .sum();
    let exhausted = want > 0
        && rows.len() < want
        && bytes < max_bytes
        && !rows.last().is_some_and(|r| r.may_have_more_cells_in_row());
    drop(open);
    let mut out = Vec::new();
    let results = encode_results(ctx.codec, &rows, &mut out);
    let closing = req.close_scanner.unwrap_or(false) || exhausted || limit_reached;
    if closing {
        shared.scanners.close(id);
    }
    let (cells_per_result, results) = if ctx.codec == Codec::None {
        (Vec::new(), results)
    } else {
        (
            results
                .iter()
                .map(|r| r.associated_cell_count.unwrap_or(0) as u32)
                .collect(),
            Vec::new(),
        )
    };
    Ok(Reply::with_cells(
        &ScanResponse {
            cells_per_result,
            scanner_id: Some(id),
            more_results: Some(!limit_reached),
            ttl: Some(shared.opts.scanner_lease.as_millis() as u32),
            results,
            stale: Some(false),
            partial_flag_per_result: rows
                .iter()
                .map(|r| r.may_have_more_cells_in_row())
                .collect(),
            more_results_in_region: Some(!(exhausted || limit_reached)),
            heartbeat_message: None,
            scan_metrics: None,
            mvcc_read_point: None,
            cursor: None,
        },
        out,
    ))
}
