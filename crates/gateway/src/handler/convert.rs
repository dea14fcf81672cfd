//! Conversions between engine types and the service's structs (TCell, TRowResult,
//! ColumnDescriptor, TRegionInfo).

use super::names::column_name;
use super::ServiceError;
use crate::thrift::hbase::{ColumnDescriptor, TCell, TColumn, TRegionInfo, TRowResult};
use crate::thrift::{TValue, ThriftValue};
use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::RegionInfo;
use ferrobase_engine::{Cell, ColumnFamilyDescriptor, RowResult};

/// A cell's value and timestamp.
pub(crate) fn tcell(c: &Cell) -> TCell {
    TCell {
        value: c.value().to_vec(),
        timestamp: c.timestamp(),
    }
}

/// A list of TCells.
pub(crate) fn tcells<'a>(cells: impl Iterator<Item = &'a Cell>) -> TValue {
    cells.map(tcell).collect::<Vec<_>>().to_value()
}

/// How a `TRowResult` carries its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColumnOrder {
    /// `columns`: a map of the newest cell per column.
    Map,
    /// `sortedColumns`: a list of `TColumn` in column order (a scan's `sortColumns`).
    Sorted,
}

/// `TRowResult`, as HBase's ThriftUtilities builds it.
pub(crate) fn trow(r: &RowResult, order: ColumnOrder) -> TRowResult {
    let mut out = TRowResult {
        row: r.row().to_vec(),
        ..TRowResult::default()
    };
    match order {
        ColumnOrder::Sorted => {
            let mut cols: Vec<(Vec<u8>, &Cell)> = Vec::new();
            for c in &r.cells {
                let name = column_name(c.family(), c.qualifier());
                if cols.last().is_none_or(|(n, _)| *n != name) {
                    cols.push((name, c));
                }
            }
            cols.sort_by(|a, b| a.0.cmp(&b.0));
            out.sorted_columns = Some(
                cols.into_iter()
                    .map(|(column_name, c)| TColumn {
                        column_name,
                        cell: tcell(c),
                    })
                    .collect(),
            );
        }
        ColumnOrder::Map => {
            let mut entries: Vec<(Vec<u8>, TCell)> = Vec::new();
            for c in &r.cells {
                let name = column_name(c.family(), c.qualifier());
                if entries.last().is_some_and(|(n, _)| *n == name) {
                    continue; // keep the newest version only
                }
                entries.push((name, tcell(c)));
            }
            out.columns = Some(entries);
        }
    }
    out
}

/// A family as HBase's Thrift `ColumnDescriptor` (name ends with ':').
pub(crate) fn column_descriptor(f: &ColumnFamilyDescriptor) -> ColumnDescriptor {
    let mut name = f.name.clone();
    name.push(b':');
    let ttl = if f.ttl_seconds >= FOREVER {
        FOREVER
    } else {
        f.ttl_seconds
    };
    ColumnDescriptor {
        name,
        max_versions: f.max_versions as i32,
        compression: f.compression.name().to_string(),
        in_memory: f.in_memory,
        bloom_filter_type: f.bloom_filter.name().to_string(),
        bloom_filter_vector_size: 0,
        bloom_filter_nb_hashes: 0,
        block_cache_enabled: f.block_cache,
        time_to_live: ttl as i32,
    }
}

/// The family a `ColumnDescriptor` describes (absent fields took the IDL's defaults).
pub(crate) fn family_from(d: &ColumnDescriptor) -> Result<ColumnFamilyDescriptor, ServiceError> {
    let name = match d.name.iter().position(|&b| b == b':') {
        Some(i) => d.name[..i].to_vec(),
        None => d.name.clone(),
    };
    let mut f = ColumnFamilyDescriptor::new(name);
    if d.max_versions <= 0 {
        return Err(ServiceError::IllegalArgument(format!(
            "maxVersions must be positive, got {}",
            d.max_versions
        )));
    }
    f.max_versions = d.max_versions as u32;
    f.set_attribute("COMPRESSION", &d.compression)?;
    f.in_memory = d.in_memory;
    f.set_attribute("BLOOMFILTER", &d.bloom_filter_type)?;
    f.block_cache = d.block_cache_enabled;
    f.ttl_seconds = if d.time_to_live <= 0 {
        FOREVER
    } else {
        i64::from(d.time_to_live)
    };
    f.validate()?;
    Ok(f)
}

/// `TRegionInfo` for a region of `table`.
pub(crate) fn region_info(table: &str, r: &RegionInfo) -> TRegionInfo {
    let mut name = format!("{table},").into_bytes();
    name.extend_from_slice(&r.start);
    name.extend_from_slice(format!(",{}.", r.id).as_bytes());
    TRegionInfo {
        start_key: r.start.clone(),
        end_key: r.end.clone(),
        id: r.id as i64,
        name,
        version: 1,
        server_name: b"localhost".to_vec(),
        port: 0,
    }
}
