//! What HBase's clients send the same way through every door, read once: a table descriptor's
//! values (native `TableSchema.attributes`, Thrift2 `TTableDescriptor.attributes`) and Java's
//! regular expressions (`Admin.listTableNames(Pattern)`, Thrift2's `getTableNamesByPattern`).

/// What one table descriptor value is to ferrobase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableValue<'a> {
    /// A value HBase's descriptors carry by default that means nothing here (`IS_META=false`).
    Default,
    /// A coprocessor (`coprocessor$N`): ferrobase has none.
    Coprocessor(&'a str),
    /// The table's durability.
    Durability(&'a str),
    /// A table attribute (`MAX_FILESIZE`, `READONLY`, `OWNER`, metadata ...), for the engine's
    /// attribute rules.
    Attribute(&'a str, &'a str),
}

/// Classifies the descriptor value `key` = `value`.
pub fn table_value<'a>(key: &'a str, value: &'a str) -> TableValue<'a> {
    match key {
        "IS_META" | "IS_ROOT" if value == "false" => TableValue::Default,
        k if k.to_ascii_lowercase().starts_with("coprocessor$") => TableValue::Coprocessor(k),
        "DURABILITY" => TableValue::Durability(value),
        k => TableValue::Attribute(k, value),
    }
}

/// Family values HBase's Java descriptors always carry, and the one value of each ferrobase
/// takes: a value at its default is accepted and means nothing here; any other is refused.
pub const FAMILY_DEFAULTS: &[(&str, &str)] = &[
    ("INDEX_BLOCK_ENCODING", "NONE"),
    ("REPLICATION_SCOPE", "0"),
    ("CACHE_DATA_ON_WRITE", "false"),
    ("CACHE_INDEX_ON_WRITE", "false"),
    ("CACHE_BLOOMS_ON_WRITE", "false"),
    ("EVICT_BLOCKS_ON_CLOSE", "false"),
    ("PREFETCH_BLOCKS_ON_OPEN", "false"),
    ("COMPRESS_TAGS", "true"),
    ("MOB_ENABLED", "false"),
];

/// Family values HBase's client can send that ferrobase has no such feature for (MOB,
/// encryption, HDFS settings, per-family configuration): refused naming the first one, in this
/// order, whatever order the client sends them in — the words of ferrobase's own shell.
pub const FAMILY_UNSUPPORTED: &[&str] = &[
    "CONFIGURATION",
    "METADATA",
    "IS_MOB",
    "MOB_THRESHOLD",
    "MOB_COMPACT_PARTITION_POLICY",
    "STORAGE_POLICY",
    "ENCRYPTION",
    "ENCRYPTION_KEY",
    "DFS_REPLICATION",
    "COMPRESSION_COMPACT",
    "COMPRESSION_COMPACT_MAJOR",
    "COMPRESSION_COMPACT_MINOR",
];

/// Why a family's values were refused.
#[derive(Debug)]
pub enum FamilyValueError {
    /// A feature ferrobase does not have: the sentence to answer.
    Unsupported(String),
    /// The engine refused the value.
    Engine(ferrobase_engine::Error),
}

/// Applies a family descriptor's values as HBase's Java client sends them (native
/// `ColumnFamilySchema.attributes`, Thrift2 `TColumnFamilyDescriptor.attributes`): the values
/// at their defaults ([`FAMILY_DEFAULTS`], `IS_MOB => false`) are skipped, a feature ferrobase
/// lacks ([`FAMILY_UNSUPPORTED`]) is refused, `TTL` `2147483647` (HBase's forever) is forever,
/// the rest go to the engine's attribute rules.
pub fn apply_family_values(
    family: &mut ferrobase_engine::ColumnFamilyDescriptor,
    values: &[(String, String)],
) -> Result<(), FamilyValueError> {
    let upper: Vec<String> = values.iter().map(|(k, _)| k.to_ascii_uppercase()).collect();
    if let Some(k) = FAMILY_UNSUPPORTED
        .iter()
        .find(|k| upper.iter().any(|s| s == *k))
    {
        // IS_MOB => false is what the Java client sends for a family that does not ask for MOB,
        // DFS_REPLICATION => 0 (HDFS's default) what its Thrift2 connection sends for any family.
        let value = values
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        let off = match *k {
            "IS_MOB" => value.eq_ignore_ascii_case("false"),
            "DFS_REPLICATION" => value == "0",
            _ => false,
        };
        if !off {
            return Err(FamilyValueError::Unsupported(format!(
                "column family attribute {k} is not supported by ferrobase"
            )));
        }
    }
    for ((key, value), upper) in values.iter().zip(&upper) {
        if upper == "IS_MOB" || upper == "DFS_REPLICATION" {
            continue; // off, checked above
        }
        if let Some((_, default)) = FAMILY_DEFAULTS.iter().find(|(k, _)| k == upper) {
            if value.eq_ignore_ascii_case(default) {
                continue;
            }
            return Err(FamilyValueError::Unsupported(format!(
                "column family attribute {key} => {value} is not supported by ferrobase (only \
                 {default})"
            )));
        }
        // HBase's TTL "forever" is Integer.MAX_VALUE seconds.
        let value = if upper == "TTL" && *value == i32::MAX.to_string() {
            "FOREVER"
        } else {
            value.as_str()
        };
        family
            .set_attribute(key, value)
            .map_err(FamilyValueError::Engine)?;
    }
    Ok(())
}

/// A Java `Pattern` as a Rust regex matching whole names (Java's `matcher(name).matches()`):
/// `\Q...\E` literal spans (what `Pattern.quote` writes, and what `Admin.listTableNames` with a
/// prefix sends) become escaped text; the rest is taken as written.
pub fn java_regex(pattern: &str) -> Result<regex::Regex, regex::Error> {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(i) = rest.find("\\Q") {
        out.push_str(&rest[..i]);
        let quoted = &rest[i + 2..];
        let end = quoted.find("\\E").unwrap_or(quoted.len());
        out.push_str(&regex::escape(&quoted[..end]));
        rest = quoted.get(end + 2..).unwrap_or("");
    }
    out.push_str(rest);
    regex::Regex::new(&format!("^(?:{out})$"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_quoted_spans_are_literal_and_the_match_is_whole() {
        let re = java_regex("\\Qseed_.*\\E.*").unwrap();
        assert!(re.is_match("seed_.*x"));
        assert!(!re.is_match("seed_x"));
        assert!(java_regex("t.").unwrap().is_match("t1"));
        assert!(!java_regex("t.").unwrap().is_match("xt1"));
    }

    #[test]
    fn descriptor_values_are_classified() {
        assert_eq!(table_value("IS_META", "false"), TableValue::Default);
        assert_eq!(
            table_value("coprocessor$1", "x"),
            TableValue::Coprocessor("coprocessor$1")
        );
        assert_eq!(
            table_value("DURABILITY", "ASYNC_WAL"),
            TableValue::Durability("ASYNC_WAL")
        );
        assert_eq!(
            table_value("MAX_FILESIZE", "1"),
            TableValue::Attribute("MAX_FILESIZE", "1")
        );
    }
}
