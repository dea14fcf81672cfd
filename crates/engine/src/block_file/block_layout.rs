//! The layout of one data block ("Data block" in `docs/format/block-file.md`): the footer's and
//! the cell tag's constants and the tag decoder, which the writer (`block_builder.rs`) and the
//! reader share; the format version's layout; the trailer (restart offsets, base timestamp, flags,
//! count) and one cell's fields as positions in the block. [`super::BlockDecoder`] is the cursor
//! built on it.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::ByteReader;
use crate::cell::CellType;
use std::ops::Range;

/// Bytes of the version-3 block footer: `base_ts:i64 flags:u8 restart_count:u32`.
pub const FOOTER_BYTES: usize = 13;

/// Footer flag: restart offsets are 2 bytes (every restart lies within the first 64 KiB).
pub const FLAG_SHORT_RESTARTS: u8 = 1;
/// Footer flag: every cell carries a `shared` row-prefix length (PREFIX encoding).
pub const FLAG_SHARED: u8 = 2;

/// Cell tag bits above the type code: a sequence id follows the timestamp delta (else it is 0).
pub const TAG_SEQ: u8 = 0x10;
/// Cell tag bit: the timestamp lies below the block's base (`base - delta`, else `base + delta`).
pub const TAG_TS_BELOW: u8 = 0x20;
/// Cell tag bit (format version 4): the cell's own TTL, `ttl:i64` in milliseconds, follows the
/// sequence id.
pub const TAG_TTL: u8 = 0x40;
/// The type code's bits in a cell tag.
pub const TAG_TYPE_MASK: u8 = 0x0f;

/// The type code a cell tag carries, checked: `None` for a tag with unknown bits set (the
/// [`TAG_TTL`] bit is known only when `ttl_known`, in version-4 blocks) or a code that is not a
/// stored cell type.
pub(crate) fn tag_type(tag: u8, ttl_known: bool) -> Option<CellType> {
    let known = TAG_TYPE_MASK | TAG_SEQ | TAG_TS_BELOW | if ttl_known { TAG_TTL } else { 0 };
    if tag & !known != 0 {
        return None;
    }
    CellType::from_code(tag & TAG_TYPE_MASK)
}

/// The layout of a file's data blocks, which its format version implies ("Data block" in
/// `docs/format/block-file.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockFormat {
    /// Version 1: cells alone, no restart trailer.
    V1,
    /// Version 2: untagged cells (`shared` always present, 8-byte timestamps), 4-byte restart
    /// offsets and a count.
    V2,
    /// Version 3: tagged cells with timestamps against the block's base, restart offsets and a
    /// footer (base timestamp, flags, count).
    V3,
    /// Version 4: version 3 whose cells may carry their own TTL (tag bit 6). Version 5 files
    /// (the bloom filter in chunks) have the same data blocks.
    V4,
}

impl BlockFormat {
    /// The layout of data blocks in files of format `version`, if it is one this reader knows.
    pub fn of_version(version: u32) -> Option<Self> {
        match version {
            1 => Some(BlockFormat::V1),
            2 => Some(BlockFormat::V2),
            3 => Some(BlockFormat::V3),
            4 | 5 => Some(BlockFormat::V4),
            _ => None,
        }
    }
}

/// What a block's trailer says of its cells, checked against the block's length.
#[derive(Debug, Clone)]
pub(super) struct BlockLayout {
    /// End of the cells (where the restart trailer begins).
    pub(super) data_end: usize,
    /// Number of restart points (0 for version-1 blocks, which have none).
    pub(super) restart_count: usize,
    /// Bytes of one restart offset (2 or 4).
    restart_width: usize,
    format: BlockFormat,
    /// Cells carry a `shared` row-prefix length (always before version 3).
    shared: bool,
    /// The timestamp version-3 cells are written against.
    base_ts: i64,
}

