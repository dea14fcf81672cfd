//! `Mutate`: puts, deletes, increments and appends decoded from the protobuf and the cell
//! block, and `checkAndMutate`'s conditions.

use super::reads::{check_row, filter, time_range};
use super::results::encode_result;
use super::Block;
use crate::cellblock;
use crate::error::RpcError;
use crate::filters;
use crate::proto::client::mutation_proto::{DeleteType, Durability as PbDurability, MutationType};
use crate::proto::client::{Condition, MutateRequest, MutateResponse, MutationProto};
use crate::proto::hbase::NameBytesPair;
use crate::regions::{self, Region, Target};
use crate::services::{Ctx, Reply};
use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::{
    Cell, CellType, Check, CheckedWrite, Delete, Durability, Get, Mutation, MutationCell, Put,
    LATEST_TIMESTAMP,
};
pub(super) use ferrobase_gateway::request::Write;
use ferrobase_gateway::request::{Authorized, Request, Response};

/// One cell of a mutation: family, qualifier, timestamp, type code, value.
pub(super) type RawCell = (Vec<u8>, Vec<u8>, i64, u8, Vec<u8>);

pub(super) fn durability(m: &MutationProto) -> Durability {
    match m.durability() {
        PbDurability::UseDefault => Durability::UseDefault,
        PbDurability::SkipWal => Durability::SkipWal,
        PbDurability::AsyncWal => Durability::AsyncWal,
        PbDurability::SyncWal => Durability::SyncWal,
        PbDurability::FsyncWal => Durability::FsyncWal,
    }
}

/// The `_ttl` attribute of a mutation (8-byte milliseconds), as `Mutation.setTTL` sends it.
pub(super) fn ttl(attrs: &[NameBytesPair]) -> Result<Option<i64>, RpcError> {
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
pub(super) fn raw_cells(m: &MutationProto, block: &mut Block) -> Result<Vec<RawCell>, RpcError> {
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

pub(super) fn to_write(m: &MutationProto, block: &mut Block) -> Result<Write, RpcError> {
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
                    family: family.into(),
                    qualifier: qualifier.into(),
                    timestamp,
                    cell_type: CellType::Put,
                    value: value.into(),
                });
            }
            Write::Mutations(vec![Mutation::Put(put)])
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
                    family: family.into(),
                    qualifier: qualifier.into(),
                    timestamp,
                    cell_type,
                    value: Default::default(),
                });
            }
            Write::Mutations(vec![Mutation::Delete(del)])
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

/// The rows `w` writes.
pub(super) fn rows(w: &Write) -> Vec<&[u8]> {
    match w {
        Write::Mutations(ms) => ms.iter().map(Mutation::row).collect(),
        Write::Increment { row, .. } | Write::Append { row, .. } => vec![row.as_slice()],
    }
}

/// One write of `region`, authorized through the shared executor (WRITE on every cell it
/// writes, READ too for an increment or append, which reads the cell it changes).
pub(super) fn authorize_write(
    ctx: &Ctx,
    region: &Region,
    w: Write,
) -> Result<Authorized, RpcError> {
    for row in rows(&w) {
        check_row(region, row)?;
    }
    ctx.authorize_request(Request::Write {
        table: region.table.clone(),
        write: w,
    })
}

/// Applies one write; its result cells (an increment's or append's new values).
pub(super) fn apply(ctx: &Ctx, region: &Region, w: Write) -> Result<Vec<Cell>, RpcError> {
    let authorized = authorize_write(ctx, region, w)?;
    match ctx.run(authorized)? {
        Response::Cells(r) => Ok(r.cells),
        _ => Ok(Vec::new()),
    }
}

