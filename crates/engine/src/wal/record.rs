//! WAL records ("Record payload" in `docs/format/wal.md`): one mutation of one row of one
//! region, all cells sharing the mutation's sequence id.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::cell::CellType;
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

impl WalEdit {
    /// Encodes: `seq:varint region:varint count:varint` then per cell `family:lp row:lp
    /// qualifier:lp ts:i64be type:u8 value:lp`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.seq);
        put_varint(out, self.region_id);
        put_varint(out, self.cells.len() as u64);
        for c in &self.cells {
            put_len_prefixed(out, &c.family);
            put_len_prefixed(out, &c.row);
            put_len_prefixed(out, &c.qualifier);
            out.extend_from_slice(&c.timestamp.to_be_bytes());
            out.push(c.cell_type.code());
            put_len_prefixed(out, &c.value);
        }
    }

    /// Decodes a payload; `None` when malformed.
    pub fn decode(buf: &[u8]) -> Option<WalEdit> {
        let mut r = ByteReader::new(buf);
        let seq = r.varint()?;
        let region_id = r.varint()?;
        let n = r.varint()?;
        let mut cells = Vec::with_capacity(n.min(4096) as usize);
        for _ in 0..n {
            cells.push(WalCell {
                family: Bytes::copy_from_slice(r.len_prefixed()?),
                row: Bytes::copy_from_slice(r.len_prefixed()?),
                qualifier: Bytes::copy_from_slice(r.len_prefixed()?),
                timestamp: r.i64()?,
                cell_type: CellType::from_code(r.u8()?)?,
                value: Bytes::copy_from_slice(r.len_prefixed()?),
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