/// One cell's fields as positions in the block (row aside: it may be rebuilt).
pub(super) struct Parsed {
    pub(super) shared: usize,
    pub(super) suffix: Range<usize>,
    pub(super) qualifier: Range<usize>,
    pub(super) timestamp: i64,
    pub(super) cell_type: CellType,
    pub(super) seq: u64,
    /// Offset of the cell's TTL in the block, 0 for none.
    pub(super) ttl_at: u32,
    pub(super) value: Range<usize>,
    pub(super) end: usize,
}

impl BlockLayout {
    /// The layout of `block`, read from its trailer as `format` says. `Err(offset)` when the
    /// trailer is malformed.
    #[expect(
        clippy::indexing_slicing,
        reason = "the flags byte at `footer + 8` lies inside the block: the footer is FOOTER_BYTES (13) long and `be(footer, 8)` read the 8 bytes before it"
    )]
    pub(super) fn read(block: &[u8], format: BlockFormat) -> Result<Self, usize> {
        let len = block.len();
        let be = |at: usize, n: usize| -> Result<u64, usize> {
            let b = block.get(at..at + n).ok_or(at)?;
            Ok(b.iter().fold(0u64, |v, &x| v << 8 | u64::from(x)))
        };
        let (data_end, restart_count, restart_width, shared, base_ts) = match format {
            BlockFormat::V1 => (len, 0, 4, true, 0),
            BlockFormat::V2 => {
                let count_at = len.checked_sub(4).ok_or(0usize)?;
                let count = be(count_at, 4)? as usize;
                let data_end = count
                    .checked_mul(4)
                    .and_then(|n| count_at.checked_sub(n))
                    .ok_or(count_at)?;
                (data_end, count, 4, true, 0)
            }
            BlockFormat::V3 | BlockFormat::V4 => {
                let footer = len.checked_sub(FOOTER_BYTES).ok_or(0usize)?;
                let base_ts = be(footer, 8)? as i64;
                let flags = block[footer + 8];
                if flags & !(FLAG_SHORT_RESTARTS | FLAG_SHARED) != 0 {
                    return Err(footer + 8);
                }
                let count = be(footer + 9, 4)? as usize;
                let width = if flags & FLAG_SHORT_RESTARTS != 0 {
                    2
                } else {
                    4
                };
                let data_end = count
                    .checked_mul(width)
                    .and_then(|n| footer.checked_sub(n))
                    .ok_or(footer)?;
                (data_end, count, width, flags & FLAG_SHARED != 0, base_ts)
            }
        };
        Ok(BlockLayout {
            data_end,
            restart_count,
            restart_width,
            format,
            shared,
            base_ts,
        })
    }

    /// Offset of restart point `i` of `block`, checked to lie inside the cells.
    #[inline]
    pub(super) fn restart(&self, block: &[u8], i: usize) -> Result<usize, usize> {
        let at = self.data_end + self.restart_width * i;
        let raw = block.get(at..at + self.restart_width).ok_or(at)?;
        let off = raw.iter().fold(0usize, |v, &x| v << 8 | usize::from(x));
        if off >= self.data_end {
            return Err(at);
        }
        Ok(off)
    }

    /// Parses the cell of `block` at `start`, whose row may share at most `prev_len` bytes.
    #[expect(
        clippy::indexing_slicing,
        reason = "`read` checked `data_end <= block.len()`"
    )]
    #[inline]
    pub(super) fn parse_at(
        &self,
        block: &[u8],
        start: usize,
        prev_len: usize,
    ) -> Result<Parsed, usize> {
        let block = &block[..self.data_end];
        let mut r = ByteReader::new(block.get(start..).ok_or(start)?);
        let at = |r: &ByteReader, len: usize| {
            let end = start + r.position();
            end - len..end
        };
        (|| {
            let (tag, shared) = match self.format {
                BlockFormat::V3 | BlockFormat::V4 => {
                    let tag = r.u8()?;
                    let shared = if self.shared { r.varint()? } else { 0 };
                    (Some(tag), shared)
                }
                _ => (None, r.varint()?),
            };
            let shared = usize::try_from(shared).ok()?;
            if shared > prev_len {
                return None;
            }
            let n = r.len_prefixed()?.len();
            let suffix = at(&r, n);
            let n = r.len_prefixed()?.len();
            let qualifier = at(&r, n);
            let (timestamp, cell_type, seq, ttl_at) = match tag {
                Some(tag) => {
                    let cell_type = tag_type(tag, self.format == BlockFormat::V4)?;
                    let delta = r.varint()?;
                    let base = self.base_ts as u64;
                    let timestamp = if tag & TAG_TS_BELOW != 0 {
                        base.wrapping_sub(delta)
                    } else {
                        base.wrapping_add(delta)
                    } as i64;
                    let seq = if tag & TAG_SEQ != 0 { r.varint()? } else { 0 };
                    let ttl_at = if tag & TAG_TTL != 0 {
                        let at = u32::try_from(start + r.position()).ok()?;
                        r.i64()?;
                        at
                    } else {
                        0
                    };
                    (timestamp, cell_type, seq, ttl_at)
                }
                None => {
                    let timestamp = r.i64()?;
                    let cell_type = CellType::from_code(r.u8()?)?;
                    (timestamp, cell_type, r.varint()?, 0)
                }
            };
            let n = r.len_prefixed()?.len();
            let value = at(&r, n);
            Some(Parsed {
                shared,
                suffix,
                qualifier,
                timestamp,
                cell_type,
                seq,
                ttl_at,
                value,
                end: start + r.position(),
            })
        })()
        .ok_or(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_file::block_decoder::tests::{build_block, kv, seek_kv};
    use crate::block_file::{BlockBuilder, BlockDecoder};
    use crate::cell::{CellKey, KeyValue};
    use crate::schema::DataBlockEncoding;
    use bytes::Bytes;

    /// `cells` as a version-2 block (PREFIX sharing when `prefix`): untagged cells, a restart
    /// every 16 cells, 4-byte offsets and a count. Version 1 is the same without the trailer.
    fn version_two_block(cells: &[KeyValue], prefix: bool) -> Vec<u8> {
        use crate::byte_reader::put_varint;
        let (mut out, mut restarts, mut prev): (Vec<u8>, Vec<u32>, &[u8]) = (vec![], vec![], b"");
        for (i, c) in cells.iter().enumerate() {
            let k = &c.key;
            let shared = if i % 16 == 0 {
                restarts.push(out.len() as u32);
                0
            } else if prefix {
                k.row.iter().zip(prev).take_while(|(a, b)| a == b).count()
            } else {
                0
            };
            put_varint(&mut out, shared as u64);
            put_varint(&mut out, (k.row.len() - shared) as u64);
            out.extend_from_slice(&k.row[shared..]);
            put_varint(&mut out, k.qualifier.len() as u64);
            out.extend_from_slice(&k.qualifier);
            out.extend_from_slice(&k.timestamp.to_be_bytes());
            out.push(k.cell_type.code());
            put_varint(&mut out, k.seq);
            put_varint(&mut out, c.value.len() as u64);
            out.extend_from_slice(&c.value);
            prev = &k.row;
        }
        for r in &restarts {
            out.extend_from_slice(&r.to_be_bytes());
        }
        out.extend_from_slice(&(restarts.len() as u32).to_be_bytes());
        out
    }

    #[test]
    fn version_one_and_two_blocks_still_decode_and_seek() {
        let cells: Vec<KeyValue> = (0..40)
            .map(|i| kv(&format!("r{:03}", i / 2), &format!("q{i}"), -i))
            .collect();
        for prefix in [false, true] {
            let v2 = version_two_block(&cells, prefix);
            // Version 1 wrote the cells alone: drop the restart trailer (3 restarts + count).
            let v1 = &v2[..v2.len() - 16];
            for (raw, format) in [(v1, BlockFormat::V1), (&v2[..], BlockFormat::V2)] {
                let block = Bytes::copy_from_slice(raw);
                let mut d = BlockDecoder::new(block.clone(), format).unwrap();
                assert_eq!(seek_kv(&mut d, &cells[33].key).as_ref(), Some(&cells[33]));
                assert_eq!(d.next_cell().unwrap().as_ref(), Some(&cells[34]));
                let mut d = BlockDecoder::new(block, format).unwrap();
                for c in &cells {
                    assert_eq!(d.next_cell().unwrap().as_ref(), Some(c), "{format:?}");
                }
                assert_eq!(d.next_cell().unwrap(), None);
            }
        }
    }

    #[test]
    fn timestamps_types_and_sequence_ids_round_trip_against_the_block_base() {
        let mut cells = Vec::new();
        let types = [
            CellType::DeleteFamily,
            CellType::DeleteFamilyVersion,
            CellType::DeleteColumn,
            CellType::Delete,
            CellType::Put,
        ];
        // The first cell (the base) in the middle; then both extremes of i64 on either side.
        let stamps = [
            0,
            i64::MAX,
            i64::MIN,
            -1,
            1 << 40,
            i64::MIN + 1,
            i64::MAX - 1,
            0,
        ];
        for (i, &ts) in stamps.iter().enumerate() {
            for (j, &t) in types.iter().enumerate() {
                let mut c = kv(&format!("r{i:02}"), &format!("q{j}"), ts);
                c.key.cell_type = t;
                c.key.seq = [0, 1, u64::MAX, 300][(i + j) % 4];
                cells.push(c);
            }
        }
        for enc in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let mut b = BlockBuilder::new(enc);
            for c in &cells {
                b.add(c);
            }
            let block = Bytes::from(b.take());
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
            for c in &cells {
                assert_eq!(d.next_cell().unwrap().as_ref(), Some(c), "{enc:?}");
            }
            assert_eq!(d.next_cell().unwrap(), None);
            for c in &cells {
                let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
                assert_eq!(seek_kv(&mut d, &c.key).as_ref(), Some(c));
            }
        }
    }

    #[test]
    fn a_none_block_cell_costs_its_row_value_and_eight_header_bytes() {
        // 16-byte rows, empty qualifiers, 1 KiB values, sequence ids 0 and timestamps a second
        // apart: tag, row length, qualifier length, 3-byte timestamp delta, 2-byte value length.
        let cells: Vec<KeyValue> = (0..60)
            .map(|i| KeyValue {
                key: CellKey {
                    seq: 0,
                    ..kv(&format!("user{i:012}"), "", 1_600_000_000_000 - 1000 * i).key
                },
                value: Bytes::from(vec![7u8; 1024]),
                ttl_ms: None,
            })
            .collect();
        let raw = build_block(DataBlockEncoding::None, &cells);
        let layout = BlockLayout::read(&raw, BlockFormat::V3).unwrap();
        let trailer = 2 * layout.restart_count + FOOTER_BYTES;
        // The first cell's delta is 0 (one byte); up to 16 s (< 2^14 ms) two bytes; then three.
        assert_eq!(raw.len() - trailer, 60 * (16 + 1024 + 8) - 2 - 16);
        let v2 = version_two_block(&cells, false);
        assert!(
            raw.len() + 60 * 6 < v2.len(),
            "{} vs {}",
            raw.len(),
            v2.len()
        );
    }

    #[test]
    fn restart_offsets_widen_to_four_bytes_past_64_kib() {
        let cells: Vec<KeyValue> = (0..5)
            .map(|i| KeyValue {
                value: Bytes::from(vec![b'x'; 30_000]),
                ..kv(&format!("r{i}"), "q", 1)
            })
            .collect();
        let raw = build_block(DataBlockEncoding::None, &cells);
        let flags = raw[raw.len() - 5];
        assert_eq!(flags & FLAG_SHORT_RESTARTS, 0);
        let block = Bytes::from(raw);
        for c in &cells {
            let layout = BlockLayout::read(&block, BlockFormat::V3).unwrap();
            assert_eq!(layout.restart_count, 5);
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
            assert_eq!(seek_kv(&mut d, &c.key).as_ref(), Some(c));
        }
    }

    #[test]
    fn cell_ttls_round_trip_in_version_4_blocks_and_are_corruption_in_version_3() {
        let mut cells: Vec<KeyValue> = (0..40).map(|i| kv(&format!("r{i:03}"), "q", 5)).collect();
        for (i, c) in cells.iter_mut().enumerate() {
            c.ttl_ms = match i % 3 {
                0 => None,
                1 => Some(1_000 * i as i64),
                _ => Some(-1),
            };
        }
        for enc in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let block = Bytes::from(build_block(enc, &cells));
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V4).unwrap();
            for want in &cells {
                let got = d.next_cell().unwrap().unwrap();
                assert_eq!(&got, want);
            }
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V4).unwrap();
            assert_eq!(seek_kv(&mut d, &cells[31].key), Some(cells[31].clone()));
            assert_eq!(d.current().map(|v| v.ttl_ms), Some(cells[31].ttl_ms));
            // A version-3 file never carries the TTL bit: its reader calls it corruption.
            let mut d = BlockDecoder::new(block, BlockFormat::V3).unwrap();
            assert!(
                d.next_cell().unwrap().is_some(),
                "the first cell has no TTL"
            );
            assert!(d.next_cell().is_err());
        }
    }

    #[test]
    fn restart_offsets_out_of_range_and_bad_footers_are_errors() {
        let mut b = BlockBuilder::new(DataBlockEncoding::None);
        for i in 0..20 {
            b.add(&kv(&format!("r{i:03}"), "q", 1));
        }
        let good = b.take();
        let n = good.len();
        // Two 2-byte restart offsets before the 13-byte footer; the second points past the cells.
        let mut raw = good.clone();
        raw[n - 15..n - 13].copy_from_slice(&u16::MAX.to_be_bytes());
        let mut d = BlockDecoder::new(Bytes::from(raw), BlockFormat::V3).unwrap();
        assert!(d.seek(&kv("r019", "q", 1).key).is_err());
        // Unknown flag bits; a count larger than the block; a block shorter than its footer.
        let mut raw = good.clone();
        raw[n - 5] |= 0x80;
        assert!(BlockDecoder::new(Bytes::from(raw), BlockFormat::V3).is_err());
        let mut raw = good.clone();
        raw[n - 4..].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(BlockDecoder::new(Bytes::from(raw), BlockFormat::V3).is_err());
        assert!(BlockDecoder::new(Bytes::from_static(&[0, 0, 0, 9]), BlockFormat::V3).is_err());
        assert!(BlockDecoder::new(Bytes::from_static(&[0, 0, 0, 9]), BlockFormat::V2).is_err());
        // A cell tag with an unknown bit or type code.
        for tag in [0x44, 0x05] {
            let mut raw = good.clone();
            raw[0] = tag;
            let mut d = BlockDecoder::new(Bytes::from(raw), BlockFormat::V3).unwrap();
            assert_eq!(d.next_cell(), Err(0));
        }
    }

    #[test]
    fn truncated_block_is_an_error_with_offset() {
        for enc in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let mut b = BlockBuilder::new(enc);
            b.add(&kv("a", "q", 1));
            b.add(&kv("ab", "q", 1));
            // One 2-byte restart offset and the footer follow the cells.
            let raw = b.take();
            let (cells, trailer) = raw.split_at(raw.len() - 2 - FOOTER_BYTES);
            let mut one = BlockBuilder::new(enc);
            one.add(&kv("a", "q", 1));
            let boundary = one.take().len() - 2 - FOOTER_BYTES;
            for cut in (1..cells.len()).filter(|&c| c != boundary) {
                let block = Bytes::from([&cells[..cut], trailer].concat());
                let mut d = BlockDecoder::new(block, BlockFormat::V3).unwrap();
                let mut saw_err = false;
                for _ in 0..3 {
                    match d.next_cell() {
                        Err(_) => {
                            saw_err = true;
                            break;
                        }
                        Ok(None) => break,
                        Ok(Some(_)) => {}
                    }
                }
                assert!(saw_err, "{enc:?}: cut at {cut} not detected");
            }
        }
    }
}
