//! Filters whose arguments need more than one field read: the value filters, the compare
//! filters, fuzzy rules and row ranges.

use super::*;

/// A `SingleColumnValueFilter` message (also the inside of the Exclude form).
pub(super) fn single_column_value_filter(
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
pub(super) fn compare_filter(
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
pub(super) fn fuzzy_rules(
    what: &str,
    m: &pf::FuzzyRowFilter,
) -> Result<Vec<FuzzyRule>, FilterError> {
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
pub(super) fn row_ranges(
    what: &str,
    m: pf::MultiRowRangeFilter,
) -> Result<Vec<RowRange>, FilterError> {
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
