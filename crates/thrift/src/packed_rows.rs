//! ferrobase's packed scan rows: the rows of a `TScanBatch` as one `binary` (its field 3, which a
//! ferrobase gateway answers when `ferrobaseScannerOpen`/`Next` set `packed`;
//! `docs/design/hbase-compatibility.md`). Both directions live here, so the layout is written
//! once: the gateway writes it, the client reads it.
//!
//! Per row `varint len, row, varint cells`; per cell `varint len, family, varint len,
//! qualifier, i64 timestamp (big-endian), varint len, value`. Varints are unsigned LEB128.
//! A client reads the whole binary in one read and slices its cells out of it, where a
//! `list<TRowResult>` is a dozen Thrift fields a row.

use crate::compact::put_varint;
use std::fmt;
use std::ops::Range;

/// One cell as packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedCell<'a> {
    /// The family (no `:`).
    pub family: &'a [u8],
    /// The qualifier.
    pub qualifier: &'a [u8],
    /// The timestamp.
    pub timestamp: i64,
    /// The value.
    pub value: &'a [u8],
}

/// Bytes of `n` as a varint.
fn varint_len(n: usize) -> usize {
    (usize::BITS - (n | 1).leading_zeros()).div_ceil(7) as usize
}

/// Bytes of a length-prefixed field of `n` bytes.
fn field_len(n: usize) -> usize {
    varint_len(n) + n
}

/// Bytes a row's header takes: its key and its count of `cells`.
pub fn row_header_len(row: &[u8], cells: usize) -> usize {
    field_len(row.len()) + varint_len(cells)
}

/// Bytes `cell` takes.
pub fn cell_len(cell: &PackedCell<'_>) -> usize {
    field_len(cell.family.len()) + field_len(cell.qualifier.len()) + 8 + field_len(cell.value.len())
}

fn put_field(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends a row's header: its key and the count of cells that follow (each by [`put_cell`]).
pub fn put_row_header(out: &mut Vec<u8>, row: &[u8], cells: usize) {
    put_field(out, row);
    put_varint(out, cells as u64);
}

/// Appends one cell of the row whose header came before.
pub fn put_cell(out: &mut Vec<u8>, cell: &PackedCell<'_>) {
    put_field(out, cell.family);
    put_field(out, cell.qualifier);
    out.extend_from_slice(&cell.timestamp.to_be_bytes());
    put_field(out, cell.value);
}

/// A packed buffer that does not parse: what was expected, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedError {
    /// What could not be read ("a row", "a count of cells", "a family", ...).
    pub what: &'static str,
    /// The byte offset where it was expected.
    pub at: usize,
    /// The buffer's length.
    pub len: usize,
}

impl fmt::Display for PackedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a packed scan batch of {} bytes is malformed: {} at byte {}",
            self.len, self.what, self.at
        )
    }
}

impl std::error::Error for PackedError {}

/// A cell read by [`PackedReader`], as ranges of the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedCellAt {
    /// The family's bytes.
    pub family: Range<usize>,
    /// The qualifier's bytes.
    pub qualifier: Range<usize>,
    /// The timestamp.
    pub timestamp: i64,
    /// The value's bytes.
    pub value: Range<usize>,
}

/// Reads a packed buffer row by row: [`next_row`](Self::next_row), then its cells by
/// [`next_cell`](Self::next_cell) as many times as the row's count says. Every length is
/// checked against the buffer, so a malformed buffer is an error naming where, never a panic;
/// the reader allocates nothing (a count larger than the buffer could hold fails at the first
/// cell that is not there).
#[derive(Debug)]
pub struct PackedReader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> PackedReader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> PackedReader<'a> {
        PackedReader { buf, at: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.at
    }

    fn error(&self, what: &'static str) -> PackedError {
        PackedError {
            what,
            at: self.at,
            len: self.buf.len(),
        }
    }

    fn varint(&mut self) -> Option<usize> {
        let mut v = 0usize;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.at)?;
            self.at += 1;
            v |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }

    fn field(&mut self) -> Option<Range<usize>> {
        let n = self.varint()?;
        let end = self.at.checked_add(n).filter(|&e| e <= self.buf.len())?;
        let r = self.at..end;
        self.at = end;
        Some(r)
    }

    /// The next row's key and its count of cells; `None` at the end of the buffer.
    pub fn next_row(&mut self) -> Result<Option<(Range<usize>, usize)>, PackedError> {
        if self.at == self.buf.len() {
            return Ok(None);
        }
        let row = self.field().ok_or_else(|| self.error("a row"))?;
        let cells = self
            .varint()
            .ok_or_else(|| self.error("a count of cells"))?;
        Ok(Some((row, cells)))
    }

    /// The next cell of the current row.
    pub fn next_cell(&mut self) -> Result<PackedCellAt, PackedError> {
        let family = self.field().ok_or_else(|| self.error("a family"))?;
        let qualifier = self.field().ok_or_else(|| self.error("a qualifier"))?;
        let ts = (self.buf.get(self.at..self.at + 8))
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .ok_or_else(|| self.error("a timestamp"))?;
        self.at += 8;
        let value = self.field().ok_or_else(|| self.error("a value"))?;
        Ok(PackedCellAt {
            family,
            qualifier,
            timestamp: i64::from_be_bytes(ts),
            value,
        })
    }

    /// The least bytes a cell takes (three empty fields and a timestamp): a caller reserving
    /// room for a row's cells reserves no more than the rest of the buffer could hold.
    pub const MIN_CELL_BYTES: usize = 11;
}

