//! A reply whose success value is Thrift1's `list<TRowResult>` (`scannerGet`,
//! `scannerGetList`) read straight into one buffer and ranges of it ([`RawRows`]), without the
//! value tree: the client's side of the server's [`Encoded`](crate::Encoded) rows. The budget
//! applies as to any reply (wire bytes, nesting, memory built); once the memory budget is spent
//! the rest is read past, building nothing, and the caller checks [`Budget::overrun`].

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::decode::{self, Shape, WireRead};
use crate::{malformed, Binary, Budget, TStruct, TType, ThriftError};
use std::io::Read;
use std::ops::Range;

/// A cell of a row: its column name (`family:qualifier`), value and timestamp, the bytes as
/// ranges of [`RawRows::buf`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCell {
    /// The column name.
    pub column: Range<usize>,
    /// The value.
    pub value: Range<usize>,
    /// The timestamp (milliseconds).
    pub timestamp: i64,
}

/// A `TRowResult`: its row, and its cells in wire order (`columns`, then `sortedColumns`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    /// The row key, a range of [`RawRows::buf`].
    pub row: Range<usize>,
    /// The cells.
    pub cells: Vec<RawCell>,
}

/// A `list<TRowResult>`: every byte field of it in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawRows {
    /// The bytes the ranges point into.
    pub buf: Vec<u8>,
    /// The rows.
    pub rows: Vec<RawRow>,
}

/// Reads a reply struct (after its message header) in the binary protocol: its field 0, when
/// it is a list, as rows; every other field (a declared exception) as a value tree.
pub fn read_rows_reply<R: Read>(
    b: &mut Budget<'_, R>,
) -> Result<(Option<RawRows>, TStruct), ThriftError> {
    rows_reply(&Binary, b)
}

fn rows_reply<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
) -> Result<(Option<RawRows>, TStruct), ThriftError> {
    reply_with(w, b, TType::List, |w, b| {
        let mut out = RawRows::default();
        list(w, b, &mut out)?;
        Ok(out)
    })
}

/// Reads a reply struct: its field 0, when of type `success`, with `read`; every other field
/// (a declared exception) as a value tree.
fn reply_with<W: WireRead, R: Read, T>(
    w: &W,
    b: &mut Budget<'_, R>,
    success: TType,
    mut read: impl FnMut(&W, &mut Budget<'_, R>) -> Result<T, ThriftError>,
) -> Result<(Option<T>, TStruct), ThriftError> {
    b.enter()?;
    let mut value = None;
    let mut rest = TStruct::new();
    let mut state = W::FieldState::default();
    while let Some(h) = w.field_begin(b, &mut state)? {
        if h.inline_bool.is_some() {
            continue;
        }
        if h.id == 0 && h.ttype == success {
            value = Some(read(w, b)?);
        } else if let Some(v) = decode::value(w, b, h.ttype, Shape::Any)? {
            rest.fields.push((h.id, v));
        }
    }
    b.leave();
    Ok((value, rest))
}

/// A ferrobase `TScanBatch` (1: the scanner's id while it stays open, 2: its rows), read
/// with its rows raw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawScanBatch {
    /// The scanner, still open; `None`: it closed in the call (no more rows).
    pub id: Option<i32>,
    /// The rows.
    pub rows: RawRows,
    /// The rows in ferrobase's packed form (field 3, answered when the call set `packed`):
    /// the client parses them.
    pub packed: Option<Vec<u8>>,
}

/// Reads a reply struct whose field 0 is a `TScanBatch` (`ferrobaseScannerOpen`,
/// `ferrobaseScannerNext`) in the binary protocol, its rows as [`read_rows_reply`] reads them;
/// every other field (a declared exception) as a value tree.
pub fn read_scan_batch_reply<R: Read>(
    b: &mut Budget<'_, R>,
) -> Result<(Option<RawScanBatch>, TStruct), ThriftError> {
    reply_with(&Binary, b, TType::Struct, scan_batch)
}

