//! Output in the HBase shell's shapes.

use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::{Cell, CellType, ColumnFamilyDescriptor};

/// HBase's `Bytes.toStringBinary`: letters, digits and common punctuation as is, every other
/// byte as `\xNN`.
pub fn binary(b: &[u8]) -> String {
    const KEEP: &[u8] = b" `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?";
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if c.is_ascii_alphanumeric() || KEEP.contains(&c) {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02X}"));
        }
    }
    s
}

/// `18000 SECONDS (5 HOURS)`, as HBase's `PrettyPrinter.humanReadableTTL`.
pub fn ttl(seconds: i64) -> String {
    if seconds >= FOREVER || seconds <= 0 {
        return "FOREVER".into();
    }
    let mut parts = Vec::new();
    let mut rest = seconds;
    for (unit, size) in [
        ("DAY", 86_400),
        ("HOUR", 3_600),
        ("MINUTE", 60),
        ("SECOND", 1),
    ] {
        let n = rest / size;
        rest %= size;
        if n > 0 {
            parts.push(format!("{n} {unit}{}", if n == 1 { "" } else { "S" }));
        }
    }
    if seconds < 60 {
        return format!("{seconds} SECONDS");
    }
    format!("{seconds} SECONDS ({})", parts.join(" "))
}

/// One family as `describe` prints it over a Thrift gateway: only the attributes HBase's
/// Thrift1 `ColumnDescriptor` carries (the others would print as defaults whatever they are).
pub fn family_thrift1(f: &ColumnFamilyDescriptor) -> String {
    format!(
        "{{NAME => '{}', BLOOMFILTER => '{}', IN_MEMORY => '{}', VERSIONS => '{}', COMPRESSION => '{}', \
         TTL => '{}', BLOCKCACHE => '{}'}}",
        binary(&f.name),
        f.bloom_filter.name(),
        f.in_memory,
        f.max_versions,
        f.compression.name(),
        ttl(f.ttl_seconds),
        f.block_cache,
    )
}

/// One family as `describe` prints it.
pub fn family(f: &ColumnFamilyDescriptor) -> String {
    let kdc = f.keep_deleted_cells.name();
    format!(
        "{{NAME => '{}', BLOOMFILTER => '{}', IN_MEMORY => '{}', VERSIONS => '{}', KEEP_DELETED_CELLS => '{}', \
         DATA_BLOCK_ENCODING => '{}', COMPRESSION => '{}', TTL => '{}', MIN_VERSIONS => '{}', BLOCKCACHE => '{}', \
         BLOCKSIZE => '{}', REPLICATION_SCOPE => '0'}}",
        binary(&f.name),
        f.bloom_filter.name(),
        f.in_memory,
        f.max_versions,
        kdc,
        f.data_block_encoding.name(),
        f.compression.name(),
        ttl(f.ttl_seconds),
        f.min_versions,
        f.block_cache,
        f.block_size
    )
}

/// `column=f:q, timestamp=..., value=...` (markers print their type instead of a value).
pub fn cell(c: &Cell) -> String {
    let col = format!("{}:{}", binary(c.family()), binary(c.qualifier()));
    if c.cell_type() == CellType::Put {
        format!(
            "column={col}, timestamp={}, value={}",
            c.timestamp(),
            binary(c.value())
        )
    } else {
        format!(
            "column={col}, timestamp={}, type={}",
            c.timestamp(),
            c.cell_type().name()
        )
    }
}

/// A two-column header as HBase's formatter prints it: from column 0 (no inset), with two
/// spaces so the second column lines up with the rows' second column.
pub fn header(left: &str, right: &str) -> String {
    format!("{left:<32}  {right}")
}

/// Two-column row: ` left   right`.
pub fn two_columns(left: &str, right: &str) -> String {
    format!(" {left:<32} {right}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_and_binary_print_like_hbase() {
        assert_eq!(ttl(18000), "18000 SECONDS (5 HOURS)");
        assert_eq!(ttl(90061), "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)");
        assert_eq!(ttl(FOREVER), "FOREVER");
        assert_eq!(binary(b"ab c\x00\xff\\"), "ab c\\x00\\xFF\\x5C");
    }
}
