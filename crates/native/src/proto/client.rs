//! `Client.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6), and
//! `ScanMetrics` from `MapReduce.proto`: the messages of `ClientService` (Get, Mutate, Scan, Multi,
//! bulk load, coprocessor calls).

use super::cell::Cell;
use super::comparator::Comparator;
use super::filter::Filter;
use super::hbase::{
    ColumnFamilyTimeRange, NameBytesPair, NameInt64Pair, RegionSpecifier, TableName, TimeRange,
};

/// Visibility labels of a read.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Authorizations {
    #[prost(string, repeated, tag = "1")]
    pub label: Vec<String>,
}

/// The visibility expression of a mutation (`required string expression = 1`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CellVisibility {
    #[prost(string, optional, tag = "1")]
    pub expression: Option<String>,
}

/// A family (required) and some of its qualifiers (none: the whole family).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Column {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub family: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub qualifier: Vec<Vec<u8>>,
}

/// The consistency a read asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Consistency {
    Strong = 0,
    Timeline = 1,
}

/// A Get (`row` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Get {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "2")]
    pub column: Vec<Column>,
    #[prost(message, repeated, tag = "3")]
    pub attribute: Vec<NameBytesPair>,
    #[prost(message, optional, tag = "4")]
    pub filter: Option<Filter>,
    #[prost(message, optional, tag = "5")]
    pub time_range: Option<TimeRange>,
    #[prost(uint32, optional, tag = "6", default = "1")]
    pub max_versions: Option<u32>,
    #[prost(bool, optional, tag = "7", default = "true")]
    pub cache_blocks: Option<bool>,
    #[prost(uint32, optional, tag = "8")]
    pub store_limit: Option<u32>,
    #[prost(uint32, optional, tag = "9")]
    pub store_offset: Option<u32>,
    /// Only whether the row exists is asked for.
    #[prost(bool, optional, tag = "10", default = "false")]
    pub existence_only: Option<bool>,
    /// Deprecated since 2.0: a server refuses a Get with it set.
    #[prost(bool, optional, tag = "11", default = "false")]
    pub closest_row_before: Option<bool>,
    #[prost(enumeration = "Consistency", optional, tag = "12", default = "Strong")]
    pub consistency: Option<i32>,
    #[prost(message, repeated, tag = "13")]
    pub cf_time_range: Vec<ColumnFamilyTimeRange>,
    #[prost(bool, optional, tag = "14")]
    pub load_column_families_on_demand: Option<bool>,
}

/// The cells of a row (or their count when they travel in a cell block).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Result {
    #[prost(message, repeated, tag = "1")]
    pub cell: Vec<Cell>,
    /// The number of this result's cells in the accompanying cell block.
    #[prost(int32, optional, tag = "2")]
    pub associated_cell_count: Option<i32>,
    /// Set only for an `existence_only` Get.
    #[prost(bool, optional, tag = "3")]
    pub exists: Option<bool>,
    #[prost(bool, optional, tag = "4", default = "false")]
    pub stale: Option<bool>,
    /// The row has more cells in a later result (`mayHaveMoreCellsInRow`).
    #[prost(bool, optional, tag = "5", default = "false")]
    pub partial: Option<bool>,
}

/// A Get on a region (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetRequest {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub get: Option<Get>,
}

/// The answer to a [`GetRequest`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct GetResponse {
    #[prost(message, optional, tag = "1")]
    pub result: Option<Result>,
}

/// The condition of a check-and-mutate: a cell compared with a comparator, or a filter on the
/// row (`row` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Condition {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub qualifier: Option<Vec<u8>>,
    #[prost(enumeration = "super::hbase::CompareType", optional, tag = "4")]
    pub compare_type: Option<i32>,
    #[prost(message, optional, tag = "5")]
    pub comparator: Option<Comparator>,
    #[prost(message, optional, tag = "6")]
    pub time_range: Option<TimeRange>,
    #[prost(message, optional, tag = "7")]
    pub filter: Option<Filter>,
}

