//! `Master.proto` (package `hbase.pb`, Java `MasterProtos`), as in hbase-protocol-shaded 2.6.1
//! (branch-2.6): the request and response messages of the `MasterService` calls that `Admin` and
//! the shell make every day (tables, column families, namespaces, procedures, cluster status,
//! balancer and switches, snapshots as messages only), and `SnapshotDescription` from
//! `Snapshot.proto`. `ClientMetaService`'s messages are in `Registry.proto` ([`super::registry`]).
//! Required fields are `Option`s like the optional ones, so that a message missing one still
//! decodes; the doc of each says which are required.

/// The switches of `SetSplitOrMergeEnabled`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum MasterSwitchType {
    Split = 0,
    Merge = 1,
}

/// `MasterService` request `AddColumnRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AddColumnRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    /// Required.
    #[prost(message, optional, tag = "2")]
    pub column_families: Option<super::hbase::ColumnFamilySchema>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `AddColumnResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AddColumnResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `DeleteColumnRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteColumnRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    /// Required.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column_name: Option<Vec<u8>>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `DeleteColumnResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteColumnResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `ModifyColumnRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModifyColumnRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    /// Required.
    #[prost(message, optional, tag = "2")]
    pub column_families: Option<super::hbase::ColumnFamilySchema>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `ModifyColumnResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModifyColumnResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `MoveRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MoveRegionRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region: Option<super::hbase::RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub dest_server_name: Option<super::hbase::ServerName>,
}

/// `MasterService` response `MoveRegionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MoveRegionResponse {}

/// `MasterService` request `MergeTableRegionsRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MergeTableRegionsRequest {
    #[prost(message, repeated, tag = "1")]
    pub region: Vec<super::hbase::RegionSpecifier>,
    #[prost(bool, optional, default = "false", tag = "3")]
    pub forcible: Option<bool>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "5")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `MergeTableRegionsResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MergeTableRegionsResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `SplitTableRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SplitTableRegionRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region_info: Option<super::hbase::RegionInfo>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub split_row: Option<Vec<u8>>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `SplitTableRegionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SplitTableRegionResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `TruncateRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TruncateRegionRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region_info: Option<super::hbase::RegionInfo>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `TruncateRegionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TruncateRegionResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `CreateTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CreateTableRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_schema: Option<super::hbase::TableSchema>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub split_keys: Vec<Vec<u8>>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `CreateTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CreateTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `DeleteTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteTableRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `DeleteTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `TruncateTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TruncateTableRequest {
    /// Required; `tableName` in the .proto.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    /// `preserveSplits` in the .proto.
    #[prost(bool, optional, default = "false", tag = "2")]
    pub preserve_splits: Option<bool>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `TruncateTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TruncateTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `EnableTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EnableTableRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `EnableTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EnableTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `DisableTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DisableTableRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `DisableTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DisableTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `ModifyTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModifyTableRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    /// Required.
    #[prost(message, optional, tag = "2")]
    pub table_schema: Option<super::hbase::TableSchema>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
    #[prost(bool, optional, default = "true", tag = "5")]
    pub reopen_regions: Option<bool>,
}