fn scan_batch<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
) -> Result<RawScanBatch, ThriftError> {
    b.enter()?;
    let mut batch = RawScanBatch::default();
    let mut state = W::FieldState::default();
    while let Some(h) = w.field_begin(b, &mut state)? {
        if h.inline_bool.is_some() {
            continue;
        }
        match (h.id, h.ttype) {
            (1, TType::I32) => batch.id = Some(w.i32(b)?),
            (2, TType::List) => {
                // The last rows field wins, as for any repeated field.
                batch.rows = RawRows::default();
                list(w, b, &mut batch.rows)?;
            }
            (3, TType::Binary) => {
                let n = w.binary_len(b)?;
                batch.packed = if b.charge(n) {
                    let mut v = Vec::new();
                    b.read_into(&mut v, n)?;
                    Some(v)
                } else {
                    b.skip(n)?;
                    None
                };
            }
            (_, t) => skip(w, b, t)?,
        }
    }
    b.leave();
    Ok(batch)
}

/// Reads a binary into `out.buf`; an empty range when the budget is spent (read past).
fn bytes<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    out: &mut RawRows,
) -> Result<Range<usize>, ThriftError> {
    let n = w.binary_len(b)?;
    let start = out.buf.len();
    if b.charge(n) {
        b.read_into(&mut out.buf, n)?;
        Ok(start..start + n)
    } else {
        b.skip(n)?;
        Ok(start..start)
    }
}

fn skip<W: WireRead, R: Read>(w: &W, b: &mut Budget<'_, R>, t: TType) -> Result<(), ThriftError> {
    decode::value(w, b, t, Shape::Skip).map(|_| ())
}

fn list<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    out: &mut RawRows,
) -> Result<(), ThriftError> {
    let (et, n) = w.list_begin(b)?;
    b.check_count(n)?;
    b.enter()?;
    for _ in 0..n {
        if et == TType::Struct {
            let row = row_result(w, b, out)?;
            if b.charge(std::mem::size_of::<RawRow>()) {
                out.rows.push(row);
            }
        } else {
            skip(w, b, et)?;
        }
    }
    b.leave();
    Ok(())
}

/// A `TRowResult` (1: row, 2: columns, 3: sortedColumns); other fields, and known ones of
/// another type, read past.
fn row_result<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    out: &mut RawRows,
) -> Result<RawRow, ThriftError> {
    b.enter()?;
    let mut row = None;
    let mut cells = Vec::new();
    let mut state = W::FieldState::default();
    while let Some(h) = w.field_begin(b, &mut state)? {
        if h.inline_bool.is_some() {
            continue;
        }
        match (h.id, h.ttype) {
            (1, TType::Binary) => row = Some(bytes(w, b, out)?),
            (2, TType::Map) => {
                let (kt, vt, n) = w.map_begin(b)?;
                b.check_count(n)?;
                b.enter()?;
                for _ in 0..n {
                    if kt == TType::Binary && vt == TType::Struct {
                        let column = bytes(w, b, out)?;
                        let (value, timestamp) = tcell(w, b, out)?;
                        push_cell(b, &mut cells, column, value, timestamp);
                    } else {
                        skip(w, b, kt)?;
                        skip(w, b, vt)?;
                    }
                }
                b.leave();
            }
            (3, TType::List) => {
                let (et, n) = w.list_begin(b)?;
                b.check_count(n)?;
                b.enter()?;
                for _ in 0..n {
                    if et == TType::Struct {
                        tcolumn(w, b, out, &mut cells)?;
                    } else {
                        skip(w, b, et)?;
                    }
                }
                b.leave();
            }
            (_, t) => skip(w, b, t)?,
        }
    }
    b.leave();
    let row = row.ok_or_else(|| malformed("a TRowResult without its row"))?;
    Ok(RawRow { row, cells })
}

fn push_cell<R: Read>(
    b: &mut Budget<'_, R>,
    cells: &mut Vec<RawCell>,
    column: Range<usize>,
    value: Range<usize>,
    timestamp: i64,
) {
    if b.charge(std::mem::size_of::<RawCell>()) {
        cells.push(RawCell {
            column,
            value,
            timestamp,
        });
    }
}

