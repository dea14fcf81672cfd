//! Table names, column-family descriptors and table descriptors, with HBase 2.x defaults and
//! name validation.

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::compression::Compression;
use crate::error::{Error, Result};
use crate::table_attributes::TableAttributes;
use std::fmt;

/// True for the namespaces that always exist: `default` and `hbase`.
pub fn is_builtin_namespace(ns: &str) -> bool {
    ns == "default" || ns == "hbase"
}

/// Checks a namespace name as HBase does, `[A-Za-z0-9_]+`, and at most 255 bytes, as table
/// names (HBase sets no bound of its own on namespaces; a longer one could hold no table).
pub fn validate_namespace(ns: &str) -> Result<()> {
    if ns.is_empty() || !ns.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        let shown: String = ns.chars().take(64).collect();
        return Err(Error::IllegalArgument(format!(
            "illegal namespace name {shown:?}: only [A-Za-z0-9_] allowed"
        )));
    }
    if ns.len() > 255 {
        return Err(Error::IllegalArgument(format!(
            "namespace name longer than 255 characters: {:?}... ({} characters)",
            ns.get(..64).unwrap_or(ns),
            ns.len()
        )));
    }
    Ok(())
}

/// A `namespace:qualifier` table name; `default` when the namespace is omitted.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableName {
    namespace: String,
    qualifier: String,
}

impl TableName {
    /// Parses and validates `ns:table` or `table` as HBase does: the namespace is
    /// `[A-Za-z0-9_]+`, the qualifier is `[A-Za-z0-9_.-]+` not starting with `.` or `-`.
    pub fn parse(name: &str) -> Result<TableName> {
        let (ns, q) = match name.split_once(':') {
            Some((ns, q)) => (ns, q),
            None => ("default", name),
        };
        if ns.is_empty() || !ns.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(Error::IllegalArgument(format!(
                "illegal namespace in table name {name:?}: only [A-Za-z0-9_] allowed"
            )));
        }
        if q.is_empty()
            || q.starts_with('.')
            || q.starts_with('-')
            || !q
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
        {
            return Err(Error::IllegalArgument(format!(
                "illegal table name {name:?}: only [A-Za-z0-9_.-] allowed, not starting with '.' or '-'"
            )));
        }
        if name.len() > 255 {
            return Err(Error::IllegalArgument(format!(
                "table name longer than 255 characters: {name:?}"
            )));
        }
        Ok(TableName {
            namespace: ns.to_string(),
            qualifier: q.to_string(),
        })
    }

    /// The namespace (`default` when none was given).
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The table's name within its namespace.
    pub fn qualifier(&self) -> &str {
        &self.qualifier
    }
}

impl fmt::Display for TableName {
    /// Prints `table` for the default namespace and `ns:table` otherwise, as HBase does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == "default" {
            write!(f, "{}", self.qualifier)
        } else {
            write!(f, "{}:{}", self.namespace, self.qualifier)
        }
    }
}

/// The BLOOMFILTER attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BloomType {
    /// No bloom filter.
    None,
    /// Keyed by row: lets a Get skip files that hold nothing of the row (HBase's default).
    #[default]
    Row,
    /// Keyed by row and qualifier: lets a Get of explicit columns skip files.
    RowCol,
}

impl BloomType {
    /// HBase's name for the type.
    pub fn name(self) -> &'static str {
        match self {
            BloomType::None => "NONE",
            BloomType::Row => "ROW",
            BloomType::RowCol => "ROWCOL",
        }
    }

    /// Parses `NONE`, `ROW` or `ROWCOL`, case-insensitively.
    pub fn parse(s: &str) -> Result<BloomType> {
        match s.to_ascii_uppercase().as_str() {
            "NONE" => Ok(BloomType::None),
            "ROW" => Ok(BloomType::Row),
            "ROWCOL" => Ok(BloomType::RowCol),
            _ => Err(Error::IllegalArgument(format!(
                "unknown bloom filter type {s:?}; expected NONE, ROW or ROWCOL"
            ))),
        }
    }

    /// The on-disk id: 0 NONE, 1 ROW, 2 ROWCOL (frozen).
    pub fn id(self) -> u8 {
        match self {
            BloomType::None => 0,
            BloomType::Row => 1,
            BloomType::RowCol => 2,
        }
    }

    /// Decodes an on-disk id.
    pub fn from_id(id: u8) -> Option<BloomType> {
        match id {
            0 => Some(BloomType::None),
            1 => Some(BloomType::Row),
            2 => Some(BloomType::RowCol),
            _ => None,
        }
    }
}