/// One mutation: an append, increment, put or delete, with its cells here or in the cell block.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutationProto {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(enumeration = "mutation_proto::MutationType", optional, tag = "2")]
    pub mutate_type: Option<i32>,
    #[prost(message, repeated, tag = "3")]
    pub column_value: Vec<mutation_proto::ColumnValue>,
    #[prost(uint64, optional, tag = "4")]
    pub timestamp: Option<u64>,
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<NameBytesPair>,
    #[prost(
        enumeration = "mutation_proto::Durability",
        optional,
        tag = "6",
        default = "UseDefault"
    )]
    pub durability: Option<i32>,
    /// For increments and appends that return a result.
    #[prost(message, optional, tag = "7")]
    pub time_range: Option<TimeRange>,
    /// The number of this mutation's cells in the accompanying cell block.
    #[prost(int32, optional, tag = "8")]
    pub associated_cell_count: Option<i32>,
    #[prost(uint64, optional, tag = "9")]
    pub nonce: Option<u64>,
}

/// Nested types of [`MutationProto`].
pub mod mutation_proto {
    /// `MutationProto.Durability`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Durability {
        UseDefault = 0,
        SkipWal = 1,
        AsyncWal = 2,
        SyncWal = 3,
        FsyncWal = 4,
    }

    /// `MutationProto.MutationType`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum MutationType {
        Append = 0,
        Increment = 1,
        Put = 2,
        Delete = 3,
    }

    /// `MutationProto.DeleteType`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum DeleteType {
        DeleteOneVersion = 0,
        DeleteMultipleVersions = 1,
        DeleteFamily = 2,
        DeleteFamilyVersion = 3,
    }

    /// The cells of one family (`family` required).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ColumnValue {
        #[prost(bytes = "vec", optional, tag = "1")]
        pub family: Option<Vec<u8>>,
        #[prost(message, repeated, tag = "2")]
        pub qualifier_value: Vec<column_value::QualifierValue>,
    }

    /// Nested types of [`ColumnValue`].
    pub mod column_value {
        /// One cell of a mutation.
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct QualifierValue {
            #[prost(bytes = "vec", optional, tag = "1")]
            pub qualifier: Option<Vec<u8>>,
            #[prost(bytes = "vec", optional, tag = "2")]
            pub value: Option<Vec<u8>>,
            #[prost(uint64, optional, tag = "3")]
            pub timestamp: Option<u64>,
            #[prost(enumeration = "super::DeleteType", optional, tag = "4")]
            pub delete_type: Option<i32>,
            #[prost(bytes = "vec", optional, tag = "5")]
            pub tags: Option<Vec<u8>>,
        }
    }
}

/// A mutation on a region, maybe conditional (`region` and `mutation` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutateRequest {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub mutation: Option<MutationProto>,
    #[prost(message, optional, tag = "3")]
    pub condition: Option<Condition>,
    #[prost(uint64, optional, tag = "4")]
    pub nonce_group: Option<u64>,
}

/// The answer to a [`MutateRequest`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct MutateResponse {
    #[prost(message, optional, tag = "1")]
    pub result: Option<Result>,
    /// Whether a conditional mutation was applied.
    #[prost(bool, optional, tag = "2")]
    pub processed: Option<bool>,
}

