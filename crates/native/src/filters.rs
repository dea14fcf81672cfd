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

use ferrobase_engine::filter::{
    self as ef, BitOp, Comparator, CompareOp, Filter, ListOperator, RowRange,
};
use prost::Message;

use crate::proto::comparator as pc;
use crate::proto::comparator::bit_comparator::BitwiseOp;
use crate::proto::filter as pf;
use crate::proto::filter::filter_list::Operator;
use crate::proto::hbase::CompareType;

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

/// A `SingleColumnValueFilter` message (also the inside of the Exclude form).
fn single_column_value_filter(
    what: &str,
    m: pf::SingleColumnValueFilter,
) -> Result<ef::SingleColumnValueFilter, FilterError> {
    let op =
        compare_op(required(what, "compare_op", m.compare_op)?).map_err(|e| within(what, e))?;
    let cmp = to_engine_comparator(&required(what, "comparator", m.comparator)?)
        .map_err(|e| within(what, e))?;
    let mut f = ef::SingleColumnValueFilter::new(
        m.column_family.unwrap_or_default(),
        m.column_qualifier.unwrap_or_default(),
        op,
        cmp,
    );
    // proto2 defaults, as HBase's parseFrom reads them (the Java client always sends both).
    f.filter_if_missing = m.filter_if_missing.unwrap_or(false);
    f.latest_version_only = m.latest_version_only.unwrap_or(false);
    Ok(f)
}

/// The operator and comparator of a `CompareFilter` (Row, Family, Qualifier and Value filters).
fn compare_filter(
    what: &str,
    cf: Option<pf::CompareFilter>,
) -> Result<(CompareOp, Comparator), FilterError> {
    let cf = required(what, "compare_filter", cf)?;
    let op = compare_op(required(what, "compare_filter.compare_op", cf.compare_op)?)
        .map_err(|e| within(what, e))?;
    let cmp = match cf.comparator {
        Some(c) => to_engine_comparator(&c).map_err(|e| within(what, e))?,
        // NO_OP never consults the comparator: every cell is dropped.
        None if op == CompareOp::NoOp => Comparator::Null,
        None => return Err(missing(what, "compare_filter.comparator")),
    };
    Ok((op, cmp))
}

/// A fuzzy row rule as the engine takes it: a key and a mask of the same length.
type FuzzyRule = (Vec<u8>, Vec<u8>);

/// The `(key, mask)` rules of a `FuzzyRowFilter` in the engine's form (mask byte 0: fixed,
/// 1: any), read as HBase 2.6's server reads them.
///
/// The Java client sends its masks already processed: 0xff (-1) for a fixed byte and the
/// "processed wildcard" for a free one, which is 2 when `is_mask_v2` is set (every 2.x client
/// since HBASE-26537) and 0 otherwise (older clients, HBASE-15676's ambiguous form). A mask not
/// wholly in that form is a raw user mask (0 fixed, 1 any), as clients without `Unsafe` send
/// it. HBase then keeps a byte fixed when it shifts (`>> 2`) to -1 and free when it shifts to
/// 0, and uses any other byte as a partial bit mask, which the engine cannot express: such
/// masks are refused, as are keys and masks of different lengths (HBase's constructor refuses
/// them).
fn fuzzy_rules(what: &str, m: &pf::FuzzyRowFilter) -> Result<Vec<FuzzyRule>, FilterError> {
    const FIXED: u8 = 0xff;
    let wildcard: u8 = if m.is_mask_v2 == Some(true) { 2 } else { 0 };
    let mut rules = Vec::with_capacity(m.fuzzy_keys_data.len());
    for (i, pair) in m.fuzzy_keys_data.iter().enumerate() {
        let key = pair.first.clone().unwrap_or_default();
        let mask = pair.second.as_deref().unwrap_or_default();
        if key.len() != mask.len() {
            return Err(FilterError(format!(
                "{what}: fuzzy key {} has {} bytes but its mask {} (they must match)",
                i + 1,
                key.len(),
                mask.len()
            )));
        }
        let processed = mask.iter().all(|&b| b == FIXED || b == wildcard);
        let mut engine_mask = Vec::with_capacity(mask.len());
        for (j, &b) in mask.iter().enumerate() {
            let b = match (processed, b) {
                (false, 0) => FIXED,
                (false, 1) => wildcard,
                _ => b,
            };
            engine_mask.push(match (b as i8) >> 2 {
                -1 => 0,
                0 => 1,
                _ => {
                    return Err(FilterError(format!(
                        "{what}: mask byte {b:#04x} at position {} of fuzzy key {} is neither \
                         fixed nor free (masks hold 0 for a fixed byte and 1 for any byte)",
                        j + 1,
                        i + 1
                    )))
                }
            });
        }
        rules.push((key, engine_mask));
    }
    Ok(rules)
}