/// The KEEP_DELETED_CELLS attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepDeletedCells {
    /// Deleted cells and markers are purged by major compaction (default).
    #[default]
    False,
    /// Deleted cells stay readable by time-range reads before the marker, forever.
    True,
    /// As `True`, until the cells pass the family's TTL.
    Ttl,
}

impl KeepDeletedCells {
    /// HBase's name.
    pub fn name(self) -> &'static str {
        match self {
            KeepDeletedCells::False => "FALSE",
            KeepDeletedCells::True => "TRUE",
            KeepDeletedCells::Ttl => "TTL",
        }
    }

    /// Parses `FALSE`, `TRUE` or `TTL`, case-insensitively.
    pub fn parse(s: &str) -> Result<KeepDeletedCells> {
        match s.to_ascii_uppercase().as_str() {
            "FALSE" => Ok(KeepDeletedCells::False),
            "TRUE" => Ok(KeepDeletedCells::True),
            "TTL" => Ok(KeepDeletedCells::Ttl),
            _ => Err(Error::IllegalArgument(format!(
                "unknown KEEP_DELETED_CELLS {s:?}; expected FALSE, TRUE or TTL"
            ))),
        }
    }
}

/// The DATA_BLOCK_ENCODING attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataBlockEncoding {
    /// Every key written in full.
    #[default]
    None,
    /// Each row key stores only what differs from the previous cell's row.
    Prefix,
}

impl DataBlockEncoding {
    /// HBase's name.
    pub fn name(self) -> &'static str {
        match self {
            DataBlockEncoding::None => "NONE",
            DataBlockEncoding::Prefix => "PREFIX",
        }
    }

    /// Parses `NONE` or `PREFIX`; `DIFF` and `FAST_DIFF` are accepted and stored as `PREFIX`.
    pub fn parse(s: &str) -> Result<DataBlockEncoding> {
        match s.to_ascii_uppercase().as_str() {
            "NONE" => Ok(DataBlockEncoding::None),
            "PREFIX" | "DIFF" | "FAST_DIFF" => Ok(DataBlockEncoding::Prefix),
            _ => Err(Error::IllegalArgument(format!(
                "unknown DATA_BLOCK_ENCODING {s:?}; expected NONE or PREFIX"
            ))),
        }
    }
}

/// TTL value meaning "never expires" (HBase's `HConstants.FOREVER`, `Integer.MAX_VALUE`).
pub const FOREVER: i64 = i32::MAX as i64;

/// A column family's schema with HBase 2.x defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFamilyDescriptor {
    /// Family name: non-empty, printable, no ':' and not starting with '.'.
    pub name: Vec<u8>,
    /// Maximum versions kept per column (default 1).
    pub max_versions: u32,
    /// Versions kept past TTL (default 0).
    pub min_versions: u32,
    /// Seconds a cell lives, counted from its timestamp; [`FOREVER`] by default.
    pub ttl_seconds: i64,
    /// Whether deleted cells stay readable by time-range reads (default FALSE).
    pub keep_deleted_cells: KeepDeletedCells,
    /// Target uncompressed size of a data block in bytes (default 65536).
    pub block_size: u32,
    /// Whether data blocks go to the block cache on read (default true).
    pub block_cache: bool,
    /// Whether the family's blocks get the in-memory cache priority (default false).
    pub in_memory: bool,
    /// Bloom filter type (default ROW).
    pub bloom_filter: BloomType,
    /// Block compression (default NONE).
    pub compression: Compression,
    /// Key encoding inside data blocks (default NONE).
    pub data_block_encoding: DataBlockEncoding,
    /// HBase's NEW_VERSION_BEHAVIOR (HBASE-15968, default false): a delete masks only the puts
    /// written before it, and versions are counted against deletes, so a deleted version never
    /// uncovers an older surplus one. The read and compaction rules:
    /// docs/design/hbase-compatibility.md.
    pub new_version_behavior: bool,
}

impl ColumnFamilyDescriptor {
    /// A family named `name` with every attribute at its HBase default.
    pub fn new(name: impl Into<Vec<u8>>) -> Self {
        ColumnFamilyDescriptor {
            name: name.into(),
            max_versions: 1,
            min_versions: 0,
            ttl_seconds: FOREVER,
            keep_deleted_cells: KeepDeletedCells::False,
            block_size: 65536,
            block_cache: true,
            in_memory: false,
            bloom_filter: BloomType::Row,
            compression: Compression::None,
            data_block_encoding: DataBlockEncoding::None,
            new_version_behavior: false,
        }
    }

