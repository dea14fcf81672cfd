//! Merges the cursors of a store's memstores and files into one cursor in key order (HBase's
//! `KeyValueHeap`), hiding cells newer than the read point.

use crate::block_file::FileScanner;
use crate::cell::{Cell, CellKey, KeyValue, KeyValueRef};
use crate::error::Result;
use crate::memstore::MemstoreScanner;
use bytes::Bytes;
use std::cmp::Ordering;

/// One input of a merge.
#[allow(
    clippy::large_enum_variant,
    reason = "a read's sources live side by side in one Vec; boxing the file cursor would cost \
              an allocation per file per read"
)]
#[derive(Debug)]
pub enum Source {
    /// A memstore segment.
    Mem(MemstoreScanner),
    /// A block file.
    File(FileScanner),
}

impl Source {
    #[inline]
    fn peek(&self) -> Option<KeyValueRef<'_>> {
        match self {
            Source::Mem(m) => m.peek(),
            Source::File(f) => f.peek(),
        }
    }

    #[inline]
    fn peek_seq(&self) -> Option<u64> {
        match self {
            Source::Mem(m) => m.peek().map(|kv| kv.seq),
            Source::File(f) => f.peek_seq(),
        }
    }

    #[inline]
    fn peek_row(&self) -> Option<&[u8]> {
        match self {
            Source::Mem(m) => m.peek().map(|kv| kv.row),
            Source::File(f) => f.peek_row(),
        }
    }

    fn take(&mut self) -> Result<Option<KeyValue>> {
        match self {
            Source::Mem(m) => Ok(m.take()),
            Source::File(f) => f.take(),
        }
    }

    fn next(&mut self) -> Result<()> {
        match self {
            Source::Mem(m) => {
                m.next();
                Ok(())
            }
            Source::File(f) => f.advance(),
        }
    }

    fn take_cell(&mut self, family: &Bytes, out: &mut Vec<Cell>) -> Result<bool> {
        match self {
            Source::Mem(m) => Ok(m
                .take()
                .map(|kv| out.push(Cell::from_key_value(family, kv)))
                .is_some()),
            Source::File(f) => f.take_cell(family, out),
        }
    }

    fn seek(&mut self, key: &CellKey) -> Result<()> {
        match self {
            Source::Mem(m) => {
                m.seek(key);
                Ok(())
            }
            Source::File(f) => f.seek(key),
        }
    }

    fn last_row_before(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        match self {
            Source::Mem(m) => Ok(m.last_row_before(row)),
            Source::File(f) => f.last_row_before(row),
        }
    }
}

/// A merged cursor over several sources. Seek before the first `peek`.
#[derive(Debug)]
pub struct MergeCursor {
    sources: Vec<Source>,
    current: Option<usize>,
    read_point: u64,
    /// `take_last_cell` ended the cursor: it shows no cell until `reseek` positions every
    /// source again (the source it took from still has that cell under its own cursor).
    ended: bool,
}

impl MergeCursor {
    /// Merges `sources`, showing only cells with sequence id ≤ `read_point`.
    pub fn new(sources: Vec<Source>, read_point: u64) -> Self {
        MergeCursor {
            sources,
            current: None,
            read_point,
            ended: false,
        }
    }

    /// The smallest visible cell, seen in place.
    #[inline]
    pub fn peek(&self) -> Option<KeyValueRef<'_>> {
        self.current.and_then(|i| self.sources[i].peek())
    }

    /// The row of the smallest visible cell.
    #[inline]
    pub fn peek_row(&self) -> Option<&[u8]> {
        self.current.and_then(|i| self.sources[i].peek_row())
    }

    /// Advances past the current cell, returning it (sharing its source's buffers).
    pub fn take(&mut self) -> Result<Option<KeyValue>> {
        let Some(i) = self.current else {
            return Ok(None);
        };
        let kv = self.sources[i].take()?;
        self.skip_invisible(i)?;
        self.pick();
        Ok(kv)
    }

    fn skip_invisible(&mut self, i: usize) -> Result<()> {
        while self.sources[i]
            .peek_seq()
            .is_some_and(|seq| seq > self.read_point)
        {
            self.sources[i].next()?;
        }
        Ok(())
    }

    fn pick(&mut self) {
        if self.ended {
            self.current = None;
            return;
        }
        if let [only] = &self.sources[..] {
            // One source (a store of one file, after a major compaction): nothing to compare.
            self.current = only.peek_seq().map(|_| 0);
            return;
        }
        let mut best: Option<usize> = None;
        for (i, s) in self.sources.iter().enumerate() {
            if let Some(kv) = s.peek() {
                if best.is_none_or(|b| {
                    let b = self.sources[b].peek().expect("best has a cell");
                    kv.cmp_key(&b) == Ordering::Less
                }) {
                    best = Some(i);
                }
            }
        }
        self.current = best;
    }

    /// Advances past the current cell.
    pub fn advance(&mut self) -> Result<()> {
        if let Some(i) = self.current {
            self.sources[i].next()?;
            self.skip_invisible(i)?;
            self.pick();
        }
        Ok(())
    }

    /// Advances past the current cell, appending it to `out` as a client cell of `family`
    /// (built in place: the cell is not moved through each layer's return value). False when
    /// there was no cell.
    pub fn take_cell(&mut self, family: &Bytes, out: &mut Vec<Cell>) -> Result<bool> {
        let Some(i) = self.current else {
            return Ok(false);
        };
        let taken = self.sources[i].take_cell(family, out)?;
        self.skip_invisible(i)?;
        self.pick();
        Ok(taken)
    }

    /// Appends the current cell to `out` as a client cell of `family`, as `take_cell`, and ends
    /// the cursor there: the read needs nothing after it (a Get's last wanted cell), so a file
    /// whose block ends with that cell does not read its next block to find the cell after.
    /// The cursor then shows no cell until `reseek` positions it again.
    pub fn take_last_cell(&mut self, family: &Bytes, out: &mut Vec<Cell>) -> Result<bool> {
        let Some(i) = self.current.take() else {
            return Ok(false);
        };
        self.ended = true;
        match &mut self.sources[i] {
            Source::File(f) => Ok(f.copy_cell(family, out)),
            mem => mem.take_cell(family, out),
        }
    }

    /// Moves forward to the first cell ≥ `key`; sources already there are not touched.
    pub fn seek_forward(&mut self, key: &CellKey) -> Result<()> {
        for i in 0..self.sources.len() {
            if self.sources[i]
                .peek()
                .is_some_and(|kv| kv.cmp_cell_key(key) == Ordering::Less)
            {
                self.sources[i].seek(key)?;
                self.skip_invisible(i)?;
            }
        }
        self.pick();
        Ok(())
    }

    /// Positions every source at the first cell ≥ `key`, forward or backward.
    pub fn reseek(&mut self, key: &CellKey) -> Result<()> {
        self.ended = false;
        for i in 0..self.sources.len() {
            self.sources[i].seek(key)?;
            self.skip_invisible(i)?;
        }
        self.pick();
        Ok(())
    }

    /// The largest row among the sources that is < `row`.
    pub fn last_row_before(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut best: Option<Vec<u8>> = None;
        for s in &mut self.sources {
            if let Some(r) = s.last_row_before(row)? {
                if best.as_ref().is_none_or(|b| r > *b) {
                    best = Some(r);
                }
            }
        }
        Ok(best)
    }
}
