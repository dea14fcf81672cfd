//! `CellSetModel` (rows of cells: what reads answer and writes send) in JSON, XML and protobuf,
//! keys, columns and values base64 in JSON and XML as HBase writes them.

use super::{b64, json_str, unb64};
use crate::error::RestError;
use crate::media::Repr;
use crate::proto;
use crate::xml;
use ferrobase_engine::{Cell, RowResult};
use prost::Message;

/// One cell: its column (`family:qualifier`), timestamp and value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CellModel {
    /// `family:qualifier`; absent in a write: the row spec's column.
    pub column: Option<Vec<u8>>,
    /// Absent in a write: the server's clock (HBase's `LATEST_TIMESTAMP`).
    pub timestamp: Option<i64>,
    /// The value.
    pub value: Vec<u8>,
}

/// One row: its key (absent in a write: the row spec's) and cells.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowModel {
    /// The row key.
    pub key: Option<Vec<u8>>,
    /// Its cells, in HBase's order.
    pub cells: Vec<CellModel>,
}

/// Rows of cells.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CellSetModel {
    /// The rows, in order.
    pub rows: Vec<RowModel>,
}

/// `family:qualifier` of a cell.
pub fn column_of(c: &Cell) -> Vec<u8> {
    let mut col = c.family().to_vec();
    col.push(b':');
    col.extend_from_slice(c.qualifier());
    col
}

impl RowModel {
    /// The row of a read's result (`RestUtil.createRowModelFromResult`).
    pub fn of_result(r: &RowResult) -> RowModel {
        RowModel {
            key: Some(r.row().to_vec()),
            cells: r
                .cells
                .iter()
                .map(|c| CellModel {
                    column: Some(column_of(c)),
                    timestamp: Some(c.timestamp()),
                    value: c.value().to_vec(),
                })
                .collect(),
        }
    }
}

impl RowModel {
    /// The row as a member of a CellSet's JSON `Row` array.
    pub fn to_json(&self) -> String {
        let cells: Vec<String> = self
            .cells
            .iter()
            .map(|c| {
                format!(
                    "{{\"column\":{},\"timestamp\":{},\"$\":{}}}",
                    json_str(&b64(c.column.as_deref().unwrap_or_default())),
                    c.timestamp.unwrap_or(i64::MAX),
                    json_str(&b64(&c.value))
                )
            })
            .collect();
        format!(
            "{{\"key\":{},\"Cell\":[{}]}}",
            json_str(&b64(self.key.as_deref().unwrap_or_default())),
            cells.join(",")
        )
    }

    /// The row as a CellSet's `<Row>` element.
    pub fn write_xml(&self, w: &mut xml::Writer) {
        let key = b64(self.key.as_deref().unwrap_or_default());
        w.open("Row", &[("key", key)], self.cells.is_empty());
        if self.cells.is_empty() {
            return;
        }
        for c in &self.cells {
            w.open(
                "Cell",
                &[
                    ("column", b64(c.column.as_deref().unwrap_or_default())),
                    ("timestamp", c.timestamp.unwrap_or(i64::MAX).to_string()),
                ],
                false,
            );
            w.text(&b64(&c.value));
            w.close("Cell");
        }
        w.close("Row");
    }
}

impl CellSetModel {
    /// The non-empty results, one row each.
    pub fn of_results(rows: &[RowResult]) -> CellSetModel {
        CellSetModel {
            rows: rows
                .iter()
                .filter(|r| !r.is_empty())
                .map(RowModel::of_result)
                .collect(),
        }
    }