/// The region a write names: a user region (`hbase:meta` is written only by the server).
pub(super) fn write_region(
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

/// The engine's check for a condition: one column's value (`checkAndMutate`'s `ifEquals`/
/// `ifMatches` with a `BinaryComparator`, `ifNotExists` with a `NullComparator`), or the row
/// read with a filter (`ifMatches(Filter)`), each within the condition's time range (the
/// executor narrows a filter's read to the columns the caller may read).
fn engine_check(c: &Condition, row: &[u8]) -> Result<Check, RpcError> {
    let tr = time_range(c.time_range.as_ref());
    if let Some(f) = &c.filter {
        let mut get = Get::new(row).time_range(tr);
        if let Some(f) = filter(Some(f))? {
            get = get.filter(f);
        }
        return Ok(Check::Read(get));
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
    if op == CompareOp::NoOp && expected.is_some() {
        // HBase's HRegion.matches has no case for NO_OP: a RuntimeException, which the client
        // receives as an IOException and retries.
        return Err(RpcError::retry(
            "java.io.IOException",
            "java.lang.RuntimeException: Unknown Compare op NO_OP",
        ));
    }
    Ok(Check::Value {
        family: c.family.clone().unwrap_or_default(),
        qualifier: c.qualifier.clone().unwrap_or_default(),
        op,
        expected,
        time_range: tr,
    })
}

/// `checkAndMutate` of `writes` (puts and deletes of the condition's row, or one increment or
/// append of it): whether they were applied, and an increment's or append's new cells.
pub(super) fn check_and_mutate(
    ctx: &Ctx,
    region: &Region,
    c: &Condition,
    writes: Vec<Write>,
) -> Result<(bool, Option<Vec<Cell>>), RpcError> {
    let row = c.row.clone().unwrap_or_default();
    check_row(region, &row)?;
    let check = engine_check(c, &row)?;
    let mut mutations = Vec::new();
    let mut delta = None;
    let n = writes.len();
    for w in writes {
        match w {
            Write::Mutations(ms) => mutations.extend(ms),
            Write::Increment {
                row: r,
                columns,
                ttl_ms,
            } if n == 1 => delta = Some((r, CheckedWrite::Increment { columns, ttl_ms })),
            Write::Append {
                row: r,
                columns,
                ttl_ms,
            } if n == 1 => delta = Some((r, CheckedWrite::Append { columns, ttl_ms })),
            _ => {
                return Err(RpcError::unsupported(
                    "checkAndMutate of RowMutations holding an increment or append is not \
                     supported by ferrobase: one increment or append alone, or puts and deletes",
                ))
            }
        }
    }
    let write = match delta {
        Some((r, write)) => {
            check_row(region, &r)?;
            if r != row {
                // HBase's HRegion.checkAndMutate.
                return Err(RpcError::unsupported(format!(
                    "Action's getRow must match: the condition reads row '{}', the mutation \
                     writes row '{}'",
                    row.escape_ascii(),
                    r.escape_ascii()
                )));
            }
            write
        }
        None => CheckedWrite::Mutations(mutations),
    };
    // HBase's preCheckAndPut/preCheckAndDelete: READ and WRITE on the compared column, then
    // each mutation's own WRITE; a filter condition (which HBase's AccessController does not
    // check at all) reads the row as a Get by the caller would: narrowed to the columns the
    // caller may read before the filter sees them, refused when none (`Request::operations`).
    match ctx.execute(Request::CheckAndWrite {
        table: region.table.clone(),
        row,
        check,
        write,
    })? {
        Response::Checked { applied, result } => Ok((applied, result.map(|r| r.cells))),
        other => Err(RpcError::bad_request(format!(
            "checkAndMutate answered {other:?}"
        ))),
    }
}

pub(super) fn mutate(ctx: &Ctx, req: MutateRequest, block: &mut Block) -> Result<Reply, RpcError> {
    let region = write_region(ctx, req.region.as_ref())?;
    let m = req
        .mutation
        .as_ref()
        .ok_or_else(|| RpcError::bad_request("Mutate without a mutation"))?;
    let w = to_write(m, block)?;
    if let Some(c) = &req.condition {
        let (processed, cells) = check_and_mutate(ctx, &region, c, vec![w])?;
        let mut block_out = Vec::new();
        let result = cells.map(|cells| encode_result(ctx.codec, &cells, &mut block_out));
        return Ok(Reply::with_cells(
            &MutateResponse {
                result,
                processed: Some(processed),
            },
            block_out,
        ));
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