#[cfg(test)]
mod tests {
    use super::*;

    type Row = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>, i64, Vec<u8>)>);

    fn pack(rows: &[Row]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut len = 0;
        for (row, cells) in rows {
            put_row_header(&mut out, row, cells.len());
            len += row_header_len(row, cells.len());
            for (f, q, ts, v) in cells {
                let c = PackedCell {
                    family: f,
                    qualifier: q,
                    timestamp: *ts,
                    value: v,
                };
                put_cell(&mut out, &c);
                len += cell_len(&c);
            }
        }
        assert_eq!(len, out.len(), "the lengths counted are the bytes written");
        out
    }

    fn unpack(buf: &[u8]) -> Result<Vec<Row>, PackedError> {
        let mut r = PackedReader::new(buf);
        let mut rows = Vec::new();
        while let Some((row, n)) = r.next_row()? {
            let mut cells = Vec::new();
            for _ in 0..n {
                let c = r.next_cell()?;
                cells.push((
                    buf[c.family].to_vec(),
                    buf[c.qualifier].to_vec(),
                    c.timestamp,
                    buf[c.value].to_vec(),
                ));
            }
            rows.push((buf[row].to_vec(), cells));
        }
        Ok(rows)
    }

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn rows_written_read_back_as_written() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            let bytes = |x: &mut u64, max: u64| -> Vec<u8> {
                // Lengths around the one- and two-byte varint boundary.
                let n = xorshift(x) % max;
                (0..n).map(|i| (i as u8) ^ (*x as u8)).collect()
            };
            let rows: Vec<Row> = (0..xorshift(&mut x) % 5)
                .map(|_| {
                    let cells = (0..xorshift(&mut x) % 4)
                        .map(|_| {
                            let ts = xorshift(&mut x) as i64;
                            (bytes(&mut x, 4), bytes(&mut x, 200), ts, bytes(&mut x, 300))
                        })
                        .collect();
                    (bytes(&mut x, 140), cells)
                })
                .collect();
            assert_eq!(unpack(&pack(&rows)).unwrap(), rows);
        }
        assert_eq!(unpack(&[]).unwrap(), Vec::<Row>::new());
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(usize::MAX), 10);
    }

    #[test]
    fn bad_buffers_are_errors_naming_where_never_panics() {
        let long = vec![7u8; 300];
        let buf = pack(&[
            (
                b"r1".to_vec(),
                vec![
                    (b"cf".to_vec(), b"a".to_vec(), 5, b"x".to_vec()),
                    (b"cf".to_vec(), b"b".to_vec(), -1, long),
                ],
            ),
            (b"r2".to_vec(), vec![]),
            (
                b"r3".to_vec(),
                vec![(b"m".to_vec(), vec![], i64::MAX, vec![])],
            ),
        ]);
        // Cut inside a row: an error naming where; cut between rows: the rows before the cut.
        for cut in 1..buf.len() {
            match unpack(&buf[..cut]) {
                Err(e) => {
                    assert!(e.to_string().contains("malformed"), "{cut}: {e}");
                    assert!(e.at <= cut, "{cut}: {e}");
                }
                Ok(rows) => assert!(rows.len() < 3, "{cut}"),
            }
        }
        // Bytes changed anywhere: an error or rows, never a panic.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..3000 {
            let mut junk = buf.clone();
            for _ in 0..3 {
                let i = (xorshift(&mut x) % junk.len() as u64) as usize;
                junk[i] = (x >> 24) as u8;
            }
            let _ = unpack(&junk);
        }
        // Lengths and counts beyond the buffer, and a varint of more than 64 bits.
        for (bad, what) in [
            (&[1, b'r', 0xff, 0xff, 0xff, 0xff, 0x0f][..], "a family"),
            (&[0xff; 10][..], "a row"),
            (&[1, b'r', 1, 0xff, 0xff, 0xff, 0x7f][..], "a family"),
            (&[1, b'r', 1, 0, 0, 1, 2, 3][..], "a timestamp"),
        ] {
            assert_eq!(unpack(bad).unwrap_err().what, what, "{bad:?}");
        }
    }
}
