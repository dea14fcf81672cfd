//! `HBase.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6): the messages
//! shared by every service (table and region names, schemas, server names, pairs, version info).

/// A table's name: namespace and qualifier (both `required bytes`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableName {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub namespace: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub qualifier: Option<Vec<u8>>,
}

/// A table descriptor: its attributes (`VALUES`), families and configuration.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableSchema {
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<TableName>,
    #[prost(message, repeated, tag = "2")]
    pub attributes: Vec<BytesBytesPair>,
    #[prost(message, repeated, tag = "3")]
    pub column_families: Vec<ColumnFamilySchema>,
    #[prost(message, repeated, tag = "4")]
    pub configuration: Vec<NameStringPair>,
}

/// A table's state (`required State state = 1`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableState {
    #[prost(enumeration = "table_state::State", optional, tag = "1")]
    pub state: Option<i32>,
}

/// Nested types of [`TableState`].
pub mod table_state {
    /// `TableState.State`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum State {
        Enabled = 0,
        Disabled = 1,
        Disabling = 2,
        Enabling = 3,
    }
}

/// A column family descriptor: its name, attributes (`VERSIONS`, `TTL`, ...) and configuration.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnFamilySchema {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub name: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "2")]
    pub attributes: Vec<BytesBytesPair>,
    #[prost(message, repeated, tag = "3")]
    pub configuration: Vec<NameStringPair>,
}

/// HBase's `RegionInfo` (`region_id` and `table_name` are required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionInfo {
    #[prost(uint64, optional, tag = "1")]
    pub region_id: Option<u64>,
    #[prost(message, optional, tag = "2")]
    pub table_name: Option<TableName>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub start_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub end_key: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "5")]
    pub offline: Option<bool>,
    #[prost(bool, optional, tag = "6")]
    pub split: Option<bool>,
    #[prost(int32, optional, tag = "7", default = "0")]
    pub replica_id: Option<i32>,
}

/// Favored nodes of a region.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FavoredNodes {
    #[prost(message, repeated, tag = "1")]
    pub favored_node: Vec<ServerName>,
}

/// A region, by full or encoded name (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionSpecifier {
    #[prost(
        enumeration = "region_specifier::RegionSpecifierType",
        optional,
        tag = "1"
    )]
    pub r#type: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub value: Option<Vec<u8>>,
}

/// Nested types of [`RegionSpecifier`].
pub mod region_specifier {
    /// `RegionSpecifier.RegionSpecifierType`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum RegionSpecifierType {
        /// `<tablename>,<startkey>,<regionId>.<encodedName>`
        RegionName = 1,
        /// The hash of `<tablename>,<startkey>,<regionId>`.
        EncodedRegionName = 2,
    }
}

/// A time range in milliseconds; absent bounds mean 0 and `Long.MAX_VALUE`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TimeRange {
    #[prost(uint64, optional, tag = "1")]
    pub from: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub to: Option<u64>,
}

/// The time range tracker of a store file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TimeRangeTracker {
    #[prost(uint64, optional, tag = "1")]
    pub from: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub to: Option<u64>,
}

/// A time range for one column family (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnFamilyTimeRange {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub column_family: Option<Vec<u8>>,
    #[prost(message, optional, tag = "2")]
    pub time_range: Option<TimeRange>,
}

/// Comparison operators of filters and conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum CompareType {
    Less = 0,
    LessOrEqual = 1,
    Equal = 2,
    NotEqual = 3,
    GreaterOrEqual = 4,
    Greater = 5,
    NoOp = 6,
}

/// A server: host, port and start code (`host_name` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServerName {
    #[prost(string, optional, tag = "1")]
    pub host_name: Option<String>,
    #[prost(uint32, optional, tag = "2")]
    pub port: Option<u32>,
    #[prost(uint64, optional, tag = "3")]
    pub start_code: Option<u64>,
}

/// A coprocessor, by class name (required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Coprocessor {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
}

/// A name and a string value (both required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NameStringPair {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

/// A name (required) and a bytes value: an exception's class and message, a filter, an attribute.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NameBytesPair {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub value: Option<Vec<u8>>,
}

/// Two byte strings (both required): a descriptor attribute.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BytesBytesPair {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub first: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub second: Option<Vec<u8>>,
}

/// A name and a 64-bit value.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NameInt64Pair {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int64, optional, tag = "2")]
    pub value: Option<i64>,
}

/// A distributed procedure to run (`signature` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProcedureDescription {
    #[prost(string, optional, tag = "1")]
    pub signature: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub instance: Option<String>,
    #[prost(int64, optional, tag = "3", default = "0")]
    pub creation_time: Option<i64>,
    #[prost(message, repeated, tag = "4")]
    pub configuration: Vec<NameStringPair>,
}

/// The empty message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EmptyMsg {}

/// `TimeUnit` (quotas).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum TimeUnit {
    Nanoseconds = 1,
    Microseconds = 2,
    Milliseconds = 3,
    Seconds = 4,
    Minutes = 5,
    Hours = 6,
    Days = 7,
}

/// A 64-bit value (required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LongMsg {
    #[prost(int64, optional, tag = "1")]
    pub long_msg: Option<i64>,
}

/// A double (required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DoubleMsg {
    #[prost(double, optional, tag = "1")]
    pub double_msg: Option<f64>,
}

/// A `BigDecimal`, serialized as Java does (required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct BigDecimalMsg {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub bigdecimal_msg: Option<Vec<u8>>,
}

/// HBase's `UUID` message (both halves required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Uuid {
    #[prost(uint64, optional, tag = "1")]
    pub least_sig_bits: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub most_sig_bits: Option<u64>,
}

/// A namespace: its name (required) and configuration.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamespaceDescriptor {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub name: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "2")]
    pub configuration: Vec<NameStringPair>,
}

/// The version of a client or server (fields 1 to 6 required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct VersionInfo {
    #[prost(string, optional, tag = "1")]
    pub version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub url: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub revision: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub user: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub date: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub src_checksum: Option<String>,
    #[prost(uint32, optional, tag = "7")]
    pub version_major: Option<u32>,
    #[prost(uint32, optional, tag = "8")]
    pub version_minor: Option<u32>,
}

/// A region server's info port and version.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionServerInfo {
    #[prost(int32, optional, tag = "1")]
    pub info_port: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub version_info: Option<VersionInfo>,
}

/// An exception for one region (both fields required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionExceptionMessage {
    #[prost(message, optional, tag = "1")]
    pub region: Option<RegionSpecifier>,
    #[prost(message, optional, tag = "2")]
    pub exception: Option<NameBytesPair>,
}

/// The result of a block cache eviction.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CacheEvictionStats {
    #[prost(int64, optional, tag = "1")]
    pub evicted_blocks: Option<i64>,
    #[prost(int64, optional, tag = "2")]
    pub bytes_evicted: Option<i64>,
    #[prost(int64, optional, tag = "3")]
    pub max_cache_size: Option<i64>,
    #[prost(message, repeated, tag = "4")]
    pub exception: Vec<RegionExceptionMessage>,
}

/// Where a region is: its info (required), server and open sequence number (required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionLocation {
    #[prost(message, optional, tag = "1")]
    pub region_info: Option<RegionInfo>,
    #[prost(message, optional, tag = "2")]
    pub server_name: Option<ServerName>,
    #[prost(int64, optional, tag = "3")]
    pub seq_num: Option<i64>,
}
