//! The structs and exceptions of HBase's `Hbase.thrift` (hbase-thrift, 2.x), each declared once
//! with its field ids, requiredness and the IDL's defaults.

use crate::thrift_struct;
use bytes::Bytes;

/// `map<Text, Text> attributes`, entries in wire order.
pub type Attributes = Vec<(Vec<u8>, Vec<u8>)>;

thrift_struct! {
    /// `struct TCell`: a cell's value and timestamp.
    pub struct TCell = struct "TCell" {
        1: value as value: default Vec<u8> = Vec::new(),
        2: timestamp as timestamp: default i64 = 0,
    }
}

thrift_struct! {
    /// `struct ColumnDescriptor`: a column family (its name ends with `:`), with the IDL's
    /// defaults for absent fields.
    pub struct ColumnDescriptor = struct "ColumnDescriptor" {
        1: name as name: required Vec<u8>,
        2: maxVersions as max_versions: default i32 = 3,
        3: compression as compression: default String = "NONE".to_string(),
        4: inMemory as in_memory: default bool = false,
        5: bloomFilterType as bloom_filter_type: default String = "NONE".to_string(),
        6: bloomFilterVectorSize as bloom_filter_vector_size: default i32 = 0,
        7: bloomFilterNbHashes as bloom_filter_nb_hashes: default i32 = 0,
        8: blockCacheEnabled as block_cache_enabled: default bool = false,
        /// Seconds; `0x7fffffff` (HBase's `FOREVER`) by default.
        9: timeToLive as time_to_live: default i32 = 0x7fff_ffff,
    }
}

thrift_struct! {
    /// `struct TRegionInfo`: a region of a table.
    pub struct TRegionInfo = struct "TRegionInfo" {
        1: startKey as start_key: default Vec<u8> = Vec::new(),
        2: endKey as end_key: default Vec<u8> = Vec::new(),
        3: id as id: default i64 = 0,
        4: name as name: default Vec<u8> = Vec::new(),
        5: version as version: default i8 = 0,
        6: serverName as server_name: default Vec<u8> = Vec::new(),
        7: port as port: default i32 = 0,
    }
}

thrift_struct! {
    /// `struct Mutation`: a put of `value` into `column`, or a delete of it.
    pub struct Mutation = struct "Mutation" {
        1: isDelete as is_delete: default bool = false,
        /// `family:qualifier`, or `family` alone (a family delete).
        2: column as column: required Bytes,
        3: value as value: default Bytes = Bytes::new(),
        4: writeToWAL as write_to_wal: default bool = true,
    }
}

thrift_struct! {
    /// `struct BatchMutation`: mutations of one row.
    pub struct BatchMutation = struct "BatchMutation" {
        1: row as row: required Bytes,
        2: mutations as mutations: default Vec<Mutation> = Vec::new(),
    }
}

thrift_struct! {
    /// `struct TIncrement` (the IDL spells the amount `ammount`).
    pub struct TIncrement = struct "TIncrement" {
        1: table as table: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: ammount as amount: required i64,
    }
}

thrift_struct! {
    /// `struct TColumn`: a column name and its cell.
    pub struct TColumn = struct "TColumn" {
        1: columnName as column_name: default Vec<u8> = Vec::new(),
        2: cell as cell: default TCell = TCell::default(),
    }
}

thrift_struct! {
    /// `struct TRowResult`: a row's newest cells, by column (`columns`) or in column order
    /// (`sortedColumns`, when the scan asked for `sortColumns`).
    pub struct TRowResult = struct "TRowResult" {
        1: row as row: required Vec<u8>,
        2: columns as columns: optional Vec<(Vec<u8>, TCell)>,
        3: sortedColumns as sorted_columns: optional Vec<TColumn>,
    }
}

thrift_struct! {
    /// ferrobase's typed cell (not in `Hbase.thrift`): what `ferrobaseAdmin` `scan_next` answers
    /// for each cell of a row, delete markers included (a RAW scan).
    pub struct TFerrobaseCell = struct "TFerrobaseCell" {
        1: family as family: default Vec<u8> = Vec::new(),
        2: qualifier as qualifier: default Vec<u8> = Vec::new(),
        3: timestamp as timestamp: default i64 = 0,
        /// HBase's `KeyValue.Type` code: 4 Put, 8 Delete, 10 DeleteFamilyVersion,
        /// 12 DeleteColumn, 14 DeleteFamily.
        4: cellType as cell_type: default i8 = 4,
        5: value as value: default Vec<u8> = Vec::new(),
    }
}

