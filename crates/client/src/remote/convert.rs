//! Between the engine's types (`Get`, `Scan`, `Put`, `RowResult`, descriptors) and the
//! structs of HBase's Thrift1 IDL (`ferrobase_thrift::hbase`): columns, time bounds, rows,
//! mutations and `TScan`.

use super::Remote;
use crate::{ClientError, Result};
use ferrobase_engine::{
    try_interned_family, Cell, CellType, ColumnFamilyDescriptor, RowResult, Scan,
};
use ferrobase_thrift::hbase::{Mutation, TCell, TRowResult, TScan};
use ferrobase_thrift::packed_rows::{self, PackedReader};

/// The family attributes HBase's Thrift1 `ColumnDescriptor` carries. The others (MIN_VERSIONS,
/// KEEP_DELETED_CELLS, BLOCKSIZE, DATA_BLOCK_ENCODING) are set through a ferrobase gateway's
/// `ferrobaseAdmin put_family` and cannot be set through Apache HBase's Thrift1 gateway.
pub(super) const THRIFT1_FAMILY_ATTRIBUTES: [&str; 6] = [
    "VERSIONS",
    "TTL",
    "BLOCKCACHE",
    "IN_MEMORY",
    "BLOOMFILTER",
    "COMPRESSION",
];

/// The attributes of `f` that differ from a new family's and that Thrift1's `ColumnDescriptor`
/// cannot carry, in HBase's spelling.
pub(super) fn beyond_thrift1(f: &ColumnFamilyDescriptor) -> Vec<(String, String)> {
    // By key: an attribute shown only when set (NEW_VERSION_BEHAVIOR) has no default entry.
    let defaults = ColumnFamilyDescriptor::new(f.name.clone()).to_attributes();
    f.to_attributes()
        .into_iter()
        .filter(|(k, v)| {
            !THRIFT1_FAMILY_ATTRIBUTES.contains(k)
                && !defaults.iter().any(|(dk, dv)| dk == k && dv == v)
        })
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// The Thrift1 call attributes carrying a put's cell TTL: HBase's `_ttl` operation attribute
/// (`Mutation.setTTL`), the milliseconds as an 8-byte big-endian long; none without a TTL.
pub(super) fn ttl_attributes(ttl_ms: Option<i64>) -> Vec<(Vec<u8>, Vec<u8>)> {
    ttl_ms
        .map(|t| (b"_ttl".to_vec(), t.to_be_bytes().to_vec()))
        .into_iter()
        .collect()
}

pub(super) fn column(family: &[u8], qualifier: Option<&[u8]>) -> Vec<u8> {
    let mut c = family.to_vec();
    if let Some(q) = qualifier {
        c.push(b':');
        c.extend_from_slice(q);
    }
    c
}

pub(super) fn columns_of(sel: &ferrobase_engine::ColumnSelection) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (f, qs) in sel {
        if qs.is_empty() {
            out.push(column(f, None));
        }
        for q in qs {
            out.push(column(f, Some(q)));
        }
    }
    out
}

/// The exclusive upper bound of a time range as Thrift1's `*Ts` calls and `TScan.timestamp`
/// take it (they read `[0, ts)`); `None` when unbounded. A lower bound is applied by the client
/// ([`keep_from`]): the newest versions below the upper bound that are not below the lower
/// bound are exactly the newest versions in the range.
pub(super) fn time_bound(tr: &ferrobase_engine::TimeRange) -> Option<i64> {
    (tr.max != i64::MAX).then_some(tr.max)
}

/// Drops the cells of `row` older than `min` (a time range's lower bound, which Thrift1 cannot
/// carry); `None` when none is left.
pub(super) fn keep_from(mut row: RowResult, min: i64) -> Option<RowResult> {
    if min > 0 {
        row.cells.retain(|c| c.timestamp() >= min);
    }
    (!row.cells.is_empty()).then_some(row)
}

/// Why RAW cannot be read over Thrift1, worded as HBase's shell words an unusable argument.
pub(super) const RAW_UNSUPPORTED: &str =
    "RAW => true is not expressible through HBase's Thrift1 API (its \
    TScan and get calls carry no raw flag, so delete markers and the cells they mask cannot be \
    read); use an embedded shell (--data DIR) or HBase's own shell";

