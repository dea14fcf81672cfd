//! `Multi`: region actions of gets and mutations, each answered by its index, and atomic
//! groups (RowMutations, checkAndMutate of several mutations).

use super::reads::{engine_get, RowOrExists};
use super::results::encode_result;
use super::writes::{apply, authorize_write, check_and_mutate, to_write, Write};
use super::Block;
use crate::error::RpcError;
use crate::proto::client::mutation_proto::MutationType;
use crate::proto::client::{
    MultiRequest, MultiResponse, RegionAction, RegionActionResult, Result as PbResult,
    ResultOrException,
};
use crate::proto::hbase::NameBytesPair;
use crate::regions::{self, Region, Target};
use crate::services::{Ctx, Reply};
use ferrobase_gateway::access::Operation;

pub(super) fn exception(e: &RpcError) -> NameBytesPair {
    NameBytesPair {
        name: Some(e.class.clone()),
        value: Some(format!("{}: {}", e.class, e.message).into_bytes()),
    }
}

pub(super) fn multi(ctx: &Ctx, req: MultiRequest, block: &mut Block) -> Result<Reply, RpcError> {
    let mut out = Vec::new();
    let mut results = Vec::new();
    let mut processed = None;
    for ra in &req.region_action {
        let r = region_action(ctx, ra, block, &mut out)?;
        // HBase sets the response's `processed` too for an atomic group without a condition
        // (for clients older than RegionActionResult.processed).
        if ra.atomic.unwrap_or(false) && ra.condition.is_none() && r.processed == Some(true) {
            processed = Some(true);
        }
        results.push(r);
    }
    if ctx.acl().is_some() && results.iter().all(answered_nothing) {
        // Every action failed before it ran (a region the client's cache still names after
        // the table was made again, an action that does not decode): nothing was read or
        // written, so the errors go back as they are and the client retries what it may
        // (NotServingRegionException), instead of the fail-closed refusal of a call that
        // authorized nothing.
        ctx.authorize(&Operation::Catalog)?;
    }
    Ok(Reply::with_cells(
        &MultiResponse {
            region_action_result: results,
            processed,
            region_statistics: None,
        },
        out,
    ))
}

/// Whether a region's answer carries only errors: no result, nothing applied.
fn answered_nothing(r: &RegionActionResult) -> bool {
    r.processed.is_none()
        && r.result_or_exception
            .iter()
            .all(|roe| roe.result.is_none() && roe.exception.is_some())
}

fn failed(e: &RpcError) -> RegionActionResult {
    RegionActionResult {
        exception: Some(exception(e)),
        ..RegionActionResult::default()
    }
}

/// HBase's answers of an atomic group, by position (not by the actions' indexes): the first
/// holds the group's result, the others are empty (`RSRpcServices.doBatchOp`).
fn positional(n: usize, first: PbResult) -> Vec<ResultOrException> {
    (0..n)
        .map(|i| ResultOrException {
            index: Some(i as u32),
            result: Some(if i == 0 {
                first.clone()
            } else {
                PbResult::default()
            }),
            ..ResultOrException::default()
        })
        .collect()
}

