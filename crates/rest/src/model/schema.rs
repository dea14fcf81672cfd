//! `TableSchemaModel` and `ColumnSchemaModel`: a table's name, attributes and families, each
//! attribute a text pair as HBase's descriptors hold them. To and from the engine's descriptors
//! through the native door's conversion (`ferrobase_native::descriptors`), so a REST schema
//! means exactly what the same attributes mean from the Java client.

use super::json_str;
use crate::error::RestError;
use crate::media::Repr;
use crate::proto;
use crate::xml;
use ferrobase_engine::TableDescriptor;
use ferrobase_native::descriptors::{table_from_pb, table_to_pb};
use ferrobase_native::proto::hbase::{self as pb, BytesBytesPair};
use prost::Message;

/// The order HBase 2.6's `ColumnFamilyDescriptor` lists its attributes in (its values map).
const FAMILY_ORDER: &[&str] = &[
    "INDEX_BLOCK_ENCODING",
    "VERSIONS",
    "KEEP_DELETED_CELLS",
    "DATA_BLOCK_ENCODING",
    "TTL",
    "MIN_VERSIONS",
    "REPLICATION_SCOPE",
    "BLOOMFILTER",
    "IN_MEMORY",
    "COMPRESSION",
    "BLOCKCACHE",
    "BLOCKSIZE",
];

/// A family: its name and attributes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnSchemaModel {
    /// The family's name.
    pub name: String,
    /// Its attributes, as text.
    pub attrs: Vec<(String, String)>,
}

/// A table: its name, attributes and families.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableSchemaModel {
    /// The table's name.
    pub name: String,
    /// Its attributes (`IS_META`, `READONLY`, ...), as text.
    pub attrs: Vec<(String, String)>,
    /// Its families.
    pub columns: Vec<ColumnSchemaModel>,
}

fn pairs(p: &[BytesBytesPair]) -> Vec<(String, String)> {
    p.iter()
        .map(|a| {
            (
                String::from_utf8_lossy(a.first.as_deref().unwrap_or_default()).into_owned(),
                String::from_utf8_lossy(a.second.as_deref().unwrap_or_default()).into_owned(),
            )
        })
        .collect()
}

fn to_pairs(attrs: &[(String, String)]) -> Vec<BytesBytesPair> {
    attrs
        .iter()
        .map(|(k, v)| BytesBytesPair {
            first: Some(k.as_bytes().to_vec()),
            second: Some(v.as_bytes().to_vec()),
        })
        .collect()
}

impl TableSchemaModel {
    /// The model of an engine descriptor, attributes as HBase lists them.
    pub fn of_descriptor(desc: &TableDescriptor) -> TableSchemaModel {
        let pb = table_to_pb(desc);
        TableSchemaModel {
            name: desc.name.to_string(),
            attrs: pairs(&pb.attributes),
            columns: pb
                .column_families
                .iter()
                .map(|cf| {
                    let mut attrs = pairs(&cf.attributes);
                    attrs.sort_by_key(|(k, _)| {
                        FAMILY_ORDER
                            .iter()
                            .position(|o| o == k)
                            .unwrap_or(FAMILY_ORDER.len())
                    });
                    ColumnSchemaModel {
                        name: String::from_utf8_lossy(cf.name.as_deref().unwrap_or_default())
                            .into_owned(),
                        attrs,
                    }
                })
                .collect(),
        }
    }

    /// The engine descriptor of this model named `table` (the path's, whatever the body
    /// says, as HBase's `SchemaResource` does); an attribute ferrobase cannot honour is a 400
    /// naming it.
    pub fn to_descriptor(&self, table: &str) -> Result<TableDescriptor, RestError> {
        let (ns, q) = table.split_once(':').unwrap_or(("default", table));
        let schema = pb::TableSchema {
            table_name: Some(pb::TableName {
                namespace: Some(ns.as_bytes().to_vec()),
                qualifier: Some(q.as_bytes().to_vec()),
            }),
            attributes: to_pairs(&self.attrs),
            column_families: self
                .columns
                .iter()
                .map(|c| pb::ColumnFamilySchema {
                    name: Some(c.name.as_bytes().to_vec()),
                    attributes: to_pairs(&c.attrs),
                    configuration: Vec::new(),
                })
                .collect(),
            configuration: Vec::new(),
        };
        table_from_pb(&schema).map_err(|e| RestError::bad_request(e.message))
    }

