//! A table's attributes besides its families and durability: HBase's table descriptor
//! "values". The reserved ones have a type and act on the table — `MAX_FILESIZE` (the region
//! split size), `SPLIT_ENABLED`, `MEMSTORE_FLUSHSIZE`, `COMPACTION_ENABLED` (automatic
//! compactions) and `READONLY` (writes refused); the others (`METADATA => {...}` and
//! `CONFIGURATION => {...}` keys, which HBase 2.x keeps in the same map, and the attributes
//! ferrobase stores without acting on, such as `PRIORITY` or `NORMALIZATION_ENABLED`) are
//! text. Stored in the manifest (`docs/format/manifest.md`, version 3).

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// How a reserved attribute's value is checked.
#[derive(Clone, Copy)]
enum Kind {
    /// A 64-bit integer (a size in bytes, a count).
    Long,
    /// `true` or `false`, stored lowercase.
    Bool,
    /// Any text (a class name).
    Text,
}

/// The table attributes HBase's shell sets by name (`admin.rb`'s `update_tdb_from_arg`), with
/// their value types. Any other key is user metadata.
const RESERVED: &[(&str, Kind)] = &[
    ("COMPACTION_ENABLED", Kind::Bool),
    ("FLUSH_POLICY", Kind::Text),
    ("MAX_FILESIZE", Kind::Long),
    ("MEMSTORE_FLUSHSIZE", Kind::Long),
    ("MERGE_ENABLED", Kind::Bool),
    ("NORMALIZATION_ENABLED", Kind::Bool),
    ("NORMALIZER_TARGET_REGION_COUNT", Kind::Long),
    ("NORMALIZER_TARGET_REGION_SIZE", Kind::Long),
    ("NORMALIZER_TARGET_REGION_SIZE_MB", Kind::Long),
    ("PRIORITY", Kind::Long),
    ("READONLY", Kind::Bool),
    ("REGION_MEMSTORE_REPLICATION", Kind::Bool),
    ("SPLIT_ENABLED", Kind::Bool),
    ("SPLIT_POLICY", Kind::Text),
];

/// The keys HBase's `TableDescriptor.toStringTableAttributes` prints by name (its
/// `RESERVED_KEYWORDS`); every other key prints inside `METADATA => {...}`.
pub const DESCRIBED_BY_NAME: &[&str] = &[
    "DURABILITY",
    "MAX_FILESIZE",
    "MEMSTORE_FLUSHSIZE",
    "PRIORITY",
    "READONLY",
];

/// A table's attributes: key to value text, in key order (HBase sorts them by bytes too).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableAttributes(BTreeMap<String, String>);

