//! A cursor over one block file's cells in key order: seeks through the block index, steps
//! from block to block, and asks the OS for readahead on long scans and whole-file reads.

use super::{BlockDecoder, BlockFileReader, CacheMode};
use crate::cell::{Cell, CellKey, KeyValue, KeyValueRef};
use crate::error::Result;
use crate::metrics::FamilyReads;
use bytes::Bytes;
use std::cmp::Ordering;
use std::sync::Arc;

/// Bytes requested ahead of a cursor that reads whole files (RocksDB's compaction readahead).
pub const SEQUENTIAL_READAHEAD: u64 = 2 << 20;

/// Bytes requested ahead of a scanner once it has read consecutive blocks (RocksDB's
/// `max_auto_readahead_size`).
pub const SCAN_READAHEAD: u64 = 256 << 10;

/// Blocks a scanner steps into one after another before it asks for readahead. Short scans
/// (a 100-row scan of 1 KiB rows spans about three 64 KiB blocks) read only what they use:
/// reading ahead from their second block doubled the bytes a cold 100-row scan read from disk.
pub const SCAN_READAHEAD_AFTER: u32 = 4;

/// A cursor over a file's cells in key order, with seeks.
#[derive(Debug)]
pub struct FileScanner {
    reader: Arc<BlockFileReader>,
    mode: CacheMode,
    block_idx: usize,
    /// The current block's decoder; its current cell is the cursor's.
    decoder: Option<BlockDecoder>,
    /// Blocks entered one after another by stepping (not seeking), since the last seek.
    consecutive: u32,
    /// The file offset up to which readahead has been requested.
    read_ahead_to: u64,
    /// The family's block counters, for a read (none for a compaction).
    reads: Option<Arc<FamilyReads>>,
}

impl FileScanner {
    /// An unpositioned cursor over `reader`; call `seek` first.
    pub fn new(reader: Arc<BlockFileReader>, mode: CacheMode) -> Self {
        FileScanner {
            reader,
            mode,
            block_idx: 0,
            decoder: None,
            consecutive: 0,
            read_ahead_to: 0,
            reads: None,
        }
    }

    /// Counts the blocks this cursor reads in `reads` (a family's counters).
    pub fn counting(mut self, reads: Arc<FamilyReads>) -> Self {
        self.reads = Some(reads);
        self
    }

    /// The file read.
    pub fn reader(&self) -> &Arc<BlockFileReader> {
        &self.reader
    }