/// `MasterService` response `ModifyTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModifyTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `FlushTableRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FlushTableRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub column_family: Vec<Vec<u8>>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "4")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `FlushTableResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FlushTableResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `CreateNamespaceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CreateNamespaceRequest {
    /// Required; `namespaceDescriptor` in the .proto.
    #[prost(message, optional, tag = "1")]
    pub namespace_descriptor: Option<super::hbase::NamespaceDescriptor>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `CreateNamespaceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CreateNamespaceResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `DeleteNamespaceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteNamespaceRequest {
    /// Required; `namespaceName` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub namespace_name: Option<String>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `DeleteNamespaceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteNamespaceResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `ModifyNamespaceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModifyNamespaceRequest {
    /// Required; `namespaceDescriptor` in the .proto.
    #[prost(message, optional, tag = "1")]
    pub namespace_descriptor: Option<super::hbase::NamespaceDescriptor>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `ModifyNamespaceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModifyNamespaceResponse {
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` request `GetNamespaceDescriptorRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetNamespaceDescriptorRequest {
    /// Required; `namespaceName` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub namespace_name: Option<String>,
}

/// `MasterService` response `GetNamespaceDescriptorResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetNamespaceDescriptorResponse {
    /// Required; `namespaceDescriptor` in the .proto.
    #[prost(message, optional, tag = "1")]
    pub namespace_descriptor: Option<super::hbase::NamespaceDescriptor>,
}

/// `MasterService` request `ListNamespacesRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListNamespacesRequest {}

/// `MasterService` response `ListNamespacesResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListNamespacesResponse {
    /// `namespaceName` in the .proto.
    #[prost(string, repeated, tag = "1")]
    pub namespace_name: Vec<String>,
}

/// `MasterService` request `ListNamespaceDescriptorsRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListNamespaceDescriptorsRequest {}

/// `MasterService` response `ListNamespaceDescriptorsResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListNamespaceDescriptorsResponse {
    /// `namespaceDescriptor` in the .proto.
    #[prost(message, repeated, tag = "1")]
    pub namespace_descriptor: Vec<super::hbase::NamespaceDescriptor>,
}

/// `MasterService` request `ListTableDescriptorsByNamespaceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableDescriptorsByNamespaceRequest {
    /// Required; `namespaceName` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub namespace_name: Option<String>,
}

/// `MasterService` response `ListTableDescriptorsByNamespaceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableDescriptorsByNamespaceResponse {
    /// `tableSchema` in the .proto.
    #[prost(message, repeated, tag = "1")]
    pub table_schema: Vec<super::hbase::TableSchema>,
}

/// `MasterService` request `ListTableNamesByNamespaceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableNamesByNamespaceRequest {
    /// Required; `namespaceName` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub namespace_name: Option<String>,
}

/// `MasterService` response `ListTableNamesByNamespaceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableNamesByNamespaceResponse {
    /// `tableName` in the .proto.
    #[prost(message, repeated, tag = "1")]
    pub table_name: Vec<super::hbase::TableName>,
}

/// `MasterService` request `IsInMaintenanceModeRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsInMaintenanceModeRequest {}

/// `MasterService` response `IsInMaintenanceModeResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsInMaintenanceModeResponse {
    /// Required; `inMaintenanceMode` in the .proto.
    #[prost(bool, optional, tag = "1")]
    pub in_maintenance_mode: Option<bool>,
}

/// `MasterService` request `BalanceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BalanceRequest {
    #[prost(bool, optional, tag = "1")]
    pub ignore_rit: Option<bool>,
    #[prost(bool, optional, tag = "2")]
    pub dry_run: Option<bool>,
}

/// `MasterService` response `BalanceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BalanceResponse {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub balancer_ran: Option<bool>,
    #[prost(uint32, optional, tag = "2")]
    pub moves_calculated: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub moves_executed: Option<u32>,
}

/// `MasterService` request `SetBalancerRunningRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SetBalancerRunningRequest {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub on: Option<bool>,
    #[prost(bool, optional, tag = "2")]
    pub synchronous: Option<bool>,
}

/// `MasterService` response `SetBalancerRunningResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SetBalancerRunningResponse {
    #[prost(bool, optional, tag = "1")]
    pub prev_balance_value: Option<bool>,
}

/// `MasterService` request `IsBalancerEnabledRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsBalancerEnabledRequest {}

/// `MasterService` response `IsBalancerEnabledResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsBalancerEnabledResponse {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub enabled: Option<bool>,
}

