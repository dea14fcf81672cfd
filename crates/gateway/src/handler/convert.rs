//! Conversions between engine types and the service's structs (TCell, TRowResult,
//! ColumnDescriptor, TRegionInfo).

use super::names::column_name;
use super::ServiceError;
use crate::thrift::hbase::{ColumnDescriptor, TCell, TColumn, TRegionInfo, TRowResult};
use crate::thrift::packed_rows::{self, PackedCell};
use crate::thrift::{EncodeValue, TType, TValue, ThriftValue, ValueWriter};
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

/// The cells of `cells` that a `TRowResult`'s `columns` map keeps: the first (newest) of each
/// run of cells of one column, as [`trow`] keeps them.
fn newest_per_column(cells: &[Cell]) -> impl Iterator<Item = &Cell> {
    cells.iter().enumerate().filter_map(move |(i, c)| {
        let same_as_previous = i
            .checked_sub(1)
            .and_then(|p| cells.get(p))
            .is_some_and(|p| p.family() == c.family() && p.qualifier() == c.qualifier());
        (!same_as_previous).then_some(c)
    })
}

/// A scan's rows as `list<TRowResult>` with `columns` maps ([`ColumnOrder::Map`]), written
/// straight from the engine's cells into the reply: the bytes [`trow`] and `to_value` would
/// write, without a `TRowResult`, a value tree or a copy of any cell's bytes in between.
pub(crate) struct RowResults(pub Vec<RowResult>);

impl EncodeValue for RowResults {
    fn ttype(&self) -> TType {
        TType::List
    }

    fn size_hint(&self) -> usize {
        // Per row: struct and field headers, the row; per cell: the column name, the TCell's
        // headers, value and timestamp.
        self.0
            .iter()
            .map(|r| {
                16 + r.row().len()
                    + r.cells
                        .iter()
                        .map(|c| 28 + c.family().len() + c.qualifier().len() + c.value().len())
                        .sum::<usize>()
            })
            .sum::<usize>()
            + 8
    }

    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.list_begin(TType::Struct, self.0.len());
        for r in &self.0 {
            w.struct_begin();
            w.field(1, TType::Binary);
            w.binary(r.row());
            w.field(2, TType::Map);
            w.map_begin(
                TType::Binary,
                TType::Struct,
                newest_per_column(&r.cells).count(),
            );
            for c in newest_per_column(&r.cells) {
                w.binary_parts(&[c.family(), b":", c.qualifier()]);
                w.struct_begin();
                w.field(1, TType::Binary);
                w.binary(c.value());
                w.field(2, TType::I64);
                w.i64(c.timestamp());
                w.struct_end();
            }
            w.struct_end();
        }
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// A client cell as packed.
fn packed(c: &Cell) -> PackedCell<'_> {
    PackedCell {
        family: c.family(),
        qualifier: c.qualifier(),
        timestamp: c.timestamp(),
        value: c.value(),
    }
}

/// [`RowResults`] in ferrobase's packed form, one `binary` (`TScanBatch` field 3, when
/// `ferrobaseScannerOpen`/`Next` set `packed`; the layout is the thrift crate's
/// [`packed_rows`](crate::thrift::packed_rows)), a row's cells the newest of each column, as
/// `columns` keeps them.
pub(crate) struct PackedRows {
    /// A [`RowResults`].
    rows: crate::thrift::Encoded,
    /// The packed form's length in bytes, counted once.
    len: usize,
}

impl PackedRows {
    /// The packed form of `rows` when they are a [`RowResults`].
    pub(crate) fn new(rows: &crate::thrift::Encoded) -> Option<PackedRows> {
        let len = (rows.downcast_ref::<RowResults>()?.0.iter())
            .map(|r| {
                let (mut count, mut bytes) = (0, 0);
                for c in newest_per_column(&r.cells) {
                    count += 1;
                    bytes += packed_rows::cell_len(&packed(c));
                }
                packed_rows::row_header_len(r.row(), count) + bytes
            })
            .sum();
        Some(PackedRows {
            rows: rows.clone(),
            len,
        })
    }
}

impl EncodeValue for PackedRows {
    fn ttype(&self) -> TType {
        TType::Binary
    }

    fn size_hint(&self) -> usize {
        self.len + 5
    }

    fn encode(&self, w: &mut ValueWriter<'_>) {
        let rows = self
            .rows
            .downcast_ref::<RowResults>()
            .map_or(&[][..], |r| &r.0);
        w.binary_with(self.len, |out| {
            for r in rows {
                packed_rows::put_row_header(out, r.row(), newest_per_column(&r.cells).count());
                for c in newest_per_column(&r.cells) {
                    packed_rows::put_cell(out, &packed(c));
                }
            }
        });
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::thrift::{Binary, Codec, Compact, Encoded, TStruct};
    use ferrobase_engine::CellType;

    /// Rows with several versions of a column, two families, an empty qualifier, a row held
    /// by the result itself and one taken from its first cell, and an empty row.
    fn rows() -> Vec<RowResult> {
        let cell = |row: &str, f: &str, q: &str, ts: i64, v: &str| {
            Cell::new(
                row.as_bytes().to_vec(),
                f.as_bytes().to_vec(),
                q.as_bytes().to_vec(),
                ts,
                CellType::Put,
                v.as_bytes().to_vec(),
            )
        };
        let mut out = vec![
            RowResult::of_cells(vec![
                cell("r1", "a", "", 9, "empty qualifier"),
                cell("r1", "a", "q", 7, "newest"),
                cell("r1", "a", "q", 5, "older"),
                cell("r1", "a", "q", 3, "oldest"),
                cell("r1", "b", "q", 1, &"x".repeat(300)),
            ]),
            RowResult::new(b"r2".to_vec(), vec![cell("r2", "a", "q2", -1, "")]),
            RowResult::new(b"r3".to_vec(), Vec::new()),
        ];
        for i in 0..40 {
            out.push(RowResult::of_cells(
                (0..i % 20)
                    .map(|j| cell(&format!("row{i:04}"), "cf", &format!("c{j}"), i, "v"))
                    .collect(),
            ));
        }
        out
    }

    fn same_bytes<C: Codec>(c: &C) {
        let write = |v: TValue| {
            let mut out = Vec::new();
            c.write_struct(&mut out, &TStruct::new().with(0, v));
            out
        };
        let tree = rows()
            .iter()
            .map(|r| trow(r, ColumnOrder::Map))
            .collect::<Vec<_>>()
            .to_value();
        let direct = TValue::Encoded(Encoded::new(RowResults(rows())));
        assert_eq!(write(direct), write(tree));
    }

    #[test]
    fn rows_written_straight_from_the_cells_are_the_bytes_of_trow() {
        same_bytes(&Binary);
        same_bytes(&Compact);
        let hint = RowResults(rows()).size_hint();
        let mut out = Vec::new();
        Encoded::new(RowResults(rows())).write(&mut out, crate::thrift::Wire::Binary);
        assert!(hint >= out.len(), "hint {hint} for {} bytes", out.len());
    }
}
