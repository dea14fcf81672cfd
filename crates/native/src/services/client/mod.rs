//! `ClientService` (Client.proto): `Get`, `Mutate`, `Multi` and `Scan`, translated into the
//! engine's typed reads and writes. A request names its region; a region the engine no longer
//! has is `NotServingRegionException` (the client looks it up again), and a scan reads only its
//! region's rows, so the client moves region by region as on HBase. `hbase:meta`'s region is
//! answered from the catalog the Thrift door serves.

use super::{decode, unknown_method, Ctx, Reply};
use crate::cellblock::{self, BlockCell, Codec};
use crate::error::RpcError;
use multi::multi;
use reads::get;
use scans::scan;
use std::collections::VecDeque;
use writes::mutate;

mod multi;
mod reads;
mod results;
mod scans;
mod writes;

pub(super) fn call(ctx: &Ctx, method: &str, param: &[u8], cells: &[u8]) -> Result<Reply, RpcError> {
    let mut block = Block::new(cells, ctx.codec)?;
    match method {
        "Get" => get(ctx, decode(param, method)?),
        "Mutate" => {
            let req: crate::proto::client::MutateRequest = decode(param, method)?;
            if let Some(m) = &req.mutation {
                too_many(ctx, req.region.as_ref(), cells_of(m))?;
            }
            mutate(ctx, req, &mut block)
        }
        "Multi" => {
            let req: crate::proto::client::MultiRequest = decode(param, method)?;
            let rows: usize = req.region_action.iter().map(|ra| ra.action.len()).sum();
            too_many(
                ctx,
                req.region_action.first().and_then(|ra| ra.region.as_ref()),
                rows,
            )?;
            multi(ctx, req, &mut block)
        }
        "Scan" => scan(ctx, decode(param, method)?),
        "BulkLoadHFile" | "PrepareBulkLoad" | "CleanupBulkLoad" => Err(RpcError::unsupported(
            "bulk load is not served by ferrobase yet: load rows with puts (BufferedMutator)",
        )),
        other => Err(unknown_method("ClientService", other)),
    }
}

/// The cells a request carried in its cell block, taken in order by the mutations that say
/// how many are theirs (`associated_cell_count`).
pub(super) struct Block {
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

    pub(super) fn take(&mut self, n: usize) -> Result<Vec<BlockCell>, RpcError> {
        if n > self.cells.len() {
            return Err(RpcError::bad_request(format!(
                "a mutation claims {n} cells of the cell block, {} are left",
                self.cells.len()
            )));
        }
        Ok(self.cells.drain(..n).collect())
    }
}

/// The cells a mutation carries (in its protobuf or the cell block).
fn cells_of(m: &crate::proto::client::MutationProto) -> usize {
    let listed: usize = m
        .column_value
        .iter()
        .map(|cv| cv.qualifier_value.len())
        .sum();
    listed.max(m.associated_cell_count.unwrap_or(0).max(0) as usize)
}

/// HBase's refusal of a batch past its size threshold, before anything is applied.
fn too_many(
    ctx: &Ctx,
    region: Option<&crate::proto::hbase::RegionSpecifier>,
    count: usize,
) -> Result<(), RpcError> {
    let limit = ctx.shared.opts.max_mutations_per_call;
    if limit == 0 || count <= limit {
        return Ok(());
    }
    let region = region
        .and_then(|r| r.value.as_deref())
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    Err(RpcError::fatal(
        crate::error::DO_NOT_RETRY,
        format!(
            "Rejecting large batch operation for current batch with firstRegionName: {region} , \
             Requested Number of Rows: {count} , Size Threshold: {limit} \
             (--max-mutations-per-call); nothing was applied"
        ),
    ))
}
