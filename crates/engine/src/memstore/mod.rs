//! The in-memory sorted buffer of a store (HBase's `MemStore`): a concurrent skip list of
//! cells with size accounting. Writers insert concurrently; readers iterate with seeks.
//!
//! The list's nodes, each holding its cell's key fields, and the cells' rows, qualifiers and
//! values live in the memstore's chunks (HBase's MSLAB, `hbase.hregion.memstore.mslab.enabled`,
//! on by default): 2 MiB buffers filled in turn, nodes in some and cells' bytes in others,
//! taken from and given back to the engine's [`ChunkPool`] (`chunks.rs`, `skiplist.rs`). Before, a memstore kept a general-purpose skip map's node per
//! cell, allocated on the writer's thread and freed one by one on the flusher's, and the
//! allocator held those pages for its purge delay after each flush (`docs/performance.md`,
//! "Memstore nodes in chunks").

mod chunks;
mod skiplist;

pub use chunks::ChunkPool;

use crate::cell::{Cell, CellKey, KeyValue, KeyValueRef};
use bytes::Bytes;
use skiplist::{NodePtr, SearchKey, SkipList};
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// One memstore segment. Thread-safe; shared by `Arc` between the store and open scanners.
#[derive(Debug)]
pub struct Memstore {
    list: SkipList,
    /// Bytes of the nodes inserted (what the memstore holds, headers and links included).
    size: AtomicUsize,
    deletes: AtomicU64,
    min_seq: AtomicU64,
    max_seq: AtomicU64,
    min_ts: AtomicI64,
    max_ts: AtomicI64,
}

impl Memstore {
    /// An empty memstore whose nodes go into chunks of `pool`.
    pub fn new(pool: Arc<ChunkPool>) -> Arc<Self> {
        Arc::new(Memstore {
            list: SkipList::new(chunks::Arena::new(pool)),
            size: AtomicUsize::new(0),
            deletes: AtomicU64::new(0),
            min_seq: AtomicU64::new(u64::MAX),
            max_seq: AtomicU64::new(0),
            min_ts: AtomicI64::new(i64::MAX),
            max_ts: AtomicI64::new(i64::MIN),
        })
    }

    /// Inserts a cell; returns the bytes it added to the memstore's size.
    pub fn insert(&self, kv: KeyValue) -> usize {
        self.insert_all(std::iter::once(kv))
    }

    /// Inserts cells (a write's cells of this store); returns the bytes they added to the
    /// memstore's size. The chunk lock is taken once for all of them and the memstore's
    /// counters and bounds are updated once, so writers of one store meet on those shared
    /// lines once a write, not once a cell. A cell whose key equals one inserted before
    /// replaces it, as in HBase.
    pub fn insert_all(&self, cells: impl IntoIterator<Item = KeyValue>) -> usize {
        let mut cells = cells.into_iter();
        let Some(first) = cells.next() else {
            return 0;
        };
        // A write of one cell (a single put's) needs no vector.
        match cells.next() {
            None => self.insert_cells(std::slice::from_ref(&first)),
            Some(second) => {
                let mut all = Vec::with_capacity(2 + cells.size_hint().0);
                all.push(first);
                all.push(second);
                all.extend(cells);
                self.insert_cells(&all)
            }
        }
    }

