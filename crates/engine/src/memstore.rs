//! The in-memory sorted buffer of a store (HBase's `MemStore`): a lock-free skip list of cells
//! with size accounting. Writers insert concurrently; readers iterate with seeks.
//!
//! A cell's row, qualifier and value are copied into the memstore's chunks (HBase's MSLAB,
//! `hbase.hregion.memstore.mslab.enabled`, on by default): 2 MiB buffers filled in turn, which
//! a flushed memstore frees whole. Without them a memstore kept every cell in the buffers its
//! caller built (a request's, a WAL replay's), freed one by one on the flusher's thread into
//! pages the writers' threads own; the allocator held those pages for seconds after a flush,
//! and the block cache filling up next allocated beside them (`docs/performance.md`, "Memstore
//! chunks").

use crate::cell::{CellKey, KeyValue, KeyValueRef};
use crate::lock;
use bytes::{Bytes, BytesMut};
use crossbeam_skiplist::SkipMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Cells whose row, qualifier and value together are larger than this keep their own buffers
/// (HBase's `hbase.hregion.memstore.mslab.max.allocation`, 256 KiB): one would waste most of a
/// chunk.
const MAX_CHUNKED_CELL: usize = 256 << 10;

/// Where a memstore copies its cells: the chunk being filled and the row last copied (a row's
/// cells arrive together, sorted by the write path, and share one copy of it).
#[derive(Debug, Default)]
struct Chunks {
    /// The unfilled rest of the current chunk; each cell is split off its front.
    free: BytesMut,
    /// The last row copied, shared by the next cells of the same row.
    last_row: Bytes,
}

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
    /// Chunk size; 0 keeps every cell in its caller's buffers.
    chunk_bytes: usize,
    chunks: Mutex<Chunks>,
}

