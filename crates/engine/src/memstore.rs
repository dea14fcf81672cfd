//! The in-memory sorted buffer of a store (HBase's `MemStore`): a lock-free skip list of cells
//! with size accounting. Writers insert concurrently; readers iterate with seeks.

use crate::cell::{CellKey, KeyValue, KeyValueRef};
use bytes::Bytes;
use crossbeam_skiplist::SkipMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A memstore key: the cell key with the first 16 bytes of its row kept inline (big-endian,
/// zero-padded), so most comparisons in a skip-list search are decided without following the
/// row's pointer. Sixteen bytes hold the articles' `uid + reversed timestamp` rowkeys whole: with
/// eight, every comparison between two cells of one user went to the row. Orders exactly as
/// `CellKey`: padded prefixes that differ order as the rows do. The cell's own TTL rides along
/// (it takes no part in the order: one key is one write, which has one TTL).
#[derive(Debug, Clone)]
struct MemKey {
    prefix: u128,
    key: CellKey,
    ttl_ms: Option<i64>,
}

impl MemKey {
    fn new(key: CellKey) -> MemKey {
        let mut p = [0u8; 16];
        let n = key.row.len().min(16);
        p[..n].copy_from_slice(&key.row[..n]);
        MemKey {
            prefix: u128::from_be_bytes(p),
            key,
            ttl_ms: None,
        }
    }
}

impl PartialEq for MemKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for MemKey {}

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
        let key = MemKey {
            ttl_ms: kv.ttl_ms,
            ..MemKey::new(kv.key)
        };
        self.map.insert(key, kv.value);
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
        ttl_ms: e.key().ttl_ms,
    }
}

/// A skip-list entry held by a scanner: a counted reference to its node, which stays readable
/// (and keeps its place in the list) while held, however the list changes.
type HeldEntry = crossbeam_skiplist::map::Entry<'static, MemKey, Bytes>;

/// A cursor over a memstore, with seeks. A seek is one skip-list search; each step follows the
/// entry's successor link, and a cell is copied (its buffers shared) only when taken. Cells
/// inserted after the cursor passed their place are not seen; cells inserted ahead of it may
/// be. Either way they carry sequence ids above any read point taken before the scanner, so a
/// read never needs them and never shows them.
#[derive(Debug)]
pub struct MemstoreScanner {
    /// The entry under the cursor. It borrows the skip list of `mem`, so it is declared first
    /// and dropped before the `Arc` that keeps the list alive.
    cur: Option<HeldEntry>,
    mem: Arc<Memstore>,
}

impl MemstoreScanner {
    /// An unpositioned cursor; call `seek` first.
    pub fn new(mem: Arc<Memstore>) -> Self {
        MemstoreScanner { cur: None, mem }
    }

    /// The cell under the cursor.
    pub fn peek(&self) -> Option<KeyValueRef<'_>> {
        self.cur.as_ref().map(|e| KeyValueRef {
            ttl_ms: e.key().ttl_ms,
            ..KeyValueRef::of_key_value(&e.key().key, e.value())
        })
    }

    fn hold(&self, e: crossbeam_skiplist::map::Entry<'_, MemKey, Bytes>) -> HeldEntry {
        // SAFETY: the entry borrows `self.mem.map`, which lives in the `Arc` allocation this
        // scanner owns: it neither moves nor drops while the scanner exists, and the scanner
        // drops its entry before its `Arc` (field order). The extended lifetime never leaves
        // the scanner: `peek` lends views bounded by `&self`, `take` returns owned cells.
        unsafe {
            std::mem::transmute::<crossbeam_skiplist::map::Entry<'_, MemKey, Bytes>, HeldEntry>(e)
        }
    }

    /// Positions at the first cell ≥ `key`.
    pub fn seek(&mut self, key: &CellKey) {
        self.cur = None;
        let target = MemKey::new(key.clone());
        self.cur = self
            .mem
            .map
            .lower_bound(Bound::Included(&target))
            .map(|e| self.hold(e));
    }

    /// Moves to the next cell.
    pub fn next(&mut self) {
        if let Some(e) = self.cur.take() {
            self.cur = e.next();
        }
    }

    /// Moves to the next cell, returning the one under the cursor (its buffers shared).
    pub fn take(&mut self) -> Option<KeyValue> {
        let e = self.cur.take()?;
        let kv = entry_cell(&e);
        self.cur = e.next();
        Some(kv)
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

    fn key(row: &[u8], qualifier: &[u8], ts: i64) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(row),
            qualifier: Bytes::copy_from_slice(qualifier),
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
        let columns: [(&[u8], i64); 5] = [(b"", 1), (b"", 2), (b"q", 1), (b"q", 2), (b"r", 1)];
        for a in rows {
            for b in rows {
                for (qa, ta) in columns {
                    for (qb, tb) in columns {
                        let (x, y) = (key(a, qa, ta), key(b, qb, tb));
                        assert_eq!(
                            MemKey::new(x.clone()).cmp(&MemKey::new(y.clone())),
                            x.cmp(&y),
                            "{a:?}/{qa:?}@{ta} vs {b:?}/{qb:?}@{tb}"
                        );
                    }
                }
            }
        }
    }

    fn put(m: &Memstore, row: &[u8], ts: i64, value: &str) {
        m.insert(KeyValue {
            key: key(row, b"q", ts),
            value: Bytes::copy_from_slice(value.as_bytes()),
            ttl_ms: None,
        });
    }

    fn rest(sc: &mut MemstoreScanner) -> Vec<(Vec<u8>, String)> {
        std::iter::from_fn(|| sc.take())
            .map(|kv| {
                let v = String::from_utf8(kv.value.to_vec()).unwrap();
                (kv.key.row.to_vec(), v)
            })
            .collect()
    }

    #[test]
    fn scanner_keeps_its_place_while_the_memstore_changes() {
        let m = Memstore::new();
        for r in [b"b", b"d", b"f"] {
            put(&m, r, 1, "old");
        }
        let mut sc = MemstoreScanner::new(m.clone());
        sc.seek(&CellKey::first_on_row(b"c"));
        assert_eq!(sc.peek().map(|kv| kv.row), Some(&b"d"[..]));
        // Behind the cursor, under it (the same key again replaces the held node) and ahead.
        put(&m, b"a", 1, "behind");
        put(&m, b"d", 1, "replaced");
        put(&m, b"e", 1, "ahead");
        drop(m);
        // The held cell stays readable; the cursor then goes on in key order from it.
        assert_eq!(sc.peek().map(|kv| kv.value), Some(&b"old"[..]));
        assert_eq!(
            rest(&mut sc),
            [
                (b"d".to_vec(), "old".to_string()),
                (b"e".to_vec(), "ahead".to_string()),
                (b"f".to_vec(), "old".to_string()),
            ]
        );
        assert!(sc.peek().is_none());
        sc.seek(&CellKey::first_on_row(b""));
        assert_eq!(rest(&mut sc).len(), 5);
    }
}
