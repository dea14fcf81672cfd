//! Output in the HBase shell's shapes.

use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::table_attributes::DESCRIBED_BY_NAME;
use ferrobase_engine::{Cell, CellType, ColumnFamilyDescriptor, Durability, TableAttributes};

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

/// `18000 SECONDS (5 HOURS)`, as HBase's `PrettyPrinter.humanReadableTTL`, quirk included:
/// the seconds part is plural unless the minutes part is exactly 1 (`100 SECONDS (1 MINUTE 40
/// SECOND)`), since HBase tests `minutes == 1` there.
pub fn ttl(seconds: i64) -> String {
    if seconds >= FOREVER || seconds <= 0 {
        return "FOREVER".into();
    }
    if seconds < 60 {
        return format!("{seconds} SECOND{}", if seconds == 1 { "" } else { "S" });
    }
    let (days, hours) = (seconds / 86_400, seconds % 86_400 / 3_600);
    let (minutes, secs) = (seconds % 3_600 / 60, seconds % 60);
    let plural = |n: i64| if n == 1 { "" } else { "S" };
    let mut parts = Vec::new();
    if days > 0 {
        parts.push(format!("{days} DAY{}", plural(days)));
    }
    if hours > 0 {
        parts.push(format!("{hours} HOUR{}", plural(hours)));
    }
    if minutes > 0 {
        parts.push(format!("{minutes} MINUTE{}", plural(minutes)));
    }
    if secs > 0 {
        parts.push(format!("{secs} SECOND{}", plural(minutes)));
    }
    format!("{seconds} SECONDS ({})", parts.join(" "))
}

/// `1073741824 B (1GB)`, as HBase's `PrettyPrinter.format(value, Unit.BYTE)` (sizes below
/// 1 KB print as `N B`).
pub fn byte_size(n: i64) -> String {
    if n < 1024 {
        return format!("{n} B");
    }
    let mut parts = Vec::new();
    let mut rest = n;
    for (unit, size) in [
        ("TB", 1i64 << 40),
        ("GB", 1 << 30),
        ("MB", 1 << 20),
        ("KB", 1 << 10),
        ("B", 1),
    ] {
        if rest / size > 0 {
            parts.push(format!("{}{unit}", rest / size));
        }
        rest %= size;
    }
    format!("{n} B ({})", parts.join(" "))
}

