//! Immutable sorted block files (HBase's HFile): data blocks, a bloom section, a block index, a
//! meta section and a fixed trailer. The byte layout is specified in
//! `docs/format/block-file.md`; section names there are cited in the code.

mod aligned_output;
mod block_builder;
mod block_decoder;
mod block_index;
mod block_layout;
mod compression_probe;
mod file_scanner;
mod reader;
mod trailer;
mod writer;

pub use crate::compound_bloom::DEFAULT_CHUNK_BYTES as DEFAULT_BLOOM_CHUNK_BYTES;
pub use block_builder::BlockBuilder;
pub use block_decoder::BlockDecoder;
pub use block_index::{decode_index, BlockIndex};
pub use block_layout::BlockFormat;
pub(crate) use compression_probe::CompressionProbe;
pub use file_scanner::{FileScanner, SCAN_READAHEAD};
pub use reader::{BlockFileReader, CacheMode, Removal};
pub use trailer::{SectionHandle, Trailer};
pub use writer::{BlockFileWriter, FileOptions};

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::cell::{CellKey, CellType};
use crate::checksum::masked_crc;
use crate::compression::Compression;

/// Trailer magic, the last 8 bytes of every block file.
pub const MAGIC: &[u8; 8] = b"FRBSBLK1";
/// Format version written in the trailer.
pub const FORMAT_VERSION: u32 = 5;
/// First format version whose bloom filter is in chunks (`crate::compound_bloom`).
pub const CHUNKED_BLOOM_VERSION: u32 = 5;
/// Oldest format version still read (version 1 data blocks have no restart trailer).
pub const MIN_FORMAT_VERSION: u32 = 1;
/// Size of the trailer in bytes.
pub const TRAILER_LEN: usize = 64;

/// Bytes a frame adds to a block's payload (codec, raw length, CRC).
pub(crate) const FRAME_BYTES: usize = 9;

