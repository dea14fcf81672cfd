//! What of ferrobase's filter language Apache HBase's Thrift1 gateway cannot take: the filters
//! ferrobase's `ParseFilter` adds to HBase's grammar (`docs/design/hbase-compatibility.md`,
//! "Filters"). HBase's Thrift1 `TScan.filterString` goes through HBase's `ParseFilter`, whose
//! registry lacks them: HBase answers `IllegalArgumentException: Filter Name FuzzyRowFilter not
//! supported` in its log and a bare "Internal error processing scannerOpenWithScan" to the
//! client, so the client names the filter itself before sending.

/// Filter names ferrobase's language has and HBase's `ParseFilter` has not.
pub const EXTENSIONS: [&str; 3] = ["FuzzyRowFilter", "MultiRowRangeFilter", "RandomRowFilter"];

/// The first extension filter `filter` names outside quoted strings, if any.
pub fn extension_in(filter: &[u8]) -> Option<&'static str> {
    // A quoted string's `''` escape toggles the state twice, so tracking quote parity suffices.
    let mut quoted = false;
    let mut previous = b' ';
    for (i, &c) in filter.iter().enumerate() {
        if c == b'\'' {
            quoted = !quoted;
        } else if !quoted && !previous.is_ascii_alphanumeric() {
            let rest = filter.get(i..).unwrap_or_default();
            if let Some(name) = EXTENSIONS.iter().find(|n| rest.starts_with(n.as_bytes())) {
                return Some(name);
            }
        }
        previous = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_outside_quotes_are_found() {
        assert_eq!(
            extension_in(b"FuzzyRowFilter('0000', '1100')"),
            Some("FuzzyRowFilter")
        );
        assert_eq!(
            extension_in(b"PageFilter(3) AND (RandomRowFilter(0.5))"),
            Some("RandomRowFilter")
        );
        assert_eq!(
            extension_in(b"SKIP MultiRowRangeFilter('a', true, 'b', false)"),
            Some("MultiRowRangeFilter")
        );
    }

    #[test]
    fn quoted_text_and_longer_names_are_not_filters() {
        assert_eq!(
            extension_in(b"ValueFilter(=, 'binary:FuzzyRowFilter(')"),
            None
        );
        assert_eq!(
            extension_in(b"ValueFilter(=, 'it''s FuzzyRowFilter') AND PrefixFilter('r')"),
            None
        );
        assert_eq!(extension_in(b"MyFuzzyRowFilter('a')"), None);
        assert_eq!(extension_in(b"RowFilter(=, 'regexstring:^1')"), None);
    }
}
