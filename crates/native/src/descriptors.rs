//! Table and family descriptors between HBase's protobuf form (`TableSchema`,
//! `ColumnFamilySchema`: attributes as text pairs, as `ProtobufUtil` writes them) and the
//! engine's. Every attribute the Java client sends is either honoured, or a default the engine
//! shares (accepted), or refused naming it: never dropped silently.

use crate::error::RpcError;
use crate::proto::hbase::{BytesBytesPair, ColumnFamilySchema, TableSchema};
use crate::regions::{pb_table_name, table_text};
use ferrobase_engine::{ColumnFamilyDescriptor, Durability, TableDescriptor, TableName};
use ferrobase_gateway::hbase_values::{
    apply_family_values, table_value, FamilyValueError, TableValue, FAMILY_DEFAULTS,
};

fn text(b: Option<&[u8]>) -> String {
    String::from_utf8_lossy(b.unwrap_or_default()).into_owned()
}

/// The engine's family of a `ColumnFamilySchema`.
pub fn family_from_pb(cf: &ColumnFamilySchema) -> Result<ColumnFamilyDescriptor, RpcError> {
    let mut family = ColumnFamilyDescriptor::new(cf.name.clone().unwrap_or_default());
    if let Some(c) = cf.configuration.first() {
        return Err(RpcError::unsupported(format!(
            "column family attribute CONFIGURATION is not supported by ferrobase ({})",
            c.name.as_deref().unwrap_or_default()
        )));
    }
    let values: Vec<(String, String)> = cf
        .attributes
        .iter()
        .map(|a| (text(a.first.as_deref()), text(a.second.as_deref())))
        .collect();
    apply_family_values(&mut family, &values).map_err(|e| match e {
        FamilyValueError::Unsupported(why) => RpcError::unsupported(why),
        FamilyValueError::Engine(e) => RpcError::from(e),
    })?;
    Ok(family)
}

/// The `ColumnFamilySchema` of a family, every attribute written as the Java client's own
/// descriptor would (`TTL` forever as `2147483647`).
pub fn family_to_pb(cf: &ColumnFamilyDescriptor) -> ColumnFamilySchema {
    let mut attributes: Vec<BytesBytesPair> = FAMILY_DEFAULTS
        .iter()
        .take(2)
        .map(|(k, v)| pair(k, v))
        .collect();
    for (k, v) in cf.to_attributes() {
        let v = if k == "TTL" && cf.ttl_ms().is_none() {
            i32::MAX.to_string()
        } else {
            v
        };
        attributes.push(pair(k, &v));
    }
    ColumnFamilySchema {
        name: Some(cf.name.clone()),
        attributes,
        configuration: Vec::new(),
    }
}

fn pair(k: &str, v: &str) -> BytesBytesPair {
    BytesBytesPair {
        first: Some(k.as_bytes().to_vec()),
        second: Some(v.as_bytes().to_vec()),
    }
}

/// The engine's descriptor of a `TableSchema`.
pub fn table_from_pb(schema: &TableSchema) -> Result<TableDescriptor, RpcError> {
    let name = table_text(schema.table_name.as_ref())?;
    let mut desc = TableDescriptor::new(TableName::parse(&name).map_err(RpcError::from)?);
    for cf in &schema.column_families {
        desc = desc.with_family(family_from_pb(cf)?);
    }
    for a in &schema.attributes {
        let key = text(a.first.as_deref());
        let value = text(a.second.as_deref());
        match table_value(&key, &value) {
            TableValue::Default => {}
            TableValue::Coprocessor(k) => {
                return Err(RpcError::unsupported(format!(
                    "table attribute {k} is not supported by ferrobase (it has no coprocessors)"
                )))
            }
            TableValue::Durability(v) => {
                desc.durability = Durability::parse(v).map_err(RpcError::from)?;
            }
            TableValue::Attribute(k, v) => desc.attributes.set(k, v).map_err(RpcError::from)?,
        }
    }
    for c in &schema.configuration {
        desc.attributes
            .set(
                c.name.as_deref().unwrap_or_default(),
                c.value.as_deref().unwrap_or_default(),
            )
            .map_err(RpcError::from)?;
    }
    Ok(desc)
}