impl Default for Memstore {
    fn default() -> Self {
        Memstore {
            chunk_bytes: crate::DEFAULT_MEMSTORE_CHUNK_BYTES,
            chunks: Mutex::default(),
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
    /// An empty memstore that copies cells into chunks of `chunk_bytes` (0: no chunks).
    pub fn new(chunk_bytes: usize) -> Arc<Self> {
        Arc::new(Memstore {
            chunk_bytes,
            ..Memstore::default()
        })
    }

    /// Copies the cell's row, qualifier and value into the current chunk `c` (a new one when
    /// the rest is too small; the rest of the old one is left unused, as HBase's MSLAB does).
    /// Cells larger than [`MAX_CHUNKED_CELL`] keep the buffers they came in.
    fn copy_in(&self, c: &mut Chunks, mut kv: KeyValue) -> KeyValue {
        let (row, qualifier, value) = (kv.key.row.len(), kv.key.qualifier.len(), kv.value.len());
        let whole = row + qualifier + value;
        if whole > MAX_CHUNKED_CELL.min(self.chunk_bytes) {
            return kv;
        }
        let same_row = c.last_row == kv.key.row;
        let need = if same_row { whole - row } else { whole };
        if c.free.capacity() - c.free.len() < need {
            c.free = BytesMut::with_capacity(self.chunk_bytes);
        }
        if same_row {
            kv.key.row = c.last_row.clone();
        } else {
            c.free.extend_from_slice(&kv.key.row);
            kv.key.row = c.free.split_to(row).freeze();
            c.last_row = kv.key.row.clone();
        }
        c.free.extend_from_slice(&kv.key.qualifier);
        c.free.extend_from_slice(&kv.value);
        let rest = c.free.split_to(qualifier + value).freeze();
        kv.key.qualifier = rest.slice(..qualifier);
        kv.value = rest.slice(qualifier..);
        kv
    }

    /// Inserts a cell; returns the bytes it added to the memstore's size.
    pub fn insert(&self, kv: KeyValue) -> usize {
        self.insert_all(std::iter::once(kv))
    }

    /// Inserts cells (a write's cells of this store, in row order); returns the bytes they
    /// added to the memstore's size. The chunk lock is taken once for all of them and the
    /// memstore's counters and bounds are updated once, so writers of one store meet on those
    /// shared lines once a write, not once a cell.
    pub fn insert_all(&self, cells: impl IntoIterator<Item = KeyValue>) -> usize {
        let cells: Vec<KeyValue> = if self.chunk_bytes == 0 {
            cells.into_iter().collect()
        } else {
            let mut c = lock::lock(&self.chunks);
            cells
                .into_iter()
                .map(|kv| self.copy_in(&mut c, kv))
                .collect()
        };
        let (mut size, mut deletes) = (0, 0);
        let (mut min_seq, mut max_seq) = (u64::MAX, 0);
        let (mut min_ts, mut max_ts) = (i64::MAX, i64::MIN);
        for kv in &cells {
            size += kv.key.row.len() + kv.key.qualifier.len() + kv.value.len() + ENTRY_OVERHEAD;
            deletes += u64::from(kv.key.cell_type.is_delete());
            min_seq = min_seq.min(kv.key.seq);
            max_seq = max_seq.max(kv.key.seq);
            min_ts = min_ts.min(kv.key.timestamp);
            max_ts = max_ts.max(kv.key.timestamp);
        }
        if cells.is_empty() {
            return 0;
        }
        // Counted before the cells are visible: a reader that sees a marker sees the count.
        if deletes > 0 {
            self.deletes.fetch_add(deletes, Ordering::AcqRel);
        }
        self.min_seq.fetch_min(min_seq, Ordering::AcqRel);
        self.max_seq.fetch_max(max_seq, Ordering::AcqRel);
        self.min_ts.fetch_min(min_ts, Ordering::AcqRel);
        self.max_ts.fetch_max(max_ts, Ordering::AcqRel);
        for kv in cells {
            let key = MemKey {
                ttl_ms: kv.ttl_ms,
                ..MemKey::new(kv.key)
            };
            self.map.insert(key, kv.value);
        }
        self.size.fetch_add(size, Ordering::AcqRel);
        size
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
        let m = Memstore::new(crate::DEFAULT_MEMSTORE_CHUNK_BYTES);
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

    fn cell(row: &[u8], qualifier: &[u8], value: Bytes) -> KeyValue {
        KeyValue {
            key: key(row, qualifier, 1),
            value,
            ttl_ms: None,
        }
    }

    /// Where a buffer's bytes start, to tell a copy from the caller's buffer.
    fn at(b: &Bytes) -> usize {
        b.as_ptr() as usize
    }

    #[test]
    fn cells_are_copied_into_chunks_and_a_row_is_copied_once() {
        let m = Memstore::new(4096);
        let value = Bytes::from(vec![7u8; 100]);
        let given = at(&value);
        m.insert(cell(b"r1", b"a", value.clone()));
        m.insert(cell(b"r1", b"b", value.clone()));
        m.insert(cell(b"r2", b"a", value.clone()));
        let cells: Vec<KeyValue> = m.iter().collect();
        assert_eq!(cells.len(), 3);
        for c in &cells {
            assert_eq!(c.value, value);
            assert_ne!(at(&c.value), given, "the value was copied");
        }
        // Both cells of r1 hold the one copy of it; r2's cells follow in the same chunk.
        assert_eq!(at(&cells[0].key.row), at(&cells[1].key.row));
        assert_eq!(&cells[1].key.qualifier[..], b"b");
        let (first, last) = (at(&cells[0].key.row), at(&cells[2].value));
        assert!(last > first && last - first < 4096, "one chunk");
    }

    #[test]
    fn a_full_chunk_is_followed_by_a_new_one() {
        let m = Memstore::new(1024);
        for i in 0..20u8 {
            m.insert(cell(&[i], b"q", Bytes::from(vec![i; 300])));
        }
        let cells: Vec<KeyValue> = m.iter().collect();
        assert_eq!(cells.len(), 20);
        for (i, c) in cells.iter().enumerate() {
            assert_eq!(c.key.row[0] as usize, i);
            assert!(c.value.iter().all(|&b| b as usize == i));
        }
    }

    #[test]
    fn large_cells_and_memstores_without_chunks_keep_their_buffers() {
        let big = Bytes::from(vec![1u8; 300 << 10]);
        let small = Bytes::from(vec![2u8; 10]);
        let chunked = Memstore::new(crate::DEFAULT_MEMSTORE_CHUNK_BYTES);
        chunked.insert(cell(b"big", b"q", big.clone()));
        let plain = Memstore::new(0);
        plain.insert(cell(b"small", b"q", small.clone()));
        assert_eq!(at(&chunked.iter().next().unwrap().value), at(&big));
        assert_eq!(at(&plain.iter().next().unwrap().value), at(&small));
    }

    #[test]
    fn a_batch_updates_counts_and_bounds_as_its_cells_one_by_one() {
        let batch = || {
            let mut marker = cell(b"r2", b"q", Bytes::new());
            marker.key.cell_type = CellType::Delete;
            marker.key.seq = 9;
            marker.key.timestamp = 50;
            let mut late = cell(b"r3", b"q", Bytes::from_static(b"v"));
            late.key.seq = 4;
            late.key.timestamp = 70;
            vec![cell(b"r1", b"q", Bytes::from_static(b"v")), marker, late]
        };
        let (all, one) = (Memstore::new(4096), Memstore::new(0));
        let added = all.insert_all(batch());
        let added_one: usize = batch().into_iter().map(|kv| one.insert(kv)).sum();
        assert_eq!(added, added_one);
        for m in [&all, &one] {
            assert_eq!(m.size(), added);
            assert_eq!(m.len(), 3);
            assert!(m.has_deletes());
            assert_eq!(m.min_seq(), 1);
            assert_eq!(m.max_seq.load(Ordering::Acquire), 9);
            assert_eq!(m.ts_range(), (1, 70));
        }
        assert_eq!(Memstore::new(4096).insert_all(Vec::new()), 0);
    }
}