    /// The family name as text (lossy).
    pub fn name_str(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// TTL in milliseconds, or `None` for FOREVER.
    pub fn ttl_ms(&self) -> Option<i64> {
        if self.ttl_seconds >= FOREVER || self.ttl_seconds <= 0 {
            None
        } else {
            Some(self.ttl_seconds.saturating_mul(1000))
        }
    }

    /// Checks the name and attribute values as HBase does.
    pub fn validate(&self) -> Result<()> {
        validate_family_name(&self.name)?;
        if self.max_versions == 0 {
            return Err(Error::IllegalArgument(format!(
                "family {}: VERSIONS must be positive",
                self.name_str()
            )));
        }
        if self.min_versions > self.max_versions {
            return Err(Error::IllegalArgument(format!(
                "family {}: MIN_VERSIONS ({}) must not exceed VERSIONS ({})",
                self.name_str(),
                self.min_versions,
                self.max_versions
            )));
        }
        if self.block_size < 1024 || self.block_size > 16 * 1024 * 1024 {
            return Err(Error::IllegalArgument(format!(
                "family {}: BLOCKSIZE must be between 1024 and 16777216, got {}",
                self.name_str(),
                self.block_size
            )));
        }
        Ok(())
    }

    /// Serialises as `(ATTRIBUTE, value)` text pairs; the encoding the manifest stores.
    pub fn to_attributes(&self) -> Vec<(&'static str, String)> {
        let mut attrs = vec![
            ("VERSIONS", self.max_versions.to_string()),
            ("MIN_VERSIONS", self.min_versions.to_string()),
            ("TTL", self.ttl_seconds.to_string()),
            ("KEEP_DELETED_CELLS", self.keep_deleted_cells.name().into()),
            ("BLOCKSIZE", self.block_size.to_string()),
            ("BLOCKCACHE", self.block_cache.to_string()),
            ("IN_MEMORY", self.in_memory.to_string()),
            ("BLOOMFILTER", self.bloom_filter.name().into()),
            ("COMPRESSION", self.compression.name().into()),
            (
                "DATA_BLOCK_ENCODING",
                self.data_block_encoding.name().into(),
            ),
        ];
        // Stored and shown only when set, as HBase's describe shows it, so a manifest without
        // it still reads on builds that predate it.
        if self.new_version_behavior {
            attrs.push(("NEW_VERSION_BEHAVIOR", "true".into()));
        }
        attrs
    }

    /// Sets one attribute from its HBase shell spelling (`VERSIONS`, `TTL`, `BLOOMFILTER`, ...).
    /// `TTL` accepts seconds or `FOREVER`; booleans accept `true`/`false` in any case.
    pub fn set_attribute(&mut self, key: &str, value: &str) -> Result<()> {
        let bad =
            |what: &str| Error::IllegalArgument(format!("{key} expects {what}, got {value:?}"));
        let parse_bool = |v: &str| match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad("true or false")),
        };
        match key.to_ascii_uppercase().as_str() {
            "VERSIONS" => self.max_versions = value.parse().map_err(|_| bad("an integer"))?,
            "MIN_VERSIONS" => self.min_versions = value.parse().map_err(|_| bad("an integer"))?,
            "TTL" => {
                self.ttl_seconds = if value.eq_ignore_ascii_case("FOREVER") {
                    FOREVER
                } else {
                    let v: i64 = value.parse().map_err(|_| bad("seconds or FOREVER"))?;
                    if v <= 0 {
                        FOREVER
                    } else {
                        v
                    }
                }
            }
            "KEEP_DELETED_CELLS" => self.keep_deleted_cells = KeepDeletedCells::parse(value)?,
            "BLOCKSIZE" => self.block_size = value.parse().map_err(|_| bad("an integer"))?,
            "BLOCKCACHE" => self.block_cache = parse_bool(value)?,
            "IN_MEMORY" => self.in_memory = parse_bool(value)?,
            "BLOOMFILTER" => self.bloom_filter = BloomType::parse(value)?,
            "COMPRESSION" => self.compression = Compression::parse(value)?,
            "DATA_BLOCK_ENCODING" => self.data_block_encoding = DataBlockEncoding::parse(value)?,
            "NEW_VERSION_BEHAVIOR" => self.new_version_behavior = parse_bool(value)?,
            other => {
                return Err(Error::IllegalArgument(format!(
                    "unknown column family attribute {other}"
                )))
            }
        }
        Ok(())
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        put_len_prefixed(out, &self.name);
        let attrs = self.to_attributes();
        put_varint(out, attrs.len() as u64);
        for (k, v) in attrs {
            put_len_prefixed(out, k.as_bytes());
            put_len_prefixed(out, v.as_bytes());
        }
    }

    pub(crate) fn decode(r: &mut ByteReader<'_>) -> std::result::Result<Self, String> {
        let name = r.len_prefixed().ok_or("truncated family name")?;
        let mut cf = ColumnFamilyDescriptor::new(name);
        let n = r.varint().ok_or("truncated attribute count")?;
        for _ in 0..n {
            let k = r.len_prefixed().ok_or("truncated attribute name")?;
            let v = r.len_prefixed().ok_or("truncated attribute value")?;
            let k = std::str::from_utf8(k).map_err(|_| "attribute name not UTF-8")?;
            let v = std::str::from_utf8(v).map_err(|_| "attribute value not UTF-8")?;
            cf.set_attribute(k, v).map_err(|e| e.to_string())?;
        }
        Ok(cf)
    }
}