    /// The cell under the cursor, seen in place in its block.
    #[inline]
    pub fn peek(&self) -> Option<KeyValueRef<'_>> {
        self.decoder.as_ref()?.current()
    }

    /// The sequence id of the cell under the cursor.
    #[inline]
    pub fn peek_seq(&self) -> Option<u64> {
        self.decoder.as_ref()?.current_seq()
    }

    /// The row of the cell under the cursor.
    #[inline]
    pub fn peek_row(&self) -> Option<&[u8]> {
        self.decoder.as_ref()?.current_row()
    }

    fn load(&mut self, idx: usize) -> Result<bool> {
        let index = self.reader.index()?;
        if idx >= index.len() {
            self.decoder = None;
            return Ok(false);
        }
        let stepping = self.decoder.is_some() && idx == self.block_idx + 1;
        self.consecutive = if stepping { self.consecutive + 1 } else { 0 };
        let window = if self.mode.sequential {
            SEQUENTIAL_READAHEAD
        } else if self.consecutive >= SCAN_READAHEAD_AFTER {
            SCAN_READAHEAD
        } else {
            0
        };
        let e = &index[idx];
        let end = e.offset.saturating_add(e.size);
        if window > 0 && end > self.read_ahead_to.saturating_sub(window / 2) {
            let from = end.max(self.read_ahead_to);
            let to = end.saturating_add(window).min(self.reader.size);
            if to > from {
                self.reader.file()?.readahead(from, to - from);
                self.read_ahead_to = to;
            }
        }
        let readahead = if stepping {
            0
        } else {
            self.mode.seek_readahead
        };
        if readahead > 0 {
            // Requested with the block if it is cold; either way not to be asked for again.
            self.read_ahead_to = self.read_ahead_to.max(end.saturating_add(readahead));
        }
        let block = self
            .reader
            .read_block(idx, self.mode, readahead, self.reads.as_deref())?;
        self.block_idx = idx;
        let decoder = BlockDecoder::new(block, self.reader.block_format)
            .map_err(|at| self.reader.decode_err(idx, at))?;
        self.decoder = Some(decoder);
        Ok(true)
    }

    /// Moves to the next cell, returning the one under the cursor (sharing the block).
    pub fn take(&mut self) -> Result<Option<KeyValue>> {
        let cur = self.decoder.as_ref().and_then(|d| d.current_key_value());
        self.advance()?;
        Ok(cur)
    }

    /// Moves past the current cell, appending it to `out` as a client cell of `family` (one
    /// handle on the block); false when there was none.
    pub fn take_cell(&mut self, family: &Bytes, out: &mut Vec<Cell>) -> Result<bool> {
        let taken = self
            .decoder
            .as_ref()
            .is_some_and(|d| d.push_current(family, out));
        self.advance()?;
        Ok(taken)
    }

    /// Appends the current cell to `out` as a client cell of `family` without moving past it
    /// (false when there is none): the read needs nothing after it, so when it ends its block
    /// the next block is not read.
    pub fn copy_cell(&self, family: &Bytes, out: &mut Vec<Cell>) -> bool {
        self.decoder
            .as_ref()
            .is_some_and(|d| d.push_current(family, out))
    }

    /// Moves to the next cell.
    pub fn advance(&mut self) -> Result<()> {
        loop {
            let Some(d) = self.decoder.as_mut() else {
                return Ok(());
            };
            match d.advance() {
                Ok(true) => return Ok(()),
                Ok(false) => {
                    if !self.load(self.block_idx + 1)? {
                        return Ok(());
                    }
                }
                Err(at) => return Err(self.reader.decode_err(self.block_idx, at)),
            }
        }
    }

    /// Positions the cursor at the first cell ≥ `key`.
    pub fn seek(&mut self, key: &CellKey) -> Result<()> {
        let idx = self
            .reader
            .index()?
            .partition(key, |k| k <= key)
            .saturating_sub(1);
        // Stay in the current block when the target lies ahead within it.
        let at = self.peek().map(|c| c.cmp_cell_key(key));
        let reuse = idx == self.block_idx && at.is_some_and(|o| o != Ordering::Greater);
        if reuse && at == Some(Ordering::Equal) {
            return Ok(());
        }
        if !reuse && !self.load(idx)? {
            return Ok(());
        }
        let found = match self.decoder.as_mut() {
            Some(d) => d
                .seek(key)
                .map_err(|at| self.reader.decode_err(self.block_idx, at))?,
            None => false,
        };
        // The target lies past this block: the next block's first cell is the answer.
        if !found && self.load(self.block_idx + 1)? {
            self.advance()?;
        }
        Ok(())
    }

    /// The row of the last cell whose key is < `first_on_row(row)`, or `None`.
    pub fn last_row_before(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let target = CellKey::first_on_row(row);
        let idx = self.reader.index()?.partition(&target, |k| *k < target);
        if idx == 0 {
            return Ok(None);
        }
        let block = self
            .reader
            .read_block(idx - 1, self.mode, 0, self.reads.as_deref())?;
        let mut d = BlockDecoder::new(block, self.reader.block_format)
            .map_err(|at| self.reader.decode_err(idx - 1, at))?;
        let mut last = None;
        loop {
            match d.advance() {
                Ok(true) => match d.current() {
                    Some(kv) if kv.cmp_cell_key(&target) == Ordering::Less => {
                        last = Some(kv.row.to_vec())
                    }
                    _ => break,
                },
                Ok(false) => break,
                Err(at) => return Err(self.reader.decode_err(idx - 1, at)),
            }
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_cache::Priority;
    use crate::block_file::reader::tests::{rows, write_and_open};
    use crate::block_file::FileOptions;
    use crate::block_file::DEFAULT_BLOOM_CHUNK_BYTES;
    use crate::cell::CellType;
    use crate::compression::Compression;
    use crate::schema::{BloomType, DataBlockEncoding};

    #[test]
    fn seeks_through_the_prefix_index_match_a_plain_search() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.blk");
        let mut rs = rows(3000, 7);
        // A long run of blocks whose rows share their 16-byte prefix.
        rs.extend((0..600u32).map(|i| {
            let mut r = b"sixteen-byte-pfx".to_vec();
            r.extend_from_slice(&i.to_be_bytes());
            r
        }));
        rs.sort();
        rs.dedup();
        let opts = FileOptions {
            family: b"cf".to_vec(),
            block_size: 256,
            compression: Compression::None,
            encoding: DataBlockEncoding::Prefix,
            bloom: BloomType::None,
            major_compacted: false,
            bloom_chunk_bytes: DEFAULT_BLOOM_CHUNK_BYTES,
        };
        let cells: Vec<KeyValue> = rs
            .iter()
            .map(|r| KeyValue {
                key: CellKey {
                    row: Bytes::copy_from_slice(r),
                    qualifier: Bytes::from_static(b"q"),
                    timestamp: 5,
                    cell_type: CellType::Put,
                    seq: 1,
                },
                value: Bytes::from_static(b"v"),
                ttl_ms: None,
            })
            .collect();
        let reader = write_and_open(&path, opts, &cells);
        assert!(reader.block_count() > 50, "the test wants many blocks");
        let mut targets: Vec<CellKey> = rows(500, 3)
            .iter()
            .map(|r| CellKey::first_on_row(r))
            .collect();
        targets.extend(cells.iter().map(|c| c.key.clone()));
        targets.extend(rs.iter().map(|r| CellKey::after_row(r)));
        let mode = CacheMode {
            use_cache: true,
            priority: Priority::Normal,
            sequential: false,
            seek_readahead: 0,
        };
        for t in &targets {
            let plain = reader
                .index()
                .unwrap()
                .partition_point(|e| e.first_key <= *t);
            assert_eq!(
                reader.index().unwrap().partition(t, |k| k <= t),
                plain,
                "{t:?}"
            );
            let plain = reader
                .index()
                .unwrap()
                .partition_point(|e| e.first_key < *t);
            assert_eq!(
                reader.index().unwrap().partition(t, |k| k < t),
                plain,
                "{t:?}"
            );
            let mut s = FileScanner::new(reader.clone(), mode);
            s.seek(t).unwrap();
            let want = cells.iter().find(|c| c.key >= *t);
            assert_eq!(s.peek(), want.map(KeyValue::as_view), "seek to {t:?}");
            let want_before = cells
                .iter()
                .rev()
                .find(|c| c.key < CellKey::first_on_row(&t.row))
                .map(|c| c.key.row.to_vec());
            assert_eq!(s.last_row_before(&t.row).unwrap(), want_before, "{t:?}");
        }
    }
}
