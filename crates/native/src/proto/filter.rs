//! `Filter.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6): filters in
//! their protobuf form (`Filter{name, serialized_filter}` wraps one of the others; `name` is the
//! Java class name, e.g. `org.apache.hadoop.hbase.filter.PageFilter`).

use super::comparator::Comparator;
use super::hbase::BytesBytesPair;

/// A filter: its Java class name (required) and its serialized message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Filter {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub serialized_filter: Option<Vec<u8>>,
}

/// `ColumnCountGetFilter` (`limit` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnCountGetFilter {
    #[prost(int32, optional, tag = "1")]
    pub limit: Option<i32>,
}

/// `ColumnPaginationFilter` (`limit` required; `offset` or `column_offset`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnPaginationFilter {
    #[prost(int32, optional, tag = "1")]
    pub limit: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    pub offset: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub column_offset: Option<Vec<u8>>,
}

/// `ColumnPrefixFilter` (`prefix` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnPrefixFilter {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub prefix: Option<Vec<u8>>,
}

/// `ColumnRangeFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnRangeFilter {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub min_column: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "2")]
    pub min_column_inclusive: Option<bool>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub max_column: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "4")]
    pub max_column_inclusive: Option<bool>,
}

/// The comparison shared by the compare filters (`compare_op` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CompareFilter {
    #[prost(enumeration = "super::hbase::CompareType", optional, tag = "1")]
    pub compare_op: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub comparator: Option<Comparator>,
}

/// `DependentColumnFilter` (`compare_filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DependentColumnFilter {
    #[prost(message, optional, tag = "1")]
    pub compare_filter: Option<CompareFilter>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column_family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub column_qualifier: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "4")]
    pub drop_dependent_column: Option<bool>,
}

/// `FamilyFilter` (`compare_filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FamilyFilter {
    #[prost(message, optional, tag = "1")]
    pub compare_filter: Option<CompareFilter>,
}

/// `FilterList` (`operator` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FilterList {
    #[prost(enumeration = "filter_list::Operator", optional, tag = "1")]
    pub operator: Option<i32>,
    #[prost(message, repeated, tag = "2")]
    pub filters: Vec<Filter>,
}

/// Nested types of [`FilterList`].
pub mod filter_list {
    /// `FilterList.Operator`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Operator {
        MustPassAll = 1,
        MustPassOne = 2,
    }
}

/// `FilterWrapper` (`filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FilterWrapper {
    #[prost(message, optional, tag = "1")]
    pub filter: Option<Filter>,
}

/// `FirstKeyOnlyFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FirstKeyOnlyFilter {}

/// `FirstKeyValueMatchingQualifiersFilter` (deprecated; removed from 3.x's client).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FirstKeyValueMatchingQualifiersFilter {
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub qualifiers: Vec<Vec<u8>>,
}

/// `FuzzyRowFilter`: pairs of (row key, mask).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FuzzyRowFilter {
    #[prost(message, repeated, tag = "1")]
    pub fuzzy_keys_data: Vec<BytesBytesPair>,
    /// Which processed form of the fuzzy masks the client sends (`FuzzyRowFilter` V1 or V2).
    #[prost(bool, optional, tag = "2")]
    pub is_mask_v2: Option<bool>,
}

/// `InclusiveStopFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InclusiveStopFilter {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub stop_row_key: Option<Vec<u8>>,
}

/// `KeyOnlyFilter` (`len_as_val` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyOnlyFilter {
    #[prost(bool, optional, tag = "1")]
    pub len_as_val: Option<bool>,
}

/// `MultipleColumnPrefixFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MultipleColumnPrefixFilter {
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub sorted_prefixes: Vec<Vec<u8>>,
}

/// `PageFilter` (`page_size` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PageFilter {
    #[prost(int64, optional, tag = "1")]
    pub page_size: Option<i64>,
}

/// `PrefixFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PrefixFilter {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub prefix: Option<Vec<u8>>,
}

/// `QualifierFilter` (`compare_filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct QualifierFilter {
    #[prost(message, optional, tag = "1")]
    pub compare_filter: Option<CompareFilter>,
}

/// `RandomRowFilter` (`chance` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RandomRowFilter {
    #[prost(float, optional, tag = "1")]
    pub chance: Option<f32>,
}

/// `RowFilter` (`compare_filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RowFilter {
    #[prost(message, optional, tag = "1")]
    pub compare_filter: Option<CompareFilter>,
}

/// `SingleColumnValueExcludeFilter` (required inner filter).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SingleColumnValueExcludeFilter {
    #[prost(message, optional, tag = "1")]
    pub single_column_value_filter: Option<SingleColumnValueFilter>,
}

/// `SingleColumnValueFilter` (`compare_op` and `comparator` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SingleColumnValueFilter {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub column_family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column_qualifier: Option<Vec<u8>>,
    #[prost(enumeration = "super::hbase::CompareType", optional, tag = "3")]
    pub compare_op: Option<i32>,
    #[prost(message, optional, tag = "4")]
    pub comparator: Option<Comparator>,
    #[prost(bool, optional, tag = "5")]
    pub filter_if_missing: Option<bool>,
    #[prost(bool, optional, tag = "6")]
    pub latest_version_only: Option<bool>,
}

/// `SkipFilter` (`filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SkipFilter {
    #[prost(message, optional, tag = "1")]
    pub filter: Option<Filter>,
}

/// `TimestampsFilter` (`timestamps` packed, as the .proto says).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TimestampsFilter {
    #[prost(int64, repeated, packed = "true", tag = "1")]
    pub timestamps: Vec<i64>,
    #[prost(bool, optional, tag = "2")]
    pub can_hint: Option<bool>,
}

/// `ValueFilter` (`compare_filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueFilter {
    #[prost(message, optional, tag = "1")]
    pub compare_filter: Option<CompareFilter>,
}

/// `WhileMatchFilter` (`filter` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct WhileMatchFilter {
    #[prost(message, optional, tag = "1")]
    pub filter: Option<Filter>,
}

/// `FilterAllFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FilterAllFilter {}

/// One range of a [`MultiRowRangeFilter`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct RowRange {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub start_row: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "2")]
    pub start_row_inclusive: Option<bool>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub stop_row: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "4")]
    pub stop_row_inclusive: Option<bool>,
}

/// `MultiRowRangeFilter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct MultiRowRangeFilter {
    #[prost(message, repeated, tag = "1")]
    pub row_range_list: Vec<RowRange>,
}

/// `ColumnValueFilter` (every field required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnValueFilter {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub qualifier: Option<Vec<u8>>,
    #[prost(enumeration = "super::hbase::CompareType", optional, tag = "3")]
    pub compare_op: Option<i32>,
    #[prost(message, optional, tag = "4")]
    pub comparator: Option<Comparator>,
}
