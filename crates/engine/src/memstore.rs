//! The in-memory sorted buffer of a store (HBase's `MemStore`): a lock-free skip list of cells
//! with size accounting. Writers insert concurrently; readers iterate with seeks.

use crate::cell::{CellKey, KeyValue};
use bytes::Bytes;
use crossbeam_skiplist::SkipMap;
use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A memstore key: the cell key with the first 16 bytes of its row kept inline (big-endian,
/// zero-padded), so most comparisons in a skip-list search are decided without following the
/// row's pointer. Sixteen bytes hold the articles' `uid + reversed timestamp` rowkeys whole: with
/// eight, every comparison between two cells of one user went to the row. Orders exactly as
/// `CellKey`: padded prefixes that differ order as the rows do.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MemKey {
    prefix: u128,
    key: CellKey,
}

impl MemKey {
    fn new(key: CellKey) -> MemKey {
        let mut p = [0u8; 16];
        let n = key.row.len().min(16);
        p[..n].copy_from_slice(&key.row[..n]);
        MemKey {
            prefix: u128::from_be_bytes(p),
            key,
        }
    }
}

impl Ord for MemKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.prefix
            .cmp(&other.prefix)
            .then_with(|| self.key.cmp(&other.key))
    }
}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Heap bytes a memstore entry holds beyond its row, qualifier and value: the skip-list node
/// (reference count, key, value handle, tower of ~1.33 links on average) and the allocator's
/// headers of the node, the row buffer, its shared handle and the value buffer. HBase counts
/// the same kind of overhead per cell (`ClassSize.CONCURRENT_SKIPLISTMAP_ENTRY` plus the
/// cell's object headers), so a memstore flushes at its flush size of real heap, not of payload.
const ENTRY_OVERHEAD: usize =
    std::mem::size_of::<MemKey>() + std::mem::size_of::<Bytes>() + 2 * 8 + 4 * 16 + 32;

/// One memstore segment. Thread-safe; shared by `Arc` between the store and open scanners.
#[derive(Debug)]
pub struct Memstore {
    map: SkipMap<MemKey, Bytes>,
    size: AtomicUsize,
    deletes: AtomicU64,
    min_seq: AtomicU64,
    max_seq: AtomicU64,
    min_ts: AtomicI64,
    max_ts: AtomicI64,
}

impl Default for Memstore {
    fn default() -> Self {
        Memstore {
            map: SkipMap::new(),
            size: AtomicUsize::new(0),
            deletes: AtomicU64::new(0),
            min_seq: AtomicU64::new(u64::MAX),
            max_seq: AtomicU64::new(0),
            min_ts: AtomicI64::new(i64::MAX),
            max_ts: AtomicI64::new(i64::MIN),
        }
    }
}

impl Memstore {
    /// An empty memstore.
    pub fn new() -> Arc<Self> {
        Arc::new(Memstore::default())
    }

    /// Inserts a cell; returns the bytes it added to the memstore's size.
    pub fn insert(&self, kv: KeyValue) -> usize {
        let sz = kv.key.row.len() + kv.key.qualifier.len() + kv.value.len() + ENTRY_OVERHEAD;
        if kv.key.cell_type.is_delete() {
            // Counted before the cell is visible: a reader that sees the marker sees the count.
            self.deletes.fetch_add(1, Ordering::AcqRel);
        }
        self.min_seq.fetch_min(kv.key.seq, Ordering::AcqRel);
        self.max_seq.fetch_max(kv.key.seq, Ordering::AcqRel);
        self.min_ts.fetch_min(kv.key.timestamp, Ordering::AcqRel);
        self.max_ts.fetch_max(kv.key.timestamp, Ordering::AcqRel);
        self.map.insert(MemKey::new(kv.key), kv.value);
        self.size.fetch_add(sz, Ordering::AcqRel);
        sz
    }

    /// Approximate heap bytes held.
    pub fn size(&self) -> usize {
        self.size.load(Ordering::Acquire)
    }

    /// True once a delete marker was inserted.
    pub fn has_deletes(&self) -> bool {
        self.deletes.load(Ordering::Acquire) > 0
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no cell was inserted.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Smallest sequence id inserted (u64::MAX when empty).
    pub fn min_seq(&self) -> u64 {
        self.min_seq.load(Ordering::Acquire)
    }

    /// Largest sequence id inserted (0 when empty).
    pub fn max_seq(&self) -> u64 {
        self.max_seq.load(Ordering::Acquire)
    }

    /// (smallest, largest) timestamp inserted.
    pub fn ts_range(&self) -> (i64, i64) {
        (
            self.min_ts.load(Ordering::Acquire),
            self.max_ts.load(Ordering::Acquire),
        )
    }

    /// Every cell in key order (for flushing).
    pub fn iter(&self) -> impl Iterator<Item = KeyValue> + '_ {
        self.map.iter().map(|e| entry_cell(&e))
    }
}