impl TableAttributes {
    /// Sets `key` (HBase's spelling; reserved keys are matched case-insensitively and stored
    /// uppercase) after checking a reserved key's value. `REGION_REPLICATION` other than 1 is
    /// refused (ferrobase has no region replicas); `DURABILITY` is the descriptor's own field.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let upper = key.to_ascii_uppercase();
        if upper == "REGION_REPLICATION" {
            return match value.trim() {
                "1" => Ok(()),
                _ => Err(Error::IllegalArgument(format!(
                    "REGION_REPLICATION {value} is not supported (ferrobase has no region replicas)"
                ))),
            };
        }
        if upper == "DURABILITY" {
            return Err(Error::IllegalArgument(
                "DURABILITY is the table descriptor's durability, not an attribute".into(),
            ));
        }
        let Some((name, kind)) = RESERVED.iter().find(|(k, _)| *k == upper) else {
            self.0.insert(key.to_string(), value.to_string());
            return Ok(());
        };
        let value = match kind {
            Kind::Long => value
                .trim()
                .parse::<i64>()
                .map_err(|_| {
                    Error::IllegalArgument(format!("{name} expects an integer, got {value:?}"))
                })?
                .to_string(),
            Kind::Bool => match value.to_ascii_lowercase().as_str() {
                "true" => "true".to_string(),
                "false" => "false".to_string(),
                _ => {
                    return Err(Error::IllegalArgument(format!(
                        "{name} expects true or false, got {value:?}"
                    )))
                }
            },
            Kind::Text => value.to_string(),
        };
        self.0.insert(name.to_string(), value);
        Ok(())
    }

    /// Removes `key` (reserved keys case-insensitively); its value, or `None` when unset.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let upper = key.to_ascii_uppercase();
        let key = if RESERVED.iter().any(|(k, _)| *k == upper) {
            upper
        } else {
            key.to_string()
        };
        self.0.remove(&key)
    }

    /// The value of `key`, as stored.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Every attribute, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// True when no attribute is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn flag(&self, key: &str) -> Option<bool> {
        self.get(key).map(|v| v == "true")
    }

    fn long(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(|v| v.parse().ok())
    }

    /// `READONLY => true`: every write to the table is refused.
    pub fn read_only(&self) -> bool {
        self.flag("READONLY").unwrap_or(false)
    }

    /// The size of a region's files past which it splits: `MAX_FILESIZE` when set (and
    /// positive), else `default`; `None` when `SPLIT_ENABLED => false`.
    pub fn split_size(&self, default: u64) -> Option<u64> {
        if self.flag("SPLIT_ENABLED") == Some(false) {
            return None;
        }
        Some(match self.long("MAX_FILESIZE") {
            Some(n) if n > 0 => n as u64,
            _ => default,
        })
    }

    /// A region's memstore size that triggers a flush: `MEMSTORE_FLUSHSIZE` when set (and
    /// positive), else `default`.
    pub fn memstore_flush_size(&self, default: usize) -> usize {
        match self.long("MEMSTORE_FLUSHSIZE") {
            Some(n) if n > 0 => n as usize,
            _ => default,
        }
    }

    /// False when `COMPACTION_ENABLED => false`: no automatic compaction (a requested one
    /// still runs, as in HBase).
    pub fn compaction_enabled(&self) -> bool {
        self.flag("COMPACTION_ENABLED").unwrap_or(true)
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.0.len() as u64);
        for (k, v) in &self.0 {
            put_len_prefixed(out, k.as_bytes());
            put_len_prefixed(out, v.as_bytes());
        }
    }

    pub(crate) fn decode(r: &mut ByteReader<'_>) -> std::result::Result<Self, String> {
        let n = r.varint().ok_or("truncated table attribute count")?;
        let mut out = TableAttributes::default();
        for _ in 0..n {
            let k = r.len_prefixed().ok_or("truncated table attribute key")?;
            let v = r.len_prefixed().ok_or("truncated table attribute value")?;
            let k = std::str::from_utf8(k).map_err(|_| "table attribute key not UTF-8")?;
            let v = std::str::from_utf8(v).map_err(|_| "table attribute value not UTF-8")?;
            out.set(k, v).map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_attributes_are_checked_and_normalised() {
        let mut a = TableAttributes::default();
        a.set("max_filesize", " 1024").unwrap();
        a.set("READONLY", "TRUE").unwrap();
        a.set("mykey", "myvalue").unwrap();
        assert_eq!(a.get("MAX_FILESIZE"), Some("1024"));
        assert_eq!(a.get("READONLY"), Some("true"));
        assert!(a.set("MAX_FILESIZE", "big").is_err());
        assert!(a.set("SPLIT_ENABLED", "yes").is_err());
        assert!(a.set("REGION_REPLICATION", "2").is_err());
        a.set("REGION_REPLICATION", "1").unwrap();
        assert!(a.read_only());
        assert_eq!(a.split_size(7), Some(1024));
        a.set("SPLIT_ENABLED", "false").unwrap();
        assert_eq!(a.split_size(7), None);
        assert_eq!(a.remove("readonly").as_deref(), Some("true"));
        assert_eq!(a.remove("MYKEY"), None);
        assert_eq!(a.memstore_flush_size(5), 5);
        assert!(a.compaction_enabled());
    }

    #[test]
    fn attributes_round_trip_and_truncation_is_an_error() {
        let mut a = TableAttributes::default();
        a.set("MAX_FILESIZE", "1073741824").unwrap();
        a.set("hbase.hstore.blockingStoreFiles", "20").unwrap();
        let mut buf = Vec::new();
        a.encode(&mut buf);
        assert_eq!(
            TableAttributes::decode(&mut ByteReader::new(&buf)).unwrap(),
            a
        );
        for cut in 0..buf.len() {
            assert!(TableAttributes::decode(&mut ByteReader::new(&buf[..cut])).is_err());
        }
    }
}