/// Frames a block ("Block framing"): `codec:u8 raw_len:u32be payload crc:u32be`, the CRC
/// (masked CRC-32C) covering codec, raw_len and payload.
pub(crate) fn frame_block(raw: &[u8], codec: Compression) -> Vec<u8> {
    let compressed = (codec != Compression::None).then(|| codec.compress(raw));
    // A codec that does not save at least an eighth of the block is not worth the decode cost
    // on every read (RocksDB's rule): the block is stored raw and read without a copy.
    let (codec, payload) = match &compressed {
        Some(c) if c.len() <= raw.len() / 8 * 7 => (codec, &c[..]),
        _ => (Compression::None, raw),
    };
    let mut out = Vec::with_capacity(payload.len() + FRAME_BYTES);
    out.push(codec.id());
    out.extend_from_slice(&(raw.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    let crc = masked_crc(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// Checks and unframes a block read from disk into a shared buffer: a stored-raw block is a
/// slice of `framed` (no copy), a compressed one is decompressed. `Err` describes what is wrong.
pub(crate) fn unframe_block_shared(framed: Vec<u8>) -> Result<bytes::Bytes, String> {
    let (codec, raw_len, payload) = check_frame(&framed)?;
    if codec == Compression::None {
        let end = 5 + payload.len();
        return Ok(bytes::Bytes::from(framed).slice(5..end));
    }
    // Checked once above: decompress the payload directly rather than through
    // `unframe_block`, which would verify the checksum a second time.
    codec.decompress(payload, raw_len).map(bytes::Bytes::from)
}

/// Checks a framed block's length, CRC and codec id; returns codec, raw length and payload.
#[cfg_attr(not(test), deny(clippy::indexing_slicing))]
fn check_frame(framed: &[u8]) -> Result<(Compression, usize, &[u8]), String> {
    if framed.len() < FRAME_BYTES {
        return Err(format!(
            "block of {} bytes is shorter than its framing",
            framed.len()
        ));
    }
    let (body, crc) = framed.split_at(framed.len() - 4);
    let short = || "block framing is short".to_string();
    let want = ByteReader::new(crc).u32().ok_or_else(short)?;
    if masked_crc(body) != want {
        return Err("block checksum mismatch".into());
    }
    let mut header = ByteReader::new(body);
    let id = header.u8().ok_or_else(short)?;
    let codec = Compression::from_id(id).ok_or_else(|| format!("unknown codec id {id}"))?;
    let raw_len = header.u32().ok_or_else(short)? as usize;
    if raw_len > 256 * 1024 * 1024 {
        return Err(format!("block raw length {raw_len} is implausible"));
    }
    if codec == Compression::None && raw_len != body.len() - 5 {
        return Err(format!(
            "stored block of {} bytes claims {raw_len}",
            body.len() - 5
        ));
    }
    Ok((codec, raw_len, body.get(5..).unwrap_or_default()))
}

/// Checks and unframes a block read from disk, returning the raw (decompressed) bytes or a
/// description of what is wrong.
pub(crate) fn unframe_block(framed: &[u8]) -> Result<Vec<u8>, String> {
    let (codec, raw_len, payload) = check_frame(framed)?;
    codec.decompress(payload, raw_len)
}

/// Encodes a full cell key ("Key encoding"): `row:lp qualifier:lp ts:i64be type:u8 seq:varint`.
pub(crate) fn encode_key(out: &mut Vec<u8>, k: &CellKey) {
    put_len_prefixed(out, &k.row);
    put_len_prefixed(out, &k.qualifier);
    out.extend_from_slice(&k.timestamp.to_be_bytes());
    out.push(k.cell_type.code());
    put_varint(out, k.seq);
}

/// Decodes a key written by [`encode_key`].
#[cfg_attr(not(test), deny(clippy::indexing_slicing))]
pub(crate) fn decode_key(r: &mut ByteReader<'_>) -> Option<CellKey> {
    let row = bytes::Bytes::copy_from_slice(r.len_prefixed()?);
    let qualifier = bytes::Bytes::copy_from_slice(r.len_prefixed()?);
    let timestamp = r.i64()?;
    let cell_type = decode_type(r.u8()?)?;
    let seq = r.varint()?;
    Some(CellKey {
        row,
        qualifier,
        timestamp,
        cell_type,
        seq,
    })
}

/// Decodes a type code, allowing the seek-only codes that index keys never carry anyway.
fn decode_type(code: u8) -> Option<CellType> {
    match code {
        0 => Some(CellType::Minimum),
        255 => Some(CellType::Maximum),
        c => CellType::from_code(c),
    }
}

/// Metadata of a block file ("Meta section").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMeta {
    /// The family the file belongs to.
    pub family: Vec<u8>,
    /// Number of cells.
    pub cell_count: u64,
    /// Number of delete markers among them.
    pub delete_count: u64,
    /// Smallest cell timestamp (i64::MAX when empty).
    pub min_ts: i64,
    /// Largest cell timestamp (i64::MIN when empty).
    pub max_ts: i64,
    /// Largest sequence id in the file.
    pub max_seq: u64,
    /// First key, if any cell.
    pub first_key: Option<CellKey>,
    /// Last key, if any cell.
    pub last_key: Option<CellKey>,
    /// Bloom type the file was written with.
    pub bloom: crate::schema::BloomType,
    /// Whether the file is the result of a major compaction.
    pub major_compacted: bool,
    /// Sum of the raw (uncompressed) sizes of the data blocks.
    pub raw_data_bytes: u64,
    /// The most cells any one column of a row has in the file (delete markers included);
    /// `None` for a file written before it was recorded.
    pub max_column_cells: Option<u64>,
    /// Cells a major compaction may drop whatever VERSIONS says: cells carrying their own TTL,
    /// and cells repeating the previous cell's column and timestamp (an overwritten value, as
    /// NEW_VERSION_BEHAVIOR's flushes keep them); `None` for a file written before it was
    /// recorded.
    pub irregular_cells: Option<u64>,
}

#[cfg_attr(not(test), deny(clippy::indexing_slicing))]
impl FileMeta {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_len_prefixed(&mut out, &self.family);
        put_varint(&mut out, self.cell_count);
        put_varint(&mut out, self.delete_count);
        out.extend_from_slice(&self.min_ts.to_be_bytes());
        out.extend_from_slice(&self.max_ts.to_be_bytes());
        put_varint(&mut out, self.max_seq);
        for k in [&self.first_key, &self.last_key] {
            match k {
                Some(k) => {
                    out.push(1);
                    encode_key(&mut out, k);
                }
                None => out.push(0),
            }
        }
        out.push(self.bloom.id());
        out.push(u8::from(self.major_compacted));
        put_varint(&mut out, self.raw_data_bytes);
        // Added later: both or neither (a reader of an older file finds the section ending).
        if let (Some(c), Some(t)) = (self.max_column_cells, self.irregular_cells) {
            put_varint(&mut out, c);
            put_varint(&mut out, t);
        }
        out
    }

    /// Decodes a meta section's raw (unframed) bytes; `None` when they are malformed. Never
    /// panics, whatever the bytes.
    pub fn decode(buf: &[u8]) -> Option<FileMeta> {
        let mut r = ByteReader::new(buf);
        let family = r.len_prefixed()?.to_vec();
        let cell_count = r.varint()?;
        let delete_count = r.varint()?;
        let min_ts = r.i64()?;
        let max_ts = r.i64()?;
        let max_seq = r.varint()?;
        let mut keys = [None, None];
        for k in &mut keys {
            *k = match r.u8()? {
                0 => None,
                1 => Some(decode_key(&mut r)?),
                _ => return None,
            };
        }
        let [first_key, last_key] = keys;
        let bloom = crate::schema::BloomType::from_id(r.u8()?)?;
        let major_compacted = r.u8()? != 0;
        let raw_data_bytes = r.varint()?;
        let (max_column_cells, irregular_cells) = if r.is_empty() {
            (None, None)
        } else {
            (Some(r.varint()?), Some(r.varint()?))
        };
        Some(FileMeta {
            family,
            cell_count,
            delete_count,
            min_ts,
            max_ts,
            max_seq,
            first_key,
            last_key,
            bloom,
            major_compacted,
            raw_data_bytes,
            max_column_cells,
            irregular_cells,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_detects_every_single_byte_flip() {
        let raw: Vec<u8> = (0..300u32).map(|i| (i % 7) as u8).collect();
        for codec in [Compression::None, Compression::Lz4] {
            let framed = frame_block(&raw, codec);
            assert_eq!(unframe_block(&framed).unwrap(), raw);
            for i in 0..framed.len() {
                let mut bad = framed.clone();
                bad[i] ^= 0x10;
                assert!(unframe_block(&bad).is_err(), "flip at {i} undetected");
            }
            for cut in 0..framed.len() {
                assert!(unframe_block(&framed[..cut]).is_err());
                assert!(unframe_block_shared(framed[..cut].to_vec()).is_err());
            }
        }
    }

    #[test]
    fn blocks_that_compress_poorly_are_stored_raw_and_read_without_a_copy() {
        // 16 symbols at random: LZ4 finds almost no matches, far from saving an eighth.
        let mut rng = ferrobase_testkit::Rng::from_state(12345);
        let raw: Vec<u8> = (0..4096)
            .map(|_| b"abcdefghijklmnop"[rng.index(16)])
            .collect();
        let framed = frame_block(&raw, Compression::Lz4);
        assert_eq!(framed[0], Compression::None.id());
        assert_eq!(&unframe_block_shared(framed.clone()).unwrap()[..], &raw[..]);
        // A compressible block keeps its codec.
        let zeros = vec![0u8; 4096];
        let framed = frame_block(&zeros, Compression::Lz4);
        assert_eq!(framed[0], Compression::Lz4.id());
        assert_eq!(&unframe_block_shared(framed).unwrap()[..], &zeros[..]);
    }
}