/// What `describe` prints after the table's name: HBase's `toStringTableAttributes`, e.g.
/// `, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1073741824 B (1GB)', READONLY => 'true', METADATA
/// => {'k' => 'v'}}}` — reserved keys by name, then every other key under `METADATA` — or
/// nothing when no attribute is set.
pub fn table_attributes(durability: Durability, attrs: &TableAttributes) -> String {
    let mut named: Vec<(String, String)> = Vec::new();
    if durability != Durability::UseDefault {
        named.push(("DURABILITY".into(), durability.name().to_string()));
    }
    let mut metadata = Vec::new();
    for (k, v) in attrs.iter() {
        if DESCRIBED_BY_NAME.contains(&k) {
            let v = match (k, v.parse::<i64>()) {
                ("MAX_FILESIZE" | "MEMSTORE_FLUSHSIZE", Ok(n)) => byte_size(n),
                _ => binary(v.as_bytes()),
            };
            named.push((k.to_string(), v));
        } else {
            metadata.push(format!("'{k}' => '{}'", binary(v.as_bytes())));
        }
    }
    if named.is_empty() && metadata.is_empty() {
        return String::new();
    }
    named.sort();
    let mut items: Vec<String> = named.iter().map(|(k, v)| format!("{k} => '{v}'")).collect();
    if !metadata.is_empty() {
        items.push(format!("METADATA => {{{}}}", metadata.join(", ")));
    }
    format!(", {{TABLE_ATTRIBUTES => {{{}}}}}", items.join(", "))
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

/// One family as `describe` prints it: HBase 2.x's `ColumnFamilyDescriptor.toString`, whose
/// attributes come in the iteration order of its values `HashMap` (for the keys every family
/// has, the order below, as HBase 2.6.1 prints them), BLOCKSIZE with its unit as
/// `PrettyPrinter` writes bytes, INDEX_BLOCK_ENCODING `NONE` (ferrobase's block index is not
/// encoded). NEW_VERSION_BEHAVIOR, when set, is shown as HBase 2.6 shows it:
/// `METADATA => {'NEW_VERSION_BEHAVIOR' => 'true'}` at the end.
pub fn family(f: &ColumnFamilyDescriptor) -> String {
    let kdc = f.keep_deleted_cells.name();
    let metadata = if f.new_version_behavior {
        ", METADATA => {'NEW_VERSION_BEHAVIOR' => 'true'}"
    } else {
        ""
    };
    format!(
        "{{NAME => '{}', INDEX_BLOCK_ENCODING => 'NONE', VERSIONS => '{}', KEEP_DELETED_CELLS => '{}', \
         DATA_BLOCK_ENCODING => '{}', TTL => '{}', MIN_VERSIONS => '{}', REPLICATION_SCOPE => '0', \
         BLOOMFILTER => '{}', IN_MEMORY => '{}', COMPRESSION => '{}', BLOCKCACHE => '{}', \
         BLOCKSIZE => '{}'{metadata}}}",
        binary(&f.name),
        f.max_versions,
        kdc,
        f.data_block_encoding.name(),
        ttl(f.ttl_seconds),
        f.min_versions,
        f.bloom_filter.name(),
        f.in_memory,
        f.compression.name(),
        f.block_cache,
        byte_size(i64::from(f.block_size))
    )
}

/// `column=f:q, timestamp=..., value=...` with the value already converted to text (`get`/`scan`
/// converters); markers print their type instead of a value.
pub fn cell_with_value(c: &Cell, value: &str) -> String {
    let col = format!("{}:{}", binary(c.family()), binary(c.qualifier()));
    if c.cell_type() == CellType::Put {
        format!("column={col}, timestamp={}, value={value}", c.timestamp())
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
        // HBase's PrettyPrinter: singular for 1 second; the seconds' plural follows the minutes.
        assert_eq!(ttl(1), "1 SECOND");
        assert_eq!(ttl(59), "59 SECONDS");
        assert_eq!(ttl(100), "100 SECONDS (1 MINUTE 40 SECOND)");
        assert_eq!(ttl(130), "130 SECONDS (2 MINUTES 10 SECONDS)");
        assert_eq!(ttl(3_601), "3601 SECONDS (1 HOUR 1 SECONDS)");
        assert_eq!(binary(b"ab c\x00\xff\\"), "ab c\\x00\\xFF\\x5C");
    }

    #[test]
    fn byte_sizes_and_table_attributes_print_like_hbase_2_6() {
        // From HBase 2.6.1's PrettyPrinter and TableDescriptor.toStringTableAttributes.
        assert_eq!(byte_size(1000), "1000 B");
        assert_eq!(byte_size(1024), "1024 B (1KB)");
        assert_eq!(byte_size(1_610_612_736), "1610612736 B (1GB 512MB)");
        assert_eq!(
            byte_size(12_345_678_901),
            "12345678901 B (11GB 509MB 775KB 53B)"
        );
        let mut a = TableAttributes::default();
        assert_eq!(table_attributes(Durability::UseDefault, &a), "");
        a.set("MAX_FILESIZE", "1073741824").unwrap();
        a.set("READONLY", "true").unwrap();
        a.set("hbase.hstore.blockingStoreFiles", "20").unwrap();
        a.set("mykey", "myvalue").unwrap();
        a.set("COMPACTION_ENABLED", "false").unwrap();
        a.set("MEMSTORE_FLUSHSIZE", "134217728").unwrap();
        assert_eq!(
            table_attributes(Durability::AsyncWal, &a),
            ", {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL', MAX_FILESIZE => '1073741824 B (1GB)', \
             MEMSTORE_FLUSHSIZE => '134217728 B (128MB)', READONLY => 'true', METADATA => \
             {'COMPACTION_ENABLED' => 'false', 'hbase.hstore.blockingStoreFiles' => '20', \
             'mykey' => 'myvalue'}}}"
        );
    }
}