/// The cell of a skip-list entry (its buffers shared, not copied).
fn entry_cell(e: &crossbeam_skiplist::map::Entry<'_, MemKey, Bytes>) -> KeyValue {
    KeyValue {
        key: e.key().key.clone(),
        value: e.value().clone(),
    }
}

/// Cells a seek fetches into a scanner's buffer, and cells each later refill fetches: one
/// skip-list search serves several steps, since a step is usually followed by more.
const FIRST_FETCH: usize = 4;
const REFILL: usize = 16;

/// A cursor over a memstore, with seeks. Cells are fetched a few at a time into a local
/// buffer, so stepping costs one skip-list search per batch instead of one per cell. Cells
/// inserted after a batch was fetched may be missed; they carry sequence ids above any read
/// point taken before the scanner, so a read never needs them.
#[derive(Debug)]
pub struct MemstoreScanner {
    mem: Arc<Memstore>,
    buf: VecDeque<KeyValue>,
    /// No cell follows the buffered ones.
    exhausted: bool,
}

impl MemstoreScanner {
    /// An unpositioned cursor; call `seek` first.
    pub fn new(mem: Arc<Memstore>) -> Self {
        MemstoreScanner {
            mem,
            buf: VecDeque::new(),
            exhausted: true,
        }
    }

    /// The cell under the cursor.
    pub fn peek(&self) -> Option<&KeyValue> {
        self.buf.front()
    }

    fn fill(&mut self, from: Bound<&CellKey>, n: usize) {
        let before = self.buf.len();
        let from = match from {
            Bound::Included(k) => Bound::Included(MemKey::new(k.clone())),
            Bound::Excluded(k) => Bound::Excluded(MemKey::new(k.clone())),
            Bound::Unbounded => Bound::Unbounded,
        };
        self.buf.extend(
            self.mem
                .map
                .range((from, Bound::Unbounded))
                .take(n)
                .map(|e| entry_cell(&e)),
        );
        self.exhausted = self.buf.len() - before < n;
    }

    /// Positions at the first cell ≥ `key`.
    pub fn seek(&mut self, key: &CellKey) {
        self.buf.clear();
        self.fill(Bound::Included(key), FIRST_FETCH);
    }

    /// Moves to the next cell.
    pub fn next(&mut self) {
        self.take();
    }

    /// Moves to the next cell, returning the one under the cursor without copying it.
    pub fn take(&mut self) -> Option<KeyValue> {
        let cur = self.buf.pop_front()?;
        if self.buf.is_empty() && !self.exhausted {
            self.fill(Bound::Excluded(&cur.key), REFILL);
        }
        Some(cur)
    }

    /// The row of the last cell before `first_on_row(row)`.
    pub fn last_row_before(&self, row: &[u8]) -> Option<Vec<u8>> {
        let target = MemKey::new(CellKey::first_on_row(row));
        self.mem
            .map
            .upper_bound(Bound::Excluded(&target))
            .map(|e| e.key().key.row.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;

    fn key(row: &[u8], ts: i64) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(row),
            qualifier: Bytes::new(),
            timestamp: ts,
            cell_type: CellType::Put,
            seq: 1,
        }
    }

    #[test]
    fn inline_prefix_orders_as_cell_keys() {
        let rows: [&[u8]; 13] = [
            b"",
            b"\0",
            b"a",
            b"a\0",
            b"a\0\0\0\0\0\0\0\x01",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghijklmnop",
            b"abcdefghijklmnop\0",
            b"abcdefghijklmnoq",
            &[0xff; 9],
            &[0xff; 17],
        ];
        for a in rows {
            for b in rows {
                for (ta, tb) in [(1, 1), (1, 2), (2, 1)] {
                    let (x, y) = (key(a, ta), key(b, tb));
                    assert_eq!(
                        MemKey::new(x.clone()).cmp(&MemKey::new(y.clone())),
                        x.cmp(&y),
                        "{a:?}@{ta} vs {b:?}@{tb}"
                    );
                }
            }
        }
    }
}