/// Checks a family name as HBase's `ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName`.
pub fn validate_family_name(name: &[u8]) -> Result<()> {
    let shown = String::from_utf8_lossy(name);
    if name.is_empty() {
        return Err(Error::IllegalArgument(
            "family name must not be empty".into(),
        ));
    }
    if name[0] == b'.' {
        return Err(Error::IllegalArgument(format!(
            "family name {shown:?} must not start with '.'"
        )));
    }
    if name.iter().any(|&b| b == b':' || b < 0x20 || b == 0x7f) {
        return Err(Error::IllegalArgument(format!(
            "family name {shown:?} must not contain ':' or control characters"
        )));
    }
    if name == b"recovered.edits" {
        return Err(Error::IllegalArgument(
            "family name recovered.edits is reserved".into(),
        ));
    }
    if name.len() > 255 {
        return Err(Error::IllegalArgument(
            "family name longer than 255 bytes".into(),
        ));
    }
    Ok(())
}

/// Per-mutation write durability (HBase's `Durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Use the table's setting (SYNC_WAL unless changed).
    #[default]
    UseDefault,
    /// No WAL record: lost on crash until flushed.
    SkipWal,
    /// WAL record buffered and written in the background (within ~100 ms).
    AsyncWal,
    /// WAL record written to the OS before the write is acknowledged: survives a process kill.
    SyncWal,
    /// WAL record written and `fdatasync`ed before acknowledging: survives power loss.
    FsyncWal,
}

impl Durability {
    /// HBase's name.
    pub fn name(self) -> &'static str {
        match self {
            Durability::UseDefault => "USE_DEFAULT",
            Durability::SkipWal => "SKIP_WAL",
            Durability::AsyncWal => "ASYNC_WAL",
            Durability::SyncWal => "SYNC_WAL",
            Durability::FsyncWal => "FSYNC_WAL",
        }
    }

    /// Parses HBase's name, case-insensitively.
    pub fn parse(s: &str) -> Result<Durability> {
        Ok(match s.to_ascii_uppercase().as_str() {
            "USE_DEFAULT" => Durability::UseDefault,
            "SKIP_WAL" => Durability::SkipWal,
            "ASYNC_WAL" => Durability::AsyncWal,
            "SYNC_WAL" => Durability::SyncWal,
            "FSYNC_WAL" => Durability::FsyncWal,
            _ => {
                return Err(Error::IllegalArgument(format!(
                    "unknown durability {s:?}; expected USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL"
                )))
            }
        })
    }
}

/// A table's schema: its name, families and table-level attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    /// The table's name.
    pub name: TableName,
    /// Column families, in name order.
    pub families: Vec<ColumnFamilyDescriptor>,
    /// The table's default durability (USE_DEFAULT means SYNC_WAL).
    pub durability: Durability,
    /// The other table attributes (`MAX_FILESIZE`, `READONLY`, metadata, ...).
    pub attributes: TableAttributes,
}

impl TableDescriptor {
    /// A descriptor with no families yet.
    pub fn new(name: TableName) -> Self {
        TableDescriptor {
            name,
            families: Vec::new(),
            durability: Durability::UseDefault,
            attributes: TableAttributes::default(),
        }
    }

    /// Adds a family (builder style).
    pub fn with_family(mut self, family: ColumnFamilyDescriptor) -> Self {
        self.families.push(family);
        self.families.sort_by(|a, b| a.name.cmp(&b.name));
        self
    }

    /// The family named `name`.
    pub fn family(&self, name: &[u8]) -> Option<&ColumnFamilyDescriptor> {
        self.families.iter().find(|f| f.name == name)
    }

