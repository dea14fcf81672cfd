//! Typed access to a call's argument struct, with HBase's column-name parsing.

use super::ServiceError;
use crate::thrift::{TStruct, TValue};
use ferrobase_engine::Table;

/// A call's arguments.
pub(crate) struct Args<'a>(pub &'a TStruct);

fn missing(id: i16) -> ServiceError {
    ServiceError::IllegalArgument(format!("argument {id} is missing or has the wrong type"))
}

impl Args<'_> {
    pub fn bytes(&self, id: i16) -> Result<Vec<u8>, ServiceError> {
        self.opt_bytes(id).ok_or_else(|| missing(id))
    }

    pub fn opt_bytes(&self, id: i16) -> Option<Vec<u8>> {
        match self.0.get(id) {
            Some(TValue::Binary(b)) => Some(b.clone()),
            _ => None,
        }
    }

    pub fn i32(&self, id: i16) -> Result<i32, ServiceError> {
        match self.0.get(id) {
            Some(TValue::I32(v)) => Ok(*v),
            _ => Err(missing(id)),
        }
    }

    pub fn i64(&self, id: i16) -> Result<i64, ServiceError> {
        match self.0.get(id) {
            Some(TValue::I64(v)) => Ok(*v),
            _ => Err(missing(id)),
        }
    }

    pub fn opt_i64(&self, id: i16) -> Option<i64> {
        match self.0.get(id) {
            Some(TValue::I64(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn opt_i32(&self, id: i16) -> Option<i32> {
        match self.0.get(id) {
            Some(TValue::I32(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn bool_or(&self, id: i16, default: bool) -> bool {
        match self.0.get(id) {
            Some(TValue::Bool(v)) => *v,
            _ => default,
        }
    }

    /// A list of binaries; absent means empty.
    pub fn byte_list(&self, id: i16) -> Vec<Vec<u8>> {
        match self.0.get(id) {
            Some(TValue::List(_, items)) | Some(TValue::Set(_, items)) => items
                .iter()
                .filter_map(|v| match v {
                    TValue::Binary(b) => Some(b.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A list of structs; absent means empty.
    pub fn struct_list(&self, id: i16) -> Vec<&TStruct> {
        match self.0.get(id) {
            Some(TValue::List(_, items)) => items
                .iter()
                .filter_map(|v| match v {
                    TValue::Struct(s) => Some(s),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn strukt(&self, id: i16) -> Option<&TStruct> {
        match self.0.get(id) {
            Some(TValue::Struct(s)) => Some(s),
            _ => None,
        }
    }
}

/// Splits `fam:qual` at the first colon, as HBase's `CellUtil.parseColumn`: `fam` alone means the
/// whole family (`None`), `fam:` the empty qualifier.
pub(crate) fn parse_column(column: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match column.iter().position(|&b| b == b':') {
        Some(i) => (column[..i].to_vec(), Some(column[i + 1..].to_vec())),
        None => (column.to_vec(), None),
    }
}

/// `fam:qual` for a result cell.
pub(crate) fn column_name(family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut c = Vec::with_capacity(family.len() + 1 + qualifier.len());
    c.extend_from_slice(family);
    c.push(b':');
    c.extend_from_slice(qualifier);
    c
}

/// The table named by a Thrift `Text`.
pub(crate) fn table_name(raw: &[u8]) -> Result<String, ServiceError> {
    String::from_utf8(raw.to_vec())
        .map_err(|_| ServiceError::IllegalArgument("table name is not UTF-8".into()))
}

pub(crate) fn open_table(
    engine: &ferrobase_engine::Engine,
    raw: &[u8],
) -> Result<Table, ServiceError> {
    Ok(engine.table(&table_name(raw)?)?)
}
