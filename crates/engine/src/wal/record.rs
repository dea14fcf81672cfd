//! WAL records ("Record payload" in `docs/format/wal.md`): one mutation of one row of one
//! region, all cells sharing the mutation's sequence id.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::ByteReader;
use crate::cell::CellType;
use crate::checksum::StagedCrc;
use bytes::Bytes;

/// A cell inside a WAL edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalCell {
    /// Column family.
    pub family: Bytes,
    /// Row key.
    pub row: Bytes,
    /// Qualifier.
    pub qualifier: Bytes,
    /// Timestamp in ms.
    pub timestamp: i64,
    /// Put or delete-marker type.
    pub cell_type: CellType,
    /// Value.
    pub value: Bytes,
    /// The cell's own time to live in milliseconds (`None`: none).
    pub ttl_ms: Option<i64>,
}

/// One logged mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalEdit {
    /// The mutation's sequence id.
    pub seq: u64,
    /// The region the mutation applies to.
    pub region_id: u64,
    /// The cells, in any order.
    pub cells: Vec<WalCell>,
}

/// Hands `v` as a varint (`byte_reader::put_varint`'s bytes) to `put`.
fn put_varint_piece(put: &mut impl FnMut(&[u8]), mut v: u64) {
    let mut b = [0u8; 10];
    let mut n = 0;
    for slot in &mut b {
        n += 1;
        if v < 0x80 {
            *slot = v as u8;
            break;
        }
        *slot = (v as u8) | 0x80;
        v >>= 7;
    }
    put(b.get(..n).unwrap_or_default());
}

/// Hands a varint length and then `bytes` to `put` (`byte_reader::put_len_prefixed`'s bytes).
fn put_len_prefixed_piece(put: &mut impl FnMut(&[u8]), bytes: &[u8]) {
    put_varint_piece(put, bytes.len() as u64);
    put(bytes);
}

/// Bit of a cell's type byte (format version 2): an 8-byte TTL in milliseconds follows it.
pub const TYPE_HAS_TTL: u8 = 0x80;