    /// The model in `repr`.
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => {
                let attrs = |a: &[(String, String)]| -> String {
                    a.iter()
                        .map(|(k, v)| format!(",{}:{}", json_str(k), json_str(v)))
                        .collect()
                };
                let cols: Vec<String> = self
                    .columns
                    .iter()
                    .map(|c| format!("{{\"name\":{}{}}}", json_str(&c.name), attrs(&c.attrs)))
                    .collect();
                format!(
                    "{{\"name\":{},\"ColumnSchema\":[{}]{}}}",
                    json_str(&self.name),
                    cols.join(","),
                    attrs(&self.attrs)
                )
                .into_bytes()
            }
            Repr::Protobuf => self.to_proto().encode_to_vec(),
            Repr::Text => {
                let cols: Vec<String> = self
                    .columns
                    .iter()
                    .map(|c| {
                        let mut s = format!("{{ NAME => '{}'", c.name);
                        for (k, v) in &c.attrs {
                            s.push_str(&format!(", {k} => '{v}'"));
                        }
                        s.push_str(" }");
                        s
                    })
                    .collect();
                let mut s = format!("{{ NAME=> '{}'", self.name);
                for (k, v) in &self.attrs {
                    s.push_str(&format!(", {k} => '{v}'"));
                }
                s.push_str(&format!(", COLUMNS => [ {} ] }}", cols.join(", ")));
                s.into_bytes()
            }
            _ => {
                let mut w = xml::Writer::document();
                let mut attrs = vec![("name", self.name.clone())];
                attrs.extend(self.attrs.iter().map(|(k, v)| (k.as_str(), v.clone())));
                w.open("TableSchema", &attrs, self.columns.is_empty());
                if !self.columns.is_empty() {
                    for c in &self.columns {
                        let mut attrs = vec![("name", c.name.clone())];
                        attrs.extend(c.attrs.iter().map(|(k, v)| (k.as_str(), v.clone())));
                        w.open("ColumnSchema", &attrs, true);
                    }
                    w.close("TableSchema");
                }
                w.finish()
            }
        }
    }

    fn to_proto(&self) -> proto::TableSchema {
        let nv = |a: &[(String, String)]| -> Vec<proto::NameValue> {
            a.iter()
                .map(|(k, v)| proto::NameValue {
                    name: Some(k.clone()),
                    value: Some(v.clone()),
                })
                .collect()
        };
        let get = |a: &[(String, String)], k: &str| {
            a.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
        };
        proto::TableSchema {
            name: Some(self.name.clone()),
            attrs: nv(&self.attrs),
            columns: self
                .columns
                .iter()
                .map(|c| proto::ColumnSchema {
                    name: Some(c.name.clone()),
                    attrs: nv(&c.attrs),
                    ttl: get(&c.attrs, "TTL").and_then(|v| v.parse().ok()),
                    max_versions: get(&c.attrs, "VERSIONS").and_then(|v| v.parse().ok()),
                    compression: get(&c.attrs, "COMPRESSION"),
                })
                .collect(),
            in_memory: None,
            read_only: get(&self.attrs, "READONLY").map(|v| v.eq_ignore_ascii_case("true")),
        }
    }

    /// A request body in `repr`; malformed is a 400.
    pub fn decode(repr: Repr, body: &[u8]) -> Result<TableSchemaModel, RestError> {
        match repr {
            Repr::Json => Self::from_json(body),
            Repr::Xml => Self::from_xml(body),
            Repr::Protobuf => Self::from_proto(body),
            _ => Err(RestError::unsupported_media(repr.content_type())),
        }
    }

    fn from_json(body: &[u8]) -> Result<TableSchemaModel, RestError> {
        let v: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| RestError::bad_request(format!("malformed JSON: {e}")))?;
        let bad = |what: &str| RestError::bad_request(format!("malformed TableSchema: {what}"));
        let obj = v.as_object().ok_or_else(|| bad("not an object"))?;
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut out = TableSchemaModel::default();
        for (k, v) in obj {
            match k.as_str() {
                "name" => out.name = text(v),
                "ColumnSchema" => {
                    let cols = match v {
                        serde_json::Value::Array(a) => a.iter().collect(),
                        other => vec![other],
                    };
                    for c in cols {
                        let c = c
                            .as_object()
                            .ok_or_else(|| bad("a ColumnSchema is not an object"))?;
                        let mut col = ColumnSchemaModel::default();
                        for (k, v) in c {
                            if k == "name" {
                                col.name = text(v);
                            } else {
                                col.attrs.push((k.clone(), text(v)));
                            }
                        }
                        out.columns.push(col);
                    }
                }
                _ => out.attrs.push((k.clone(), text(v))),
            }
        }
        Ok(out)
    }

    fn from_xml(body: &[u8]) -> Result<TableSchemaModel, RestError> {
        let root = xml::parse(body)?;
        if root.name != "TableSchema" {
            return Err(RestError::bad_request(format!(
                "malformed TableSchema: the root element is <{}>",
                root.name
            )));
        }
        let split = |attrs: &[(String, String)]| {
            let mut name = String::new();
            let mut rest = Vec::new();
            for (k, v) in attrs {
                if k == "name" {
                    name = v.clone();
                } else {
                    rest.push((k.clone(), v.clone()));
                }
            }
            (name, rest)
        };
        let (name, attrs) = split(&root.attrs);
        Ok(TableSchemaModel {
            name,
            attrs,
            columns: root
                .children_named("ColumnSchema")
                .map(|c| {
                    let (name, attrs) = split(&c.attrs);
                    ColumnSchemaModel { name, attrs }
                })
                .collect(),
        })
    }

    fn from_proto(body: &[u8]) -> Result<TableSchemaModel, RestError> {
        let m = proto::TableSchema::decode(body)
            .map_err(|e| RestError::bad_request(format!("malformed protobuf TableSchema: {e}")))?;
        let nv = |a: Vec<proto::NameValue>| -> Vec<(String, String)> {
            a.into_iter()
                .map(|p| (p.name.unwrap_or_default(), p.value.unwrap_or_default()))
                .collect()
        };
        let mut attrs = nv(m.attrs);
        if let Some(ro) = m.read_only {
            attrs.push(("READONLY".into(), ro.to_string()));
        }
        Ok(TableSchemaModel {
            name: m.name.unwrap_or_default(),
            attrs,
            columns: m
                .columns
                .into_iter()
                .map(|c| {
                    let mut attrs = nv(c.attrs);
                    if let Some(t) = c.ttl {
                        attrs.push(("TTL".into(), t.to_string()));
                    }
                    if let Some(v) = c.max_versions {
                        attrs.push(("VERSIONS".into(), v.to_string()));
                    }
                    if let Some(comp) = c.compression {
                        attrs.push(("COMPRESSION".into(), comp));
                    }
                    ColumnSchemaModel {
                        name: c.name.unwrap_or_default(),
                        attrs,
                    }
                })
                .collect(),
        })
    }
}
