//! Conversions between engine types and the service's structs (TCell, TRowResult,
//! ColumnDescriptor, TRegionInfo).

use super::args::column_name;
use super::ServiceError;
use crate::thrift::{TStruct, TType, TValue};
use ferrobase_engine::client::RegionInfo;
use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::{Cell, ColumnFamilyDescriptor, RowResult};

/// `TCell { 1: value, 2: timestamp }`.
pub(crate) fn tcell(c: &Cell) -> TValue {
    TValue::Struct(
        TStruct::new()
            .with(1, TValue::Binary(c.value().to_vec()))
            .with(2, TValue::I64(c.timestamp())),
    )
}

/// A list of TCells.
pub(crate) fn tcells<'a>(cells: impl Iterator<Item = &'a Cell>) -> TValue {
    TValue::List(TType::Struct, cells.map(tcell).collect())
}

/// `TRowResult`: `columns` (map, newest version per column) unless `sorted`, then
/// `sortedColumns` (list of TColumn in column order), as HBase's ThriftUtilities.
pub(crate) fn trow(r: &RowResult, sorted: bool) -> TValue {
    let mut s = TStruct::new().with(1, TValue::Binary(r.row().to_vec()));
    if sorted {
        let mut cols: Vec<(Vec<u8>, &Cell)> = Vec::new();
        for c in &r.cells {
            let name = column_name(c.family(), c.qualifier());
            if cols.last().is_none_or(|(n, _)| *n != name) {
                cols.push((name, c));
            }
        }
        cols.sort_by(|a, b| a.0.cmp(&b.0));
        let list = cols
            .into_iter()
            .map(|(n, c)| {
                TValue::Struct(TStruct::new().with(1, TValue::Binary(n)).with(2, tcell(c)))
            })
            .collect();
        s = s.with(3, TValue::List(TType::Struct, list));
    } else {
        let mut entries: Vec<(TValue, TValue)> = Vec::new();
        let mut last: Option<Vec<u8>> = None;
        for c in &r.cells {
            let name = column_name(c.family(), c.qualifier());
            if last.as_ref() == Some(&name) {
                continue; // keep the newest version only
            }
            last = Some(name.clone());
            entries.push((TValue::Binary(name), tcell(c)));
        }
        s = s.with(2, TValue::Map(TType::Binary, TType::Struct, entries));
    }
    TValue::Struct(s)
}

/// A family as HBase's Thrift `ColumnDescriptor` (name ends with ':').
pub(crate) fn column_descriptor(f: &ColumnFamilyDescriptor) -> TValue {
    let mut name = f.name.clone();
    name.push(b':');
    let ttl = if f.ttl_seconds >= FOREVER {
        FOREVER
    } else {
        f.ttl_seconds
    };
    TValue::Struct(
        TStruct::new()
            .with(1, TValue::Binary(name))
            .with(2, TValue::I32(f.max_versions as i32))
            .with(3, TValue::string(f.compression.name()))
            .with(4, TValue::Bool(f.in_memory))
            .with(5, TValue::string(f.bloom_filter.name()))
            .with(6, TValue::I32(0))
            .with(7, TValue::I32(0))
            .with(8, TValue::Bool(f.block_cache))
            .with(9, TValue::I32(ttl as i32)),
    )
}

/// Reads a `ColumnDescriptor`, applying the IDL's defaults for absent fields.
pub(crate) fn family_from(s: &TStruct) -> Result<ColumnFamilyDescriptor, ServiceError> {
    let name = match s.get(1) {
        Some(TValue::Binary(b)) => b.clone(),
        _ => {
            return Err(ServiceError::IllegalArgument(
                "column descriptor without a name".into(),
            ))
        }
    };
    let name = match name.iter().position(|&b| b == b':') {
        Some(i) => name[..i].to_vec(),
        None => name,
    };
    let mut f = ColumnFamilyDescriptor::new(name);
    let i32_of = |id, default: i32| match s.get(id) {
        Some(TValue::I32(v)) => *v,
        _ => default,
    };
    let str_of = |id, default: &str| match s.get(id) {
        Some(TValue::Binary(v)) => String::from_utf8_lossy(v).into_owned(),
        _ => default.to_string(),
    };
    let bool_of = |id, default: bool| match s.get(id) {
        Some(TValue::Bool(v)) => *v,
        _ => default,
    };
    let versions = i32_of(2, 3);
    if versions <= 0 {
        return Err(ServiceError::IllegalArgument(format!(
            "maxVersions must be positive, got {versions}"
        )));
    }
    f.max_versions = versions as u32;
    f.set_attribute("COMPRESSION", &str_of(3, "NONE"))?;
    f.in_memory = bool_of(4, false);
    f.set_attribute("BLOOMFILTER", &str_of(5, "NONE"))?;
    f.block_cache = bool_of(8, false);
    let ttl = i32_of(9, -1);
    f.ttl_seconds = if ttl <= 0 { FOREVER } else { i64::from(ttl) };
    f.validate()?;
    Ok(f)
}

/// `TRegionInfo` for a region of `table`.
pub(crate) fn region_info(table: &str, r: &RegionInfo) -> TValue {
    let mut name = format!("{table},").into_bytes();
    name.extend_from_slice(&r.start);
    name.extend_from_slice(format!(",{}.", r.id).as_bytes());
    TValue::Struct(
        TStruct::new()
            .with(1, TValue::Binary(r.start.clone()))
            .with(2, TValue::Binary(r.end.clone()))
            .with(3, TValue::I64(r.id as i64))
            .with(4, TValue::Binary(name))
            .with(5, TValue::Byte(1))
            .with(6, TValue::string("localhost"))
            .with(7, TValue::I32(0)),
    )
}
