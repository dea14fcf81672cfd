//! The structs, enums and exceptions of HBase's Thrift2 `hbase.thrift` (hbase-thrift 2.6.1), each
//! declared once with its field ids, requiredness and the IDL's defaults. Enums are `i32`s with
//! their values in a module of constants named as the IDL's enum (`delete_type::DELETE_COLUMNS`).

use crate::thrift_struct;
use bytes::Bytes;

/// `map<binary, binary> attributes`, entries in wire order.
pub type Attributes = Vec<(Vec<u8>, Vec<u8>)>;

/// `enum TDeleteType`: which markers a `TDelete`'s columns write.
pub mod delete_type {
    /// One version of a column (HBase's `Delete`).
    pub const DELETE_COLUMN: i32 = 0;
    /// Every version of a column at or below the timestamp (`DeleteColumn`); the IDL's default.
    pub const DELETE_COLUMNS: i32 = 1;
    /// A whole family at or below the timestamp (`DeleteFamily`).
    pub const DELETE_FAMILY: i32 = 2;
    /// One version of every column of a family (`DeleteFamilyVersion`).
    pub const DELETE_FAMILY_VERSION: i32 = 3;
}

/// `enum TDurability`.
pub mod durability {
    /// The table's default.
    pub const USE_DEFAULT: i32 = 0;
    /// No WAL write.
    pub const SKIP_WAL: i32 = 1;
    /// The WAL written, synced later.
    pub const ASYNC_WAL: i32 = 2;
    /// The WAL written and synced.
    pub const SYNC_WAL: i32 = 3;
    /// The WAL written and fsynced.
    pub const FSYNC_WAL: i32 = 4;
}

/// `enum TCompareOp`: how `checkAndMutate` compares its value with the stored one.
pub mod compare_op {
    /// `LESS`.
    pub const LESS: i32 = 0;
    /// `LESS_OR_EQUAL`.
    pub const LESS_OR_EQUAL: i32 = 1;
    /// `EQUAL`.
    pub const EQUAL: i32 = 2;
    /// `NOT_EQUAL`.
    pub const NOT_EQUAL: i32 = 3;
    /// `GREATER_OR_EQUAL`.
    pub const GREATER_OR_EQUAL: i32 = 4;
    /// `GREATER`.
    pub const GREATER: i32 = 5;
    /// `NO_OP`.
    pub const NO_OP: i32 = 6;
}

/// `enum TBloomFilterType`.
pub mod bloom_filter_type {
    /// `NONE`.
    pub const NONE: i32 = 0;
    /// `ROW`.
    pub const ROW: i32 = 1;
    /// `ROWCOL`.
    pub const ROWCOL: i32 = 2;
    /// `ROWPREFIX_FIXED_LENGTH`.
    pub const ROWPREFIX_FIXED_LENGTH: i32 = 3;
}

/// `enum TCompressionAlgorithm`.
pub mod compression_algorithm {
    /// `LZO`.
    pub const LZO: i32 = 0;
    /// `GZ`.
    pub const GZ: i32 = 1;
    /// `NONE`.
    pub const NONE: i32 = 2;
    /// `SNAPPY`.
    pub const SNAPPY: i32 = 3;
    /// `LZ4`.
    pub const LZ4: i32 = 4;
    /// `BZIP2`.
    pub const BZIP2: i32 = 5;
    /// `ZSTD`.
    pub const ZSTD: i32 = 6;
}

/// `enum TDataBlockEncoding`.
pub mod data_block_encoding {
    /// `NONE`.
    pub const NONE: i32 = 0;
    /// `PREFIX`.
    pub const PREFIX: i32 = 2;
    /// `DIFF`.
    pub const DIFF: i32 = 3;
    /// `FAST_DIFF`.
    pub const FAST_DIFF: i32 = 4;
    /// `ROW_INDEX_V1`.
    pub const ROW_INDEX_V1: i32 = 7;
}

/// `enum TKeepDeletedCells`.
pub mod keep_deleted_cells {
    /// `FALSE`.
    pub const FALSE: i32 = 0;
    /// `TRUE`.
    pub const TRUE: i32 = 1;
    /// `TTL`.
    pub const TTL: i32 = 2;
}