/// The `TableSchema` of a descriptor.
pub fn table_to_pb(desc: &TableDescriptor) -> TableSchema {
    let mut attributes = vec![pair("IS_META", "false")];
    if desc.durability != Durability::UseDefault {
        attributes.push(pair("DURABILITY", desc.durability.name()));
    }
    attributes.extend(desc.attributes.iter().map(|(k, v)| pair(k, v)));
    TableSchema {
        table_name: Some(pb_table_name(&desc.name.to_string())),
        attributes,
        column_families: desc.families.iter().map(family_to_pb).collect(),
        configuration: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_as_the_java_client_sends_it_round_trips() {
        let cf = ColumnFamilySchema {
            name: Some(b"cf1".to_vec()),
            attributes: [
                ("INDEX_BLOCK_ENCODING", "NONE"),
                ("VERSIONS", "1000"),
                ("KEEP_DELETED_CELLS", "FALSE"),
                ("DATA_BLOCK_ENCODING", "NONE"),
                ("TTL", "2147483647"),
                ("MIN_VERSIONS", "0"),
                ("REPLICATION_SCOPE", "0"),
                ("BLOOMFILTER", "ROWCOL"),
                ("IN_MEMORY", "false"),
                ("COMPRESSION", "GZ"),
                ("BLOCKCACHE", "true"),
                ("BLOCKSIZE", "65536"),
            ]
            .iter()
            .map(|(k, v)| pair(k, v))
            .collect(),
            configuration: Vec::new(),
        };
        let family = family_from_pb(&cf).unwrap();
        assert_eq!(family.max_versions, 1000);
        assert_eq!(family.ttl_ms(), None);
        let back = family_to_pb(&family);
        let get = |k: &str| {
            back.attributes
                .iter()
                .find(|p| p.first.as_deref() == Some(k.as_bytes()))
                .and_then(|p| p.second.clone())
        };
        assert_eq!(get("TTL"), Some(b"2147483647".to_vec()));
        assert_eq!(get("BLOOMFILTER"), Some(b"ROWCOL".to_vec()));
        assert_eq!(family_from_pb(&back).unwrap(), family);
    }

    #[test]
    fn attributes_ferrobase_cannot_honour_are_refused() {
        let cf = ColumnFamilySchema {
            name: Some(b"cf".to_vec()),
            attributes: vec![pair("REPLICATION_SCOPE", "1")],
            configuration: Vec::new(),
        };
        let e = family_from_pb(&cf).unwrap_err();
        assert!(e.message.contains("REPLICATION_SCOPE"), "{e:?}");
    }

    #[test]
    fn mob_and_configuration_are_refused_in_the_shells_words() {
        let cf = |attrs: &[(&str, &str)]| ColumnFamilySchema {
            name: Some(b"f1".to_vec()),
            attributes: attrs.iter().map(|(k, v)| pair(k, v)).collect(),
            configuration: Vec::new(),
        };
        // MOB_THRESHOLD first on the wire: the refusal still names IS_MOB.
        let e =
            family_from_pb(&cf(&[("MOB_THRESHOLD", "1000000"), ("IS_MOB", "true")])).unwrap_err();
        assert!(
            e.message
                .contains("column family attribute IS_MOB is not supported by ferrobase"),
            "{e:?}"
        );
        // IS_MOB => false asks for nothing.
        assert!(family_from_pb(&cf(&[("IS_MOB", "false"), ("VERSIONS", "3")])).is_ok());
        let mut with_conf = cf(&[]);
        with_conf
            .configuration
            .push(crate::proto::hbase::NameStringPair {
                name: Some("hbase.hstore.blockingStoreFiles".into()),
                value: Some("10".into()),
            });
        let e = family_from_pb(&with_conf).unwrap_err();
        assert!(
            e.message
                .contains("column family attribute CONFIGURATION is not supported by ferrobase"),
            "{e:?}"
        );
    }

    #[test]
    fn coprocessors_are_refused() {
        let schema = TableSchema {
            table_name: Some(pb_table_name("t1")),
            attributes: vec![pair("coprocessor$1", "hdfs:///foo.jar|com.foo.Foo|1001|")],
            column_families: Vec::new(),
            configuration: Vec::new(),
        };
        let e = table_from_pb(&schema).unwrap_err();
        assert!(e.message.contains("it has no coprocessors"), "{e:?}");
    }
}