/// One region's actions. Without `atomic` each is answered by its index and fails alone, in
/// HBase's order (`RSRpcServices.doNonAtomicRegionMutation`): gets, increments and appends run
/// when reached, contiguous puts and deletes are collected and applied together when an
/// increment or append comes or the actions end, so a get after a put of the same action list
/// reads the row as it was. An atomic group (RowMutations, checkAndMutate) is all or nothing.
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
            return Ok(failed(&RpcError::fatal(
                "org.apache.hadoop.hbase.security.AccessDeniedException",
                "hbase:meta is written by the server only",
            )))
        }
        Err(e) => return Ok(failed(&e)),
    };
    if ra.atomic.unwrap_or(false) || ra.condition.is_some() {
        let mut writes = Vec::new();
        for w in decoded.into_iter().flatten() {
            match w {
                Ok(w) => writes.push(w),
                Err(e) => return Ok(failed(&e)),
            }
        }
        let n = ra.action.len();
        let outcome = match &ra.condition {
            Some(c) => check_and_mutate(ctx, &region, c, writes).map(|(applied, _)| applied),
            None => atomic_mutations(ctx, &region, writes).map(|()| true),
        };
        return Ok(match outcome {
            Ok(processed) => RegionActionResult {
                result_or_exception: positional(n, PbResult::default()),
                exception: None,
                processed: Some(processed),
            },
            Err(e) => failed(&e),
        });
    }
    let mut roe = Vec::new();
    let mut pending: Vec<(Option<u32>, Result<Write, RpcError>)> = Vec::new();
    let flush = |pending: &mut Vec<(Option<u32>, Result<Write, RpcError>)>,
                 roe: &mut Vec<ResultOrException>| {
        apply_batch(ctx, &region, std::mem::take(pending), roe);
    };
    for (a, w) in ra.action.iter().zip(decoded) {
        match (w, &a.get) {
            (Some(w), _) => {
                let batched = a.mutation.as_ref().is_some_and(|m| {
                    matches!(m.mutate_type(), MutationType::Put | MutationType::Delete)
                });
                if batched {
                    pending.push((a.index, w));
                    continue;
                }
                flush(&mut pending, &mut roe);
                let outcome = w.and_then(|w| apply(ctx, &region, w)).map(|cells| {
                    if cells.is_empty() {
                        PbResult::default()
                    } else {
                        encode_result(ctx.codec, &cells, out)
                    }
                });
                roe.push(answer(a.index, outcome));
            }
            (None, Some(g)) => {
                let outcome = engine_get(g)
                    .and_then(|get| RowOrExists::of(ctx, &region, g, get))
                    .map(|answer| answer.result(ctx, out));
                roe.push(answer(a.index, outcome));
            }
            (None, None) => roe.push(answer(
                a.index,
                Err(RpcError::unsupported(
                    "coprocessor service calls are not served by ferrobase",
                )),
            )),
        }
    }
    flush(&mut pending, &mut roe);
    Ok(RegionActionResult {
        result_or_exception: roe,
        exception: None,
        processed: None,
    })
}

/// A run of a batch's puts and deletes, applied as HBase's region server applies a `Multi`:
/// one engine batch (one WAL record per region), each action answered by its index. An action
/// that does not decode or names a row outside the region answers alone; when the engine
/// refuses the batch before applying any of it (a missing family, an invalid or oversized
/// cell), each mutation is applied on its own so only the bad ones fail, as on HBase.
fn apply_batch(
    ctx: &Ctx,
    region: &Region,
    run: Vec<(Option<u32>, Result<Write, RpcError>)>,
    roe: &mut Vec<ResultOrException>,
) {
    let mut indexes = Vec::new();
    let mut parts = Vec::new();
    for (index, w) in run {
        // Runs hold puts and deletes only (`region_action`).
        let checked = w.and_then(|w| match w {
            Write::Mutations(_) => authorize_write(ctx, region, w),
            _ => Err(RpcError::bad_request(
                "an increment or append in a batched run",
            )),
        });
        match checked {
            Ok(part) => {
                indexes.push(index);
                parts.push(part);
            }
            Err(e) => roe.push(answer(index, Err(e))),
        }
    }
    match ctx.run_batch(parts) {
        Ok(answers) => roe.extend(
            indexes
                .into_iter()
                .zip(answers)
                .map(|(i, a)| answer(i, a.map(|()| PbResult::default()))),
        ),
        Err(e) => roe.extend(indexes.into_iter().map(|i| answer(i, Err(e.clone())))),
    }
}

fn answer(index: Option<u32>, outcome: Result<PbResult, RpcError>) -> ResultOrException {
    match outcome {
        Ok(result) => ResultOrException {
            index,
            result: Some(result),
            ..ResultOrException::default()
        },
        Err(e) => ResultOrException {
            index,
            exception: Some(exception(&e)),
            ..ResultOrException::default()
        },
    }
}

/// `Table.mutateRow`: puts and deletes of one row, atomically.
pub(super) fn atomic_mutations(
    ctx: &Ctx,
    region: &Region,
    writes: Vec<Write>,
) -> Result<(), RpcError> {
    let mut mutations = Vec::new();
    for w in writes {
        match w {
            Write::Mutations(ms) => mutations.extend(ms),
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
    let authorized = authorize_write(ctx, region, Write::Mutations(mutations))?;
    ctx.run(authorized)?;
    Ok(())
}
