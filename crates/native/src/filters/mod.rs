//! HBase's filters and comparators in their protobuf form (`Filter{name, serialized_filter}`,
//! `Comparator{name, serialized_comparator}`), turned into the engine's filters.
//!
//! Each class is read as HBase's own `parseFrom` reads it (hbase-client 2.6.1): the same message,
//! the same required fields and the same argument checks, so a filter HBase would refuse is
//! refused here too, with a [`FilterError`] naming the class and what is wrong (the caller
//! answers it as a `DoNotRetryIOException`). Filters and comparators the engine does not have
//! are refused by name, never approximated.
//!
//! The input is untrusted: nothing here indexes, and nesting (`FilterList`, `SkipFilter`,
//! `WhileMatchFilter`, `FilterWrapper`) is limited to [`MAX_FILTER_DEPTH`] levels, as in the
//! filter language.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

mod arguments;
mod comparators;
#[cfg(test)]
mod tests;

use arguments::{compare_filter, fuzzy_rules, row_ranges, single_column_value_filter};
use comparators::regex_comparator;
use ferrobase_engine::filter::{
    self as ef, BitOp, Comparator, CompareOp, Filter, ListOperator, RowRange,
};
use prost::Message;

use crate::proto::comparator as pc;
use crate::proto::comparator::bit_comparator::BitwiseOp;
use crate::proto::filter as pf;
use crate::proto::filter::filter_list::Operator;
use crate::proto::hbase::CompareType;

/// The filter classes the conversion serves, by their short names under
/// `org.apache.hadoop.hbase.filter.`; any other class is a [`FilterError`] naming it.
pub const FILTER_CLASSES: [&str; 26] = [
    "ColumnCountGetFilter",
    "ColumnPaginationFilter",
    "ColumnPrefixFilter",
    "ColumnRangeFilter",
    "DependentColumnFilter",
    "FamilyFilter",
    "FilterList",
    "FilterWrapper",
    "FirstKeyOnlyFilter",
    "FuzzyRowFilter",
    "InclusiveStopFilter",
    "KeyOnlyFilter",
    "MultipleColumnPrefixFilter",
    "MultiRowRangeFilter",
    "PageFilter",
    "PrefixFilter",
    "QualifierFilter",
    "RandomRowFilter",
    "RowFilter",
    "SingleColumnValueExcludeFilter",
    "SingleColumnValueFilter",
    "SkipFilter",
    "TimestampsFilter",
    "ValueFilter",
    "WhileMatchFilter",
    "ColumnValueFilter",
];

/// The deepest nesting of filters accepted (a single filter is depth 1), as in the filter
/// language.
pub const MAX_FILTER_DEPTH: usize = 100;

/// The package of HBase's filter and comparator classes.
const PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// A filter or comparator that cannot be used: the message names the class and what is wrong.
#[derive(Debug)]
pub struct FilterError(pub String);

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FilterError {}

/// The engine's filter for a protobuf `Filter`.
pub fn to_engine_filter(f: &pf::Filter) -> Result<Box<dyn Filter>, FilterError> {
    convert(f, 1)
}

/// The engine's filter for the bytes of a protobuf `Filter` (`FilterProtos.Filter`, what Java's
/// Thrift2 `ThriftConnection` puts in `TScan`/`TGet.filterBytes`).
pub fn decode_filter_bytes(bytes: &[u8]) -> Result<Box<dyn Filter>, String> {
    let f = pf::Filter::decode(bytes)
        .map_err(|e| format!("the protobuf filter does not decode: {e}"))?;
    to_engine_filter(&f).map_err(|e| e.0)
}

