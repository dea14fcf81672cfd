//! Decodes the cells of one raw data block, never panicking on malformed bytes.
//!
//! The cursor holds the current cell as positions in the block and lends it as a view
//! (`current`); a cell taken out of it shares the block's buffer (a reference count, not a
//! copy), except a row rebuilt from a shared prefix (PREFIX encoding).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::block_builder::{
    tag_type, FLAG_SHARED, FLAG_SHORT_RESTARTS, FOOTER_BYTES, TAG_SEQ, TAG_TS_BELOW, TAG_TTL,
};
use crate::byte_reader::ByteReader;
use crate::cell::{cmp_bytes, Cell, CellKey, CellType, KeyValue, KeyValueRef};
use bytes::Bytes;
use std::cmp::Ordering;
use std::ops::Range;

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
    /// Version 4: version 3 whose cells may carry their own TTL (tag bit 6).
    V4,
}

impl BlockFormat {
    /// The layout of data blocks in files of format `version`, if it is one this reader knows.
    pub fn of_version(version: u32) -> Option<Self> {
        match version {
            1 => Some(BlockFormat::V1),
            2 => Some(BlockFormat::V2),
            3 => Some(BlockFormat::V3),
            4 => Some(BlockFormat::V4),
            _ => None,
        }
    }
}

/// A cursor over the cells of a raw data block. Shares the block with the block cache.
#[derive(Debug, Clone)]
pub struct BlockDecoder {
    block: Bytes,
    pos: usize,
    prev_row: PrevRow,
    /// End of the cells (where the restart trailer begins).
    data_end: usize,
    /// Number of restart points (0 for version-1 blocks, which have none).
    restart_count: usize,
    /// Bytes of one restart offset (2 or 4).
    restart_width: usize,
    format: BlockFormat,
    /// Cells carry a `shared` row-prefix length (always before version 3).
    shared: bool,
    /// The timestamp version-3 cells are written against.
    base_ts: i64,
    /// The cell under the cursor (its row is `prev_row`), as positions in the block.
    cur: Option<Current>,
}

/// The fields of the cell under the cursor other than its row.
#[derive(Debug, Clone)]
struct Current {
    qualifier: Range<usize>,
    value: Range<usize>,
    timestamp: i64,
    cell_type: CellType,
    seq: u64,
    /// Offset of the cell's 8-byte TTL in the block, 0 for none (a TTL never starts a block:
    /// its cell's tag comes first). Four bytes fit in the padding after `cell_type`, where an
    /// `Option<i64>` would grow every file cursor.
    ttl_at: u32,
}

/// The previous cell's row: a range of the block when it was written whole (no reference
/// count taken), else a row rebuilt from a shared prefix.
#[derive(Debug, Clone)]
enum PrevRow {
    InBlock(Range<usize>),
    Rebuilt(Bytes),
}

/// One cell's fields as positions in the block (row aside: it may be rebuilt).
struct Parsed {
    shared: usize,
    suffix: Range<usize>,
    qualifier: Range<usize>,
    timestamp: i64,
    cell_type: CellType,
    seq: u64,
    /// Offset of the cell's TTL in the block, 0 for none.
    ttl_at: u32,
    value: Range<usize>,
    end: usize,
}