thrift_struct! {
    /// ferrobase's row of typed cells (not in `Hbase.thrift`), in the order a scan returns
    /// them: by column, newest first, a marker before the cells of its timestamp.
    pub struct TFerrobaseRow = struct "TFerrobaseRow" {
        1: row as row: required Vec<u8>,
        2: cells as cells: default Vec<TFerrobaseCell> = Vec::new(),
    }
}

thrift_struct! {
    /// ferrobase's answer to `ferrobaseAdmin` `get` (not in `Hbase.thrift`): the row (none
    /// when absent) and, when the call asked for `EXPLAIN`, what the read cost as an explain
    /// line (`name=value ...`, the engine's `ReadCost`).
    pub struct TFerrobaseGet = struct "TFerrobaseGet" {
        1: rows as rows: default Vec<TFerrobaseRow> = Vec::new(),
        2: cost as cost: optional String,
    }
}

thrift_struct! {
    /// `struct TScan`: a scanner's parameters; every field optional.
    pub struct TScan = struct "TScan" {
        1: startRow as start_row: optional Vec<u8>,
        2: stopRow as stop_row: optional Vec<u8>,
        /// Exclusive upper bound of the cells' timestamps.
        3: timestamp as timestamp: optional i64,
        4: columns as columns: optional Vec<Vec<u8>>,
        5: caching as caching: optional i32,
        /// A filter in HBase's filter language.
        6: filterString as filter_string: optional Vec<u8>,
        7: batchSize as batch_size: optional i32,
        8: sortColumns as sort_columns: optional bool,
        9: reversed as reversed: optional bool,
        10: cacheBlocks as cache_blocks: optional bool,
    }
}

thrift_struct! {
    /// `struct TAppend`: values appended to columns of a row.
    pub struct TAppend = struct "TAppend" {
        1: table as table: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: values as values: default Vec<Vec<u8>> = Vec::new(),
    }
}

thrift_struct! {
    /// `exception IOError`: the failure every method declares.
    pub struct IOError = struct "IOError" {
        1: message as message: default String = String::new(),
        /// Set by ferrobase on a refusal for memory: retrying later may succeed.
        2: canRetry as can_retry: optional bool,
    }
}

thrift_struct! {
    /// `exception IllegalArgument`.
    pub struct IllegalArgument = struct "IllegalArgument" {
        1: message as message: default String = String::new(),
    }
}

thrift_struct! {
    /// `exception AlreadyExists`: the table exists.
    pub struct AlreadyExists = struct "AlreadyExists" {
        1: message as message: default String = String::new(),
    }
}

/// `enum TThriftServerType`: what `getThriftServerType` answers.
pub mod thrift_server_type {
    /// `ONE`: the Thrift1 `Hbase` service (ferrobase's).
    pub const ONE: i32 = 1;
    /// `TWO`: HBase's Thrift2 `THBaseService`.
    pub const TWO: i32 = 2;
}

/// `enum TPermissionScope`.
pub mod permission_scope {
    /// `TABLE`: `tableName` names the table.
    pub const TABLE: i32 = 0;
    /// `NAMESPACE`: `nsName` names the namespace.
    pub const NAMESPACE: i32 = 1;
}

thrift_struct! {
    /// `struct TAccessControlEntity` (HBase 2.x): a grant or revoke of `actions` (letters such
    /// as `RW`) at a table or namespace ([`permission_scope`]).
    pub struct TAccessControlEntity = struct "TAccessControlEntity" {
        1: username as username: required String,
        2: scope as scope: required i32,
        4: actions as actions: required String,
        5: tableName as table_name: optional Vec<u8>,
        6: nsName as ns_name: optional String,
    }
}

thrift_struct! {
    /// Thrift's own `TApplicationException` (not in `Hbase.thrift`): the body of an
    /// `Exception` message, for an unknown method or an undeclared failure.
    pub struct TApplicationException = struct "TApplicationException" {
        1: message as message: default String = String::new(),
        /// Thrift's `type` (a Rust keyword), one of [`application_exception_kind`].
        2: kind as kind: default i32 = 0,
    }
}

/// The values of `TApplicationException`'s `type` (Apache Thrift's `TApplicationException`
/// constants), those the gateway answers with.
pub mod application_exception_kind {
    /// `UNKNOWN_METHOD`: the service has no such method.
    pub const UNKNOWN_METHOD: i32 = 1;
    /// `INTERNAL_ERROR`: the handler failed with an exception the method does not declare.
    pub const INTERNAL_ERROR: i32 = 6;
    /// `PROTOCOL_ERROR`: the message could not be decoded.
    pub const PROTOCOL_ERROR: i32 = 7;
}
