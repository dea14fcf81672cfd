//! `Admin.proto` (package `hbase.pb`, Java `AdminProtos`), as in hbase-protocol-shaded 2.6.1
//! (branch-2.6): the request and response messages of the `AdminService` calls a region server
//! answers for `Admin` and the shell (region info, store files, online regions, flush, compaction,
//! region loads). Generated from the .proto file and checked against it field by field
//! (field numbers, types, labels). Required fields are `Option`s like the optional ones, so that
//! a message missing one still decodes; the doc of each says which are required.

/// `AdminService` request `GetRegionInfoRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetRegionInfoRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region: Option<super::hbase::RegionSpecifier>,
    #[prost(bool, optional, tag = "2")]
    pub compaction_state: Option<bool>,
    #[prost(bool, optional, tag = "3")]
    pub best_split_row: Option<bool>,
}

/// `AdminService` response `GetRegionInfoResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetRegionInfoResponse {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region_info: Option<super::hbase::RegionInfo>,
    #[prost(
        enumeration = "get_region_info_response::CompactionState",
        optional,
        tag = "2"
    )]
    pub compaction_state: Option<i32>,
    #[prost(bool, optional, tag = "4")]
    pub splittable: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub mergeable: Option<bool>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub best_split_row: Option<Vec<u8>>,
}

/// Nested types of [`GetRegionInfoResponse`].
pub mod get_region_info_response {
    /// `GetRegionInfoResponse.CompactionState`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum CompactionState {
        None = 0,
        Minor = 1,
        Major = 2,
        MajorAndMinor = 3,
    }
}

/// `AdminService` request `GetStoreFileRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetStoreFileRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region: Option<super::hbase::RegionSpecifier>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub family: Vec<Vec<u8>>,
}

/// `AdminService` response `GetStoreFileResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetStoreFileResponse {
    #[prost(string, repeated, tag = "1")]
    pub store_file: Vec<String>,
}

/// `AdminService` request `GetOnlineRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetOnlineRegionRequest {}

/// `AdminService` response `GetOnlineRegionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetOnlineRegionResponse {
    #[prost(message, repeated, tag = "1")]
    pub region_info: Vec<super::hbase::RegionInfo>,
}

/// `AdminService` request `FlushRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FlushRegionRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region: Option<super::hbase::RegionSpecifier>,
    #[prost(uint64, optional, tag = "2")]
    pub if_older_than_ts: Option<u64>,
    #[prost(bool, optional, tag = "3")]
    pub write_flush_wal_marker: Option<bool>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub family: Option<Vec<u8>>,
}

/// `AdminService` response `FlushRegionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FlushRegionResponse {
    /// Required.
    #[prost(uint64, optional, tag = "1")]
    pub last_flush_time: Option<u64>,
    #[prost(bool, optional, tag = "2")]
    pub flushed: Option<bool>,
    #[prost(bool, optional, tag = "3")]
    pub wrote_flush_wal_marker: Option<bool>,
}

/// `AdminService` request `CompactRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CompactRegionRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region: Option<super::hbase::RegionSpecifier>,
    #[prost(bool, optional, tag = "2")]
    pub major: Option<bool>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub family: Option<Vec<u8>>,
}

/// `AdminService` response `CompactRegionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CompactRegionResponse {}

/// `AdminService` request `GetRegionLoadRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetRegionLoadRequest {
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
}

/// `AdminService` response `GetRegionLoadResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetRegionLoadResponse {
    #[prost(message, repeated, tag = "1")]
    pub region_loads: Vec<super::cluster_status::RegionLoad>,
}