impl BlockDecoder {
    /// A cursor at the block's first cell, the block laid out as `format` says. `Err(offset)`
    /// when its trailer is malformed.
    #[expect(
        clippy::indexing_slicing,
        reason = "the flags byte at `footer + 8` lies inside the block: the footer is FOOTER_BYTES (13) long and `be(footer, 8)` read the 8 bytes before it"
    )]
    pub fn new(block: Bytes, format: BlockFormat) -> Result<Self, usize> {
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
        Ok(BlockDecoder {
            block,
            pos: 0,
            prev_row: PrevRow::InBlock(0..0),
            data_end,
            restart_count,
            restart_width,
            format,
            shared,
            base_ts,
            cur: None,
        })
    }

    /// Offset of restart point `i`, checked to lie inside the cells.
    fn restart(&self, i: usize) -> Result<usize, usize> {
        let at = self.data_end + self.restart_width * i;
        let raw = self.block.get(at..at + self.restart_width).ok_or(at)?;
        let off = raw.iter().fold(0usize, |v, &x| v << 8 | usize::from(x));
        if off >= self.data_end {
            return Err(at);
        }
        Ok(off)
    }

    /// Parses the cell at `self.pos` without moving; `Err(offset)` names a malformed cell.
    fn parse(&self) -> Result<Parsed, usize> {
        self.parse_at(self.pos, self.prev_row().len())
    }

    /// The previous cell's row.
    #[inline]
    fn prev_row(&self) -> &[u8] {
        match &self.prev_row {
            PrevRow::InBlock(r) => self.checked(r),
            PrevRow::Rebuilt(b) => b,
        }
    }

    /// Parses the cell at `start`, whose row may share at most `prev_len` bytes.
    #[expect(
        clippy::indexing_slicing,
        reason = "`new` checked `data_end <= block.len()`"
    )]
    fn parse_at(&self, start: usize, prev_len: usize) -> Result<Parsed, usize> {
        let block = &self.block[..self.data_end];
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

    #[expect(
        clippy::indexing_slicing,
        reason = "`parse_at` returns ranges inside the block and `shared <= prev_row().len()`"
    )]
    fn rebuilt_row(&self, p: &Parsed) -> Vec<u8> {
        let mut row = Vec::with_capacity(p.shared + p.suffix.len());
        row.extend_from_slice(&self.prev_row()[..p.shared]);
        row.extend_from_slice(&self.block[p.suffix.clone()]);
        row
    }

    /// Moves past a parsed cell without building it.
    fn skip(&mut self, p: &Parsed) {
        if p.shared == 0 {
            self.prev_row = PrevRow::InBlock(p.suffix.clone());
        } else if !(p.suffix.is_empty() && p.shared == self.prev_row().len()) {
            self.prev_row = PrevRow::Rebuilt(Bytes::from(self.rebuilt_row(p)));
        }
        self.pos = p.end;
    }

    /// Moves onto a parsed cell: it becomes the cell under the cursor. No reference count is
    /// taken; a row rebuilt from a shared prefix is the one allocation.
    fn consume(&mut self, p: Parsed) {
        let len = p.end - self.pos;
        self.skip(&p);
        self.cur = Some(Current {
            qualifier: p.qualifier,
            value: p.value,
            timestamp: p.timestamp,
            cell_type: p.cell_type,
            seq: p.seq,
            ttl_at: p.ttl_at,
        });
        self.prefetch_next(len);
    }

    /// The cell under the cursor, seen in place.
    #[inline]
    pub fn current(&self) -> Option<KeyValueRef<'_>> {
        let c = self.cur.as_ref()?;
        Some(KeyValueRef {
            row: self.prev_row(),
            qualifier: self.checked(&c.qualifier),
            timestamp: c.timestamp,
            cell_type: c.cell_type,
            seq: c.seq,
            value: self.checked(&c.value),
            ttl_ms: self.ttl(c),
        })
    }

    /// The TTL of cell `c`, read from where `parse_at` found (and checked) it.
    #[inline]
    fn ttl(&self, c: &Current) -> Option<i64> {
        if c.ttl_at == 0 {
            return None;
        }
        let at = c.ttl_at as usize;
        let b = self.checked(&(at..at + 8));
        Some(i64::from_be_bytes(b.try_into().ok()?))
    }

    /// The bytes of a range `parse_at` produced (and so checked to lie within the block).
    #[inline]
    fn checked(&self, r: &Range<usize>) -> &[u8] {
        debug_assert!(r.start <= r.end && r.end <= self.block.len());
        // SAFETY: every range held in `cur` or `prev_row` comes from `parse_at`, which takes
        // it from a reader over `self.block[..data_end]`, or is the empty range 0..0; the
        // block is never replaced while they are held (a new block means a new decoder).
        unsafe { self.block.get_unchecked(r.clone()) }
    }

    /// The sequence id of the cell under the cursor.
    #[inline]
    pub fn current_seq(&self) -> Option<u64> {
        self.cur.as_ref().map(|c| c.seq)
    }

    /// The row of the cell under the cursor.
    #[inline]
    pub fn current_row(&self) -> Option<&[u8]> {
        self.cur.as_ref()?;
        Some(self.prev_row())
    }

    /// The row of the cell under the cursor as a shared buffer (a slice of the block).
    fn current_row_bytes(&self) -> Option<Bytes> {
        self.cur.as_ref()?;
        Some(match &self.prev_row {
            PrevRow::InBlock(r) => self.block.slice(r.clone()),
            PrevRow::Rebuilt(b) => b.clone(),
        })
    }

    /// The cell under the cursor as an owned cell sharing the block.
    pub fn current_key_value(&self) -> Option<KeyValue> {
        let c = self.cur.as_ref()?;
        Some(KeyValue {
            key: CellKey {
                row: self.current_row_bytes()?,
                qualifier: self.block.slice(c.qualifier.clone()),
                timestamp: c.timestamp,
                cell_type: c.cell_type,
                seq: c.seq,
            },
            value: self.block.slice(c.value.clone()),
            ttl_ms: self.ttl(c),
        })
    }

    /// Appends the cell under the cursor to `out` as a client cell of `family`: one handle on
    /// the block (a row rebuilt from a shared prefix keeps its own buffer). False when there
    /// is none.
    #[inline]
    pub fn push_current(&self, family: &Bytes, out: &mut Vec<Cell>) -> bool {
        let Some(c) = self.cur.as_ref() else {
            return false;
        };
        match &self.prev_row {
            PrevRow::InBlock(r) => out.push(Cell::in_block(
                &self.block,
                r.clone(),
                family,
                c.qualifier.clone(),
                c.timestamp,
                c.cell_type,
                c.value.clone(),
            )),
            PrevRow::Rebuilt(row) => out.push(Cell::new(
                row.clone(),
                family.clone(),
                self.block.slice(c.qualifier.clone()),
                c.timestamp,
                c.cell_type,
                self.block.slice(c.value.clone()),
            )),
        }
        true
    }

    /// Asks the CPU to start loading the next cell's header while the caller works on the cell
    /// just returned, and the header one cell further (`len`, the returned cell's size, is the
    /// guess at where it lies: a block's cells tend to be alike). Cells of large values lie a
    /// cache line (or a page) apart, out of reach of the hardware prefetcher, and the first byte
    /// of each header was a memory stall; one cell of lead time is less than a memory access.
    #[inline]
    #[cfg_attr(
        target_arch = "x86_64",
        expect(
            clippy::indexing_slicing,
            reason = "`self.pos < self.data_end <= block.len()`, tested just before"
        )
    )]
    fn prefetch_next(&self, len: usize) {
        #[cfg(target_arch = "x86_64")]
        if self.pos < self.data_end {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // A header (row, qualifier, timestamp, lengths) often straddles two cache lines.
            let at: *const i8 = self.block[self.pos..].as_ptr().cast();
            // SAFETY: SSE is part of the x86_64 baseline; a prefetch is a hint that never
            // faults, whatever the address (the lines may lie past the block).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(at);
                _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(64));
                if len >= 256 {
                    _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(len));
                    _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(len + 64));
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = len;
    }

    /// Compares a parsed cell's key with `target`, the row compared in place.
    #[expect(
        clippy::indexing_slicing,
        reason = "`parse_at` returns ranges inside the block and `shared <= prev_row().len()`; `t[prefix.len()..]` follows `t.get(..prefix.len())` succeeding"
    )]
    fn compare(&self, p: &Parsed, target: &CellKey) -> Ordering {
        let prefix = &self.prev_row()[..p.shared];
        let suffix = &self.block[p.suffix.clone()];
        let t = &target.row[..];
        let row_ord = match t.get(..prefix.len()) {
            Some(tp) => cmp_bytes(prefix, tp).then_with(|| cmp_bytes(suffix, &t[prefix.len()..])),
            None => cmp_bytes(prefix, t),
        };
        row_ord
            .then_with(|| cmp_bytes(&self.block[p.qualifier.clone()], &target.qualifier))
            .then_with(|| target.timestamp.cmp(&p.timestamp))
            .then_with(|| target.cell_type.cmp(&p.cell_type))
            .then_with(|| target.seq.cmp(&p.seq))
    }

    /// Moves to the first cell ≥ `target`; false (no current cell) past the end of the block.
    /// `Err(offset)` names a malformed cell.
    pub fn seek(&mut self, target: &CellKey) -> Result<bool, usize> {
        self.cur = None;
        if self.restart_count > 0 {
            // Binary search for the last restart whose cell sorts before the target; decoding
            // resumes there unless the cursor is already past it.
            let (mut lo, mut hi) = (0, self.restart_count);
            while lo < hi {
                let mid = (lo + hi) / 2;
                let p = self.parse_at(self.restart(mid)?, 0)?;
                if self.compare(&p, target) == Ordering::Less {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo > 0 {
                let off = self.restart(lo - 1)?;
                if off > self.pos {
                    self.pos = off;
                    self.prev_row = PrevRow::InBlock(0..0);
                }
            }
        }
        while self.pos < self.data_end {
            let p = self.parse()?;
            if self.compare(&p, target) != Ordering::Less {
                self.consume(p);
                return Ok(true);
            }
            // Skipped cells need only their row kept for the next shared prefix.
            self.skip(&p);
        }
        Ok(false)
    }

    /// Moves to the next cell; false (no current cell) at the end of the block. `Err(offset)`
    /// names a malformed cell.
    #[inline]
    pub fn advance(&mut self) -> Result<bool, usize> {
        if self.pos >= self.data_end {
            self.cur = None;
            return Ok(false);
        }
        let p = self.parse()?;
        self.consume(p);
        Ok(true)
    }

    /// The next cell, or `None` at the end of the block. `Err(offset)` names a malformed cell.
    pub fn next_cell(&mut self) -> Result<Option<KeyValue>, usize> {
        self.advance()?;
        Ok(self.current_key_value())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_file::BlockBuilder;
    use crate::schema::DataBlockEncoding;

    /// Seeks `d` to `key` and returns the cell found there.
    fn seek_kv(d: &mut BlockDecoder, key: &CellKey) -> Option<KeyValue> {
        let found = d.seek(key).unwrap();
        assert_eq!(found, d.current().is_some());
        d.current_key_value()
    }

    fn kv(row: &str, q: &str, ts: i64) -> KeyValue {
        KeyValue {
            key: CellKey {
                row: Bytes::copy_from_slice(row.as_bytes()),
                qualifier: Bytes::copy_from_slice(q.as_bytes()),
                timestamp: ts,
                cell_type: CellType::Put,
                seq: 3,
            },
            value: Bytes::from(format!("v-{row}-{q}-{ts}")),
            ttl_ms: None,
        }
    }

    #[test]
    fn both_encodings_round_trip_and_prefix_is_smaller() {
        let cells: Vec<KeyValue> = (0..100)
            .map(|i| kv(&format!("user0000{:04}", i / 3), &format!("q{i}"), i))
            .collect();
        let mut sizes = Vec::new();
        for enc in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let mut b = BlockBuilder::new(enc);
            for c in &cells {
                b.add(c);
            }
            let raw = b.take();
            sizes.push(raw.len());
            let mut d = BlockDecoder::new(Bytes::from(raw), BlockFormat::V3).unwrap();
            for c in &cells {
                assert_eq!(d.next_cell().unwrap().as_ref(), Some(c));
            }
            assert_eq!(d.next_cell().unwrap(), None);
        }
        assert!(sizes[1] < sizes[0]);
    }

    #[test]
    fn cells_pushed_from_a_block_match_their_stored_cells_in_both_encodings() {
        let cells: Vec<KeyValue> = (0..100)
            .map(|i| kv(&format!("user0000{:04}", i / 3), &format!("q{i}"), i))
            .collect();
        let family = Bytes::from_static(b"cf");
        for enc in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let mut b = BlockBuilder::new(enc);
            for c in &cells {
                b.add(c);
            }
            let mut d = BlockDecoder::new(Bytes::from(b.take()), BlockFormat::V3).unwrap();
            let mut out = Vec::new();
            while d.advance().unwrap() {
                assert!(d.push_current(&family, &mut out));
            }
            assert!(!d.push_current(&family, &mut out));
            let want: Vec<Cell> = cells
                .iter()
                .map(|c| Cell::from_key_value(&family, c.clone()))
                .collect();
            assert_eq!(out, want, "{enc:?}");
            for (got, c) in out.iter().zip(&cells) {
                assert_eq!(got.row_bytes(), c.key.row);
                assert_eq!(got.qualifier_bytes(), c.key.qualifier);
                assert_eq!(got.value_bytes(), c.value);
            }
        }
    }

    /// `cells` as a block of the current format, checking the builder's size against it.
    fn build_block(enc: DataBlockEncoding, cells: &[KeyValue]) -> Vec<u8> {
        let mut b = BlockBuilder::new(enc);
        for c in cells {
            b.add(c);
        }
        let size = b.size();
        let raw = b.take();
        assert_eq!(size, raw.len());
        raw
    }

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
        let d = BlockDecoder::new(Bytes::from(raw.clone()), BlockFormat::V3).unwrap();
        let trailer = 2 * d.restart_count + FOOTER_BYTES;
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
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
            assert_eq!(d.restart_count, 5);
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
    fn seek_finds_the_first_cell_at_or_after_the_target() {
        let cells: Vec<KeyValue> = (0..60)
            .map(|i| kv(&format!("row{:03}", i / 4), &format!("q{}", i % 4), 100 - i))
            .collect();
        let mut sorted = cells.clone();
        sorted.sort_by(|a, b| a.key.cmp(&b.key));
        let mut b = BlockBuilder::new(DataBlockEncoding::Prefix);
        for c in &sorted {
            b.add(c);
        }
        let block = Bytes::from(b.take());
        let mut targets: Vec<CellKey> = sorted.iter().map(|c| c.key.clone()).collect();
        targets.push(CellKey::first_on_row(b"row007"));
        targets.push(CellKey::after_row(b"row007"));
        targets.push(CellKey::after_column(b"row003", b"q1"));
        targets.push(CellKey::first_on_row(b"zzz"));
        targets.push(CellKey::first_on_row(b""));
        for t in targets {
            let want = sorted.iter().find(|c| c.key >= t).cloned();
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
            assert_eq!(seek_kv(&mut d, &t), want, "target {t:?}");
            // Decoding continues correctly after a seek.
            if want.is_some() {
                let next = sorted
                    .iter()
                    .find(|c| c.key > want.as_ref().unwrap().key)
                    .cloned();
                assert_eq!(d.next_cell().unwrap(), next);
            }
        }
    }

    #[test]
    fn large_cells_get_a_restart_point_every_few_cells_and_seeks_find_them() {
        let cells: Vec<KeyValue> = (0..40)
            .map(|i| KeyValue {
                value: Bytes::from(vec![b'x'; 1024]),
                ..kv(&format!("user{i:04}"), "", 7)
            })
            .collect();
        let mut b = BlockBuilder::new(DataBlockEncoding::Prefix);
        for c in &cells {
            b.add(c);
        }
        let block = Bytes::from(b.take());
        let d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
        // 2 KiB of cells between restarts: every second 1 KiB cell, not every 16th.
        assert_eq!(d.restart_count, 20);
        for (i, c) in cells.iter().enumerate() {
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
            assert_eq!(seek_kv(&mut d, &c.key).as_ref(), Some(c));
            assert_eq!(d.next_cell().unwrap().as_ref(), cells.get(i + 1));
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
