//! Filter-language strings (HBase's `ParseFilter` syntax), the one filter form both client
//! backends accept: the embedded engine parses them and a Thrift gateway receives them as
//! `TScan.filterString`.

use ferrobase_rowkey::prefix_successor;

/// `bytes` as a single-quoted filter-language string: `'` doubled, every other byte as is.
pub fn quote(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 2);
    out.push(b'\'');
    for &b in bytes {
        if b == b'\'' {
            out.push(b'\'');
        }
        out.push(b);
    }
    out.push(b'\'');
    out
}

/// `SingleColumnValueFilter('family', 'qualifier', op, 'binary:value', true, true)`: rows whose
/// newest `family:qualifier` compares to `value` by `op`; rows without the column are dropped.
pub fn single_column_value(family: &str, qualifier: &str, op: &str, value: &[u8]) -> Vec<u8> {
    let mut out = b"SingleColumnValueFilter(".to_vec();
    out.extend(quote(family.as_bytes()));
    out.extend(b", ");
    out.extend(quote(qualifier.as_bytes()));
    out.extend(format!(", {op}, ").as_bytes());
    let mut cmp = b"binary:".to_vec();
    cmp.extend_from_slice(value);
    out.extend(quote(&cmp));
    out.extend(b", true, true)");
    out
}

/// The two `SingleColumnValueFilter`s of a prefix match, as article 2 uses them: the value
/// `>= prefix` and `< successor(prefix)` (the upper bound is left out when the prefix has no
/// successor, i.e. is empty or all `0xFF`).
pub fn prefix_bounds(family: &str, qualifier: &str, prefix: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![single_column_value(family, qualifier, ">=", prefix)];
    if let Some(stop) = prefix_successor(prefix) {
        out.push(single_column_value(family, qualifier, "<", &stop));
    }
    out
}

/// `filters` joined with ` AND ` (`None` when there are none).
pub fn and(filters: Vec<Vec<u8>>) -> Option<Vec<u8>> {
    let mut it = filters.into_iter();
    let mut out = it.next()?;
    for f in it {
        out.extend(b" AND ");
        out.extend(f);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_doubled() {
        assert_eq!(quote(b"it's"), b"'it''s'");
    }

    #[test]
    fn prefix_bounds_read_as_the_article_writes_them() {
        let f = and(prefix_bounds("info", "category", "综艺".as_bytes())).unwrap();
        let text = String::from_utf8_lossy(&f);
        assert!(text.starts_with(
            "SingleColumnValueFilter('info', 'category', >=, 'binary:综艺', true, true) AND \
             SingleColumnValueFilter('info', 'category', <, 'binary:"
        ));
        ferrobase_engine::filter::parse_filter(&f).unwrap();
    }
}