    /// [`Memstore::insert_all`] of cells the caller holds in order (the write path's run of a
    /// store, built once).
    pub fn insert_cells(&self, cells: &[KeyValue]) -> usize {
        if cells.is_empty() {
            return 0;
        }
        let mut deletes = 0;
        let (mut min_seq, mut max_seq) = (u64::MAX, 0);
        let (mut min_ts, mut max_ts) = (i64::MAX, i64::MIN);
        for kv in cells {
            deletes += u64::from(kv.key.cell_type.is_delete());
            min_seq = min_seq.min(kv.key.seq);
            max_seq = max_seq.max(kv.key.seq);
            min_ts = min_ts.min(kv.key.timestamp);
            max_ts = max_ts.max(kv.key.timestamp);
        }
        // Counted before the cells are visible: a reader that sees a marker sees the count.
        if deletes > 0 {
            self.deletes.fetch_add(deletes, Ordering::AcqRel);
        }
        // Bounds are written only when they move (the smallest ones seldom do, the largest
        // timestamp once a millisecond at most): every writer of the store shares their cache
        // line, and a read-modify-write takes it from the other cores where a load does not.
        if self.min_seq.load(Ordering::Acquire) > min_seq {
            self.min_seq.fetch_min(min_seq, Ordering::AcqRel);
        }
        if self.max_seq.load(Ordering::Acquire) < max_seq {
            self.max_seq.fetch_max(max_seq, Ordering::AcqRel);
        }
        if self.min_ts.load(Ordering::Acquire) > min_ts {
            self.min_ts.fetch_min(min_ts, Ordering::AcqRel);
        }
        if self.max_ts.load(Ordering::Acquire) < max_ts {
            self.max_ts.fetch_max(max_ts, Ordering::AcqRel);
        }
        let size = self.list.insert_all(cells);
        self.size.fetch_add(size, Ordering::AcqRel);
        size
    }

    /// Heap bytes held by its cells' nodes.
    pub fn size(&self) -> usize {
        self.size.load(Ordering::Acquire)
    }

    /// True once a delete marker was inserted.
    pub fn has_deletes(&self) -> bool {
        self.deletes.load(Ordering::Acquire) > 0
    }

    /// Number of cells inserted (a replaced one counts too).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when no cell was inserted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// Every cell in key order, seen in place (for flushing: no copy per cell).
    pub fn views(&self) -> impl Iterator<Item = KeyValueRef<'_>> + '_ {
        let mut n = self.list.first();
        std::iter::from_fn(move || {
            let x = n?;
            // SAFETY: `x` is a node of `self.list`, which the borrow of `self` keeps alive
            // for as long as the views it returns.
            unsafe {
                n = SkipList::after(x);
                if let Some(y) = n {
                    skiplist::prefetch_after(y);
                }
                Some(skiplist::view(x))
            }
        })
    }

    /// Every cell in key order, each in buffers of its own.
    pub fn iter(&self) -> impl Iterator<Item = KeyValue> + '_ {
        self.views().map(KeyValueRef::to_key_value)
    }
}

/// A cursor over a memstore, with seeks. A seek is one skip-list search; each step follows the
/// node's bottom link, and a cell is copied only when taken. Cells inserted after the cursor
/// passed their place are not seen; cells inserted ahead of it may be. Either way they carry
/// sequence ids above any read point taken before the scanner, so a read never needs them and
/// never shows them.
#[derive(Debug)]
pub struct MemstoreScanner {
    /// The node under the cursor: a node of `mem`'s list, which the `Arc` keeps alive.
    cur: Option<NodePtr>,
    mem: Arc<Memstore>,
}

// SAFETY: `cur` points into the list `mem` keeps alive and is only read through it; the list
// is Send and Sync.
unsafe impl Send for MemstoreScanner {}
// SAFETY: as above.
unsafe impl Sync for MemstoreScanner {}

impl MemstoreScanner {
    /// An unpositioned cursor; call `seek` first.
    pub fn new(mem: Arc<Memstore>) -> Self {
        MemstoreScanner { cur: None, mem }
    }

