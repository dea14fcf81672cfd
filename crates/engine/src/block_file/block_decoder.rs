//! Decodes the cells of one raw data block, never panicking on malformed bytes.
//!
//! The cursor holds the current cell as positions in the block and lends it as a view
//! (`current`); a cell taken out of it shares the block's buffer (a reference count, not a
//! copy), except a row rebuilt from a shared prefix (PREFIX encoding).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::block_layout::{BlockFormat, BlockLayout, Parsed};
use crate::cell::{cmp_bytes, Cell, CellKey, CellType, KeyValue, KeyValueRef};
use bytes::Bytes;
use std::cmp::Ordering;
use std::ops::Range;

/// A cursor over the cells of a raw data block. Shares the block with the block cache.
#[derive(Debug, Clone)]
pub struct BlockDecoder {
    block: Bytes,
    pos: usize,
    prev_row: PrevRow,
    /// Where the cells end, the restart points, and how cells are encoded.
    layout: BlockLayout,
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

impl BlockDecoder {
    /// A cursor at the block's first cell, the block laid out as `format` says. `Err(offset)`
    /// when its trailer is malformed.
    pub fn new(block: Bytes, format: BlockFormat) -> Result<Self, usize> {
        let layout = BlockLayout::read(&block, format)?;
        Ok(BlockDecoder {
            block,
            pos: 0,
            prev_row: PrevRow::InBlock(0..0),
            layout,
            cur: None,
        })
    }

    /// Offset of restart point `i`, checked to lie inside the cells.
    #[inline]
    fn restart(&self, i: usize) -> Result<usize, usize> {
        self.layout.restart(&self.block, i)
    }

    /// Parses the cell at `start`, whose row may share at most `prev_len` bytes.
    #[inline]
    fn parse_at(&self, start: usize, prev_len: usize) -> Result<Parsed, usize> {
        self.layout.parse_at(&self.block, start, prev_len)
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
            reason = "`self.pos < self.layout.data_end <= block.len()`, tested just before"
        )
    )]
    fn prefetch_next(&self, len: usize) {
        #[cfg(target_arch = "x86_64")]
        if self.pos < self.layout.data_end {
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
        if self.layout.restart_count > 0 {
            // Binary search for the last restart whose cell sorts before the target; decoding
            // resumes there unless the cursor is already past it.
            let (mut lo, mut hi) = (0, self.layout.restart_count);
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
        while self.pos < self.layout.data_end {
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
        if self.pos >= self.layout.data_end {
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
pub(super) mod tests {
    use super::*;
    use crate::block_file::BlockBuilder;
    use crate::schema::DataBlockEncoding;

    /// Seeks `d` to `key` and returns the cell found there.
    pub(in crate::block_file) fn seek_kv(d: &mut BlockDecoder, key: &CellKey) -> Option<KeyValue> {
        let found = d.seek(key).unwrap();
        assert_eq!(found, d.current().is_some());
        d.current_key_value()
    }

    pub(in crate::block_file) fn kv(row: &str, q: &str, ts: i64) -> KeyValue {
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
    pub(in crate::block_file) fn build_block(
        enc: DataBlockEncoding,
        cells: &[KeyValue],
    ) -> Vec<u8> {
        let mut b = BlockBuilder::new(enc);
        for c in cells {
            b.add(c);
        }
        let size = b.size();
        let raw = b.take();
        assert_eq!(size, raw.len());
        raw
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
        assert_eq!(d.layout.restart_count, 20);
        for (i, c) in cells.iter().enumerate() {
            let mut d = BlockDecoder::new(block.clone(), BlockFormat::V3).unwrap();
            assert_eq!(seek_kv(&mut d, &c.key).as_ref(), Some(c));
            assert_eq!(d.next_cell().unwrap().as_ref(), cells.get(i + 1));
        }
    }
}
