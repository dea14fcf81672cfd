//! `Cell.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6): a cell in
//! protobuf form (used when a response carries its cells in the message instead of a cell block).

/// The type of a cell's key (`KeyValue.Type`'s codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum CellType {
    Minimum = 0,
    Put = 4,
    Delete = 8,
    DeleteFamilyVersion = 10,
    DeleteColumn = 12,
    DeleteFamily = 14,
    /// Used when searching: look from the maximum down.
    Maximum = 255,
}

/// A cell.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Cell {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub qualifier: Option<Vec<u8>>,
    #[prost(uint64, optional, tag = "4")]
    pub timestamp: Option<u64>,
    #[prost(enumeration = "CellType", optional, tag = "5")]
    pub cell_type: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub value: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "7")]
    pub tags: Option<Vec<u8>>,
}

/// A key-value (`row`, `family` and `qualifier` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub qualifier: Option<Vec<u8>>,
    #[prost(uint64, optional, tag = "4")]
    pub timestamp: Option<u64>,
    #[prost(enumeration = "CellType", optional, tag = "5")]
    pub key_type: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub value: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "7")]
    pub tags: Option<Vec<u8>>,
}
