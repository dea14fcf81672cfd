//! Builds the raw bytes of one data block ("Data block" in `docs/format/block-file.md`).

use crate::byte_reader::put_varint;
use crate::cell::KeyValue;
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
        }
    }

    /// Appends a cell: `shared:varint suffix_len:varint row_suffix qualifier:lp ts:i64be
    /// type:u8 seq:varint value:lp`. `shared` is always 0 with encoding NONE and at restarts.
    pub fn add(&mut self, kv: &KeyValue) {
        let row = &kv.key.row;
        let last = self.restarts.last().map_or(0, |&r| r as usize);
        let restart = self.count == 0
            || self.since_restart >= RESTART_INTERVAL
            || self.buf.len() - last >= RESTART_BYTES;
        if restart {
            self.restarts.push(self.buf.len() as u32);
            self.since_restart = 0;
        }
        self.since_restart += 1;
        let shared = match self.encoding {
            _ if restart => 0,
            DataBlockEncoding::None => 0,
            DataBlockEncoding::Prefix => row
                .iter()
                .zip(self.prev_row.iter())
                .take_while(|(a, b)| a == b)
                .count(),
        };
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (row.len() - shared) as u64);
        self.buf.extend_from_slice(&row[shared..]);
        put_varint(&mut self.buf, kv.key.qualifier.len() as u64);
        self.buf.extend_from_slice(&kv.key.qualifier);
        self.buf.extend_from_slice(&kv.key.timestamp.to_be_bytes());
        self.buf.push(kv.key.cell_type.code());
        put_varint(&mut self.buf, kv.key.seq);
        put_varint(&mut self.buf, kv.value.len() as u64);
        self.buf.extend_from_slice(&kv.value);
        if self.encoding == DataBlockEncoding::Prefix {
            self.prev_row.clear();
            self.prev_row.extend_from_slice(row);
        }
        self.count += 1;
    }

    /// Raw size so far in bytes (the restart trailer included).
    pub fn size(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// An upper bound on [`BlockBuilder::size`] once `kv` is added (the row counted whole, and a
    /// new restart point).
    pub fn size_with(&self, kv: &KeyValue) -> usize {
        let k = &kv.key;
        self.size()
            + 4
            + 1
            + varint_len(k.row.len() as u64)
            + k.row.len()
            + varint_len(k.qualifier.len() as u64)
            + k.qualifier.len()
            + 9
            + varint_len(k.seq)
            + varint_len(kv.value.len() as u64)
            + kv.value.len()
    }

    /// True when no cell was added since the last `take`.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Returns the raw block, its restart trailer appended, and resets the builder.
    pub fn take(&mut self) -> Vec<u8> {
        self.prev_row.clear();
        self.count = 0;
        self.since_restart = 0;
        let mut out = std::mem::take(&mut self.buf);
        for r in &self.restarts {
            out.extend_from_slice(&r.to_be_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_be_bytes());
        self.restarts.clear();
        out
    }
}
