//! `ClientMetaService` (Registry.proto): what `RpcConnectionRegistry` asks a bootstrap server.
//! ferrobase is its own master and its only region server, so every answer names this server.

use super::{unknown_method, Ctx, Reply};
use crate::error::RpcError;
use crate::proto::hbase::RegionLocation;
use crate::proto::registry::{
    GetActiveMasterResponse, GetBootstrapNodesResponse, GetClusterIdResponse, GetMastersResponse,
    GetMastersResponseEntry, GetMetaRegionLocationsResponse,
};
use crate::regions::meta_region_info;

pub(super) fn call(ctx: &Ctx, method: &str) -> Result<Reply, RpcError> {
    let shared = &ctx.shared;
    let me = shared.server_name();
    Ok(match method {
        "GetClusterId" => Reply::pb(&GetClusterIdResponse {
            cluster_id: Some(shared.cluster_id.clone()),
        }),
        "GetActiveMaster" => Reply::pb(&GetActiveMasterResponse {
            server_name: Some(me),
        }),
        "GetMasters" => Reply::pb(&GetMastersResponse {
            master_servers: vec![GetMastersResponseEntry {
                server_name: Some(me),
                is_active: Some(true),
            }],
        }),
        "GetMetaRegionLocations" => Reply::pb(&GetMetaRegionLocationsResponse {
            meta_locations: vec![RegionLocation {
                region_info: Some(meta_region_info()),
                server_name: Some(me),
                seq_num: Some(0),
            }],
        }),
        "GetBootstrapNodes" => Reply::pb(&GetBootstrapNodesResponse {
            server_name: vec![me],
        }),
        other => return Err(unknown_method("ClientMetaService", other)),
    })
}
