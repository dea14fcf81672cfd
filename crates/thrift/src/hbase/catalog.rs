//! The values of HBase's catalog tables, as Thrift1 cells carry them: HBase.proto's
//! `RegionInfo` (`hbase:meta` `info:regioninfo`, after the `PBUF` magic), `TableState`
//! (`table:state`) and `NamespaceDescriptor` (`hbase:namespace` `info:d`), declared once for
//! the gateway, which writes them, and the client, which reads them
//! (`docs/format/hbase-catalog.md`). Protobuf (proto2) wire format, fields written in
//! field-number order as HBase's generated code writes them.
//!
//! The decoders never panic on any bytes: every read is bounds-checked, unknown fields of
//! wire types 0, 1, 2 and 5 are skipped as protobuf does, and a value that is not the message
//! is a [`CatalogValueError`] naming the message, the field and the byte offset.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

/// HBase's catalog of regions, whose `info:regioninfo` cells hold a [`PbRegionInfo`].
pub const META: &str = "hbase:meta";
/// HBase 2.x's table of namespaces, whose `info:d` cells hold a [`PbNamespaceDescriptor`].
pub const NAMESPACE: &str = "hbase:namespace";

/// `ProtobufMagic`: the 4 bytes before a `RegionInfo` in `info:regioninfo`.
pub const PB_MAGIC: &[u8; 4] = b"PBUF";

/// Why a catalog value does not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogValueError {
    /// The value ends inside a field.
    #[error("{message}: truncated at byte {offset}")]
    Truncated {
        /// The protobuf message read.
        message: &'static str,
        /// Offset within the message's bytes.
        offset: usize,
    },
    /// A varint longer than 10 bytes.
    #[error("{message}: varint longer than 10 bytes at byte {offset}")]
    VarintTooLong {
        /// The protobuf message read.
        message: &'static str,
        /// Offset within the message's bytes.
        offset: usize,
    },
    /// A wire type protobuf 2 does not carry here (groups, 6, 7), or a known field with the
    /// wrong one.
    #[error("{message}: field {field} has wire type {wire_type} at byte {offset}")]
    WireType {
        /// The protobuf message read.
        message: &'static str,
        /// Field number.
        field: u64,
        /// The wire type found.
        wire_type: u8,
        /// Offset within the message's bytes.
        offset: usize,
    },
    /// A required field is absent.
    #[error("{message}: required field {field} ({name}) missing")]
    MissingField {
        /// The protobuf message read.
        message: &'static str,
        /// Field number.
        field: u32,
        /// Field name in HBase.proto.
        name: &'static str,
    },
    /// A `string` field is not UTF-8.
    #[error("{message}: field {field} ({name}) is not UTF-8")]
    NotUtf8 {
        /// The protobuf message read.
        message: &'static str,
        /// Field number.
        field: u32,
        /// Field name in HBase.proto.
        name: &'static str,
    },
    /// `info:regioninfo` does not start with `PBUF`.
    #[error("RegionInfo: value does not start with the PBUF magic")]
    NoMagic,
}

/// HBase.proto's `TableName`: namespace = 1, qualifier = 2 (both required bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PbTableName {
    /// Namespace (`default` for an unqualified table).
    pub namespace: Vec<u8>,
    /// Table name within the namespace.
    pub qualifier: Vec<u8>,
}

impl PbTableName {
    /// The name as HBase prints it: `ns:table`, or `table` in the `default` namespace.
    pub fn display_name(&self) -> Vec<u8> {
        if self.namespace == b"default" {
            return self.qualifier.clone();
        }
        let mut out = self.namespace.clone();
        out.push(b':');
        out.extend_from_slice(&self.qualifier);
        out
    }
}

/// HBase.proto's `RegionInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PbRegionInfo {
    /// region_id = 1 (required uint64): HBase's creation time in ms, ferrobase's region id.
    pub region_id: u64,
    /// table_name = 2 (required).
    pub table_name: PbTableName,
    /// start_key = 3 (empty: the table's start).
    pub start_key: Vec<u8>,
    /// end_key = 4 (empty: the table's end).
    pub end_key: Vec<u8>,
    /// offline = 5.
    pub offline: bool,
    /// split = 6.
    pub split: bool,
    /// replica_id = 7 (int32, default 0).
    pub replica_id: i32,
}

/// HBase.proto's `NamespaceDescriptor`: name = 1 (required bytes), configuration = 2
/// (repeated `NameStringPair { name = 1, value = 2 }`, both required strings).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PbNamespaceDescriptor {
    /// The namespace's name.
    pub name: Vec<u8>,
    /// Its properties, in the order stored.
    pub configuration: Vec<(String, String)>,
}