/// A `TRowResult` as a row with cells sorted by column.
pub(super) fn row_result(r: TRowResult) -> RowResult {
    // One buffer for the row, shared by the result and each of its cells.
    let row = ferrobase_engine::Bytes::from(r.row);
    let mut cells = Vec::new();
    let mut push = |name: &[u8], cell: TCell| {
        let (family, qualifier) = match name.iter().position(|&b| b == b':') {
            Some(i) => (name[..i].to_vec(), name[i + 1..].to_vec()),
            None => (name.to_vec(), Vec::new()),
        };
        cells.push(Cell::new(
            row.clone(),
            family,
            qualifier,
            cell.timestamp,
            CellType::Put,
            cell.value,
        ));
    };
    for (name, cell) in r.columns.unwrap_or_default() {
        push(&name, cell);
    }
    for c in r.sorted_columns.unwrap_or_default() {
        push(&c.column_name, c.cell);
    }
    sort_columns(&mut cells);
    RowResult::new(row, cells)
}

/// Puts a row's cells in column order, newest first in a column, as a `TRowResult`'s map
/// reads (a stable sort: cells already in order cost one comparison each).
fn sort_columns(cells: &mut [Cell]) {
    cells.sort_by(|a, b| {
        (a.family(), a.qualifier())
            .cmp(&(b.family(), b.qualifier()))
            .then(b.timestamp().cmp(&a.timestamp()))
    });
}

/// Rows read straight from a reply ([`RawRows`]) as [`row_result`] makes them of `TRowResult`s:
/// the row, family, qualifier and value of every cell share the reply's one buffer.
pub(super) fn raw_row_results(raw: ferrobase_thrift::RawRows) -> Vec<RowResult> {
    let buf = ferrobase_engine::Bytes::from(raw.buf);
    raw.rows
        .into_iter()
        .map(|r| {
            let row = buf.slice(r.row);
            let mut cells: Vec<Cell> = r
                .cells
                .into_iter()
                .map(|c| {
                    let name = buf.slice(c.column);
                    let (family, qualifier) = match name.iter().position(|&b| b == b':') {
                        Some(i) => (name.slice(..i), name.slice(i + 1..)),
                        None => (name, ferrobase_engine::Bytes::new()),
                    };
                    Cell::new(
                        row.clone(),
                        family,
                        qualifier,
                        c.timestamp,
                        CellType::Put,
                        buf.slice(c.value),
                    )
                })
                .collect();
            sort_columns(&mut cells);
            RowResult::new(row, cells)
        })
        .collect()
}

/// Rows of a packed `TScanBatch` (its field 3, which a ferrobase gateway answers when the call
/// sets `packed`; the layout is the thrift crate's [`packed_rows`]). Every cell's row, qualifier
/// and value are ranges of the one buffer. A buffer that does not parse is an error naming
/// where, never a panic or an allocation beyond what it holds.
pub(super) fn packed_row_results(packed: Vec<u8>) -> Result<Vec<RowResult>> {
    let buf = ferrobase_engine::Bytes::from(packed);
    let mut reader = PackedReader::new(&buf);
    let bad = |e: packed_rows::PackedError| ClientError::Transport(e.to_string());
    let mut rows = Vec::new();
    // The family of the cell before: a scan's cells share a few families. Interned, its
    // handle is cloned and dropped without a reference count (a fifth of a full scan's client
    // time went to the one buffer's count, two handles a cell).
    let mut family: Option<ferrobase_engine::Bytes> = None;
    while let Some((row, n)) = reader.next_row().map_err(bad)? {
        // No more cells are reserved than the rest of the buffer could hold.
        let room = reader.remaining() / PackedReader::MIN_CELL_BYTES + 1;
        let mut cells = Vec::with_capacity(n.min(room));
        for _ in 0..n {
            let c = reader.next_cell().map_err(bad)?;
            let name = &buf[c.family.clone()];
            let fam = match &family {
                Some(known) if known[..] == *name => known.clone(),
                _ => {
                    let new = try_interned_family(name).unwrap_or_else(|| buf.slice(c.family));
                    family = Some(new.clone());
                    new
                }
            };
            let cell = Cell::in_buffer(
                &buf,
                row.clone(),
                fam,
                c.qualifier,
                c.timestamp,
                CellType::Put,
                c.value,
            )
            .ok_or_else(|| ClientError::Transport("a packed cell past its buffer".into()))?;
            cells.push(cell);
        }
        sort_columns(&mut cells);
        rows.push(if cells.is_empty() {
            RowResult::new(buf.slice(row), cells)
        } else {
            RowResult::of_cells(cells)
        });
    }
    Ok(rows)
}

impl Remote {
    pub(super) fn mutation(column: Vec<u8>, value: ferrobase_engine::Bytes, wal: bool) -> Mutation {
        Mutation {
            is_delete: false,
            column: column.into(),
            value,
            write_to_wal: wal,
        }
    }

