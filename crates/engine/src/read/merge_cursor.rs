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
            Source::Mem(m) => Ok(m.take_cell(family).map(|c| out.push(c)).is_some()),
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
    /// The source with the smallest visible cell after `current`'s (`None`: no other source
    /// has one), as the last full `pick` found it; still right while only `current` has moved
    /// since (HBase's `KeyValueHeap` keeps its current scanner out of the heap so).
    runner_up: Option<usize>,
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
            runner_up: None,
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
        self.repick(i);
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

    /// Chooses the current source after only source `i`, the current one, moved: it stays
    /// current while its cell is still below the runner-up's (one comparison), else the two
    /// swap places when they are the only sources, and a full `pick` runs when there are more.
    fn repick(&mut self, i: usize) {
        if self.ended {
            self.current = None;
            return;
        }
        if let Some(kv) = self.sources[i].peek() {
            let stays = match self.runner_up {
                None => true,
                Some(r) => {
                    let other = self.sources[r].peek().expect("the runner-up has a cell");
                    // Equal keys go to the lower index, as in `pick`.
                    match kv.cmp_key(&other) {
                        Ordering::Less => true,
                        Ordering::Equal => i < r,
                        Ordering::Greater => false,
                    }
                }
            };
            if stays {
                self.current = Some(i);
                return;
            }
            if let (Some(r), 2) = (self.runner_up, self.sources.len()) {
                // Two sources (a memstore and a file, two files): the one comparison ordered
                // them both (a row with two versions otherwise took a second in `pick`).
                self.current = Some(r);
                self.runner_up = Some(i);
                return;
            }
        }
        self.pick();
    }

    /// Chooses the current source and the runner-up by comparing every source's cell.
    fn pick(&mut self) {
        self.runner_up = None;
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
        let mut second: Option<usize> = None;
        let below = |a: &KeyValueRef<'_>, b: usize| {
            let b = self.sources[b].peek().expect("a chosen source has a cell");
            a.cmp_key(&b) == Ordering::Less
        };
        for (i, s) in self.sources.iter().enumerate() {
            let Some(kv) = s.peek() else {
                continue;
            };
            match best {
                Some(b) if !below(&kv, b) => {
                    if second.is_none_or(|r| below(&kv, r)) {
                        second = Some(i);
                    }
                }
                _ => {
                    second = best;
                    best = Some(i);
                }
            }
        }
        self.current = best;
        self.runner_up = second;
    }

    /// Advances past the current cell.
    pub fn advance(&mut self) -> Result<()> {
        if let Some(i) = self.current {
            self.sources[i].next()?;
            self.skip_invisible(i)?;
            self.repick(i);
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
        self.repick(i);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;
    use crate::memstore::{ChunkPool, Memstore};
    use ferrobase_testkit::Rng;
    use std::sync::Arc;

    fn key(rng: &mut Rng) -> CellKey {
        CellKey {
            row: Bytes::from(format!("r{}", rng.below(6))),
            qualifier: Bytes::from(format!("q{}", rng.below(3))),
            timestamp: rng.below(4) as i64,
            cell_type: CellType::Put,
            seq: 0,
        }
    }

    /// Random sources of overlapping cells (versions of one column spread over them, equal
    /// keys in two of them) answer taking, advancing and seeking exactly as one sorted list,
    /// through the one-comparison step and the full pick alike.
    #[test]
    fn a_merge_answers_as_one_sorted_list_of_the_visible_cells() {
        let pool = ChunkPool::new(0, 0);
        for seed in 1..200 {
            let mut rng = Rng::new(seed);
            let n = 1 + rng.below(5) as usize;
            let read_point = 40 + rng.below(40);
            let mut all = Vec::new();
            let mems: Vec<Arc<Memstore>> = (0..n).map(|_| Memstore::new(pool.clone())).collect();
            for seq in 1..=100u64 {
                let mut k = key(&mut rng);
                k.seq = seq;
                let kv = KeyValue {
                    key: k,
                    value: Bytes::from(vec![seq as u8]),
                    ttl_ms: None,
                };
                let m = rng.index(n);
                mems[m].insert(kv.clone());
                all.push((kv.clone(), m));
                if n > 1 && seq % 7 == 0 {
                    // The same cell in a second source (equal keys: the lower source first).
                    let other = (m + 1 + rng.index(n - 1)) % n;
                    mems[other].insert(kv.clone());
                    all.push((kv, other));
                }
            }
            let mut want: Vec<(KeyValue, usize)> = all
                .into_iter()
                .filter(|(kv, _)| kv.key.seq <= read_point)
                .collect();
            // Equal keys: the lower source first, as the merge breaks ties.
            want.sort_by(|(a, ma), (b, mb)| a.key.cmp(&b.key).then(ma.cmp(mb)));
            let sources = mems
                .iter()
                .map(|m| Source::Mem(crate::memstore::MemstoreScanner::new(m.clone())))
                .collect();
            let mut cursor = MergeCursor::new(sources, read_point);
            let lower_bound = |k: &CellKey| {
                want.iter()
                    .position(|(kv, _)| kv.key >= *k)
                    .unwrap_or(want.len())
            };
            let start = key(&mut rng);
            cursor.reseek(&start).unwrap();
            let mut pos = lower_bound(&start);
            for step in 0..150 {
                let got = cursor.peek().map(|kv| kv.to_key_value());
                let expect = want.get(pos).map(|(kv, _)| kv.clone());
                assert_eq!(
                    got.as_ref().map(|kv| (&kv.key, &kv.value)),
                    expect.as_ref().map(|kv| (&kv.key, &kv.value)),
                    "seed {seed} step {step}"
                );
                match rng.below(10) {
                    0 => {
                        let k = key(&mut rng);
                        cursor.seek_forward(&k).unwrap();
                        pos = pos.max(lower_bound(&k));
                    }
                    1 => {
                        let k = key(&mut rng);
                        cursor.reseek(&k).unwrap();
                        pos = lower_bound(&k);
                    }
                    2..=5 => {
                        let taken = cursor.take().unwrap();
                        assert_eq!(taken.map(|kv| kv.value), expect.map(|kv| kv.value));
                        pos = (pos + 1).min(want.len());
                    }
                    _ => {
                        cursor.advance().unwrap();
                        pos = (pos + 1).min(want.len());
                    }
                }
            }
        }
    }
}