/// A scan's specification, sent when a scanner opens.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Scan {
    #[prost(message, repeated, tag = "1")]
    pub column: Vec<Column>,
    #[prost(message, repeated, tag = "2")]
    pub attribute: Vec<NameBytesPair>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub start_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub stop_row: Option<Vec<u8>>,
    #[prost(message, optional, tag = "5")]
    pub filter: Option<Filter>,
    #[prost(message, optional, tag = "6")]
    pub time_range: Option<TimeRange>,
    #[prost(uint32, optional, tag = "7", default = "1")]
    pub max_versions: Option<u32>,
    #[prost(bool, optional, tag = "8", default = "true")]
    pub cache_blocks: Option<bool>,
    #[prost(uint32, optional, tag = "9")]
    pub batch_size: Option<u32>,
    #[prost(uint64, optional, tag = "10")]
    pub max_result_size: Option<u64>,
    #[prost(uint32, optional, tag = "11")]
    pub store_limit: Option<u32>,
    #[prost(uint32, optional, tag = "12")]
    pub store_offset: Option<u32>,
    #[prost(bool, optional, tag = "13")]
    pub load_column_families_on_demand: Option<bool>,
    /// Deprecated.
    #[prost(bool, optional, tag = "14")]
    pub small: Option<bool>,
    #[prost(bool, optional, tag = "15", default = "false")]
    pub reversed: Option<bool>,
    #[prost(enumeration = "Consistency", optional, tag = "16", default = "Strong")]
    pub consistency: Option<i32>,
    #[prost(uint32, optional, tag = "17")]
    pub caching: Option<u32>,
    #[prost(bool, optional, tag = "18")]
    pub allow_partial_results: Option<bool>,
    #[prost(message, repeated, tag = "19")]
    pub cf_time_range: Vec<ColumnFamilyTimeRange>,
    #[prost(uint64, optional, tag = "20", default = "0")]
    pub mvcc_read_point: Option<u64>,
    #[prost(bool, optional, tag = "21", default = "true")]
    pub include_start_row: Option<bool>,
    #[prost(bool, optional, tag = "22", default = "false")]
    pub include_stop_row: Option<bool>,
    /// `readType` in the .proto.
    #[prost(
        enumeration = "scan::ReadType",
        optional,
        tag = "23",
        default = "Default"
    )]
    pub read_type: Option<i32>,
    #[prost(bool, optional, tag = "24", default = "false")]
    pub need_cursor_result: Option<bool>,
}

/// Nested types of [`Scan`].
pub mod scan {
    /// `Scan.ReadType`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum ReadType {
        Default = 0,
        Stream = 1,
        Pread = 2,
    }
}

/// Opens (with `scan`), continues or closes (by `scanner_id`) a scanner.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScanRequest {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub scan: Option<Scan>,
    #[prost(uint64, optional, tag = "3")]
    pub scanner_id: Option<u64>,
    #[prost(uint32, optional, tag = "4")]
    pub number_of_rows: Option<u32>,
    #[prost(bool, optional, tag = "5")]
    pub close_scanner: Option<bool>,
    #[prost(uint64, optional, tag = "6")]
    pub next_call_seq: Option<u64>,
    #[prost(bool, optional, tag = "7")]
    pub client_handles_partials: Option<bool>,
    #[prost(bool, optional, tag = "8")]
    pub client_handles_heartbeats: Option<bool>,
    #[prost(bool, optional, tag = "9")]
    pub track_scan_metrics: Option<bool>,
    #[prost(bool, optional, tag = "10", default = "false")]
    pub renew: Option<bool>,
    /// Close the scanner once this many rows were returned.
    #[prost(uint32, optional, tag = "11", default = "0")]
    pub limit_of_rows: Option<u32>,
}

/// Where a scan is (returned in heartbeats when the scan asks for cursors).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Cursor {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
}

