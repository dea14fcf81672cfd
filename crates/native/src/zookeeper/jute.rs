//! Jute, ZooKeeper's record encoding (`zookeeper.jute` in Apache ZooKeeper): big-endian `int`
//! (4 bytes) and `long` (8 bytes), `boolean` as one byte, `buffer` and `ustring` as a 4-byte
//! length then the bytes (-1 for null), `vector` as a 4-byte count then the elements (-1 for
//! null). Every read is bounds-checked; a short or malformed record is a [`JuteError`], never
//! a panic.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JuteError {
    /// The record ends before a field does.
    #[error(
        "a ZooKeeper record ends at byte {at} while reading its {field} ({need} more bytes needed)"
    )]
    Short {
        /// The field being read.
        field: &'static str,
        /// Its offset in the record.
        at: usize,
        /// Bytes missing.
        need: usize,
    },
    /// A length or count is negative (other than -1, null) or past the record's end.
    #[error("a ZooKeeper record's {field} at byte {at} has length {len}, past the record's {left} remaining bytes")]
    BadLength {
        /// The field being read.
        field: &'static str,
        /// Its offset in the record.
        at: usize,
        /// The length it announced.
        len: i32,
        /// Bytes left in the record.
        left: usize,
    },
    /// A `ustring` is not UTF-8.
    #[error("a ZooKeeper record's {field} at byte {at} is not UTF-8")]
    NotUtf8 {
        /// The field being read.
        field: &'static str,
        /// Its offset in the record.
        at: usize,
    },
}

/// Reads jute fields from a record, front to back.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], JuteError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end.and_then(|e| self.buf.get(self.pos..e)) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(JuteError::Short {
                field,
                at: self.pos,
                need: n.saturating_sub(self.remaining()),
            }),
        }
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], JuteError> {
        let b = self.take(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// A jute `int`.
    pub fn int(&mut self, field: &'static str) -> Result<i32, JuteError> {
        Ok(i32::from_be_bytes(self.array(field)?))
    }

    /// A jute `long`.
    pub fn long(&mut self, field: &'static str) -> Result<i64, JuteError> {
        Ok(i64::from_be_bytes(self.array(field)?))
    }

    /// A jute `boolean` (any non-zero byte is true, as Java's `DataInput.readBoolean`).
    pub fn boolean(&mut self, field: &'static str) -> Result<bool, JuteError> {
        Ok(self.array::<1>(field)? != [0])
    }

    /// A length (or count) that may be -1 for null; anything else negative or past the end
    /// of the record is refused (each element of a vector takes at least `min_item` bytes).
    fn length(&mut self, field: &'static str, min_item: usize) -> Result<Option<usize>, JuteError> {
        let at = self.pos;
        let len = self.int(field)?;
        if len == -1 {
            return Ok(None);
        }
        let left = self.remaining();
        match usize::try_from(len) {
            Ok(n) if n.saturating_mul(min_item) <= left => Ok(Some(n)),
            _ => Err(JuteError::BadLength {
                field,
                at,
                len,
                left,
            }),
        }
    }

    /// A jute `buffer` (`None` for null).
    pub fn buffer(&mut self, field: &'static str) -> Result<Option<&'a [u8]>, JuteError> {
        match self.length(field, 1)? {
            Some(n) => self.take(n, field).map(Some),
            None => Ok(None),
        }
    }

    /// A jute `ustring` (`None` for null).
    pub fn ustring(&mut self, field: &'static str) -> Result<Option<&'a str>, JuteError> {
        let at = self.pos;
        match self.buffer(field)? {
            Some(b) => std::str::from_utf8(b)
                .map(Some)
                .map_err(|_| JuteError::NotUtf8 { field, at }),
            None => Ok(None),
        }
    }

    /// A jute `vector<ustring>` (null reads as empty).
    pub fn strings(&mut self, field: &'static str) -> Result<Vec<&'a str>, JuteError> {
        let n = self.length(field, 4)?.unwrap_or(0);
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.ustring(field)?.unwrap_or_default());
        }
        Ok(out)
    }
}

/// Writes jute fields to a growing record.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty record.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// A jute `int`.
    pub fn int(&mut self, v: i32) -> &mut Writer {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// A jute `long`.
    pub fn long(&mut self, v: i64) -> &mut Writer {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// A jute `boolean`.
    pub fn boolean(&mut self, v: bool) -> &mut Writer {
        self.buf.push(u8::from(v));
        self
    }

    /// A jute `buffer` (`None` writes -1, null). Records ferrobase writes are far below 2 GiB.
    pub fn buffer(&mut self, v: Option<&[u8]>) -> &mut Writer {
        match v {
            Some(b) => {
                self.int(i32::try_from(b.len()).unwrap_or(i32::MAX));
                self.buf.extend_from_slice(b);
            }
            None => {
                self.int(-1);
            }
        }
        self
    }

    /// A jute `ustring`.
    pub fn ustring(&mut self, v: &str) -> &mut Writer {
        self.buffer(Some(v.as_bytes()))
    }

    /// A jute `vector<ustring>`.
    pub fn strings<S: AsRef<str>>(&mut self, v: &[S]) -> &mut Writer {
        self.int(i32::try_from(v.len()).unwrap_or(i32::MAX));
        for s in v {
            self.ustring(s.as_ref());
        }
        self
    }

    /// The record's bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The record as one frame: its 4-byte big-endian length, then the bytes.
    pub fn into_frame(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.buf.len() + 4);
        out.extend_from_slice(
            &u32::try_from(self.buf.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        out.extend_from_slice(&self.buf);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let mut w = Writer::new();
        w.int(-2)
            .long(0x0100_0012_f0e3_0006)
            .boolean(true)
            .buffer(None)
            .ustring("/hbase")
            .strings(&["rs", "master"]);
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.int("xid").unwrap(), -2);
        assert_eq!(r.long("session").unwrap(), 0x0100_0012_f0e3_0006);
        assert!(r.boolean("watch").unwrap());
        assert_eq!(r.buffer("data").unwrap(), None);
        assert_eq!(r.ustring("path").unwrap(), Some("/hbase"));
        assert_eq!(r.strings("children").unwrap(), vec!["rs", "master"]);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn short_and_lying_records_are_errors() {
        assert!(matches!(
            Reader::new(&[0, 0, 1]).int("xid"),
            Err(JuteError::Short { need: 1, .. })
        ));
        // A buffer claiming 16 bytes with 2 left, a negative length, a huge vector count.
        assert!(matches!(
            Reader::new(&[0, 0, 0, 16, 1, 2]).buffer("passwd"),
            Err(JuteError::BadLength {
                len: 16,
                left: 2,
                ..
            })
        ));
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xfe])
            .buffer("data")
            .is_err());
        assert!(Reader::new(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0])
            .strings("paths")
            .is_err());
        assert!(matches!(
            Reader::new(&[0, 0, 0, 1, 0xff]).ustring("path"),
            Err(JuteError::NotUtf8 { at: 0, .. })
        ));
    }

    #[test]
    fn a_frame_is_length_then_record() {
        let mut w = Writer::new();
        w.int(7);
        assert_eq!(w.into_frame(), vec![0, 0, 0, 4, 0, 0, 0, 7]);
    }
}