/// `enum TConsistency`.
pub mod consistency {
    /// `STRONG`.
    pub const STRONG: i32 = 1;
    /// `TIMELINE`.
    pub const TIMELINE: i32 = 2;
}

/// `enum TReadType`.
pub mod read_type {
    /// `DEFAULT`.
    pub const DEFAULT: i32 = 1;
    /// `STREAM`.
    pub const STREAM: i32 = 2;
    /// `PREAD`.
    pub const PREAD: i32 = 3;
}

thrift_struct! {
    /// `struct TTimeRange`: timestamps from `minStamp` (inclusive) to `maxStamp` (exclusive).
    pub struct TTimeRange = struct "TTimeRange" {
        1: minStamp as min_stamp: required i64,
        2: maxStamp as max_stamp: required i64,
    }
}

thrift_struct! {
    /// `struct TColumn`: a family, or a column with `qualifier`; `timestamp` used by deletes.
    pub struct TColumn = struct "TColumn" {
        1: family as family: required Vec<u8>,
        2: qualifier as qualifier: optional Vec<u8>,
        3: timestamp as timestamp: optional i64,
    }
}

thrift_struct! {
    /// `struct TColumnValue`: a cell of a put or a result.
    pub struct TColumnValue = struct "TColumnValue" {
        1: family as family: required Bytes,
        2: qualifier as qualifier: required Bytes,
        3: value as value: required Bytes,
        4: timestamp as timestamp: optional i64,
        5: tags as tags: optional Bytes,
        /// HBase's `KeyValue.Type` code (4: Put); the IDL names the field `type`.
        6: type_ as cell_type: optional i8,
    }
}

thrift_struct! {
    /// `struct TColumnIncrement`: a column and the amount added (the IDL's default 1).
    pub struct TColumnIncrement = struct "TColumnIncrement" {
        1: family as family: required Vec<u8>,
        2: qualifier as qualifier: required Vec<u8>,
        3: amount as amount: default i64 = 1,
    }
}

thrift_struct! {
    /// `struct TResult`: a row's cells (no `row` for an empty result).
    pub struct TResult = struct "TResult" {
        1: row as row: optional Vec<u8>,
        2: columnValues as column_values: default Vec<TColumnValue> = Vec::new(),
        3: stale as stale: optional bool,
        4: partial as partial: optional bool,
    }
}

thrift_struct! {
    /// `struct TAuthorization`: visibility labels (not served: ferrobase has no cell labels).
    pub struct TAuthorization = struct "TAuthorization" {
        1: labels as labels: optional Vec<String>,
    }
}

thrift_struct! {
    /// `struct TCellVisibility` (not served: ferrobase has no cell labels).
    pub struct TCellVisibility = struct "TCellVisibility" {
        1: expression as expression: optional String,
    }
}

thrift_struct! {
    /// `struct TGet`: a read of one row.
    pub struct TGet = struct "TGet" {
        1: row as row: required Vec<u8>,
        2: columns as columns: optional Vec<TColumn>,
        /// One exact timestamp; takes precedence over `timeRange`.
        3: timestamp as timestamp: optional i64,
        4: timeRange as time_range: optional TTimeRange,
        5: maxVersions as max_versions: optional i32,
        /// A filter in HBase's filter language.
        6: filterString as filter_string: optional Vec<u8>,
        7: attributes as attributes: optional Attributes,
        8: authorizations as authorizations: optional TAuthorization,
        9: consistency as consistency: optional i32,
        10: targetReplicaId as target_replica_id: optional i32,
        11: cacheBlocks as cache_blocks: optional bool,
        12: storeLimit as store_limit: optional i32,
        13: storeOffset as store_offset: optional i32,
        14: existence_only as existence_only: optional bool,
        /// A filter as HBase's protobuf `Filter` (not served).
        15: filterBytes as filter_bytes: optional Vec<u8>,
    }
}

