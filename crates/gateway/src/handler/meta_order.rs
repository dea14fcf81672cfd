//! The order of `hbase:meta` rows (HBase's `MetaCellComparator.compareRows`), which
//! `getRegionInfo` searches: a region's row is its name `table,start key,id.`, compared part by
//! part (the table up to the first comma, the start key up to the last comma, then the rest),
//! so a start key holding commas or bytes below `,` still sorts by key.

use std::cmp::Ordering;

/// Compares two meta rows as HBase's meta comparator does.
pub(crate) fn compare_meta_rows(left: &[u8], right: &[u8]) -> Ordering {
    let ld = left.iter().position(|&b| b == b',');
    let rd = right.iter().position(|&b| b == b',');
    let lpart = &left[..ld.unwrap_or(left.len())];
    let rpart = &right[..rd.unwrap_or(right.len())];
    match lpart.cmp(rpart) {
        Ordering::Equal => {}
        other => return other,
    }
    let (ld, rd) = match (ld, rd) {
        (None, Some(_)) => return Ordering::Less,
        (Some(_), None) => return Ordering::Greater,
        (None, None) => return Ordering::Equal,
        (Some(l), Some(r)) => (l + 1, r + 1),
    };
    // The middle: from past the first comma to the last one (to the end without one).
    let lfar = left[ld..].iter().rposition(|&b| b == b',').map(|i| ld + i);
    let rfar = right[rd..].iter().rposition(|&b| b == b',').map(|i| rd + i);
    let lmid = &left[ld..lfar.unwrap_or(left.len())];
    let rmid = &right[rd..rfar.unwrap_or(right.len())];
    match lmid.cmp(rmid) {
        Ordering::Equal => {}
        other => return other,
    }
    // The rest past the last comma; HBase compares from the row's start when there is none.
    let lrest = &left[lfar.map_or(0, |i| i + 1)..];
    let rrest = &right[rfar.map_or(0, |i| i + 1)..];
    lrest.cmp(rrest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_keys_compare_as_keys_not_as_text_of_the_whole_name() {
        // As bytes, "t,a,1." > "t,a\x00,1." is false ('.' > 0x00 sorts the names the other way
        // round at the third byte); as meta rows the start keys decide: "a" < "a\x00".
        assert_eq!(compare_meta_rows(b"t,a,1.", b"t,a\x00,1."), Ordering::Less);
        assert_eq!(
            compare_meta_rows(b"t,,5.", b"t,a,99999999999999"),
            Ordering::Less
        );
        assert_eq!(
            compare_meta_rows(b"t,g,5.", b"t,g,99999999999999"),
            Ordering::Less
        );
        assert_eq!(
            compare_meta_rows(b"t,x,5.", b"t,m,99999999999999"),
            Ordering::Greater
        );
    }

    #[test]
    fn a_table_name_alone_sorts_before_its_regions() {
        assert_eq!(compare_meta_rows(b"t", b"t,,1."), Ordering::Less);
        assert_eq!(compare_meta_rows(b"t,,1.", b"t"), Ordering::Greater);
        assert_eq!(compare_meta_rows(b"s,z,1.", b"t"), Ordering::Less);
        assert_eq!(compare_meta_rows(b"t", b"t"), Ordering::Equal);
    }
}