/// A `TCell` (1: value, 2: timestamp): (value, timestamp), absent fields at the IDL's defaults.
fn tcell<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    out: &mut RawRows,
) -> Result<(Range<usize>, i64), ThriftError> {
    b.enter()?;
    let start = out.buf.len();
    let (mut value, mut timestamp) = (start..start, 0);
    let mut state = W::FieldState::default();
    while let Some(h) = w.field_begin(b, &mut state)? {
        if h.inline_bool.is_some() {
            continue;
        }
        match (h.id, h.ttype) {
            (1, TType::Binary) => value = bytes(w, b, out)?,
            (2, TType::I64) => timestamp = w.i64(b)?,
            (_, t) => skip(w, b, t)?,
        }
    }
    b.leave();
    Ok((value, timestamp))
}

/// A `TColumn` (1: columnName, 2: cell) of `sortedColumns`.
fn tcolumn<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    out: &mut RawRows,
    cells: &mut Vec<RawCell>,
) -> Result<(), ThriftError> {
    b.enter()?;
    let start = out.buf.len();
    let mut column = start..start;
    let mut cell = None;
    let mut state = W::FieldState::default();
    while let Some(h) = w.field_begin(b, &mut state)? {
        if h.inline_bool.is_some() {
            continue;
        }
        match (h.id, h.ttype) {
            (1, TType::Binary) => column = bytes(w, b, out)?,
            (2, TType::Struct) => cell = Some(tcell(w, b, out)?),
            (_, t) => skip(w, b, t)?,
        }
    }
    b.leave();
    let here = out.buf.len();
    let (value, timestamp) = cell.unwrap_or((here..here, 0));
    push_cell(b, cells, column, value, timestamp);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hbase::{TCell, TColumn, TRowResult};
    use crate::{Codec, Limits, TValue, ThriftValue};

    fn rows() -> Vec<TRowResult> {
        (0..30u8)
            .map(|i| TRowResult {
                row: vec![b'r', i],
                columns: (i % 3 != 2).then(|| {
                    (0..i % 4)
                        .map(|j| {
                            (
                                vec![b'c', b'f', b':', j],
                                TCell {
                                    value: vec![i; usize::from(j) * 7],
                                    timestamp: i64::from(i) * 1000 - i64::from(j),
                                },
                            )
                        })
                        .collect()
                }),
                sorted_columns: (i % 3 == 2).then(|| {
                    vec![TColumn {
                        column_name: b"a:".to_vec(),
                        cell: TCell {
                            value: b"sorted".to_vec(),
                            timestamp: -5,
                        },
                    }]
                }),
            })
            .collect()
    }

    /// What the tree holds, in the raw form: (row, [(column, value, timestamp)]).
    type Flat = Vec<(Vec<u8>, Vec<(Vec<u8>, Vec<u8>, i64)>)>;

    fn flat_tree(rows: &[TRowResult]) -> Flat {
        rows.iter()
            .map(|r| {
                let mut cells: Vec<_> = r
                    .columns
                    .iter()
                    .flatten()
                    .map(|(c, cell)| (c.clone(), cell.value.clone(), cell.timestamp))
                    .collect();
                cells.extend(r.sorted_columns.iter().flatten().map(|c| {
                    (
                        c.column_name.clone(),
                        c.cell.value.clone(),
                        c.cell.timestamp,
                    )
                }));
                (r.row.clone(), cells)
            })
            .collect()
    }

    fn flat_raw(raw: &RawRows) -> Flat {
        let get = |r: &Range<usize>| raw.buf[r.clone()].to_vec();
        raw.rows
            .iter()
            .map(|r| {
                let cells = r
                    .cells
                    .iter()
                    .map(|c| (get(&c.column), get(&c.value), c.timestamp))
                    .collect();
                (get(&r.row), cells)
            })
            .collect()
    }

    fn reply(v: TValue) -> Vec<u8> {
        let mut out = Vec::new();
        Binary.write_struct(&mut out, &TStruct::new().with(0, v));
        out
    }

    #[test]
    fn rows_read_raw_hold_what_the_tree_holds() {
        let bytes = reply(rows().to_value());
        let mut r = &bytes[..];
        let mut b = Budget::new(&mut r, &Limits::default());
        let (raw, rest) = read_rows_reply(&mut b).unwrap();
        assert!(rest.fields.is_empty() && b.overrun().is_none());
        drop(b);
        assert!(r.is_empty());
        assert_eq!(flat_raw(&raw.unwrap()), flat_tree(&rows()));
    }

    #[test]
    fn an_exception_reads_as_a_tree_and_bad_bytes_are_errors_not_panics() {
        let ex = TStruct::new().with(
            1,
            TValue::Struct(TStruct::new().with(1, TValue::string("no"))),
        );
        let mut bytes = Vec::new();
        Binary.write_struct(&mut bytes, &ex);
        let mut r = &bytes[..];
        let (raw, rest) = read_rows_reply(&mut Budget::new(&mut r, &Limits::default())).unwrap();
        assert!(raw.is_none());
        assert_eq!(rest, ex);

        let good = reply(rows().to_value());
        for cut in 0..good.len() {
            let mut r = &good[..cut];
            assert!(read_rows_reply(&mut Budget::new(&mut r, &Limits::default())).is_err());
        }
        let mut rng = ferrobase_testkit::Rng::from_state(11);
        for _ in 0..3000 {
            let mut junk = good.clone();
            for _ in 0..3 {
                let s = rng.next_u64();
                let i = (s % junk.len() as u64) as usize;
                junk[i] = (s >> 20) as u8;
            }
            let mut r = &junk[..];
            let limits = Limits {
                max_message: 1 << 16,
                max_depth: 8,
                max_decoded: 1 << 14,
            };
            let _ = read_rows_reply(&mut Budget::new(&mut r, &limits));
        }
    }

    fn batch_reply(id: Option<i32>) -> Vec<u8> {
        let mut batch = TStruct::new();
        if let Some(id) = id {
            batch = batch.with(1, TValue::I32(id));
        }
        reply(TValue::Struct(batch.with(2, rows().to_value())))
    }

    #[test]
    fn a_scan_batch_reads_its_id_and_its_rows_raw() {
        for id in [Some(7), None] {
            let bytes = batch_reply(id);
            let mut r = &bytes[..];
            let mut b = Budget::new(&mut r, &Limits::default());
            let (batch, rest) = read_scan_batch_reply(&mut b).unwrap();
            assert!(rest.fields.is_empty() && b.overrun().is_none());
            drop(b);
            assert!(r.is_empty());
            let batch = batch.unwrap();
            assert_eq!(batch.id, id);
            assert_eq!(flat_raw(&batch.rows), flat_tree(&rows()));
        }
        let good = batch_reply(Some(3));
        for cut in 0..good.len() {
            let mut r = &good[..cut];
            assert!(read_scan_batch_reply(&mut Budget::new(&mut r, &Limits::default())).is_err());
        }
    }

    #[test]
    fn a_scan_batch_reads_its_packed_rows_within_the_budget() {
        let packed = vec![5u8; 300];
        let bytes = reply(TValue::Struct(
            TStruct::new()
                .with(1, TValue::I32(4))
                .with(3, TValue::Binary(packed.clone())),
        ));
        let mut r = &bytes[..];
        let mut b = Budget::new(&mut r, &Limits::default());
        let (batch, rest) = read_scan_batch_reply(&mut b).unwrap();
        assert!(rest.fields.is_empty() && b.overrun().is_none());
        let batch = batch.unwrap();
        assert_eq!((batch.id, batch.packed), (Some(4), Some(packed)));
        assert!(batch.rows.rows.is_empty());
        // Past the memory budget: read past, kept as nothing, and reported.
        let mut r = &bytes[..];
        let limits = Limits {
            max_decoded: 100,
            ..Limits::default()
        };
        let mut b = Budget::new(&mut r, &limits);
        let (batch, _) = read_scan_batch_reply(&mut b).unwrap();
        assert!(b.overrun().is_some());
        assert_eq!(batch.unwrap().packed, None);
        drop(b);
        assert!(r.is_empty());
    }

    #[test]
    fn a_reply_past_the_memory_budget_is_read_to_its_end_and_reported() {
        let bytes = reply(rows().to_value());
        let mut r = &bytes[..];
        let limits = Limits {
            max_decoded: 64,
            ..Limits::default()
        };
        let mut b = Budget::new(&mut r, &limits);
        read_rows_reply(&mut b).unwrap();
        assert!(b.overrun().is_some());
        drop(b);
        assert!(
            r.is_empty(),
            "read to the end, in step for the next message"
        );
    }
}