/// `MasterService` request `SetSplitOrMergeEnabledRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SetSplitOrMergeEnabledRequest {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub enabled: Option<bool>,
    #[prost(bool, optional, tag = "2")]
    pub synchronous: Option<bool>,
    #[prost(
        enumeration = "MasterSwitchType",
        repeated,
        packed = "false",
        tag = "3"
    )]
    pub switch_types: Vec<i32>,
}

/// `MasterService` response `SetSplitOrMergeEnabledResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SetSplitOrMergeEnabledResponse {
    #[prost(bool, repeated, packed = "false", tag = "1")]
    pub prev_value: Vec<bool>,
}

/// `MasterService` request `IsSplitOrMergeEnabledRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsSplitOrMergeEnabledRequest {
    /// Required.
    #[prost(enumeration = "MasterSwitchType", optional, tag = "1")]
    pub switch_type: Option<i32>,
}

/// `MasterService` response `IsSplitOrMergeEnabledResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsSplitOrMergeEnabledResponse {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub enabled: Option<bool>,
}

/// `MasterService` request `SetNormalizerRunningRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SetNormalizerRunningRequest {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub on: Option<bool>,
}

/// `MasterService` response `SetNormalizerRunningResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SetNormalizerRunningResponse {
    #[prost(bool, optional, tag = "1")]
    pub prev_normalizer_value: Option<bool>,
}

/// `MasterService` request `IsNormalizerEnabledRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsNormalizerEnabledRequest {}

/// `MasterService` response `IsNormalizerEnabledResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsNormalizerEnabledResponse {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub enabled: Option<bool>,
}

/// `MasterService` request `SnapshotRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SnapshotRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub snapshot: Option<SnapshotDescription>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
}

/// `MasterService` response `SnapshotResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SnapshotResponse {
    /// Required.
    #[prost(int64, optional, tag = "1")]
    pub expected_timeout: Option<i64>,
    #[prost(int64, optional, tag = "2")]
    pub proc_id: Option<i64>,
}

/// `MasterService` request `GetCompletedSnapshotsRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetCompletedSnapshotsRequest {}

/// `MasterService` response `GetCompletedSnapshotsResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetCompletedSnapshotsResponse {
    #[prost(message, repeated, tag = "1")]
    pub snapshots: Vec<SnapshotDescription>,
}

/// `MasterService` request `DeleteSnapshotRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteSnapshotRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub snapshot: Option<SnapshotDescription>,
}

/// `MasterService` response `DeleteSnapshotResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeleteSnapshotResponse {}

/// `MasterService` request `IsSnapshotDoneRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsSnapshotDoneRequest {
    #[prost(message, optional, tag = "1")]
    pub snapshot: Option<SnapshotDescription>,
}

/// `MasterService` response `IsSnapshotDoneResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsSnapshotDoneResponse {
    #[prost(bool, optional, default = "false", tag = "1")]
    pub done: Option<bool>,
    #[prost(message, optional, tag = "2")]
    pub snapshot: Option<SnapshotDescription>,
}

/// `MasterService` request `RestoreSnapshotRequest` (a clone when the snapshot names another
/// table, or its own table no longer exists).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RestoreSnapshotRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub snapshot: Option<SnapshotDescription>,
    #[prost(uint64, optional, default = "0", tag = "2")]
    pub nonce_group: Option<u64>,
    #[prost(uint64, optional, default = "0", tag = "3")]
    pub nonce: Option<u64>,
    #[prost(bool, optional, default = "false", tag = "4")]
    pub restore_acl: Option<bool>,
    #[prost(string, optional, tag = "5")]
    pub custom_sft: Option<String>,
}

/// `MasterService` request `IsRestoreSnapshotDoneRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsRestoreSnapshotDoneRequest {
    #[prost(message, optional, tag = "1")]
    pub snapshot: Option<SnapshotDescription>,
}

/// `MasterService` response `IsRestoreSnapshotDoneResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsRestoreSnapshotDoneResponse {
    #[prost(bool, optional, default = "false", tag = "1")]
    pub done: Option<bool>,
}