    pub(super) fn scan_struct(scan: &Scan, filter: Option<&[u8]>) -> Result<TScan> {
        if scan.filter.is_some() {
            return Err(ClientError::Unsupported(
                "over Thrift, give filters as filter-language strings".into(),
            ));
        }
        if let Some(why) = super::cell_ops::beyond_tscan(scan, filter) {
            return Err(ClientError::Unsupported(why));
        }
        let mut s = TScan::default();
        if !scan.start_row.is_empty() {
            let mut start = scan.start_row.clone();
            if !scan.start_inclusive {
                if scan.reversed {
                    // Reversed with an exclusive start: the largest row below it comes first.
                    return Err(ClientError::Unsupported(
                        "an exclusive start row in a reversed scan".into(),
                    ));
                }
                start.push(0);
            }
            s.start_row = Some(start);
        }
        if !scan.stop_row.is_empty() {
            let mut stop = scan.stop_row.clone();
            if scan.stop_inclusive && !scan.reversed {
                stop.push(0);
            }
            s.stop_row = Some(stop);
        }
        s.timestamp = time_bound(&scan.time_range);
        if !scan.columns.is_empty() {
            s.columns = Some(columns_of(&scan.columns));
        }
        s.caching = Some(scan.caching.min(i32::MAX as usize) as i32);
        s.filter_string = filter.map(<[u8]>::to_vec);
        s.batch_size = scan.batch.map(|b| b.min(i32::MAX as usize) as i32);
        if scan.allow_partial_results && scan.max_result_size.is_some() {
            // Without partial results a maximum size means whole rows, which is what a
            // gateway returns; with them, Thrift1 has no field to carry the size.
            return Err(ClientError::Unsupported(
                "a maximum result size with partial results (Thrift1 carries only batch)".into(),
            ));
        }
        if scan.reversed {
            s.reversed = Some(true);
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell as packed: family, qualifier, timestamp, value.
    type Packed<'a> = (&'a [u8], &'a [u8], i64, &'a [u8]);

    /// The packed form of `rows`, as the gateway writes it.
    fn pack(rows: &[(&[u8], &[Packed<'_>])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (row, cells) in rows {
            packed_rows::put_row_header(&mut out, row, cells.len());
            for &(family, qualifier, timestamp, value) in *cells {
                let c = packed_rows::PackedCell {
                    family,
                    qualifier,
                    timestamp,
                    value,
                };
                packed_rows::put_cell(&mut out, &c);
            }
        }
        out
    }

    #[test]
    fn packed_rows_parse_into_cells_of_one_buffer_and_bad_ones_are_errors() {
        let long = vec![7u8; 300];
        let buf = pack(&[
            (
                b"r1",
                &[(b"cf", b"a", 5, b"x"), (b"cf", b"b", -1, &long[..])],
            ),
            (b"r2", &[]),
            (b"r3", &[(b"m", b"", i64::MAX, b"")]),
        ]);
        let rows = packed_row_results(buf.clone()).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].row(), b"r1");
        assert_eq!(rows[0].value(b"cf", b"a"), Some(&b"x"[..]));
        assert_eq!(rows[0].value(b"cf", b"b"), Some(&long[..]));
        assert_eq!(rows[0].cells[1].timestamp(), -1);
        assert_eq!((rows[1].row(), rows[1].cells.len()), (&b"r2"[..], 0));
        assert_eq!(rows[2].cells[0].timestamp(), i64::MAX);
        assert_eq!(rows[2].cells[0].family(), b"m");
        assert!(packed_row_results(Vec::new()).unwrap().is_empty());
        // Cells out of column order come back sorted, as a TRowResult's do.
        let unordered = pack(&[(b"r", &[(b"cf", b"b", 1, b"2"), (b"cf", b"a", 1, b"1")])]);
        let r = packed_row_results(unordered).unwrap();
        assert_eq!(r[0].cells[0].qualifier(), b"a");
        // A buffer cut inside a row is an error naming where (the thrift crate's tests cut
        // and mutate every byte); cut between rows, it is the rows before the cut.
        for cut in 1..buf.len() {
            match packed_row_results(buf[..cut].to_vec()) {
                Err(e) => assert!(e.to_string().contains("malformed"), "{cut}: {e}"),
                Ok(rows) => assert!(rows.len() < 3, "{cut}"),
            }
        }
        // A count beyond what the buffer holds allocates nothing large.
        assert!(packed_row_results(vec![1, b'r', 0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
    }
}