/// The answer to a [`ScanRequest`]; `more_results` absent means there are more.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScanResponse {
    /// The cell count of each result in the cell block (proto2, not packed).
    #[prost(uint32, repeated, packed = "false", tag = "1")]
    pub cells_per_result: Vec<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub scanner_id: Option<u64>,
    #[prost(bool, optional, tag = "3")]
    pub more_results: Option<bool>,
    #[prost(uint32, optional, tag = "4")]
    pub ttl: Option<u32>,
    /// Results carried in the message (exclusive with `cells_per_result`).
    #[prost(message, repeated, tag = "5")]
    pub results: Vec<Result>,
    #[prost(bool, optional, tag = "6")]
    pub stale: Option<bool>,
    /// Whether each result is partial (proto2, not packed).
    #[prost(bool, repeated, packed = "false", tag = "7")]
    pub partial_flag_per_result: Vec<bool>,
    #[prost(bool, optional, tag = "8")]
    pub more_results_in_region: Option<bool>,
    #[prost(bool, optional, tag = "9")]
    pub heartbeat_message: Option<bool>,
    #[prost(message, optional, tag = "10")]
    pub scan_metrics: Option<ScanMetrics>,
    #[prost(uint64, optional, tag = "11", default = "0")]
    pub mvcc_read_point: Option<u64>,
    #[prost(message, optional, tag = "12")]
    pub cursor: Option<Cursor>,
}

/// Server-side scan metrics (`MapReduce.proto`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScanMetrics {
    #[prost(message, repeated, tag = "1")]
    pub metrics: Vec<NameInt64Pair>,
}

/// Loads HFiles into an open region (`region` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BulkLoadHFileRequest {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, repeated, tag = "2")]
    pub family_path: Vec<bulk_load_h_file_request::FamilyPath>,
    #[prost(bool, optional, tag = "3")]
    pub assign_seq_num: Option<bool>,
    #[prost(message, optional, tag = "4")]
    pub fs_token: Option<DelegationToken>,
    #[prost(string, optional, tag = "5")]
    pub bulk_token: Option<String>,
    #[prost(bool, optional, tag = "6", default = "false")]
    pub copy_file: Option<bool>,
    #[prost(string, repeated, tag = "7")]
    pub cluster_ids: Vec<String>,
    #[prost(bool, optional, tag = "8", default = "true")]
    pub replicate: Option<bool>,
}

/// Nested types of [`BulkLoadHFileRequest`].
pub mod bulk_load_h_file_request {
    /// A family (required) and an HFile path (required).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct FamilyPath {
        #[prost(bytes = "vec", optional, tag = "1")]
        pub family: Option<Vec<u8>>,
        #[prost(string, optional, tag = "2")]
        pub path: Option<String>,
    }
}

/// The answer to a [`BulkLoadHFileRequest`] (`loaded` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BulkLoadHFileResponse {
    #[prost(bool, optional, tag = "1")]
    pub loaded: Option<bool>,
}

/// A Hadoop delegation token.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DelegationToken {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub identifier: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub password: Option<Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    pub kind: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub service: Option<String>,
}

/// Prepares a bulk load (`table_name` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PrepareBulkLoadRequest {
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<TableName>,
    #[prost(message, optional, tag = "2")]
    pub region: Option<RegionSpecifier>,
}

/// The answer to a [`PrepareBulkLoadRequest`] (`bulk_token` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PrepareBulkLoadResponse {
    #[prost(string, optional, tag = "1")]
    pub bulk_token: Option<String>,
}

/// Cleans up after a bulk load (`bulk_token` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CleanupBulkLoadRequest {
    #[prost(string, optional, tag = "1")]
    pub bulk_token: Option<String>,
    #[prost(message, optional, tag = "2")]
    pub region: Option<RegionSpecifier>,
}

/// The answer to a [`CleanupBulkLoadRequest`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct CleanupBulkLoadResponse {}

/// A coprocessor endpoint call (every field required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CoprocessorServiceCall {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(string, optional, tag = "2")]
    pub service_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub method_name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub request: Option<Vec<u8>>,
}

/// The result of a coprocessor call inside a multi.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CoprocessorServiceResult {
    #[prost(message, optional, tag = "1")]
    pub value: Option<NameBytesPair>,
}

/// A coprocessor call on a region (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CoprocessorServiceRequest {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub call: Option<CoprocessorServiceCall>,
}

/// The answer to a [`CoprocessorServiceRequest`] (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CoprocessorServiceResponse {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub value: Option<NameBytesPair>,
}