/// HBase.proto's `TableState.State` (`table:state`, field 1), with its frozen numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PbTableState {
    /// 0
    Enabled,
    /// 1
    Disabled,
    /// 2
    Disabling,
    /// 3
    Enabling,
}

impl PbTableState {
    fn number(self) -> u64 {
        match self {
            PbTableState::Enabled => 0,
            PbTableState::Disabled => 1,
            PbTableState::Disabling => 2,
            PbTableState::Enabling => 3,
        }
    }
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_field(out: &mut Vec<u8>, field: u32, v: u64) {
    varint(out, u64::from(field) << 3);
    varint(out, v);
}

fn bytes_field(out: &mut Vec<u8>, field: u32, v: &[u8]) {
    varint(out, (u64::from(field) << 3) | 2);
    varint(out, v.len() as u64);
    out.extend_from_slice(v);
}

/// A field read from a message: its number and value.
enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    /// Fixed 64 (wire type 1) or 32 bits (5), skipped.
    Fixed(u8),
}

/// Reads the fields of one message, bounds-checked.
struct Fields<'a> {
    message: &'static str,
    data: &'a [u8],
    pos: usize,
    /// Where the field [`Fields::next_field`] returned last begins (its key's offset).
    field_at: usize,
}

impl<'a> Fields<'a> {
    fn new(message: &'static str, data: &'a [u8]) -> Self {
        Fields {
            message,
            data,
            pos: 0,
            field_at: 0,
        }
    }

    fn truncated(&self) -> CatalogValueError {
        CatalogValueError::Truncated {
            message: self.message,
            offset: self.pos,
        }
    }

    fn varint(&mut self) -> Result<u64, CatalogValueError> {
        let start = self.pos;
        let mut v = 0u64;
        for i in 0..10 {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(self.truncated());
            };
            self.pos += 1;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(CatalogValueError::VarintTooLong {
            message: self.message,
            offset: start,
        })
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], CatalogValueError> {
        let left = self.data.len() - self.pos;
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| self.truncated())?;
        let out = self.data.get(self.pos..self.pos + n).unwrap_or_default();
        self.pos += n;
        Ok(out)
    }

    /// The next field, `None` at the end of the message.
    fn next_field(&mut self) -> Result<Option<(u64, Value<'a>)>, CatalogValueError> {
        if self.pos >= self.data.len() {
            return Ok(None);
        }
        let at = self.pos;
        self.field_at = at;
        let key = self.varint()?;
        let (field, wire_type) = (key >> 3, (key & 7) as u8);
        let value = match wire_type {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed(1)
            }
            2 => {
                let n = self.varint()?;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                self.take(4)?;
                Value::Fixed(5)
            }
            _ => {
                return Err(CatalogValueError::WireType {
                    message: self.message,
                    field,
                    wire_type,
                    offset: at,
                })
            }
        };
        Ok(Some((field, value)))
    }

    /// A known field met with another wire type than its declaration's; the offset is the
    /// field's key, as for an unknown wire type.
    fn wrong_type(&self, field: u64, v: &Value<'_>) -> CatalogValueError {
        CatalogValueError::WireType {
            message: self.message,
            field,
            wire_type: match v {
                Value::Varint(_) => 0,
                Value::Bytes(_) => 2,
                Value::Fixed(w) => *w,
            },
            offset: self.field_at,
        }
    }
}

fn required<T>(
    v: Option<T>,
    message: &'static str,
    field: u32,
    name: &'static str,
) -> Result<T, CatalogValueError> {
    v.ok_or(CatalogValueError::MissingField {
        message,
        field,
        name,
    })
}

impl PbTableName {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        bytes_field(&mut out, 1, &self.namespace);
        bytes_field(&mut out, 2, &self.qualifier);
        out
    }

    fn decode(data: &[u8]) -> Result<PbTableName, CatalogValueError> {
        const M: &str = "TableName";
        let mut f = Fields::new(M, data);
        let (mut namespace, mut qualifier) = (None, None);
        while let Some((field, v)) = f.next_field()? {
            match (field, v) {
                (1, Value::Bytes(b)) => namespace = Some(b.to_vec()),
                (2, Value::Bytes(b)) => qualifier = Some(b.to_vec()),
                (1 | 2, v) => return Err(f.wrong_type(field, &v)),
                _ => {}
            }
        }
        Ok(PbTableName {
            namespace: required(namespace, M, 1, "namespace")?,
            qualifier: required(qualifier, M, 2, "qualifier")?,
        })
    }
}