/// The ranges of a `MultiRowRangeFilter`, checked as HBase's `sortAndMerge` checks them.
fn row_ranges(what: &str, m: pf::MultiRowRangeFilter) -> Result<Vec<RowRange>, FilterError> {
    if m.row_range_list.is_empty() {
        return Err(FilterError(format!("{what}: no ranges found")));
    }
    let mut ranges = Vec::with_capacity(m.row_range_list.len());
    for r in m.row_range_list {
        let range = RowRange {
            start: r.start_row.unwrap_or_default(),
            start_inclusive: r.start_row_inclusive.unwrap_or(false),
            stop: r.stop_row.unwrap_or_default(),
            stop_inclusive: r.stop_row_inclusive.unwrap_or(false),
        };
        let valid = range.start.is_empty()
            || range.stop.is_empty()
            || range.start < range.stop
            || (range.start == range.stop && range.stop_inclusive);
        if !valid {
            return Err(FilterError(format!(
                "{what}: invalid range: start row {} is after stop row {}",
                String::from_utf8_lossy(&range.start),
                String::from_utf8_lossy(&range.stop)
            )));
        }
        ranges.push(range);
    }
    Ok(ranges)
}

/// `java.util.regex.Pattern` flags.
mod pattern_flags {
    pub const UNIX_LINES: i32 = 0x01;
    pub const CASE_INSENSITIVE: i32 = 0x02;
    pub const COMMENTS: i32 = 0x04;
    pub const MULTILINE: i32 = 0x08;
    pub const LITERAL: i32 = 0x10;
    pub const DOTALL: i32 = 0x20;
    pub const UNICODE_CASE: i32 = 0x40;
    pub const CANON_EQ: i32 = 0x80;
    pub const UNICODE_CHARACTER_CLASS: i32 = 0x100;
}

/// A `RegexStringComparator`: the pattern with its Java flags as inline flags of the engine's
/// regex. Java syntax the engine's regex lacks (backreferences, look-around, possessive
/// quantifiers) fails to compile and is refused. Values are matched as UTF-8 text, so only the
/// UTF-8 and US-ASCII charsets (whose decoding of bytes agrees) are accepted.
fn regex_comparator(what: &str, m: pc::RegexStringComparator) -> Result<Comparator, FilterError> {
    use pattern_flags::*;
    let pattern = required(what, "pattern", m.pattern)?;
    let flags = required(what, "pattern_flags", m.pattern_flags)?;
    let charset = required(what, "charset", m.charset)?;
    if let Some(engine) = m.engine.as_deref() {
        if engine != "JAVA" && engine != "JONI" {
            return Err(FilterError(format!(
                "{what}: unknown regex engine {engine:?} (expected JAVA or JONI)"
            )));
        }
    }
    // Empty: HBase keeps its default, UTF-8.
    if !matches!(
        charset.to_ascii_uppercase().as_str(),
        "" | "UTF-8" | "UTF8" | "US-ASCII" | "ASCII"
    ) {
        return Err(FilterError(format!(
            "{what}: charset {charset:?} is not supported by ferrobase (values are matched as \
             UTF-8)"
        )));
    }
    let known = UNIX_LINES
        | CASE_INSENSITIVE
        | COMMENTS
        | MULTILINE
        | LITERAL
        | DOTALL
        | UNICODE_CASE
        | CANON_EQ
        | UNICODE_CHARACTER_CLASS;
    if flags & !known != 0 {
        return Err(FilterError(format!(
            "{what}: unknown pattern flags {:#x}",
            flags & !known
        )));
    }
    if flags & CANON_EQ != 0 {
        return Err(FilterError(format!(
            "{what}: the CANON_EQ pattern flag is not supported by ferrobase"
        )));
    }
    let literal = flags & LITERAL != 0;
    let mut inline = String::new();
    if flags & CASE_INSENSITIVE != 0 {
        inline.push('i');
    }
    // With LITERAL, Java ignores every flag but the case ones.
    if !literal {
        for (flag, c) in [(MULTILINE, 'm'), (DOTALL, 's'), (COMMENTS, 'x')] {
            if flags & flag != 0 {
                inline.push(c);
            }
        }
    }
    let mut text = String::from("regexstring:");
    if !inline.is_empty() {
        text.push_str(&format!("(?{inline})"));
    }
    if literal {
        for c in pattern.chars() {
            text.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
        }
    } else {
        text.push_str(&pattern);
    }
    Comparator::parse(text.as_bytes()).map_err(|e| {
        FilterError(format!(
            "{what}: pattern {pattern:?} is not supported by ferrobase's regex engine: {e}"
        ))
    })
}

/// The value of a comparator's required `ByteArrayComparable`.
fn comparable(what: &str, c: Option<pc::ByteArrayComparable>) -> Result<Vec<u8>, FilterError> {
    Ok(required(what, "comparable", c)?.value.unwrap_or_default())
}

