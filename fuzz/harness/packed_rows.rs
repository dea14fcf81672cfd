//! The packed scan rows' reader (`ferrobase_thrift::packed_rows`, which the client parses a
//! ferrobase gateway's `TScanBatch` field 3 with) never panics and never allocates by a count it
//! has not checked, and what it reads writes back to bytes that read the same: the layout's
//! writer and reader agree.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/packed_rows/`, `fuzz/regressions/packed_rows/`).

use ferrobase_gateway::thrift::packed_rows::{
    put_cell, put_row_header, PackedCell, PackedError, PackedReader,
};

/// A row read: its key and its cells (family, qualifier, timestamp, value).
type Row<'a> = (&'a [u8], Vec<(&'a [u8], &'a [u8], i64, &'a [u8])>);

/// The rows of `buf` up to the first error.
fn read(buf: &[u8]) -> (Vec<Row<'_>>, Option<PackedError>) {
    let mut r = PackedReader::new(buf);
    let mut rows = Vec::new();
    loop {
        let (row, n) = match r.next_row() {
            Ok(Some(h)) => h,
            Ok(None) => return (rows, None),
            Err(e) => return (rows, Some(e)),
        };
        let mut cells = Vec::new();
        for _ in 0..n {
            match r.next_cell() {
                Ok(c) => cells.push((
                    &buf[c.family],
                    &buf[c.qualifier],
                    c.timestamp,
                    &buf[c.value],
                )),
                Err(e) => return (rows, Some(e)),
            }
        }
        rows.push((&buf[row], cells));
    }
}

pub fn run(data: &[u8]) {
    let (rows, error) = read(data);
    if let Some(e) = &error {
        assert!(e.at <= data.len() && e.len == data.len(), "{e}");
    }
    let mut out = Vec::new();
    for (row, cells) in &rows {
        put_row_header(&mut out, row, cells.len());
        for &(family, qualifier, timestamp, value) in cells {
            put_cell(
                &mut out,
                &PackedCell {
                    family,
                    qualifier,
                    timestamp,
                    value,
                },
            );
        }
    }
    // A varint may be written longer than needed, so the bytes may differ; what they say
    // may not.
    let (again, none) = read(&out);
    assert!(none.is_none(), "{none:?}");
    assert_eq!(again, rows);
    if error.is_none() {
        assert!(out.len() <= data.len());
    }
}