impl PbRegionInfo {
    /// The message's bytes (no magic), every field written, as `ProtobufUtil.toRegionInfo`
    /// sets them.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        varint_field(&mut out, 1, self.region_id);
        bytes_field(&mut out, 2, &self.table_name.encode());
        bytes_field(&mut out, 3, &self.start_key);
        bytes_field(&mut out, 4, &self.end_key);
        varint_field(&mut out, 5, u64::from(self.offline));
        varint_field(&mut out, 6, u64::from(self.split));
        // int32: a negative value is sign-extended to 10 bytes, as protobuf writes it.
        varint_field(&mut out, 7, i64::from(self.replica_id) as u64);
        out
    }

    /// `info:regioninfo`: [`PB_MAGIC`] then [`PbRegionInfo::encode`].
    pub fn to_cell_value(&self) -> Vec<u8> {
        let mut out = PB_MAGIC.to_vec();
        out.extend_from_slice(&self.encode());
        out
    }

    /// Decodes the message's bytes (no magic).
    pub fn decode(data: &[u8]) -> Result<PbRegionInfo, CatalogValueError> {
        const M: &str = "RegionInfo";
        let mut f = Fields::new(M, data);
        let (mut id, mut table) = (None, None);
        let mut out = PbRegionInfo::default();
        while let Some((field, v)) = f.next_field()? {
            match (field, v) {
                (1, Value::Varint(n)) => id = Some(n),
                (2, Value::Bytes(b)) => table = Some(PbTableName::decode(b)?),
                (3, Value::Bytes(b)) => out.start_key = b.to_vec(),
                (4, Value::Bytes(b)) => out.end_key = b.to_vec(),
                (5, Value::Varint(n)) => out.offline = n != 0,
                (6, Value::Varint(n)) => out.split = n != 0,
                // int32 takes the low 32 bits of the varint, as protobuf reads it.
                (7, Value::Varint(n)) => out.replica_id = n as u32 as i32,
                (1..=7, v) => return Err(f.wrong_type(field, &v)),
                _ => {}
            }
        }
        out.region_id = required(id, M, 1, "region_id")?;
        out.table_name = required(table, M, 2, "table_name")?;
        Ok(out)
    }

    /// Decodes an `info:regioninfo` cell: [`PB_MAGIC`], then the message.
    pub fn from_cell_value(value: &[u8]) -> Result<PbRegionInfo, CatalogValueError> {
        match value.strip_prefix(PB_MAGIC.as_slice()) {
            Some(rest) => PbRegionInfo::decode(rest),
            None => Err(CatalogValueError::NoMagic),
        }
    }
}

impl PbNamespaceDescriptor {
    /// `info:d` of `hbase:namespace`: the message, no magic (as `TableNamespaceManager`
    /// writes `ProtobufUtil.toProtoNamespaceDescriptor(ns).toByteArray()`).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        bytes_field(&mut out, 1, &self.name);
        for (k, v) in &self.configuration {
            let mut pair = Vec::new();
            bytes_field(&mut pair, 1, k.as_bytes());
            bytes_field(&mut pair, 2, v.as_bytes());
            bytes_field(&mut out, 2, &pair);
        }
        out
    }

    /// Decodes an `info:d` value.
    pub fn decode(data: &[u8]) -> Result<PbNamespaceDescriptor, CatalogValueError> {
        const M: &str = "NamespaceDescriptor";
        let mut f = Fields::new(M, data);
        let mut name = None;
        let mut configuration = Vec::new();
        while let Some((field, v)) = f.next_field()? {
            match (field, v) {
                (1, Value::Bytes(b)) => name = Some(b.to_vec()),
                (2, Value::Bytes(b)) => configuration.push(decode_pair(b)?),
                (1 | 2, v) => return Err(f.wrong_type(field, &v)),
                _ => {}
            }
        }
        Ok(PbNamespaceDescriptor {
            name: required(name, M, 1, "name")?,
            configuration,
        })
    }
}

/// HBase.proto's `NameStringPair { required string name = 1; required string value = 2; }`.
fn decode_pair(data: &[u8]) -> Result<(String, String), CatalogValueError> {
    const M: &str = "NameStringPair";
    let mut f = Fields::new(M, data);
    let (mut name, mut value) = (None, None);
    let text = |b: &[u8], field, name| {
        String::from_utf8(b.to_vec()).map_err(|_| CatalogValueError::NotUtf8 {
            message: M,
            field,
            name,
        })
    };
    while let Some((field, v)) = f.next_field()? {
        match (field, v) {
            (1, Value::Bytes(b)) => name = Some(text(b, 1, "name")?),
            (2, Value::Bytes(b)) => value = Some(text(b, 2, "value")?),
            (1 | 2, v) => return Err(f.wrong_type(field, &v)),
            _ => {}
        }
    }
    Ok((
        required(name, M, 1, "name")?,
        required(value, M, 2, "value")?,
    ))
}