    /// The model in `repr` (JSON, XML or protobuf).
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => self.to_json().into_bytes(),
            Repr::Protobuf => self.to_proto().encode_to_vec(),
            _ => self.to_xml(),
        }
    }

    fn to_json(&self) -> String {
        let rows: Vec<String> = self.rows.iter().map(RowModel::to_json).collect();
        format!("{{\"Row\":[{}]}}", rows.join(","))
    }

    fn to_xml(&self) -> Vec<u8> {
        let mut w = xml::Writer::document();
        if self.rows.is_empty() {
            w.open("CellSet", &[], true);
            return w.finish();
        }
        w.open("CellSet", &[], false);
        for r in &self.rows {
            r.write_xml(&mut w);
        }
        w.close("CellSet");
        w.finish()
    }

    fn to_proto(&self) -> proto::CellSet {
        proto::CellSet {
            rows: self
                .rows
                .iter()
                .map(|r| proto::CellSetRow {
                    key: r.key.clone(),
                    values: r
                        .cells
                        .iter()
                        .map(|c| proto::Cell {
                            row: None,
                            column: c.column.clone(),
                            timestamp: c.timestamp,
                            data: Some(c.value.clone()),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// A request body in `repr`; anything malformed is a 400 naming what.
    pub fn decode(repr: Repr, body: &[u8]) -> Result<CellSetModel, RestError> {
        match repr {
            Repr::Json => Self::from_json(body),
            Repr::Xml => Self::from_xml(body),
            Repr::Protobuf => Self::from_proto(body),
            _ => Err(RestError::unsupported_media(repr.content_type())),
        }
    }

    fn from_json(body: &[u8]) -> Result<CellSetModel, RestError> {
        let v: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| RestError::bad_request(format!("malformed JSON: {e}")))?;
        let bad = |what: &str| RestError::bad_request(format!("malformed CellSet: {what}"));
        let obj = v.as_object().ok_or_else(|| bad("not an object"))?;
        let mut out = CellSetModel::default();
        for row in list(obj.get("Row")) {
            let row = row
                .as_object()
                .ok_or_else(|| bad("a Row is not an object"))?;
            let key = match row.get("key") {
                None | Some(serde_json::Value::Null) => None,
                Some(k) => Some(unb64(
                    k.as_str().ok_or_else(|| bad("key is not a string"))?,
                )?),
            };
            let mut cells = Vec::new();
            for c in list(row.get("Cell")) {
                let c = c
                    .as_object()
                    .ok_or_else(|| bad("a Cell is not an object"))?;
                let column = match c.get("column") {
                    None | Some(serde_json::Value::Null) => None,
                    Some(k) => Some(unb64(
                        k.as_str().ok_or_else(|| bad("column is not a string"))?,
                    )?),
                };
                let timestamp = match c.get("timestamp") {
                    None | Some(serde_json::Value::Null) => None,
                    Some(t) => Some(t.as_i64().ok_or_else(|| bad("timestamp is not a long"))?),
                };
                let value = match c.get("$") {
                    None | Some(serde_json::Value::Null) => Vec::new(),
                    Some(v) => unb64(v.as_str().ok_or_else(|| bad("$ is not a string"))?)?,
                };
                cells.push(CellModel {
                    column,
                    timestamp,
                    value,
                });
            }
            out.rows.push(RowModel { key, cells });
        }
        Ok(out)
    }

    fn from_xml(body: &[u8]) -> Result<CellSetModel, RestError> {
        let root = xml::parse(body)?;
        if root.name != "CellSet" {
            return Err(RestError::bad_request(format!(
                "malformed CellSet: the root element is <{}>",
                root.name
            )));
        }
        let mut out = CellSetModel::default();
        for row in root.children_named("Row") {
            let key = row.attr("key").map(unb64).transpose()?;
            let mut cells = Vec::new();
            for c in row.children_named("Cell") {
                let timestamp = c
                    .attr("timestamp")
                    .map(|t| {
                        t.trim().parse::<i64>().map_err(|_| {
                            RestError::bad_request(format!(
                                "malformed CellSet: timestamp {t:?} is not a long"
                            ))
                        })
                    })
                    .transpose()?;
                cells.push(CellModel {
                    column: c.attr("column").map(unb64).transpose()?,
                    timestamp,
                    value: unb64(c.text.trim())?,
                });
            }
            out.rows.push(RowModel { key, cells });
        }
        Ok(out)
    }

    fn from_proto(body: &[u8]) -> Result<CellSetModel, RestError> {
        let m = proto::CellSet::decode(body)
            .map_err(|e| RestError::bad_request(format!("malformed protobuf CellSet: {e}")))?;
        Ok(CellSetModel {
            rows: m
                .rows
                .into_iter()
                .map(|r| RowModel {
                    key: r.key,
                    cells: r
                        .values
                        .into_iter()
                        .map(|c| CellModel {
                            column: c.column,
                            timestamp: c.timestamp,
                            value: c.data.unwrap_or_default(),
                        })
                        .collect(),
                })
                .collect(),
        })
    }
}

/// A JSON member that may be an array or a single object (Jackson's
/// `ACCEPT_SINGLE_VALUE_AS_ARRAY`, as HBase configures it).
fn list(v: Option<&serde_json::Value>) -> Vec<&serde_json::Value> {
    match v {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(a)) => a.iter().collect(),
        Some(other) => vec![other],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CellSetModel {
        CellSetModel {
            rows: vec![RowModel {
                key: Some(b"r1".to_vec()),
                cells: vec![CellModel {
                    column: Some(b"cf:a".to_vec()),
                    timestamp: Some(5),
                    value: b"v1".to_vec(),
                }],
            }],
        }
    }

    #[test]
    fn every_representation_round_trips() {
        for repr in [Repr::Json, Repr::Xml, Repr::Protobuf] {
            let bytes = sample().encode(repr);
            assert_eq!(
                CellSetModel::decode(repr, &bytes).unwrap(),
                sample(),
                "{repr:?}"
            );
        }
    }

    #[test]
    fn json_is_hbase_s() {
        assert_eq!(
            String::from_utf8(sample().encode(Repr::Json)).unwrap(),
            r#"{"Row":[{"key":"cjE=","Cell":[{"column":"Y2Y6YQ==","timestamp":5,"$":"djE="}]}]}"#
        );
    }

    #[test]
    fn malformed_bodies_are_400() {
        for (repr, body) in [
            (Repr::Json, &b"{bad"[..]),
            (Repr::Json, br#"{"Row":[{"key":"!!!"}]}"#),
            (
                Repr::Json,
                br#"{"Row":[{"key":"cjE=","Cell":[{"timestamp":"x"}]}]}"#,
            ),
            (Repr::Xml, b"<CellSet><Row key='***'/></CellSet>"),
            (Repr::Xml, b"<Nope/>"),
            (Repr::Protobuf, b"\x0a\xff\xff\xff"),
        ] {
            assert_eq!(CellSetModel::decode(repr, body).unwrap_err().status, 400);
        }
    }
}