    /// Checks the table has at least one family, no duplicates, and every family is valid.
    pub fn validate(&self) -> Result<()> {
        if self.families.is_empty() {
            return Err(Error::IllegalArgument(format!(
                "table {} must have at least one column family",
                self.name
            )));
        }
        for (i, f) in self.families.iter().enumerate() {
            f.validate()?;
            if self.families[..i].iter().any(|g| g.name == f.name) {
                return Err(Error::IllegalArgument(format!(
                    "family {} given twice",
                    f.name_str()
                )));
            }
        }
        Ok(())
    }

    /// Encodes the descriptor as manifest format `version` holds it (attributes from 3 on).
    pub(crate) fn encode(&self, out: &mut Vec<u8>, version: u32) {
        put_len_prefixed(out, self.name.to_string().as_bytes());
        put_len_prefixed(out, self.durability.name().as_bytes());
        put_varint(out, self.families.len() as u64);
        for f in &self.families {
            f.encode(out);
        }
        if version >= 3 {
            self.attributes.encode(out);
        }
    }

    /// Decodes a descriptor of manifest format `version`.
    pub(crate) fn decode(
        r: &mut ByteReader<'_>,
        version: u32,
    ) -> std::result::Result<Self, String> {
        let name = r.len_prefixed().ok_or("truncated table name")?;
        let name = std::str::from_utf8(name).map_err(|_| "table name not UTF-8")?;
        let name = TableName::parse(name).map_err(|e| e.to_string())?;
        let dur = r.len_prefixed().ok_or("truncated durability")?;
        let dur = std::str::from_utf8(dur).map_err(|_| "durability not UTF-8")?;
        let durability = Durability::parse(dur).map_err(|e| e.to_string())?;
        let n = r.varint().ok_or("truncated family count")?;
        let mut families = Vec::new();
        for _ in 0..n {
            families.push(ColumnFamilyDescriptor::decode(r)?);
        }
        let attributes = if version >= 3 {
            TableAttributes::decode(r)?
        } else {
            TableAttributes::default()
        };
        Ok(TableDescriptor {
            name,
            families,
            durability,
            attributes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_validate_like_hbase() {
        assert_eq!(TableName::parse("t1").unwrap().to_string(), "t1");
        assert_eq!(TableName::parse("default:t1").unwrap().to_string(), "t1");
        let n = TableName::parse("ns_1:my.table-2").unwrap();
        assert_eq!(n.namespace(), "ns_1");
        assert_eq!(n.to_string(), "ns_1:my.table-2");
        for bad in ["", ".t", "-t", "a b", "ns-x:t", "t/x", ":t", "ns:"] {
            assert!(TableName::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn namespace_names_are_bounded_as_table_names() {
        assert!(validate_namespace(&"n".repeat(255)).is_ok());
        let e = validate_namespace(&"n".repeat(10_000))
            .unwrap_err()
            .to_string();
        assert!(e.contains("longer than 255 characters"), "{e}");
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn family_defaults_are_hbase_2_defaults() {
        let f = ColumnFamilyDescriptor::new("cf");
        assert_eq!(f.max_versions, 1);
        assert_eq!(f.min_versions, 0);
        assert_eq!(f.ttl_ms(), None);
        assert_eq!(f.block_size, 65536);
        assert!(f.block_cache);
        assert!(!f.in_memory);
        assert_eq!(f.bloom_filter, BloomType::Row);
        assert_eq!(f.compression, Compression::None);
    }

    #[test]
    fn family_names_reject_colons_and_dots() {
        assert!(validate_family_name(b"cf").is_ok());
        assert!(validate_family_name(b"a:b").is_err());
        assert!(validate_family_name(b".a").is_err());
        assert!(validate_family_name(b"").is_err());
    }

    #[test]
    fn descriptor_round_trips_through_encoding() {
        let mut f = ColumnFamilyDescriptor::new("cf1");
        f.set_attribute("VERSIONS", "1000").unwrap();
        f.set_attribute("TTL", "18000").unwrap();
        f.set_attribute("COMPRESSION", "snappy").unwrap();
        f.set_attribute("BLOOMFILTER", "ROWCOL").unwrap();
        f.set_attribute("IN_MEMORY", "TRUE").unwrap();
        let d = TableDescriptor::new(TableName::parse("ns:t").unwrap())
            .with_family(f)
            .with_family(ColumnFamilyDescriptor::new("a"));
        let mut d = d;
        d.attributes.set("MAX_FILESIZE", "1024").unwrap();
        let mut buf = Vec::new();
        d.encode(&mut buf, 3);
        let back = TableDescriptor::decode(&mut ByteReader::new(&buf), 3).unwrap();
        assert_eq!(back, d);
        for cut in 0..buf.len() {
            assert!(TableDescriptor::decode(&mut ByteReader::new(&buf[..cut]), 3).is_err());
        }
    }
}