/// One action of a multi: a Get, a mutation or a coprocessor call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Action {
    /// The action's position in the client's batch.
    #[prost(uint32, optional, tag = "1")]
    pub index: Option<u32>,
    #[prost(message, optional, tag = "2")]
    pub mutation: Option<MutationProto>,
    #[prost(message, optional, tag = "3")]
    pub get: Option<Get>,
    #[prost(message, optional, tag = "4")]
    pub service_call: Option<CoprocessorServiceCall>,
}

/// The actions on one region (`region` required); `atomic` runs the mutations as one.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionAction {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(bool, optional, tag = "2")]
    pub atomic: Option<bool>,
    #[prost(message, repeated, tag = "3")]
    pub action: Vec<Action>,
    /// The condition of a batched check-and-mutate (2.4+; replaces `MultiRequest.condition`).
    #[prost(message, optional, tag = "4")]
    pub condition: Option<Condition>,
}

/// The load of a region, in percent.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionLoadStats {
    /// `memStoreLoad` in the .proto.
    #[prost(int32, optional, tag = "1", default = "0")]
    pub mem_store_load: Option<i32>,
    /// `heapOccupancy` in the .proto.
    #[prost(int32, optional, tag = "2", default = "0")]
    pub heap_occupancy: Option<i32>,
    /// `compactionPressure` in the .proto.
    #[prost(int32, optional, tag = "3", default = "0")]
    pub compaction_pressure: Option<i32>,
}

/// Load statistics of several regions (the two lists align).
#[derive(Clone, PartialEq, prost::Message)]
pub struct MultiRegionLoadStats {
    #[prost(message, repeated, tag = "1")]
    pub region: Vec<RegionSpecifier>,
    #[prost(message, repeated, tag = "2")]
    pub stat: Vec<RegionLoadStats>,
}

/// The result or the exception of one action (or neither).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResultOrException {
    #[prost(uint32, optional, tag = "1")]
    pub index: Option<u32>,
    #[prost(message, optional, tag = "2")]
    pub result: Option<Result>,
    /// The exception's class name and its stringified form.
    #[prost(message, optional, tag = "3")]
    pub exception: Option<NameBytesPair>,
    #[prost(message, optional, tag = "4")]
    pub service_result: Option<CoprocessorServiceResult>,
    /// Deprecated (`loadStats`).
    #[prost(message, optional, tag = "5")]
    pub load_stats: Option<RegionLoadStats>,
}

/// The results of one [`RegionAction`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionActionResult {
    /// `resultOrException` in the .proto.
    #[prost(message, repeated, tag = "1")]
    pub result_or_exception: Vec<ResultOrException>,
    /// Set when the whole region action failed.
    #[prost(message, optional, tag = "2")]
    pub exception: Option<NameBytesPair>,
    /// Whether a conditional region action was applied (2.4+).
    #[prost(bool, optional, tag = "3")]
    pub processed: Option<bool>,
}

/// A batch of region actions; the response keeps their order.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MultiRequest {
    /// `regionAction` in the .proto.
    #[prost(message, repeated, tag = "1")]
    pub region_action: Vec<RegionAction>,
    /// `nonceGroup` in the .proto.
    #[prost(uint64, optional, tag = "2")]
    pub nonce_group: Option<u64>,
    /// Deprecated: moved to `RegionAction.condition`.
    #[prost(message, optional, tag = "3")]
    pub condition: Option<Condition>,
}

/// The answer to a [`MultiRequest`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct MultiResponse {
    /// `regionActionResult` in the .proto.
    #[prost(message, repeated, tag = "1")]
    pub region_action_result: Vec<RegionActionResult>,
    /// Deprecated: moved to `RegionActionResult.processed`.
    #[prost(bool, optional, tag = "2")]
    pub processed: Option<bool>,
    /// `regionStatistics` in the .proto.
    #[prost(message, optional, tag = "3")]
    pub region_statistics: Option<MultiRegionLoadStats>,
}
