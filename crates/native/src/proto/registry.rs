//! `Registry.proto` (package `hbase.pb`, Java `RegistryProtos`), as in hbase-protocol-shaded 2.6.1
//! (branch-2.6): the messages of `ClientMetaService` (what `RpcConnectionRegistry` asks a master or
//! region server: cluster id, active master, meta locations, bootstrap nodes) and of the fake
//! `ConnectionRegistryService`, whose one call is answered right after the `Regist` preamble of
//! 2.6+ clients (HBASE-25051).

use super::hbase::{RegionLocation, ServerName};

/// `ClientMetaService.GetClusterId` request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetClusterIdRequest {}

/// `ClientMetaService.GetClusterId` response; unset when the id is not known.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetClusterIdResponse {
    #[prost(string, optional, tag = "1")]
    pub cluster_id: Option<String>,
}

/// `ClientMetaService.GetActiveMaster` request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetActiveMasterRequest {}

/// `ClientMetaService.GetActiveMaster` response; unset when no master is known.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetActiveMasterResponse {
    #[prost(message, optional, tag = "1")]
    pub server_name: Option<ServerName>,
}

/// `ClientMetaService.GetMasters` request (deprecated).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetMastersRequest {}

/// One master (both fields required; deprecated).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetMastersResponseEntry {
    #[prost(message, optional, tag = "1")]
    pub server_name: Option<ServerName>,
    #[prost(bool, optional, tag = "2")]
    pub is_active: Option<bool>,
}

/// `ClientMetaService.GetMasters` response (deprecated).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetMastersResponse {
    #[prost(message, repeated, tag = "1")]
    pub master_servers: Vec<GetMastersResponseEntry>,
}

/// `ClientMetaService.GetMetaRegionLocations` request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetMetaRegionLocationsRequest {}

/// `ClientMetaService.GetMetaRegionLocations` response: one location per meta replica.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetMetaRegionLocationsResponse {
    #[prost(message, repeated, tag = "1")]
    pub meta_locations: Vec<RegionLocation>,
}

/// `ClientMetaService.GetBootstrapNodes` request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetBootstrapNodesRequest {}

/// `ClientMetaService.GetBootstrapNodes` response: servers that also serve `ClientMetaService`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetBootstrapNodesResponse {
    #[prost(message, repeated, tag = "1")]
    pub server_name: Vec<ServerName>,
}

/// `ConnectionRegistryService.GetConnectionRegistry` request.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetConnectionRegistryRequest {}

/// The registry information sent after the `Regist` preamble (`cluster_id` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetConnectionRegistryResponse {
    #[prost(string, optional, tag = "1")]
    pub cluster_id: Option<String>,
}