/// The engine's comparator for a protobuf `Comparator`.
pub fn to_engine_comparator(c: &pc::Comparator) -> Result<Comparator, FilterError> {
    let name = c.name.as_deref().unwrap_or_default();
    if name.is_empty() {
        return Err(FilterError(
            "a comparator without a class name (Comparator.name is required)".into(),
        ));
    }
    let what = format!("comparator {}", shown(name));
    let bytes = c.serialized_comparator.as_deref().unwrap_or_default();
    let class = name.strip_prefix(PACKAGE).unwrap_or_default();
    Ok(match class {
        "BinaryComparator" => {
            let m: pc::BinaryComparator = decode(&what, bytes)?;
            Comparator::Binary(comparable(&what, m.comparable)?)
        }
        "BinaryPrefixComparator" => {
            let m: pc::BinaryPrefixComparator = decode(&what, bytes)?;
            Comparator::BinaryPrefix(comparable(&what, m.comparable)?)
        }
        "BitComparator" => {
            let m: pc::BitComparator = decode(&what, bytes)?;
            let value = comparable(&what, m.comparable)?;
            let op = required(&what, "bitwise_op", m.bitwise_op)?;
            let op = match BitwiseOp::try_from(op) {
                Ok(BitwiseOp::And) => BitOp::And,
                Ok(BitwiseOp::Or) => BitOp::Or,
                Ok(BitwiseOp::Xor) => BitOp::Xor,
                Err(_) => {
                    return Err(FilterError(format!(
                        "{what}: unknown bitwise_op {op} (expected AND = 1, OR = 2 or XOR = 3)"
                    )))
                }
            };
            Comparator::Bit(value, op)
        }
        "NullComparator" => {
            let _: pc::NullComparator = decode(&what, bytes)?;
            Comparator::Null
        }
        "RegexStringComparator" => regex_comparator(&what, decode(&what, bytes)?)?,
        "SubstringComparator" => {
            let m: pc::SubstringComparator = decode(&what, bytes)?;
            // As HBase's constructor: the text is matched case-insensitively.
            Comparator::Substring(required(&what, "substr", m.substr)?.to_lowercase())
        }
        "LongComparator" => {
            let m: pc::LongComparator = decode(&what, bytes)?;
            let value = comparable(&what, m.comparable)?;
            // `Bytes.toLong`: the first 8 bytes, big-endian; fewer is an error.
            let long = value
                .get(..8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .ok_or_else(|| {
                    FilterError(format!(
                        "{what}: the comparable value has {} bytes, a long needs 8",
                        value.len()
                    ))
                })?;
            Comparator::Long(i64::from_be_bytes(long))
        }
        "BigDecimalComparator" | "BinaryComponentComparator" => {
            return Err(FilterError(format!(
                "{what} is not supported by ferrobase (its filters compare with \
                 BinaryComparator, BinaryPrefixComparator, BitComparator, LongComparator, \
                 NullComparator, RegexStringComparator and SubstringComparator)"
            )))
        }
        _ => {
            return Err(FilterError(format!(
                "{what} is not supported by ferrobase (unknown comparator class)"
            )))
        }
    })
}

/// The engine's operator for an `hbase.pb.CompareType`.
pub fn compare_op(t: i32) -> Result<CompareOp, FilterError> {
    Ok(match CompareType::try_from(t) {
        Ok(CompareType::Less) => CompareOp::Less,
        Ok(CompareType::LessOrEqual) => CompareOp::LessOrEqual,
        Ok(CompareType::Equal) => CompareOp::Equal,
        Ok(CompareType::NotEqual) => CompareOp::NotEqual,
        Ok(CompareType::GreaterOrEqual) => CompareOp::GreaterOrEqual,
        Ok(CompareType::Greater) => CompareOp::Greater,
        Ok(CompareType::NoOp) => CompareOp::NoOp,
        Err(_) => {
            return Err(FilterError(format!(
                "unknown compare operator {t} (CompareType is LESS = 0 ... NO_OP = 6)"
            )))
        }
    })
}

/// `f` at nesting depth `depth` (1 for the outermost filter).
fn convert(f: &pf::Filter, depth: usize) -> Result<Box<dyn Filter>, FilterError> {
    let name = f.name.as_deref().unwrap_or_default();
    if name.is_empty() {
        return Err(FilterError(
            "a filter without a class name (Filter.name is required)".into(),
        ));
    }
    let what = format!("filter {}", shown(name));
    if depth > MAX_FILTER_DEPTH {
        return Err(FilterError(format!(
            "{what}: filters are nested more than {MAX_FILTER_DEPTH} levels deep"
        )));
    }
    let bytes = f.serialized_filter.as_deref().unwrap_or_default();
    let class = name.strip_prefix(PACKAGE).unwrap_or_default();
    match class {
        "FilterList" | "FilterWrapper" | "SkipFilter" | "WhileMatchFilter" => {
            composite(&what, class, bytes, depth)
        }
        _ => leaf(&what, class, bytes),
    }
}

/// The filters that hold filters, their members at `depth + 1`. Kept apart from [`leaf`] so
/// that each level of nesting costs only the small frames of `convert` and this function.
fn composite(
    w: &str,
    class: &str,
    bytes: &[u8],
    depth: usize,
) -> Result<Box<dyn Filter>, FilterError> {
    Ok(match class {
        "FilterList" => {
            let m: pf::FilterList = decode(w, bytes)?;
            let op = required(w, "operator", m.operator)?;
            let op = match Operator::try_from(op) {
                Ok(Operator::MustPassAll) => ListOperator::MustPassAll,
                Ok(Operator::MustPassOne) => ListOperator::MustPassOne,
                Err(_) => {
                    return Err(FilterError(format!(
                        "{w}: unknown operator {op} (expected MUST_PASS_ALL = 1 or \
                         MUST_PASS_ONE = 2)"
                    )))
                }
            };
            let mut members = Vec::with_capacity(m.filters.len());
            for member in &m.filters {
                members.push(convert(member, depth + 1)?);
            }
            Box::new(ef::FilterList::new(op, members))
        }
        // The region server's own wrapper (hbase-server); it changes nothing a client sees.
        "FilterWrapper" => {
            let m: pf::FilterWrapper = decode(w, bytes)?;
            convert(&required(w, "filter", m.filter)?, depth + 1)?
        }
        "SkipFilter" => {
            let m: pf::SkipFilter = decode(w, bytes)?;
            let inner = convert(&required(w, "filter", m.filter)?, depth + 1)?;
            Box::new(ef::SkipFilter::new(inner))
        }
        "WhileMatchFilter" => {
            let m: pf::WhileMatchFilter = decode(w, bytes)?;
            let inner = convert(&required(w, "filter", m.filter)?, depth + 1)?;
            Box::new(ef::WhileMatchFilter::new(inner))
        }
        _ => return leaf(w, class, bytes),
    })
}

/// A filter that holds no filters.
#[inline(never)]
fn leaf(w: &str, class: &str, bytes: &[u8]) -> Result<Box<dyn Filter>, FilterError> {
    Ok(match class {
        "ColumnCountGetFilter" => {
            let m: pf::ColumnCountGetFilter = decode(w, bytes)?;
            let limit = non_negative(w, "limit", required(w, "limit", m.limit)?.into())?;
            Box::new(ef::ColumnCountGetFilter::new(limit))
        }
        "ColumnPaginationFilter" => {
            let m: pf::ColumnPaginationFilter = decode(w, bytes)?;
            let limit = non_negative(w, "limit", required(w, "limit", m.limit)?.into())?;
            match m.column_offset {
                Some(column) => Box::new(ef::ColumnPaginationFilter::with_column_offset(
                    limit, column,
                )),
                None => {
                    let offset = non_negative(w, "offset", m.offset.unwrap_or(0).into())?;
                    Box::new(ef::ColumnPaginationFilter::new(limit, offset))
                }
            }
        }
        "ColumnPrefixFilter" => {
            let m: pf::ColumnPrefixFilter = decode(w, bytes)?;
            Box::new(ef::ColumnPrefixFilter::new(required(
                w, "prefix", m.prefix,
            )?))
        }
        "ColumnRangeFilter" => {
            let m: pf::ColumnRangeFilter = decode(w, bytes)?;
            Box::new(ef::ColumnRangeFilter::new(
                m.min_column.unwrap_or_default(),
                m.min_column_inclusive.unwrap_or(false),
                m.max_column.unwrap_or_default(),
                m.max_column_inclusive.unwrap_or(false),
            ))
        }
        "DependentColumnFilter" => {
            let m: pf::DependentColumnFilter = decode(w, bytes)?;
            let cf = required(w, "compare_filter", m.compare_filter)?;
            let op = compare_op(required(w, "compare_filter.compare_op", cf.compare_op)?)
                .map_err(|e| within(w, e))?;
            // Without a comparator the reference column's value is not tested.
            let compare = match cf.comparator {
                Some(c) => Some((op, to_engine_comparator(&c).map_err(|e| within(w, e))?)),
                None => None,
            };
            Box::new(ef::DependentColumnFilter::new(
                m.column_family.unwrap_or_default(),
                m.column_qualifier.unwrap_or_default(),
                m.drop_dependent_column.unwrap_or(false),
                compare,
            ))
        }
        "FamilyFilter" => {
            let m: pf::FamilyFilter = decode(w, bytes)?;
            let (op, cmp) = compare_filter(w, m.compare_filter)?;
            Box::new(ef::FamilyFilter::new(op, cmp))
        }
        "QualifierFilter" => {
            let m: pf::QualifierFilter = decode(w, bytes)?;
            let (op, cmp) = compare_filter(w, m.compare_filter)?;
            Box::new(ef::QualifierFilter::new(op, cmp))
        }
        "RowFilter" => {
            let m: pf::RowFilter = decode(w, bytes)?;
            let (op, cmp) = compare_filter(w, m.compare_filter)?;
            Box::new(ef::RowFilter::new(op, cmp))
        }
        "ValueFilter" => {
            let m: pf::ValueFilter = decode(w, bytes)?;
            let (op, cmp) = compare_filter(w, m.compare_filter)?;
            Box::new(ef::ValueFilter::new(op, cmp))
        }
        "FirstKeyOnlyFilter" => {
            let _: pf::FirstKeyOnlyFilter = decode(w, bytes)?;
            Box::new(ef::FirstKeyOnlyFilter::new())
        }
        "FuzzyRowFilter" => {
            let m: pf::FuzzyRowFilter = decode(w, bytes)?;
            Box::new(ef::FuzzyRowFilter::new(fuzzy_rules(w, &m)?))
        }
        "InclusiveStopFilter" => {
            let m: pf::InclusiveStopFilter = decode(w, bytes)?;
            // HBase's filter fails on its first row without a stop row.
            Box::new(ef::InclusiveStopFilter::new(required(
                w,
                "stop_row_key",
                m.stop_row_key,
            )?))
        }
        "KeyOnlyFilter" => {
            let m: pf::KeyOnlyFilter = decode(w, bytes)?;
            Box::new(ef::KeyOnlyFilter::new(required(
                w,
                "len_as_val",
                m.len_as_val,
            )?))
        }
        "MultipleColumnPrefixFilter" => {
            let m: pf::MultipleColumnPrefixFilter = decode(w, bytes)?;
            Box::new(ef::MultipleColumnPrefixFilter::new(m.sorted_prefixes))
        }
        "MultiRowRangeFilter" => {
            let m: pf::MultiRowRangeFilter = decode(w, bytes)?;
            Box::new(ef::MultiRowRangeFilter::new(row_ranges(w, m)?))
        }
        "PageFilter" => {
            let m: pf::PageFilter = decode(w, bytes)?;
            let size = non_negative(w, "page_size", required(w, "page_size", m.page_size)?)?;
            Box::new(ef::PageFilter::new(size))
        }
        "PrefixFilter" => {
            let m: pf::PrefixFilter = decode(w, bytes)?;
            // No prefix: every row passes, as in HBase.
            Box::new(ef::PrefixFilter::new(m.prefix.unwrap_or_default()))
        }
        "RandomRowFilter" => {
            let m: pf::RandomRowFilter = decode(w, bytes)?;
            Box::new(ef::RandomRowFilter::new(required(w, "chance", m.chance)?))
        }
        "SingleColumnValueFilter" => {
            let m: pf::SingleColumnValueFilter = decode(w, bytes)?;
            Box::new(single_column_value_filter(w, m)?)
        }
        "SingleColumnValueExcludeFilter" => {
            let m: pf::SingleColumnValueExcludeFilter = decode(w, bytes)?;
            let inner = required(
                w,
                "single_column_value_filter",
                m.single_column_value_filter,
            )?;
            Box::new(single_column_value_filter(w, inner)?.excluding_column())
        }
        "TimestampsFilter" => {
            let m: pf::TimestampsFilter = decode(w, bytes)?;
            if let Some(t) = m.timestamps.iter().find(|t| **t < 0) {
                return Err(FilterError(format!(
                    "{w}: timestamp {t} is negative (timestamps must be positive)"
                )));
            }
            // `can_hint` only chooses whether HBase seeks; the rows are the same.
            Box::new(ef::TimestampsFilter::new(m.timestamps))
        }
        "ColumnValueFilter" => {
            let m: pf::ColumnValueFilter = decode(w, bytes)?;
            let family = required(w, "family", m.family)?;
            let qualifier = required(w, "qualifier", m.qualifier)?;
            let op =
                compare_op(required(w, "compare_op", m.compare_op)?).map_err(|e| within(w, e))?;
            let cmp = to_engine_comparator(&required(w, "comparator", m.comparator)?)
                .map_err(|e| within(w, e))?;
            Box::new(ef::ColumnValueFilter::new(family, qualifier, op, cmp))
        }
        "FirstKeyValueMatchingQualifiersFilter" => {
            return Err(FilterError(format!(
                "{w} is not supported by ferrobase (deprecated since HBase 2.0 and removed in \
                 3.0; use FirstKeyOnlyFilter with a QualifierFilter or the Get's columns)"
            )))
        }
        "FilterAllFilter" => {
            return Err(FilterError(format!(
                "{w} is not supported by ferrobase (the engine has no filter that drops every \
                 row)"
            )))
        }
        _ if class.is_empty() => {
            return Err(FilterError(format!(
                "{w} is not supported by ferrobase (only HBase's own filters in {PACKAGE}* \
                 run here; custom filter classes cannot be loaded)"
            )))
        }
        _ => {
            return Err(FilterError(format!(
                "{w} is not supported by ferrobase (unknown filter class)"
            )))
        }
    })
}

/// The value of a comparator's required `ByteArrayComparable`.
pub(super) fn comparable(
    what: &str,
    c: Option<pc::ByteArrayComparable>,
) -> Result<Vec<u8>, FilterError> {
    Ok(required(what, "comparable", c)?.value.unwrap_or_default())
}

/// Decodes the serialized message of `what`.
pub(super) fn decode<M: Message + Default>(what: &str, bytes: &[u8]) -> Result<M, FilterError> {
    M::decode(bytes).map_err(|e| {
        FilterError(format!(
            "{what}: its serialized message does not decode ({e})"
        ))
    })
}

/// A required field's value, or an error naming it.
pub(super) fn required<T>(what: &str, field: &str, v: Option<T>) -> Result<T, FilterError> {
    v.ok_or_else(|| missing(what, field))
}

pub(super) fn missing(what: &str, field: &str) -> FilterError {
    FilterError(format!("{what}: required field {field} is missing"))
}

/// `v` as a count, refusing negatives as HBase's constructors do.
pub(super) fn non_negative(what: &str, field: &str, v: i64) -> Result<u64, FilterError> {
    u64::try_from(v).map_err(|_| FilterError(format!("{what}: {field} {v} must not be negative")))
}

/// `e` (about a comparator or operator) as part of the filter `what`.
pub(super) fn within(what: &str, e: FilterError) -> FilterError {
    FilterError(format!("{what}: {}", e.0))
}

/// A class name for a message: at most 200 characters of it.
pub(super) fn shown(name: &str) -> String {
    const MAX: usize = 200;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(MAX).collect();
        s.push_str("...");
        s
    }
}