/// Decodes the serialized message of `what`.
fn decode<M: Message + Default>(what: &str, bytes: &[u8]) -> Result<M, FilterError> {
    M::decode(bytes).map_err(|e| {
        FilterError(format!(
            "{what}: its serialized message does not decode ({e})"
        ))
    })
}

/// A required field's value, or an error naming it.
fn required<T>(what: &str, field: &str, v: Option<T>) -> Result<T, FilterError> {
    v.ok_or_else(|| missing(what, field))
}

fn missing(what: &str, field: &str) -> FilterError {
    FilterError(format!("{what}: required field {field} is missing"))
}

/// `v` as a count, refusing negatives as HBase's constructors do.
fn non_negative(what: &str, field: &str, v: i64) -> Result<u64, FilterError> {
    u64::try_from(v).map_err(|_| FilterError(format!("{what}: {field} {v} must not be negative")))
}

/// `e` (about a comparator or operator) as part of the filter `what`.
fn within(what: &str, e: FilterError) -> FilterError {
    FilterError(format!("{what}: {}", e.0))
}

/// A class name for a message: at most 200 characters of it.
fn shown(name: &str) -> String {
    const MAX: usize = 200;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(MAX).collect();
        s.push_str("...");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::filter::RowRange as PbRowRange;
    use crate::proto::hbase::BytesBytesPair;
    use ferrobase_engine::filter::CellRef;
    use ferrobase_engine::CellType;

    fn class(short: &str) -> String {
        format!("{PACKAGE}{short}")
    }

    fn filter(short: &str, m: &impl Message) -> pf::Filter {
        pf::Filter {
            name: Some(class(short)),
            serialized_filter: Some(m.encode_to_vec()),
        }
    }

    fn comparator(short: &str, m: &impl Message) -> pc::Comparator {
        pc::Comparator {
            name: Some(class(short)),
            serialized_comparator: Some(m.encode_to_vec()),
        }
    }

    fn bytes_of(v: &[u8]) -> Option<pc::ByteArrayComparable> {
        Some(pc::ByteArrayComparable {
            value: Some(v.to_vec()),
        })
    }

    fn binary(v: &[u8]) -> pc::Comparator {
        comparator(
            "BinaryComparator",
            &pc::BinaryComparator {
                comparable: bytes_of(v),
            },
        )
    }

    fn substring(s: &str) -> pc::Comparator {
        comparator(
            "SubstringComparator",
            &pc::SubstringComparator {
                substr: Some(s.into()),
            },
        )
    }

    fn regex(pattern: &str, flags: i32) -> pc::Comparator {
        comparator(
            "RegexStringComparator",
            &pc::RegexStringComparator {
                pattern: Some(pattern.into()),
                pattern_flags: Some(flags),
                charset: Some("UTF-8".into()),
                engine: Some("JAVA".into()),
            },
        )
    }

    fn scvf(family: &str, qualifier: &str, op: CompareType, cmp: pc::Comparator) -> pf::Filter {
        filter(
            "SingleColumnValueFilter",
            &pf::SingleColumnValueFilter {
                column_family: Some(family.into()),
                column_qualifier: Some(qualifier.into()),
                compare_op: Some(op as i32),
                comparator: Some(cmp),
                filter_if_missing: Some(true),
                latest_version_only: Some(true),
            },
        )
    }

    fn list(op: Operator, filters: Vec<pf::Filter>) -> pf::Filter {
        filter(
            "FilterList",
            &pf::FilterList {
                operator: Some(op as i32),
                filters,
            },
        )
    }

    fn prefix(p: &str) -> pf::Filter {
        filter(
            "PrefixFilter",
            &pf::PrefixFilter {
                prefix: Some(p.into()),
            },
        )
    }

    fn err(f: &pf::Filter) -> String {
        match to_engine_filter(f) {
            Ok(got) => panic!("expected an error, got {got:?}"),
            Err(e) => e.0,
        }
    }

    fn cmp_err(c: &pc::Comparator) -> String {
        match to_engine_comparator(c) {
            Ok(got) => panic!("expected an error, got {got:?}"),
            Err(e) => e.0,
        }
    }

    /// A row (family, qualifier, value cells) through the filter as the read path asks it;
    /// the cells it returns, or None when the row is dropped.
    fn run_row(f: &mut dyn Filter, row: &str, cells: &[(&str, &str, &str)]) -> Option<Vec<String>> {
        if f.filter_all_remaining() {
            return None;
        }
        f.reset();
        if f.filter_row_key(row.as_bytes()) {
            return None;
        }
        let mut kept = Vec::new();
        for (family, qualifier, value) in cells {
            let c = CellRef {
                row: row.as_bytes(),
                family: family.as_bytes(),
                qualifier: qualifier.as_bytes(),
                timestamp: 1,
                cell_type: CellType::Put,
                value: value.as_bytes(),
            };
            if f.filter_cell(&c).includes() {
                kept.push(format!("{family}:{qualifier}"));
            }
        }
        if f.has_filter_row() && f.filter_row() {
            return None;
        }
        Some(kept)
    }

    #[test]
    fn seed_single_column_value_filters_in_a_must_pass_all_list() {
        let f = list(
            Operator::MustPassAll,
            vec![
                scvf("info", "city", CompareType::Equal, binary(b"Paris")),
                scvf("info", "name", CompareType::Equal, substring("ALI")),
            ],
        );
        let mut f = to_engine_filter(&f).unwrap();
        let paris_alice = [("info", "city", "Paris"), ("info", "name", "Alice")];
        let paris_bob = [("info", "city", "Paris"), ("info", "name", "Bob")];
        let rome_alice = [("info", "city", "Rome"), ("info", "name", "Alice")];
        let no_city = [("info", "name", "Alice")];
        assert_eq!(
            run_row(f.as_mut(), "r1", &paris_alice),
            Some(vec!["info:city".into(), "info:name".into()])
        );
        assert_eq!(run_row(f.as_mut(), "r2", &paris_bob), None);
        assert_eq!(run_row(f.as_mut(), "r3", &rome_alice), None);
        // filter_if_missing: a row without the column is dropped.
        assert_eq!(run_row(f.as_mut(), "r4", &no_city), None);
    }

    #[test]
    fn must_pass_one_list_and_nesting() {
        let f = list(
            Operator::MustPassOne,
            vec![
                prefix("a"),
                list(Operator::MustPassAll, vec![prefix("b"), prefix("bb")]),
            ],
        );
        let mut f = to_engine_filter(&f).unwrap();
        let cells = [("f", "q", "v")];
        assert!(run_row(f.as_mut(), "a1", &cells).is_some());
        assert!(run_row(f.as_mut(), "bb1", &cells).is_some());
        assert!(run_row(f.as_mut(), "b1", &cells).is_none());
    }

    #[test]
    fn seed_page_filter() {
        let f = filter("PageFilter", &pf::PageFilter { page_size: Some(2) });
        let mut f = to_engine_filter(&f).unwrap();
        let cells = [("f", "q", "v")];
        assert!(run_row(f.as_mut(), "r1", &cells).is_some());
        assert!(run_row(f.as_mut(), "r2", &cells).is_some());
        assert!(run_row(f.as_mut(), "r3", &cells).is_none());
        let negative = filter(
            "PageFilter",
            &pf::PageFilter {
                page_size: Some(-1),
            },
        );
        assert!(err(&negative).contains("page_size -1 must not be negative"));
        let absent = filter("PageFilter", &pf::PageFilter { page_size: None });
        assert!(err(&absent).contains("required field page_size is missing"));
    }

    #[test]
    fn seed_column_count_get_filter() {
        let f = filter(
            "ColumnCountGetFilter",
            &pf::ColumnCountGetFilter { limit: Some(2) },
        );
        let mut f = to_engine_filter(&f).unwrap();
        let got = run_row(
            f.as_mut(),
            "r1",
            &[("f", "a", "1"), ("f", "b", "2"), ("f", "c", "3")],
        );
        assert_eq!(got, Some(vec!["f:a".into(), "f:b".into()]));
    }

    #[test]
    fn seed_prefix_filter() {
        let mut f = to_engine_filter(&prefix("user1")).unwrap();
        let cells = [("f", "q", "v")];
        assert!(run_row(f.as_mut(), "user10", &cells).is_some());
        assert!(run_row(f.as_mut(), "user2", &cells).is_none());
    }

    fn fuzzy(pairs: &[(&[u8], &[u8])], v2: Option<bool>) -> pf::Filter {
        filter(
            "FuzzyRowFilter",
            &pf::FuzzyRowFilter {
                fuzzy_keys_data: pairs
                    .iter()
                    .map(|(k, m)| BytesBytesPair {
                        first: Some(k.to_vec()),
                        second: Some(m.to_vec()),
                    })
                    .collect(),
                is_mask_v2: v2,
            },
        )
    }

    fn fuzzy_keeps(f: &pf::Filter, rows: &[&str]) -> Vec<bool> {
        let mut f = to_engine_filter(f).unwrap();
        rows.iter()
            .map(|r| {
                let mut g = f.clone_box();
                let keep = run_row(g.as_mut(), r, &[("f", "q", "v")]).is_some();
                f = g;
                f = f.clone_box();
                keep
            })
            .collect()
    }

    #[test]
    fn seed_fuzzy_row_filter_masks_v1_v2_and_raw() {
        let rows = ["ab12_01", "zz99_01", "ab12_02"];
        let want = vec![true, true, false];
        // A 2.6 client with Unsafe: processed V2 mask (-1 fixed, 2 free), free key bytes zeroed.
        let v2 = fuzzy(
            &[(b"\0\0\0\0_01", &[2, 2, 2, 2, 0xff, 0xff, 0xff])],
            Some(true),
        );
        // An old client: processed V1 mask (-1 fixed, 0 free), no flag.
        let v1 = fuzzy(&[(b"????_01", &[0, 0, 0, 0, 0xff, 0xff, 0xff])], None);
        // A client without Unsafe (or gohbase): the raw mask (0 fixed, 1 free).
        let raw_v2 = fuzzy(&[(b"????_01", &[1, 1, 1, 1, 0, 0, 0])], Some(true));
        let raw_v1 = fuzzy(&[(b"????_01", &[1, 1, 1, 1, 0, 0, 0])], Some(false));
        for f in [&v2, &v1, &raw_v2, &raw_v1] {
            assert_eq!(fuzzy_keeps(f, &rows), want, "{f:?}");
        }
        // HBASE-15676 kept for fidelity: a V1 all-zero mask is read as all free.
        let all_zero_v1 = fuzzy(&[(b"abc", &[0, 0, 0])], None);
        assert_eq!(fuzzy_keeps(&all_zero_v1, &["xyz"]), vec![true]);
        // ... while with the V2 flag it means all fixed.
        let all_zero_v2 = fuzzy(&[(b"abc", &[0, 0, 0])], Some(true));
        assert_eq!(
            fuzzy_keeps(&all_zero_v2, &["abc", "xyz"]),
            vec![true, false]
        );
    }

    #[test]
    fn fuzzy_row_filter_refuses_bad_masks() {
        let short = fuzzy(&[(b"abcd", &[0, 1])], Some(true));
        assert!(err(&short).contains("has 4 bytes but its mask 2"));
        let partial = fuzzy(&[(b"ab", &[0xff, 0x40])], Some(true));
        assert!(err(&partial).contains("mask byte 0x40 at position 2"));
        let missing_pair_parts = fuzzy(&[(b"", &[])], Some(true));
        assert!(to_engine_filter(&missing_pair_parts).is_ok());
    }

    #[test]
    fn unknown_classes_and_garbage_are_filter_errors() {
        let unknown = pf::Filter {
            name: Some("com.example.MyFilter".into()),
            serialized_filter: Some(vec![]),
        };
        let e = err(&unknown);
        assert!(e.contains("com.example.MyFilter"), "{e}");
        assert!(e.contains("not supported by ferrobase"), "{e}");
        let unknown_hbase = pf::Filter {
            name: Some(class("FooFilter")),
            serialized_filter: None,
        };
        assert_eq!(
            err(&unknown_hbase),
            "filter org.apache.hadoop.hbase.filter.FooFilter is not supported by ferrobase \
             (unknown filter class)"
        );
        let garbage = pf::Filter {
            name: Some(class("PrefixFilter")),
            serialized_filter: Some(vec![0xff, 0xff, 0xff, 0xff]),
        };
        let e = err(&garbage);
        assert!(
            e.contains("PrefixFilter") && e.contains("does not decode"),
            "{e}"
        );
        let nameless = pf::Filter {
            name: None,
            serialized_filter: Some(vec![]),
        };
        assert!(err(&nameless).contains("Filter.name is required"));
        let long_name = pf::Filter {
            name: Some("x".repeat(100_000)),
            serialized_filter: None,
        };
        assert!(err(&long_name).len() < 400);
        for refused in ["FirstKeyValueMatchingQualifiersFilter", "FilterAllFilter"] {
            let f = pf::Filter {
                name: Some(class(refused)),
                serialized_filter: None,
            };
            let e = err(&f);
            assert!(e.contains(refused) && e.contains("not supported"), "{e}");
        }
        // A comparator that fails inside a filter names both.
        let f = scvf(
            "f",
            "q",
            CompareType::Equal,
            comparator(
                "BigDecimalComparator",
                &pc::BigDecimalComparator {
                    comparable: bytes_of(b"1"),
                },
            ),
        );
        let e = err(&f);
        assert!(
            e.contains("SingleColumnValueFilter") && e.contains("BigDecimalComparator"),
            "{e}"
        );
    }

    const STACK_FOR_100_LEVELS: usize = 524288;

    fn nested_lists(depth: usize) -> pf::Filter {
        let mut f = prefix("a");
        for _ in 1..depth {
            f = list(Operator::MustPassAll, vec![f]);
        }
        f
    }

    #[test]
    fn nesting_is_limited_to_100_levels() {
        // 100 levels convert within a small stack, even unoptimized.
        let deepest = nested_lists(MAX_FILTER_DEPTH);
        std::thread::Builder::new()
            .stack_size(STACK_FOR_100_LEVELS)
            .spawn(move || assert!(to_engine_filter(&deepest).is_ok()))
            .unwrap()
            .join()
            .unwrap();
        for depth in [MAX_FILTER_DEPTH + 1, 1000] {
            let e = err(&nested_lists(depth));
            assert!(e.contains("nested more than 100 levels"), "{e}");
        }
        // Skip, While and the wrapper count too.
        let mut f = prefix("a");
        for i in 1..=MAX_FILTER_DEPTH {
            let inner = Some(f);
            f = match i % 3 {
                0 => filter("SkipFilter", &pf::SkipFilter { filter: inner }),
                1 => filter("WhileMatchFilter", &pf::WhileMatchFilter { filter: inner }),
                _ => filter("FilterWrapper", &pf::FilterWrapper { filter: inner }),
            };
        }
        assert!(err(&f).contains("nested more than 100 levels"));
    }

    #[test]
    fn every_supported_filter_converts() {
        let cf = |cmp| {
            Some(pf::CompareFilter {
                compare_op: Some(CompareType::Equal as i32),
                comparator: Some(cmp),
            })
        };
        let filters = vec![
            filter(
                "ColumnCountGetFilter",
                &pf::ColumnCountGetFilter { limit: Some(1) },
            ),
            filter(
                "ColumnPaginationFilter",
                &pf::ColumnPaginationFilter {
                    limit: Some(2),
                    offset: Some(1),
                    column_offset: None,
                },
            ),
            filter(
                "ColumnPaginationFilter",
                &pf::ColumnPaginationFilter {
                    limit: Some(2),
                    offset: None,
                    column_offset: Some(b"q".to_vec()),
                },
            ),
            filter(
                "ColumnPrefixFilter",
                &pf::ColumnPrefixFilter {
                    prefix: Some(b"q".to_vec()),
                },
            ),
            filter(
                "ColumnRangeFilter",
                &pf::ColumnRangeFilter {
                    min_column: Some(b"a".to_vec()),
                    min_column_inclusive: Some(true),
                    max_column: None,
                    max_column_inclusive: Some(false),
                },
            ),
            filter(
                "DependentColumnFilter",
                &pf::DependentColumnFilter {
                    compare_filter: Some(pf::CompareFilter {
                        compare_op: Some(CompareType::NoOp as i32),
                        comparator: None,
                    }),
                    column_family: Some(b"f".to_vec()),
                    column_qualifier: Some(b"q".to_vec()),
                    drop_dependent_column: Some(true),
                },
            ),
            filter(
                "FamilyFilter",
                &pf::FamilyFilter {
                    compare_filter: cf(binary(b"f")),
                },
            ),
            filter(
                "QualifierFilter",
                &pf::QualifierFilter {
                    compare_filter: cf(regex("^q", pattern_flags::DOTALL)),
                },
            ),
            filter(
                "RowFilter",
                &pf::RowFilter {
                    compare_filter: cf(substring("x")),
                },
            ),
            filter(
                "ValueFilter",
                &pf::ValueFilter {
                    compare_filter: cf(comparator("NullComparator", &pc::NullComparator {})),
                },
            ),
            filter(
                "FilterWrapper",
                &pf::FilterWrapper {
                    filter: Some(prefix("a")),
                },
            ),
            filter("FirstKeyOnlyFilter", &pf::FirstKeyOnlyFilter {}),
            filter(
                "InclusiveStopFilter",
                &pf::InclusiveStopFilter {
                    stop_row_key: Some(b"z".to_vec()),
                },
            ),
            filter(
                "KeyOnlyFilter",
                &pf::KeyOnlyFilter {
                    len_as_val: Some(true),
                },
            ),
            filter(
                "MultipleColumnPrefixFilter",
                &pf::MultipleColumnPrefixFilter {
                    sorted_prefixes: vec![b"a".to_vec(), b"b".to_vec()],
                },
            ),
            filter(
                "MultiRowRangeFilter",
                &pf::MultiRowRangeFilter {
                    row_range_list: vec![PbRowRange {
                        start_row: Some(b"a".to_vec()),
                        start_row_inclusive: Some(true),
                        stop_row: Some(b"c".to_vec()),
                        stop_row_inclusive: Some(false),
                    }],
                },
            ),
            filter(
                "RandomRowFilter",
                &pf::RandomRowFilter { chance: Some(0.5) },
            ),
            filter(
                "SingleColumnValueExcludeFilter",
                &pf::SingleColumnValueExcludeFilter {
                    single_column_value_filter: Some(pf::SingleColumnValueFilter {
                        column_family: Some(b"f".to_vec()),
                        column_qualifier: Some(b"q".to_vec()),
                        compare_op: Some(CompareType::Greater as i32),
                        comparator: Some(binary(b"1")),
                        filter_if_missing: None,
                        latest_version_only: None,
                    }),
                },
            ),
            filter(
                "SkipFilter",
                &pf::SkipFilter {
                    filter: Some(prefix("a")),
                },
            ),
            filter(
                "TimestampsFilter",
                &pf::TimestampsFilter {
                    timestamps: vec![3, 1, 2],
                    can_hint: Some(true),
                },
            ),
            filter(
                "WhileMatchFilter",
                &pf::WhileMatchFilter {
                    filter: Some(prefix("a")),
                },
            ),
            filter(
                "ColumnValueFilter",
                &pf::ColumnValueFilter {
                    family: Some(b"f".to_vec()),
                    qualifier: Some(b"q".to_vec()),
                    compare_op: Some(CompareType::LessOrEqual as i32),
                    comparator: Some(comparator(
                        "LongComparator",
                        &pc::LongComparator {
                            comparable: bytes_of(&7i64.to_be_bytes()),
                        },
                    )),
                },
            ),
        ];
        for f in &filters {
            if let Err(e) = to_engine_filter(f) {
                panic!("{}: {e}", f.name.as_deref().unwrap_or_default());
            }
        }
    }

    #[test]
    fn single_column_value_exclude_filter_drops_the_tested_column() {
        let f = filter(
            "SingleColumnValueExcludeFilter",
            &pf::SingleColumnValueExcludeFilter {
                single_column_value_filter: Some(pf::SingleColumnValueFilter {
                    column_family: Some(b"f".to_vec()),
                    column_qualifier: Some(b"q".to_vec()),
                    compare_op: Some(CompareType::Equal as i32),
                    comparator: Some(binary(b"yes")),
                    filter_if_missing: Some(false),
                    latest_version_only: Some(true),
                }),
            },
        );
        let mut f = to_engine_filter(&f).unwrap();
        let mut cells = vec![
            ferrobase_engine::Cell::new(
                b"r".to_vec(),
                b"f".to_vec(),
                b"a".to_vec(),
                1,
                CellType::Put,
                b"1".to_vec(),
            ),
            ferrobase_engine::Cell::new(
                b"r".to_vec(),
                b"f".to_vec(),
                b"q".to_vec(),
                1,
                CellType::Put,
                b"yes".to_vec(),
            ),
        ];
        f.reset();
        for c in &cells {
            assert!(f.filter_cell(&CellRef::from(c)).includes());
        }
        f.filter_row_cells(&mut cells);
        assert!(!f.filter_row());
        assert_eq!(cells.len(), 1);
        assert_eq!(cells.first().map(|c| c.qualifier()), Some(&b"a"[..]));
    }

    #[test]
    fn column_pagination_and_ranges_are_checked() {
        let negative_offset = filter(
            "ColumnPaginationFilter",
            &pf::ColumnPaginationFilter {
                limit: Some(1),
                offset: Some(-3),
                column_offset: None,
            },
        );
        assert!(err(&negative_offset).contains("offset -3 must not be negative"));
        let backwards = filter(
            "MultiRowRangeFilter",
            &pf::MultiRowRangeFilter {
                row_range_list: vec![PbRowRange {
                    start_row: Some(b"d".to_vec()),
                    start_row_inclusive: Some(true),
                    stop_row: Some(b"b".to_vec()),
                    stop_row_inclusive: Some(true),
                }],
            },
        );
        assert!(err(&backwards).contains("invalid range"));
        let none = filter("MultiRowRangeFilter", &pf::MultiRowRangeFilter::default());
        assert!(err(&none).contains("no ranges"));
        let stamps = filter(
            "TimestampsFilter",
            &pf::TimestampsFilter {
                timestamps: vec![1, -5],
                can_hint: None,
            },
        );
        assert!(err(&stamps).contains("timestamp -5 is negative"));
        let list_op = filter(
            "FilterList",
            &pf::FilterList {
                operator: Some(9),
                filters: vec![],
            },
        );
        assert!(err(&list_op).contains("unknown operator 9"));
        let no_comparator = filter(
            "RowFilter",
            &pf::RowFilter {
                compare_filter: Some(pf::CompareFilter {
                    compare_op: Some(CompareType::Equal as i32),
                    comparator: None,
                }),
            },
        );
        assert!(err(&no_comparator).contains("compare_filter.comparator is missing"));
    }

    fn verdict(c: &pc::Comparator, op: CompareOp, value: &[u8]) -> bool {
        to_engine_comparator(c).unwrap().matches(op, value)
    }

    #[test]
    fn comparators() {
        use CompareOp::*;
        assert!(verdict(&binary(b"b"), Greater, b"c"));
        assert!(!verdict(&binary(b"b"), Greater, b"a"));
        let prefix = comparator(
            "BinaryPrefixComparator",
            &pc::BinaryPrefixComparator {
                comparable: bytes_of(b"ab"),
            },
        );
        assert!(verdict(&prefix, Equal, b"abc"));
        let bit = |op: BitwiseOp| {
            comparator(
                "BitComparator",
                &pc::BitComparator {
                    comparable: bytes_of(&[0b0101]),
                    bitwise_op: Some(op as i32),
                },
            )
        };
        assert!(verdict(&bit(BitwiseOp::And), Equal, &[0b0100]));
        assert!(!verdict(&bit(BitwiseOp::And), Equal, &[0b1010]));
        assert!(verdict(&bit(BitwiseOp::Or), Equal, &[0]));
        assert!(!verdict(&bit(BitwiseOp::Xor), Equal, &[0b0101]));
        let long = comparator(
            "LongComparator",
            &pc::LongComparator {
                comparable: bytes_of(&100i64.to_be_bytes()),
            },
        );
        assert!(verdict(&long, Less, &99i64.to_be_bytes()));
        assert!(!verdict(&long, Less, &101i64.to_be_bytes()));
        let short_long = comparator(
            "LongComparator",
            &pc::LongComparator {
                comparable: bytes_of(&[1, 2]),
            },
        );
        assert!(cmp_err(&short_long).contains("a long needs 8"));
        // The Java client lower-cases the text; an upper-case one is matched the same.
        assert!(verdict(&substring("LoNd"), Equal, b"London"));
        // Regex: found anywhere; Java's flags as inline flags.
        assert!(verdict(
            &regex("nd.n", pattern_flags::DOTALL),
            Equal,
            b"London"
        ));
        assert!(!verdict(&regex("LONDON", 0), Equal, b"London"));
        assert!(verdict(
            &regex("LONDON", pattern_flags::CASE_INSENSITIVE),
            Equal,
            b"London"
        ));
        assert!(verdict(
            &regex("a.b", pattern_flags::DOTALL),
            Equal,
            b"a\nb"
        ));
        assert!(!verdict(&regex("a.b", 0), Equal, b"a\nb"));
        assert!(verdict(
            &regex("^b$", pattern_flags::MULTILINE),
            Equal,
            b"a\nb"
        ));
        assert!(verdict(
            &regex("a.b(", pattern_flags::LITERAL),
            Equal,
            b"xa.b(y"
        ));
        assert!(!verdict(
            &regex("a.b(", pattern_flags::LITERAL),
            Equal,
            b"axb("
        ));
        let e = cmp_err(&regex("(a)\\1", 0));
        assert!(
            e.contains("RegexStringComparator") && e.contains("not supported"),
            "{e}"
        );
        assert!(cmp_err(&regex("a", pattern_flags::CANON_EQ)).contains("CANON_EQ"));
        assert!(cmp_err(&regex("a", 0x10000)).contains("unknown pattern flags"));
        let latin1 = comparator(
            "RegexStringComparator",
            &pc::RegexStringComparator {
                pattern: Some("a".into()),
                pattern_flags: Some(0),
                charset: Some("ISO-8859-1".into()),
                engine: None,
            },
        );
        assert!(cmp_err(&latin1).contains("charset \"ISO-8859-1\""));
        let component = comparator(
            "BinaryComponentComparator",
            &pc::BinaryComponentComparator {
                value: Some(b"x".to_vec()),
                offset: Some(1),
            },
        );
        assert!(cmp_err(&component).contains("BinaryComponentComparator is not supported"));
        let garbage = pc::Comparator {
            name: Some(class("BinaryComparator")),
            serialized_comparator: Some(vec![0x0a, 0x05, 0x01]),
        };
        assert!(cmp_err(&garbage).contains("does not decode"));
        let missing = pc::Comparator {
            name: Some(class("BinaryComparator")),
            serialized_comparator: None,
        };
        assert!(cmp_err(&missing).contains("required field comparable is missing"));
    }

    #[test]
    fn compare_ops() {
        let all = [
            (CompareType::Less, CompareOp::Less),
            (CompareType::LessOrEqual, CompareOp::LessOrEqual),
            (CompareType::Equal, CompareOp::Equal),
            (CompareType::NotEqual, CompareOp::NotEqual),
            (CompareType::GreaterOrEqual, CompareOp::GreaterOrEqual),
            (CompareType::Greater, CompareOp::Greater),
            (CompareType::NoOp, CompareOp::NoOp),
        ];
        for (t, op) in all {
            assert_eq!(compare_op(t as i32).unwrap(), op);
        }
        for bad in [-1, 7, i32::MAX] {
            assert!(compare_op(bad).is_err());
        }
    }

    /// Arbitrary bytes under every class name: an error or a filter, never a panic.
    #[test]
    fn arbitrary_bytes_never_panic() {
        let classes = [
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
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..2000 {
            let len = (next() % 48) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let name = classes[round % classes.len()];
            let _ = to_engine_filter(&pf::Filter {
                name: Some(class(name)),
                serialized_filter: Some(bytes.clone()),
            });
            let _ = to_engine_comparator(&pc::Comparator {
                name: Some(class("RegexStringComparator")),
                serialized_comparator: Some(bytes),
            });
        }
    }
}
