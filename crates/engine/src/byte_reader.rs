//! Bounds-checked decoding of bytes from disk: every read returns `None` past the end instead of
//! panicking, and varints are LEB128 (7 bits a byte, low group first) as in LevelDB.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

/// A cursor over a byte slice whose reads never panic.
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        ByteReader { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when every byte was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    /// One byte.
    pub fn u8(&mut self) -> Option<u8> {
        self.bytes(1).and_then(|b| b.first().copied())
    }

    /// A big-endian u32.
    pub fn u32(&mut self) -> Option<u32> {
        self.bytes(4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_be_bytes)
    }

    /// A big-endian u64.
    pub fn u64(&mut self) -> Option<u64> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Some(u64::from_be_bytes(a))
    }

    /// A big-endian i64.
    pub fn i64(&mut self) -> Option<i64> {
        self.u64().map(|v| v as i64)
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    #[inline]
    pub fn varint(&mut self) -> Option<u64> {
        // Most varints of a cell (lengths, shared prefixes) are one byte: decoded inline.
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Some(u64::from(b))
            }
            _ => self.varint_long(),
        }
    }

    #[inline(never)]
    fn varint_long(&mut self) -> Option<u64> {
        let mut out: u64 = 0;
        for i in 0..10 {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Some(out);
            }
        }
        None
    }

    /// A varint that must fit a `usize` length no larger than what remains.
    #[inline]
    pub fn len_prefixed(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        self.bytes(n)
    }
}

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a varint length followed by the bytes.
pub fn put_len_prefixed(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trips_and_truncation_is_none() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            assert_eq!(ByteReader::new(&b).varint(), Some(v));
            assert_eq!(ByteReader::new(&b[..b.len() - 1]).varint(), None);
            // The one-byte fast path and the long path leave the cursor on the next varint.
            put_varint(&mut b, 5);
            put_varint(&mut b, v);
            let mut r = ByteReader::new(&b);
            assert_eq!(
                (r.varint(), r.varint(), r.varint()),
                (Some(v), Some(5), Some(v))
            );
            assert!(r.is_empty());
        }
    }

    #[test]
    fn reads_past_end_are_none() {
        let mut r = ByteReader::new(&[1, 2, 3]);
        assert_eq!(r.u32(), None);
        assert_eq!(r.bytes(usize::MAX), None);
        assert_eq!(r.u8(), Some(1));
        let mut r = ByteReader::new(&[0xff, 0xff, 0xff, 0x0f, 1]);
        assert_eq!(r.len_prefixed(), None);
    }
}
