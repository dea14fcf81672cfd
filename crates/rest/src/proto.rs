//! HBase REST's own protobuf messages (`hbase-rest/src/main/protobuf/*.proto` as the hbase-rest 2.6.1 jar ships them, package
//! `org.apache.hadoop.hbase.rest.protobuf.generated`, HBase 2.6.1), declared by hand with
//! prost's derive, field numbers from the `.proto` files. `required` fields are declared
//! `optional` so a message without them decodes and is refused by the resource with HBase's
//! 400, rather than failing inside the decoder.

#![allow(
    missing_docs,
    reason = "the fields are the .proto's, named and numbered as there"
)]

/// `CellMessage.proto`: `Cell`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Cell {
    /// Unused inside a `CellSet`.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "3")]
    pub timestamp: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub data: Option<Vec<u8>>,
}

/// `CellSetMessage.proto`: `CellSet`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CellSet {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<CellSetRow>,
}

/// `CellSet.Row`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CellSetRow {
    /// `required`.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub key: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "2")]
    pub values: Vec<Cell>,
}

/// `VersionMessage.proto`: `Version`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Version {
    #[prost(string, optional, tag = "1")]
    pub rest_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub jvm_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub os_version: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub server_version: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub jersey_version: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub version: Option<String>,
    #[prost(string, optional, tag = "7")]
    pub revision: Option<String>,
}

/// `TableListMessage.proto`: `TableList`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableList {
    #[prost(string, repeated, tag = "1")]
    pub name: Vec<String>,
}

/// `NamespacesMessage.proto`: `Namespaces`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Namespaces {
    #[prost(string, repeated, tag = "1")]
    pub namespace: Vec<String>,
}

/// `NamespacePropertiesMessage.proto`: `NamespaceProperties`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamespaceProperties {
    #[prost(message, repeated, tag = "1")]
    pub props: Vec<NameValue>,
}

/// The `Attribute`/`Property` pairs of several messages (`name`/`key` = 1, `value` = 2).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NameValue {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

/// `ColumnSchemaMessage.proto`: `ColumnSchema`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<NameValue>,
    #[prost(int32, optional, tag = "3")]
    pub ttl: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub compression: Option<String>,
}

/// `TableSchemaMessage.proto`: `TableSchema`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<NameValue>,
    #[prost(message, repeated, tag = "3")]
    pub columns: Vec<ColumnSchema>,
    #[prost(bool, optional, tag = "4")]
    pub in_memory: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub read_only: Option<bool>,
}

/// `TableInfoMessage.proto`: `TableInfo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableInfo {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub regions: Vec<TableInfoRegion>,
}

/// `TableInfo.Region`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableInfoRegion {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub start_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub end_key: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "4")]
    pub id: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub location: Option<String>,
}

/// `StorageClusterStatusMessage.proto`: `StorageClusterStatus`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StorageClusterStatus {
    #[prost(message, repeated, tag = "1")]
    pub live_nodes: Vec<StatusNode>,
    #[prost(string, repeated, tag = "2")]
    pub dead_nodes: Vec<String>,
    #[prost(int32, optional, tag = "3")]
    pub regions: Option<i32>,
    #[prost(int64, optional, tag = "4")]
    pub requests: Option<i64>,
    #[prost(double, optional, tag = "5")]
    pub average_load: Option<f64>,
}

/// `StorageClusterStatus.Node`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusNode {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int64, optional, tag = "2")]
    pub start_code: Option<i64>,
    #[prost(int64, optional, tag = "3")]
    pub requests: Option<i64>,
    #[prost(int32, optional, tag = "4")]
    pub heap_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub max_heap_size_mb: Option<i32>,
    #[prost(message, repeated, tag = "6")]
    pub regions: Vec<StatusRegion>,
}

/// `StorageClusterStatus.Region`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StatusRegion {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub name: Option<Vec<u8>>,
    #[prost(int32, optional, tag = "2")]
    pub stores: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub storefiles: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub storefile_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub mem_store_size_mb: Option<i32>,
    #[prost(int64, optional, tag = "6")]
    pub storefile_index_size_kb: Option<i64>,
    #[prost(int64, optional, tag = "7")]
    pub read_requests_count: Option<i64>,
    #[prost(int64, optional, tag = "8")]
    pub write_requests_count: Option<i64>,
    #[prost(int32, optional, tag = "9")]
    pub root_index_size_kb: Option<i32>,
    #[prost(int32, optional, tag = "10")]
    pub total_static_index_size_kb: Option<i32>,
    #[prost(int32, optional, tag = "11")]
    pub total_static_bloom_size_kb: Option<i32>,
    #[prost(int64, optional, tag = "12")]
    pub total_compacting_kvs: Option<i64>,
    #[prost(int64, optional, tag = "13")]
    pub current_compacted_kvs: Option<i64>,
}

/// `ScannerMessage.proto`: `Scanner`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Scanner {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub start_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub end_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub columns: Vec<Vec<u8>>,
    #[prost(int32, optional, tag = "4")]
    pub batch: Option<i32>,
    #[prost(int64, optional, tag = "5")]
    pub start_time: Option<i64>,
    #[prost(int64, optional, tag = "6")]
    pub end_time: Option<i64>,
    #[prost(int32, optional, tag = "7")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub filter: Option<String>,
    #[prost(int32, optional, tag = "9")]
    pub caching: Option<i32>,
    #[prost(string, repeated, tag = "10")]
    pub labels: Vec<String>,
    #[prost(bool, optional, tag = "11")]
    pub cache_blocks: Option<bool>,
}