thrift_struct! {
    /// `struct TPut`: cells written to one row.
    pub struct TPut = struct "TPut" {
        1: row as row: required Bytes,
        2: columnValues as column_values: default Vec<TColumnValue> = Vec::new(),
        /// The timestamp of cells that carry none.
        3: timestamp as timestamp: optional i64,
        5: attributes as attributes: optional Attributes,
        6: durability as durability: optional i32,
        7: cellVisibility as cell_visibility: optional TCellVisibility,
    }
}

thrift_struct! {
    /// `struct TDelete`: a row's deletion (no columns), or markers of `deleteType` on columns.
    pub struct TDelete = struct "TDelete" {
        1: row as row: required Vec<u8>,
        2: columns as columns: optional Vec<TColumn>,
        3: timestamp as timestamp: optional i64,
        /// One of [`delete_type`]; `DELETE_COLUMNS` by default.
        4: deleteType as delete_type: default i32 = delete_type::DELETE_COLUMNS,
        6: attributes as attributes: optional Attributes,
        7: durability as durability: optional i32,
    }
}

thrift_struct! {
    /// `struct TIncrement`: amounts added to counters of one row.
    pub struct TIncrement = struct "TIncrement" {
        1: row as row: required Vec<u8>,
        2: columns as columns: default Vec<TColumnIncrement> = Vec::new(),
        4: attributes as attributes: optional Attributes,
        5: durability as durability: optional i32,
        6: cellVisibility as cell_visibility: optional TCellVisibility,
        7: returnResults as return_results: optional bool,
    }
}

thrift_struct! {
    /// `struct TAppend`: values appended to cells of one row.
    pub struct TAppend = struct "TAppend" {
        1: row as row: required Vec<u8>,
        2: columns as columns: default Vec<TColumnValue> = Vec::new(),
        3: attributes as attributes: optional Attributes,
        4: durability as durability: optional i32,
        5: cellVisibility as cell_visibility: optional TCellVisibility,
        6: returnResults as return_results: optional bool,
    }
}

thrift_struct! {
    /// `struct TScan`: a scanner's parameters; every field optional.
    pub struct TScan = struct "TScan" {
        1: startRow as start_row: optional Vec<u8>,
        2: stopRow as stop_row: optional Vec<u8>,
        3: columns as columns: optional Vec<TColumn>,
        4: caching as caching: optional i32,
        5: maxVersions as max_versions: optional i32,
        6: timeRange as time_range: optional TTimeRange,
        /// A filter in HBase's filter language.
        7: filterString as filter_string: optional Vec<u8>,
        8: batchSize as batch_size: optional i32,
        9: attributes as attributes: optional Attributes,
        10: authorizations as authorizations: optional TAuthorization,
        11: reversed as reversed: optional bool,
        12: cacheBlocks as cache_blocks: optional bool,
        13: colFamTimeRangeMap as col_fam_time_range_map: optional Vec<(Vec<u8>, TTimeRange)>,
        14: readType as read_type: optional i32,
        15: limit as limit: optional i32,
        16: consistency as consistency: optional i32,
        17: targetReplicaId as target_replica_id: optional i32,
        /// A filter as HBase's protobuf `Filter` (not served).
        18: filterBytes as filter_bytes: optional Vec<u8>,
    }
}

thrift_struct! {
    /// `union TMutation`: a put or a delete of a `TRowMutations` (exactly one set).
    pub struct TMutation = struct "TMutation" {
        1: put as put: optional TPut,
        2: deleteSingle as delete_single: optional TDelete,
    }
}

thrift_struct! {
    /// `struct TRowMutations`: puts and deletes of one row, applied atomically.
    pub struct TRowMutations = struct "TRowMutations" {
        1: row as row: required Vec<u8>,
        2: mutations as mutations: default Vec<TMutation> = Vec::new(),
    }
}

thrift_struct! {
    /// `struct THRegionInfo`.
    pub struct THRegionInfo = struct "THRegionInfo" {
        1: regionId as region_id: required i64,
        2: tableName as table_name: required Vec<u8>,
        3: startKey as start_key: optional Vec<u8>,
        4: endKey as end_key: optional Vec<u8>,
        5: offline as offline: optional bool,
        6: split as split: optional bool,
        7: replicaId as replica_id: optional i32,
    }
}