    /// The cell under the cursor.
    pub fn peek(&self) -> Option<KeyValueRef<'_>> {
        // SAFETY: a node of the list `self.mem` keeps alive for as long as `&self`.
        self.cur.map(|n| unsafe { skiplist::view(n) })
    }

    /// Positions at the first cell ≥ `key`.
    pub fn seek(&mut self, key: &CellKey) {
        self.cur = self
            .mem
            .list
            .seek(&SearchKey::new(KeyValueRef::of_key(key)));
    }

    /// Moves to the next cell.
    pub fn next(&mut self) {
        if let Some(n) = self.cur {
            // SAFETY: a node of the list `self.mem` keeps alive.
            self.cur = unsafe { SkipList::after(n) };
            self.prefetch();
        }
    }

    /// Moves to the next cell, returning the one under the cursor in buffers of its own.
    pub fn take(&mut self) -> Option<KeyValue> {
        let n = self.cur?;
        // SAFETY: a node of the list `self.mem` keeps alive.
        unsafe {
            self.cur = SkipList::after(n);
            self.prefetch();
            Some(skiplist::copy_out(n))
        }
    }

    /// Moves to the next cell, returning the one under the cursor as a client cell of
    /// `family` in one buffer of its own.
    pub fn take_cell(&mut self, family: &Bytes) -> Option<Cell> {
        let n = self.cur?;
        // SAFETY: a node of the list `self.mem` keeps alive.
        unsafe {
            self.cur = SkipList::after(n);
            self.prefetch();
            Some(skiplist::view(n).to_cell(family))
        }
    }

    /// Starts fetching what the next steps read (`skiplist::prefetch_after`).
    #[inline]
    fn prefetch(&self) {
        if let Some(n) = self.cur {
            // SAFETY: a node of the list `self.mem` keeps alive.
            unsafe { skiplist::prefetch_after(n) }
        }
    }

    /// The row of the last cell before `first_on_row(row)`.
    pub fn last_row_before(&self, row: &[u8]) -> Option<Vec<u8>> {
        let target = CellKey::first_on_row(row);
        let n = self
            .mem
            .list
            .last_before(&SearchKey::new(KeyValueRef::of_key(&target)))?;
        // SAFETY: a node of the list `self.mem` keeps alive.
        Some(unsafe { skiplist::view(n) }.row.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;

    fn pool(chunk_bytes: usize) -> Arc<ChunkPool> {
        ChunkPool::new(chunk_bytes, 64 << 20)
    }

    fn key(row: &[u8], qualifier: &[u8], ts: i64) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(row),
            qualifier: Bytes::copy_from_slice(qualifier),
            timestamp: ts,
            cell_type: CellType::Put,
            seq: 1,
        }
    }

    fn cell(row: &[u8], qualifier: &[u8], value: Bytes) -> KeyValue {
        KeyValue {
            key: key(row, qualifier, 1),
            value,
            ttl_ms: None,
        }
    }

    #[test]
    fn cells_come_out_in_key_order() {
        // Rows that differ inside and past the 16-byte prefix a node keeps inline, rows that
        // are prefixes of each other, every type and several sequence ids.
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
        let mut keys = Vec::new();
        for row in rows {
            for (q, ts) in [(&b""[..], 1), (b"", 2), (b"q", 1), (b"q", 2), (b"r", 1)] {
                for (t, seq) in [
                    (CellType::Put, 3),
                    (CellType::Put, 4),
                    (CellType::Delete, 3),
                ] {
                    keys.push(CellKey {
                        cell_type: t,
                        seq,
                        ..key(row, q, ts)
                    });
                }
            }
        }
        let m = Memstore::new(pool(4096));
        // A fixed shuffle: every third key from each start.
        for start in 0..3 {
            m.insert_all(keys.iter().skip(start).step_by(3).map(|k| KeyValue {
                key: k.clone(),
                value: Bytes::from(format!("{k:?}")),
                ttl_ms: Some(7).filter(|_| k.seq == 4),
            }));
        }
        keys.sort();
        let got: Vec<KeyValue> = m.iter().collect();
        assert_eq!(got.len(), keys.len());
        for (kv, k) in got.iter().zip(&keys) {
            assert_eq!(&kv.key, k);
            assert_eq!(kv.value, Bytes::from(format!("{k:?}")));
            assert_eq!(kv.ttl_ms, Some(7).filter(|_| k.seq == 4));
        }
        // Seeks land on the first key at or after the target, and the row before it.
        let mut sc = MemstoreScanner::new(m.clone());
        for (i, k) in keys.iter().enumerate() {
            sc.seek(k);
            assert_eq!(
                sc.peek().map(|v| v.cmp_cell_key(k)),
                Some(std::cmp::Ordering::Equal)
            );
            let before = keys[..i]
                .iter()
                .rfind(|b| b.row < k.row)
                .map(|b| b.row.to_vec());
            assert_eq!(sc.last_row_before(&k.row), before, "{k:?}");
        }
        sc.seek(&CellKey::after_row(&[0xff; 17]));
        assert!(sc.peek().is_none());
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
        let m = Memstore::new(pool(crate::DEFAULT_MEMSTORE_CHUNK_BYTES));
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
        assert_eq!(
            rest(&mut sc),
            [
                (b"a".to_vec(), "behind".to_string()),
                (b"b".to_vec(), "old".to_string()),
                (b"d".to_vec(), "replaced".to_string()),
                (b"e".to_vec(), "ahead".to_string()),
                (b"f".to_vec(), "old".to_string()),
            ]
        );
    }

    #[test]
    fn an_equal_key_replaces_the_cells_before_it() {
        let m = Memstore::new(pool(4096));
        for v in ["one", "two", "three"] {
            put(&m, b"r", 5, v);
        }
        put(&m, b"r", 4, "older version");
        let cells: Vec<KeyValue> = m.iter().collect();
        let values: Vec<&[u8]> = cells.iter().map(|c| &c.value[..]).collect();
        assert_eq!(values, [&b"three"[..], b"older version"]);
        assert_eq!(m.len(), 4, "every insert is counted");
        let mut sc = MemstoreScanner::new(m.clone());
        sc.seek(&key(b"r", b"q", 5));
        assert_eq!(sc.peek().map(|kv| kv.value), Some(&b"three"[..]));
    }

    #[test]
    fn nodes_fill_chunks_that_go_back_to_the_pool() {
        let chunks = pool(4096);
        let m = Memstore::new(chunks.clone());
        let mut added = 0;
        for i in 0..100u8 {
            added += m.insert(cell(&[i], b"q", Bytes::from(vec![i; 100])));
        }
        // Each node: its header and one or more links; and its 102 bytes, aligned.
        assert!((100 * (64 + 8 + 104)..100 * (64 + 8 * 4 + 104)).contains(&added));
        assert_eq!(m.size(), added);
        let big = m.insert(cell(b"big", b"q", Bytes::from(vec![1u8; 300 << 10])));
        assert!(big > 300 << 10);
        let cells: Vec<KeyValue> = m.iter().collect();
        assert_eq!(cells.len(), 101);
        for c in cells.iter().filter(|c| c.key.row.len() == 1) {
            assert!(c.value.iter().all(|&b| b == c.key.row[0]));
        }
        assert_eq!(chunks.pooled_bytes(), 0);
        let scanner = MemstoreScanner::new(m.clone());
        drop(m);
        assert_eq!(
            chunks.pooled_bytes(),
            0,
            "a scanner keeps the memstore's chunks"
        );
        drop(scanner);
        let pooled = chunks.pooled_bytes();
        assert!(
            pooled >= added / 2 && pooled.is_multiple_of(4096),
            "{pooled}"
        );
    }

    #[test]
    fn concurrent_writers_and_readers() {
        let m = Memstore::new(pool(64 << 10));
        let writers = 4;
        // Miri checks the same interleavings on fewer cells.
        let per = if cfg!(miri) { 40 } else { 5_000u32 };
        std::thread::scope(|s| {
            for w in 0..writers {
                let m = &m;
                s.spawn(move || {
                    for i in 0..per {
                        // Interleaved rows: every writer's keys land between the others'.
                        let row = (i * writers + w).to_be_bytes();
                        let batch = (0..3u8).map(|q| cell(&row, &[q], Bytes::from(vec![q; 20])));
                        m.insert_all(batch);
                    }
                });
            }
            let m = &m;
            s.spawn(move || {
                for _ in 0..if cfg!(miri) { 3 } else { 50 } {
                    let mut sc = MemstoreScanner::new(m.clone());
                    sc.seek(&CellKey::first_on_row(b""));
                    let mut last: Option<KeyValue> = None;
                    while let Some(kv) = sc.take() {
                        if let Some(l) = &last {
                            assert!(l.key < kv.key, "out of order");
                        }
                        last = Some(kv);
                    }
                }
            });
        });
        let cells: Vec<KeyValue> = m.iter().collect();
        assert_eq!(cells.len(), (writers * per * 3) as usize);
        assert!(cells.windows(2).all(|w| w[0].key < w[1].key));
    }

    /// xorshift64: the tests' cells, the same every run.
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn batches_in_any_order_land_as_their_cells_one_by_one() {
        // Each cell of a batch is searched for from where the one before it went: batches
        // sorted, reversed, shuffled, with keys repeated inside them and across them, into a
        // list that already holds cells before, between and after theirs.
        let m = Memstore::new(pool(64 << 10));
        let mut model = std::collections::BTreeMap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let rounds = if cfg!(miri) { 6 } else { 300 };
        for round in 0..rounds {
            let n = 1 + next(&mut x) % if cfg!(miri) { 20 } else { 400 };
            let mut batch: Vec<KeyValue> = (0..n)
                .map(|i| {
                    let row = ((next(&mut x) % 3000) as u32).to_be_bytes();
                    let q = [(next(&mut x) % 3) as u8];
                    let mut c = cell(&row, &q, Bytes::from(format!("{round}/{i}")));
                    c.key.timestamp = (next(&mut x) % 3) as i64;
                    c
                })
                .collect();
            match round % 4 {
                0 => batch.sort_by(|a, b| a.key.cmp(&b.key)),
                1 => batch.sort_by(|a, b| b.key.cmp(&a.key)),
                2 => {}
                _ => {
                    batch.sort_by(|a, b| a.key.cmp(&b.key));
                    let again: Vec<KeyValue> = batch.iter().step_by(3).cloned().collect();
                    for (i, mut c) in again.into_iter().enumerate() {
                        c.value = Bytes::from(format!("{round}/again{i}"));
                        let at = batch.iter().position(|b| b.key == c.key).unwrap_or(0);
                        batch.insert(at + 1, c);
                    }
                }
            }
            for c in &batch {
                // A later cell of an equal key replaces the earlier, in a batch as across.
                model.insert(c.key.clone(), c.value.clone());
            }
            m.insert_all(batch);
        }
        let cells: Vec<KeyValue> = m.iter().collect();
        let want: Vec<(CellKey, Bytes)> = model.into_iter().collect();
        assert_eq!(cells.len(), want.len());
        for (c, (k, v)) in cells.iter().zip(&want) {
            assert_eq!((&c.key, &c.value), (k, v));
        }
    }

    #[test]
    fn sorted_batches_of_concurrent_writers_interleave() {
        // Two writers' sorted batches land between each other's cells, so a batch's pairs
        // of neighbours go stale under it and its links race the other's.
        let m = Memstore::new(pool(64 << 10));
        let (batches, per) = if cfg!(miri) { (2, 30) } else { (40, 500u32) };
        std::thread::scope(|s| {
            for w in 0..2u32 {
                let m = &m;
                s.spawn(move || {
                    for b in 0..batches {
                        let batch = (0..per).map(|i| {
                            let row = ((i * batches + b) * 2 + w).to_be_bytes();
                            cell(&row, b"q", Bytes::from_static(b"v"))
                        });
                        m.insert_all(batch);
                    }
                });
            }
        });
        let cells: Vec<KeyValue> = m.iter().collect();
        assert_eq!(cells.len(), (2 * batches * per) as usize);
        assert!(cells.windows(2).all(|w| w[0].key < w[1].key));
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
        let (all, one) = (Memstore::new(pool(4096)), Memstore::new(pool(0)));
        all.insert_all(batch());
        batch().into_iter().for_each(|kv| {
            one.insert(kv);
        });
        for m in [&all, &one] {
            assert!(m.size() >= 3 * (64 + 8 + 8));
            assert_eq!(m.len(), 3);
            assert!(m.has_deletes());
            assert_eq!(m.min_seq(), 1);
            assert_eq!(m.max_seq.load(Ordering::Acquire), 9);
            assert_eq!(m.ts_range(), (1, 70));
            let rows: Vec<Bytes> = m.iter().map(|c| c.key.row).collect();
            assert_eq!(rows, [&b"r1"[..], b"r2", b"r3"]);
        }
        assert_eq!(Memstore::new(pool(4096)).insert_all(Vec::new()), 0);
    }
}
