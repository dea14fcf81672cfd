//! Builds the raw bytes of one data block ("Data block" in `docs/format/block-file.md`),
//! in the current layout (format version 4).

use super::block_layout::{
    FLAG_SHARED, FLAG_SHORT_RESTARTS, FOOTER_BYTES, TAG_SEQ, TAG_TS_BELOW, TAG_TTL,
};
use crate::byte_reader::put_varint;
use crate::cell::{KeyValue, KeyValueRef};
use crate::schema::DataBlockEncoding;

/// A restart point at most this many cells after the previous one: a cell whose row is
/// written whole, so a reader can start decoding there ("Restart trailer" in the format spec).
pub const RESTART_INTERVAL: usize = 16;

/// A restart point also once this many bytes of cells follow the previous one: a seek decodes
/// forward from a restart point, and among large cells every header is a cache miss.
pub const RESTART_BYTES: usize = 2048;

/// Bytes of `v` as a varint.
fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// A cell's timestamp relative to the block's base: the tag bit and the unsigned distance
/// (exact for any two `i64`s).
fn ts_delta(base: i64, ts: i64) -> (u8, u64) {
    if ts >= base {
        (0, (ts as u64).wrapping_sub(base as u64))
    } else {
        (TAG_TS_BELOW, (base as u64).wrapping_sub(ts as u64))
    }
}

/// Accumulates cells, in key order, into one raw data block.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    encoding: DataBlockEncoding,
    prev_row: Vec<u8>,
    count: usize,
    /// Cells since the last restart point.
    since_restart: usize,
    restarts: Vec<u32>,
    /// The first cell's timestamp, the base every cell's timestamp is written against.
    base_ts: i64,
}

impl BlockBuilder {
    /// An empty builder using `encoding`.
    pub fn new(encoding: DataBlockEncoding) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            encoding,
            prev_row: Vec::new(),
            count: 0,
            since_restart: 0,
            restarts: Vec::new(),
            base_ts: 0,
        }
    }

    /// Appends a cell: `tag:u8 [shared:varint] suffix_len:varint row_suffix qualifier:lp
    /// ts_delta:varint [seq:varint] [ttl:i64] value:lp`. `shared` is written with PREFIX
    /// encoding only, and is 0 at restarts; `seq` only when it is not 0; `ttl` only for a cell
    /// with its own TTL.
    pub fn add(&mut self, kv: &KeyValue) {
        self.add_view(kv.as_view());
    }

    /// [`BlockBuilder::add`] of a cell seen in place.
    pub fn add_view(&mut self, kv: KeyValueRef<'_>) {
        let k = &kv;
        let row = k.row;
        if self.count == 0 {
            self.base_ts = k.timestamp;
        }
        let last = self.restarts.last().map_or(0, |&r| r as usize);
        let restart = self.count == 0
            || self.since_restart >= RESTART_INTERVAL
            || self.buf.len() - last >= RESTART_BYTES;
        if restart {
            self.restarts.push(self.buf.len() as u32);
            self.since_restart = 0;
        }
        self.since_restart += 1;
        let (below, delta) = ts_delta(self.base_ts, k.timestamp);
        let mut tag = k.cell_type.code() | below;
        if k.seq != 0 {
            tag |= TAG_SEQ;
        }
        if kv.ttl_ms.is_some() {
            tag |= TAG_TTL;
        }
        self.buf.push(tag);
        let shared = match self.encoding {
            DataBlockEncoding::None => 0,
            DataBlockEncoding::Prefix => {
                let shared = if restart {
                    0
                } else {
                    row.iter()
                        .zip(self.prev_row.iter())
                        .take_while(|(a, b)| a == b)
                        .count()
                };
                put_varint(&mut self.buf, shared as u64);
                self.prev_row.clear();
                self.prev_row.extend_from_slice(row);
                shared
            }
        };
        put_varint(&mut self.buf, (row.len() - shared) as u64);
        self.buf.extend_from_slice(&row[shared..]);
        put_varint(&mut self.buf, k.qualifier.len() as u64);
        self.buf.extend_from_slice(k.qualifier);
        put_varint(&mut self.buf, delta);
        if k.seq != 0 {
            put_varint(&mut self.buf, k.seq);
        }
        if let Some(ttl) = kv.ttl_ms {
            self.buf.extend_from_slice(&ttl.to_be_bytes());
        }
        put_varint(&mut self.buf, kv.value.len() as u64);
        self.buf.extend_from_slice(kv.value);
        self.count += 1;
    }

    /// Bytes a restart offset takes in the trailer.
    fn restart_width(&self) -> usize {
        if self.restarts.last().is_none_or(|&r| r <= u16::MAX as u32) {
            2
        } else {
            4
        }
    }

    /// Raw size so far in bytes (the restart trailer and footer included).
    pub fn size(&self) -> usize {
        self.buf.len() + self.restart_width() * self.restarts.len() + FOOTER_BYTES
    }

    /// An upper bound on [`BlockBuilder::size`] once `kv` is added (the row counted whole, and a
    /// new restart point).
    pub fn size_with(&self, kv: KeyValueRef<'_>) -> usize {
        let k = &kv;
        // Every restart lies at or before the new cell's offset.
        let width = if self.buf.len() <= u16::MAX as usize {
            2
        } else {
            4
        };
        let row_len = varint_len(k.row.len() as u64);
        self.buf.len()
            + width * (self.restarts.len() + 1)
            + FOOTER_BYTES
            + 1
            + 2 * row_len
            + k.row.len()
            + varint_len(k.qualifier.len() as u64)
            + k.qualifier.len()
            + 10
            + varint_len(k.seq)
            + varint_len(kv.value.len() as u64)
            + kv.value.len()
    }

    /// True when no cell was added since the last `take`.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Returns the raw block, its restart trailer and footer appended, and resets the builder.
    pub fn take(&mut self) -> Vec<u8> {
        let width = self.restart_width();
        let mut flags = 0;
        if width == 2 {
            flags |= FLAG_SHORT_RESTARTS;
        }
        if self.encoding == DataBlockEncoding::Prefix {
            flags |= FLAG_SHARED;
        }
        self.prev_row.clear();
        self.count = 0;
        self.since_restart = 0;
        let mut out = std::mem::take(&mut self.buf);
        out.reserve(width * self.restarts.len() + FOOTER_BYTES);
        for &r in &self.restarts {
            if width == 2 {
                out.extend_from_slice(&(r as u16).to_be_bytes());
            } else {
                out.extend_from_slice(&r.to_be_bytes());
            }
        }
        out.extend_from_slice(&self.base_ts.to_be_bytes());
        out.push(flags);
        out.extend_from_slice(&(self.restarts.len() as u32).to_be_bytes());
        self.restarts.clear();
        out
    }
}