impl PbTableState {
    /// `table:state`: the message, no magic.
    pub fn encode(self) -> Vec<u8> {
        let mut out = Vec::new();
        varint_field(&mut out, 1, self.number());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hbase:namespace` of Apache HBase 2.6.1 after `create_namespace 'catalog_ns1',
    /// {'PROPERTY_NAME'=>'PROPERTY_VALUE'}` (crates/gateway/tests/data/hbase_namespace_2.6.1.tsv).
    const NS_WITH_PROPERTY: &[u8] =
        b"\x0a\x0bcatalog_ns1\x12\x1f\x0a\x0dPROPERTY_NAME\x12\x0ePROPERTY_VALUE";

    #[test]
    fn namespace_descriptor_reads_and_writes_hbase_bytes() {
        let d = PbNamespaceDescriptor::decode(NS_WITH_PROPERTY).unwrap();
        assert_eq!(d.name, b"catalog_ns1");
        assert_eq!(
            d.configuration,
            vec![("PROPERTY_NAME".to_string(), "PROPERTY_VALUE".to_string())]
        );
        assert_eq!(d.encode(), NS_WITH_PROPERTY);
    }

    #[test]
    fn region_info_reads_and_writes_hbase_bytes() {
        // The oracle's hbase:namespace region (HBase 2.6.1).
        let cell = b"PBUF\x08\xab\xac\x80\x91\xa14\x12\x12\x0a\x05hbase\x12\x09namespace\x1a\x00\x22\x00\x28\x00\x30\x00\x38\x00";
        let ri = PbRegionInfo::from_cell_value(cell).unwrap();
        assert_eq!(ri.region_id, 1_795_600_422_443);
        assert_eq!(ri.table_name.display_name(), b"hbase:namespace");
        assert_eq!((ri.start_key.len(), ri.end_key.len()), (0, 0));
        assert_eq!(ri.to_cell_value(), cell);
    }

    #[test]
    fn negative_replica_ids_round_trip_as_int32() {
        let ri = PbRegionInfo {
            replica_id: -1,
            ..PbRegionInfo::default()
        };
        assert_eq!(PbRegionInfo::decode(&ri.encode()).unwrap().replica_id, -1);
    }

    #[test]
    fn unknown_fields_are_skipped_and_required_ones_checked() {
        // field 9 varint, field 10 fixed64, field 11 fixed32, then the name.
        let mut v = vec![0x48, 0x01, 0x51, 0, 0, 0, 0, 0, 0, 0, 0, 0x5d, 0, 0, 0, 0];
        v.extend_from_slice(b"\x0a\x02ns");
        assert_eq!(PbNamespaceDescriptor::decode(&v).unwrap().name, b"ns");
        assert_eq!(
            PbNamespaceDescriptor::decode(b"").unwrap_err(),
            CatalogValueError::MissingField {
                message: "NamespaceDescriptor",
                field: 1,
                name: "name"
            }
        );
    }

    #[test]
    fn malformed_values_are_errors_naming_the_place() {
        assert_eq!(
            PbNamespaceDescriptor::decode(b"\x0a\x09ns").unwrap_err(),
            CatalogValueError::Truncated {
                message: "NamespaceDescriptor",
                offset: 2
            }
        );
        assert!(matches!(
            PbRegionInfo::decode(&[
                0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01
            ]),
            Err(CatalogValueError::VarintTooLong { offset: 1, .. })
        ));
        assert!(matches!(
            PbRegionInfo::decode(b"\x0b"),
            Err(CatalogValueError::WireType { wire_type: 3, .. })
        ));
        // A known field with the wrong wire type is named at its key: region_id (field 1,
        // a varint) sent as bytes after an unknown varint field 9.
        assert_eq!(
            PbRegionInfo::decode(b"\x48\x01\x0a\x01x").unwrap_err(),
            CatalogValueError::WireType {
                message: "RegionInfo",
                field: 1,
                wire_type: 2,
                offset: 2
            }
        );
        assert_eq!(
            PbRegionInfo::from_cell_value(b"PBU").unwrap_err(),
            CatalogValueError::NoMagic
        );
        assert!(matches!(
            PbNamespaceDescriptor::decode(b"\x12\x04\x0a\x02\xff\xfe"),
            Err(CatalogValueError::NotUtf8 { .. }) | Err(CatalogValueError::MissingField { .. })
        ));
        // A length past the end, claimed as a huge varint, allocates nothing.
        assert!(PbRegionInfo::decode(b"\x1a\xff\xff\xff\xff\xff\xff\xff\xff\x7f").is_err());
    }

    #[test]
    fn table_states_are_hbase_numbers() {
        assert_eq!(PbTableState::Enabled.encode(), b"\x08\x00");
        assert_eq!(PbTableState::Disabled.encode(), b"\x08\x01");
    }
}