/// `MasterService` request `GetSchemaAlterStatusRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetSchemaAlterStatusRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
}

/// `MasterService` response `GetSchemaAlterStatusResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetSchemaAlterStatusResponse {
    #[prost(uint32, optional, tag = "1")]
    pub yet_to_update_regions: Option<u32>,
    #[prost(uint32, optional, tag = "2")]
    pub total_regions: Option<u32>,
}

/// `MasterService` request `GetTableDescriptorsRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTableDescriptorsRequest {
    #[prost(message, repeated, tag = "1")]
    pub table_names: Vec<super::hbase::TableName>,
    #[prost(string, optional, tag = "2")]
    pub regex: Option<String>,
    #[prost(bool, optional, default = "false", tag = "3")]
    pub include_sys_tables: Option<bool>,
    #[prost(string, optional, tag = "4")]
    pub namespace: Option<String>,
}

/// `MasterService` response `GetTableDescriptorsResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTableDescriptorsResponse {
    #[prost(message, repeated, tag = "1")]
    pub table_schema: Vec<super::hbase::TableSchema>,
}

/// `MasterService` request `ListTableDescriptorsByStateRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableDescriptorsByStateRequest {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub is_enabled: Option<bool>,
}

/// `MasterService` response `ListTableDescriptorsByStateResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableDescriptorsByStateResponse {
    #[prost(message, repeated, tag = "1")]
    pub table_schema: Vec<super::hbase::TableSchema>,
}

/// `MasterService` request `GetTableNamesRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTableNamesRequest {
    #[prost(string, optional, tag = "1")]
    pub regex: Option<String>,
    #[prost(bool, optional, default = "false", tag = "2")]
    pub include_sys_tables: Option<bool>,
    #[prost(string, optional, tag = "3")]
    pub namespace: Option<String>,
}

/// `MasterService` response `GetTableNamesResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTableNamesResponse {
    #[prost(message, repeated, tag = "1")]
    pub table_names: Vec<super::hbase::TableName>,
}

/// `MasterService` request `ListTableNamesByStateRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableNamesByStateRequest {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub is_enabled: Option<bool>,
}

/// `MasterService` response `ListTableNamesByStateResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTableNamesByStateResponse {
    #[prost(message, repeated, tag = "1")]
    pub table_names: Vec<super::hbase::TableName>,
}

/// `MasterService` request `GetTableStateRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTableStateRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
}

/// `MasterService` response `GetTableStateResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetTableStateResponse {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_state: Option<super::hbase::TableState>,
}

/// `MasterService` request `GetClusterStatusRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetClusterStatusRequest {
    #[prost(
        enumeration = "super::cluster_status::ClusterOption",
        repeated,
        packed = "false",
        tag = "1"
    )]
    pub options: Vec<i32>,
}

/// `MasterService` response `GetClusterStatusResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetClusterStatusResponse {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub cluster_status: Option<super::cluster_status::ClusterStatus>,
}

/// `MasterService` request `IsMasterRunningRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsMasterRunningRequest {}

/// `MasterService` response `IsMasterRunningResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsMasterRunningResponse {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub is_master_running: Option<bool>,
}

/// `MasterService` request `ExecProcedureRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExecProcedureRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub procedure: Option<super::hbase::ProcedureDescription>,
}

/// `MasterService` response `ExecProcedureResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExecProcedureResponse {
    #[prost(int64, optional, tag = "1")]
    pub expected_timeout: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub return_data: Option<Vec<u8>>,
}

/// `MasterService` request `IsProcedureDoneRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsProcedureDoneRequest {
    #[prost(message, optional, tag = "1")]
    pub procedure: Option<super::hbase::ProcedureDescription>,
}