thrift_struct! {
    /// `struct TServerName`.
    pub struct TServerName = struct "TServerName" {
        1: hostName as host_name: required String,
        2: port as port: optional i32,
        3: startCode as start_code: optional i64,
    }
}

thrift_struct! {
    /// `struct THRegionLocation`.
    pub struct THRegionLocation = struct "THRegionLocation" {
        1: serverName as server_name: required TServerName,
        2: regionInfo as region_info: required THRegionInfo,
    }
}

thrift_struct! {
    /// `struct TTableName`: a table's namespace (absent: `default`) and name.
    pub struct TTableName = struct "TTableName" {
        1: ns as ns: optional Vec<u8>,
        2: qualifier as qualifier: required Vec<u8>,
    }
}

thrift_struct! {
    /// `struct TColumnFamilyDescriptor` (the IDL spells field 5 `bloomnFilterType`).
    pub struct TColumnFamilyDescriptor = struct "TColumnFamilyDescriptor" {
        1: name as name: required Vec<u8>,
        2: attributes as attributes: optional Attributes,
        3: configuration as configuration: optional Vec<(String, String)>,
        4: blockSize as block_size: optional i32,
        5: bloomnFilterType as bloom_filter_type: optional i32,
        6: compressionType as compression_type: optional i32,
        7: dfsReplication as dfs_replication: optional i16,
        8: dataBlockEncoding as data_block_encoding: optional i32,
        9: keepDeletedCells as keep_deleted_cells: optional i32,
        10: maxVersions as max_versions: optional i32,
        11: minVersions as min_versions: optional i32,
        12: scope as scope: optional i32,
        13: timeToLive as time_to_live: optional i32,
        14: blockCacheEnabled as block_cache_enabled: optional bool,
        15: cacheBloomsOnWrite as cache_blooms_on_write: optional bool,
        16: cacheDataOnWrite as cache_data_on_write: optional bool,
        17: cacheIndexesOnWrite as cache_indexes_on_write: optional bool,
        18: compressTags as compress_tags: optional bool,
        19: evictBlocksOnClose as evict_blocks_on_close: optional bool,
        20: inMemory as in_memory: optional bool,
    }
}

thrift_struct! {
    /// `struct TTableDescriptor`.
    pub struct TTableDescriptor = struct "TTableDescriptor" {
        1: tableName as table_name: required TTableName,
        2: columns as columns: optional Vec<TColumnFamilyDescriptor>,
        3: attributes as attributes: optional Attributes,
        4: durability as durability: optional i32,
    }
}

thrift_struct! {
    /// `struct TNamespaceDescriptor`.
    pub struct TNamespaceDescriptor = struct "TNamespaceDescriptor" {
        1: name as name: required String,
        2: configuration as configuration: optional Vec<(String, String)>,
    }
}

thrift_struct! {
    /// `struct TLogQueryFilter` (declared for `getSlowLogResponses`, which is not served).
    pub struct TLogQueryFilter = struct "TLogQueryFilter" {
        1: regionName as region_name: optional String,
        2: clientAddress as client_address: optional String,
        3: tableName as table_name: optional String,
        4: userName as user_name: optional String,
        5: limit as limit: optional i32,
        6: logType as log_type: optional i32,
        7: filterByOperator as filter_by_operator: optional i32,
    }
}

thrift_struct! {
    /// `exception TIOError`: the failure every method declares; `canRetry` false for HBase's
    /// `DoNotRetryIOException`s.
    pub struct TIOError = struct "TIOError" {
        1: message as message: optional String,
        2: canRetry as can_retry: optional bool,
    }
}

thrift_struct! {
    /// `exception TIllegalArgument`.
    pub struct TIllegalArgument = struct "TIllegalArgument" {
        1: message as message: optional String,
    }
}

/// `enum TThriftServerType`: what `getThriftServerType` answers (`TWO` here).
pub use crate::hbase::thrift_server_type;