impl WalEdit {
    /// Encodes (format version 2): `seq:varint region:varint count:varint` then per cell
    /// `family:lp row:lp qualifier:lp ts:i64be type:u8 [ttl:i64be] value:lp`, the type byte's
    /// bit 7 (0x80) set when a TTL follows.
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.encode_into(&mut |piece: &[u8]| out.extend_from_slice(piece));
    }

    /// The length and masked CRC of [`WalEdit::encode`]'s bytes, taken without writing them
    /// anywhere: a writer frames its record before the log's lock and, under it, only encodes
    /// into the shared buffer (one copy of the values, not two).
    pub fn frame(&self) -> (usize, u32) {
        let mut crc = StagedCrc::default();
        let mut len = 0;
        self.encode_into(&mut |piece: &[u8]| {
            crc.append(piece);
            len += piece.len();
        });
        (len, crc.finish())
    }

    /// The encoding, piece by piece, into `put`.
    fn encode_into(&self, put: &mut impl FnMut(&[u8])) {
        put_varint_piece(put, self.seq);
        put_varint_piece(put, self.region_id);
        put_varint_piece(put, self.cells.len() as u64);
        for c in &self.cells {
            put_len_prefixed_piece(put, &c.family);
            put_len_prefixed_piece(put, &c.row);
            put_len_prefixed_piece(put, &c.qualifier);
            put(&c.timestamp.to_be_bytes());
            match c.ttl_ms {
                Some(ttl) => {
                    put(&[c.cell_type.code() | TYPE_HAS_TTL]);
                    put(&ttl.to_be_bytes());
                }
                None => put(&[c.cell_type.code()]),
            }
            put_len_prefixed_piece(put, &c.value);
        }
    }

    /// Decodes a payload of the current format (version 2); `None` when malformed.
    pub fn decode(buf: &[u8]) -> Option<WalEdit> {
        Self::decode_version(buf, 2)
    }

    /// Decodes a payload of a segment of format `version` (1: no cell carries a TTL, and a type
    /// byte with bit 7 set is malformed); `None` when malformed.
    pub fn decode_version(buf: &[u8], version: u32) -> Option<WalEdit> {
        let mut r = ByteReader::new(buf);
        let seq = r.varint()?;
        let region_id = r.varint()?;
        let n = r.varint()?;
        let mut cells = Vec::with_capacity(n.min(4096) as usize);
        for _ in 0..n {
            let family = Bytes::copy_from_slice(r.len_prefixed()?);
            let row = Bytes::copy_from_slice(r.len_prefixed()?);
            let qualifier = Bytes::copy_from_slice(r.len_prefixed()?);
            let timestamp = r.i64()?;
            let code = r.u8()?;
            let has_ttl = version >= 2 && code & TYPE_HAS_TTL != 0;
            let cell_type = CellType::from_code(if has_ttl { code & !TYPE_HAS_TTL } else { code })?;
            let ttl_ms = if has_ttl { Some(r.i64()?) } else { None };
            cells.push(WalCell {
                family,
                row,
                qualifier,
                timestamp,
                cell_type,
                value: Bytes::copy_from_slice(r.len_prefixed()?),
                ttl_ms,
            });
        }
        if !r.is_empty() {
            return None;
        }
        Some(WalEdit {
            seq,
            region_id,
            cells,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(ttl_ms: Option<i64>) -> WalEdit {
        WalEdit {
            seq: 7,
            region_id: 2,
            cells: vec![WalCell {
                family: Bytes::from_static(b"x"),
                row: Bytes::from_static(b"r"),
                qualifier: Bytes::from_static(b"a"),
                timestamp: 1_000,
                cell_type: CellType::Put,
                value: Bytes::from_static(b"v"),
                ttl_ms,
            }],
        }
    }

    #[test]
    fn cell_ttls_round_trip_and_cells_without_one_keep_the_version_1_bytes() {
        for ttl in [None, Some(1_000), Some(0), Some(-5), Some(i64::MAX)] {
            let mut buf = Vec::new();
            edit(ttl).encode(&mut buf);
            assert_eq!(WalEdit::decode(&buf), Some(edit(ttl)), "{ttl:?}");
            let v1 = WalEdit::decode_version(&buf, 1);
            assert_eq!(v1, ttl.is_none().then(|| edit(None)), "{ttl:?}");
        }
    }

    #[test]
    fn a_frame_is_the_length_and_checksum_of_the_encoding() {
        for ttl in [None, Some(1_000)] {
            let mut e = edit(ttl);
            // Varints of one, two and ten bytes; a value long enough for a two-byte length.
            for (seq, len) in [(7, 0), (300, 127), (u64::MAX, 128), (1 << 40, 70_000)] {
                e.seq = seq;
                e.region_id = seq / 3;
                e.cells[0].value = Bytes::from(vec![9u8; len]);
                e.cells.push(e.cells[0].clone());
                let mut buf = Vec::new();
                e.encode(&mut buf);
                assert_eq!(e.frame(), (buf.len(), crate::checksum::masked_crc(&buf)));
            }
        }
    }

    #[test]
    fn a_ttl_flag_on_a_delete_marker_code_still_needs_a_real_type() {
        let mut buf = Vec::new();
        edit(Some(1)).encode(&mut buf);
        // The type byte sits right after the timestamp: flag it on an unknown code.
        let at = buf.len() - 1 - 1 - 8 - 1;
        assert_eq!(buf[at], CellType::Put.code() | TYPE_HAS_TTL);
        buf[at] = 0x05 | TYPE_HAS_TTL;
        assert_eq!(WalEdit::decode(&buf), None);
        // A TTL cut short is malformed, not a panic.
        let mut short = Vec::new();
        edit(Some(1)).encode(&mut short);
        short.truncate(at + 4);
        assert_eq!(WalEdit::decode(&short), None);
    }
}