/// `MasterService` response `IsProcedureDoneResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct IsProcedureDoneResponse {
    #[prost(bool, optional, default = "false", tag = "1")]
    pub done: Option<bool>,
    #[prost(message, optional, tag = "2")]
    pub snapshot: Option<super::hbase::ProcedureDescription>,
}

/// `MasterService` request `GetProcedureResultRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetProcedureResultRequest {
    /// Required.
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
}

/// `MasterService` response `GetProcedureResultResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetProcedureResultResponse {
    /// Required.
    #[prost(
        enumeration = "get_procedure_result_response::State",
        optional,
        tag = "1"
    )]
    pub state: Option<i32>,
    #[prost(uint64, optional, tag = "2")]
    pub submitted_time: Option<u64>,
    #[prost(uint64, optional, tag = "3")]
    pub last_update: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub result: Option<Vec<u8>>,
    #[prost(message, optional, tag = "5")]
    pub exception: Option<super::error_handling::ForeignExceptionMessage>,
}

/// Nested types of [`GetProcedureResultResponse`].
pub mod get_procedure_result_response {
    /// `GetProcedureResultResponse.State`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum State {
        NotFound = 0,
        Running = 1,
        Finished = 2,
    }
}

/// `MasterService` request `AbortProcedureRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AbortProcedureRequest {
    /// Required.
    #[prost(uint64, optional, tag = "1")]
    pub proc_id: Option<u64>,
    /// `mayInterruptIfRunning` in the .proto.
    #[prost(bool, optional, default = "true", tag = "2")]
    pub may_interrupt_if_running: Option<bool>,
}

/// `MasterService` response `AbortProcedureResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AbortProcedureResponse {
    /// Required.
    #[prost(bool, optional, tag = "1")]
    pub is_procedure_aborted: Option<bool>,
}

/// `MasterService` request `MajorCompactionTimestampRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MajorCompactionTimestampRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
}

/// `MasterService` request `MajorCompactionTimestampForRegionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MajorCompactionTimestampForRegionRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region: Option<super::hbase::RegionSpecifier>,
}

/// `MasterService` response `MajorCompactionTimestampResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MajorCompactionTimestampResponse {
    /// Required.
    #[prost(int64, optional, tag = "1")]
    pub compaction_timestamp: Option<i64>,
}

/// `MasterService` request `SecurityCapabilitiesRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SecurityCapabilitiesRequest {}

/// `MasterService` response `SecurityCapabilitiesResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SecurityCapabilitiesResponse {
    #[prost(
        enumeration = "security_capabilities_response::Capability",
        repeated,
        packed = "false",
        tag = "1"
    )]
    pub capabilities: Vec<i32>,
}

/// Nested types of [`SecurityCapabilitiesResponse`].
pub mod security_capabilities_response {
    /// `SecurityCapabilitiesResponse.Capability`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Capability {
        SimpleAuthentication = 0,
        SecureAuthentication = 1,
        Authorization = 2,
        CellAuthorization = 3,
        CellVisibility = 4,
    }
}

/// A snapshot (`Snapshot.proto`; field 7, `users_and_permissions` of `AccessControl.proto`, is not
/// declared: decoding skips it).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SnapshotDescription {
    /// Required.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub table: Option<String>,
    #[prost(int64, optional, default = "0", tag = "3")]
    pub creation_time: Option<i64>,
    #[prost(
        enumeration = "snapshot_description::Type",
        optional,
        default = "Flush",
        tag = "4"
    )]
    pub r#type: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub version: Option<i32>,
    #[prost(string, optional, tag = "6")]
    pub owner: Option<String>,
    #[prost(int64, optional, default = "0", tag = "8")]
    pub ttl: Option<i64>,
    #[prost(int64, optional, default = "0", tag = "9")]
    pub max_file_size: Option<i64>,
}

/// Nested types of [`SnapshotDescription`].
pub mod snapshot_description {
    /// `SnapshotDescription.Type`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Type {
        Disabled = 0,
        Flush = 1,
        Skipflush = 2,
    }
}
