//! A region: a contiguous row range of a table with one store per family (HBase's `HRegion`);
//! and a table's live state, its regions in row order ([`TableEntry`]).

use crate::cell::cmp_bytes;
use crate::lock;
use crate::region_jobs::RegionJobs;
use crate::schema::{TableDescriptor, TableName};
use crate::store::Store;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

const ROW_LOCK_STRIPES: usize = 64;

/// Why a region was closed: its readers and writers react differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CloseReason {
    /// Split in two: writers re-route to the daughters; open scanners finish their snapshot.
    Split = 1,
    /// Its table was dropped: open scanners end with `TableNotFound`.
    Dropped = 2,
    /// Its table was truncated: open scanners end with `RegionOffline`.
    Truncated = 3,
}

/// One region. Thread-safe.
#[derive(Debug)]
pub struct Region {
    /// Unique id (names the region's directory).
    pub id: u64,
    /// Owning table.
    pub table: TableName,
    /// Inclusive start row; empty = the table's beginning.
    pub start: Vec<u8>,
    /// Exclusive end row; empty = the table's end.
    pub end: Vec<u8>,
    stores: RwLock<BTreeMap<Vec<u8>, Arc<Store>>>,
    /// Writers hold this shared while they log and insert; a flush takes it exclusively to
    /// cut a consistent snapshot; a split holds it exclusively throughout.
    pub updates: RwLock<()>,
    /// 0 while open, else the [`CloseReason`]; writers then re-route.
    closed: AtomicU8,
    /// Background work on the region (flushes, compactions, splits) and what stops it.
    pub jobs: Arc<RegionJobs>,
    /// Set when a background job failed on the region's files: writes are refused with the
    /// reason (which names the job and the file) until the region is reopened.
    failure: Mutex<Option<String>>,
    /// Mirrors `failure.is_some()`, read by every write.
    failed: AtomicBool,
    row_locks: Vec<Mutex<()>>,
    /// Serialises flushes of this region.
    pub flush_lock: Mutex<()>,
}

impl Region {
    /// A region over [start, end) with `stores`.
    pub fn new(
        id: u64,
        table: TableName,
        start: Vec<u8>,
        end: Vec<u8>,
        stores: BTreeMap<Vec<u8>, Arc<Store>>,
    ) -> Self {
        Region {
            id,
            table,
            start,
            end,
            stores: RwLock::new(stores),
            updates: RwLock::new(()),
            closed: AtomicU8::new(0),
            jobs: Arc::default(),
            failure: Mutex::new(None),
            failed: AtomicBool::new(false),
            row_locks: (0..ROW_LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            flush_lock: Mutex::new(()),
        }
    }

    /// True when `row` falls in [start, end).
    pub fn contains(&self, row: &[u8]) -> bool {
        (self.start.is_empty() || cmp_bytes(row, &self.start).is_ge())
            && (self.end.is_empty() || cmp_bytes(row, &self.end).is_lt())
    }

    /// The stores, by family name.
    pub fn stores(&self) -> BTreeMap<Vec<u8>, Arc<Store>> {
        lock::read(&self.stores).clone()
    }

    /// Calls `f` with each store, by family name, under the stores' read lock (no copy of the
    /// map: the walks over every region, `min_unflushed_seq` and the manifest, use it).
    pub fn for_each_store(&self, mut f: impl FnMut(&[u8], &Arc<Store>)) {
        for (family, store) in lock::read(&self.stores).iter() {
            f(family, store);
        }
    }

    /// The smallest sequence id held only in memory by any of the region's stores (u64::MAX
    /// when none).
    pub fn min_unflushed_seq(&self) -> u64 {
        let mut min = u64::MAX;
        self.for_each_store(|_, s| min = min.min(s.min_unflushed_seq()));
        min
    }

    /// The store of `family`.
    pub fn store(&self, family: &[u8]) -> Option<Arc<Store>> {
        lock::read(&self.stores).get(family).cloned()
    }

    /// Calls `f` with the stores, by family name, under the stores' read lock: no copy of the
    /// map and no reference count taken and dropped on a line every writer of the region
    /// shares (the write path).
    pub fn with_stores<R>(&self, f: impl FnOnce(&BTreeMap<Vec<u8>, Arc<Store>>) -> R) -> R {
        f(&lock::read(&self.stores))
    }

    /// Adds or removes a store (alter).
    pub fn set_store(&self, family: &[u8], store: Option<Arc<Store>>) {
        let mut g = lock::write(&self.stores);
        match store {
            Some(s) => {
                g.insert(family.to_vec(), s);
            }
            None => {
                g.remove(family);
            }
        }
    }

    /// Bytes in the region's memstores.
    pub fn memstore_size(&self) -> usize {
        self.stores().values().map(|s| s.memstore_size()).sum()
    }

    /// Bytes in the region's files.
    pub fn file_bytes(&self) -> u64 {
        self.stores().values().map(|s| s.file_bytes()).sum()
    }

    /// Marks the region closed for `reason`; it takes no background job from then on (a
    /// flush would recreate the directory of a dropped region).
    pub fn close(&self, reason: CloseReason) {
        self.closed.store(reason as u8, Ordering::Release);
        self.jobs.set_offline(true);
    }

    /// True once closed.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire) != 0
    }

    /// Why the region was closed, if it was.
    pub fn close_reason(&self) -> Option<CloseReason> {
        match self.closed.load(Ordering::Acquire) {
            1 => Some(CloseReason::Split),
            2 => Some(CloseReason::Dropped),
            3 => Some(CloseReason::Truncated),
            _ => None,
        }
    }

    /// Marks the region failed: writes are refused with `reason` until [`Region::clear_failure`].
    /// The first reason is kept.
    pub fn fail(&self, reason: String) {
        let mut g = lock::lock(&self.failure);
        if g.is_none() {
            *g = Some(reason);
        }
        self.failed.store(true, Ordering::Release);
    }

    /// The reason the region failed, if it did.
    pub fn failure(&self) -> Option<String> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        lock::lock(&self.failure).clone()
    }

    /// Clears a failure (the region was reopened); returns the reason it had.
    pub fn clear_failure(&self) -> Option<String> {
        let mut g = lock::lock(&self.failure);
        self.failed.store(false, Ordering::Release);
        g.take()
    }

    /// Locks the stripes of `rows` in a deadlock-free order; held for read-modify-write work.
    pub fn lock_rows(&self, rows: &[&[u8]]) -> Vec<MutexGuard<'_, ()>> {
        let mut idx: Vec<usize> = rows
            .iter()
            .map(|r| (xxhash_rust::xxh3::xxh3_64(r) % ROW_LOCK_STRIPES as u64) as usize)
            .collect();
        idx.sort_unstable();
        idx.dedup();
        idx.into_iter()
            .map(|i| lock::lock(&self.row_locks[i]))
            .collect()
    }
}

/// A table's live state: its descriptor, whether it is enabled, and its regions. The catalog
/// (`engine/catalog.rs`) holds one per table; reads look theirs up through the read context.
#[derive(Debug, Clone)]
pub(crate) struct TableEntry {
    /// The table's schema.
    pub descriptor: TableDescriptor,
    /// False while the table is disabled.
    pub enabled: bool,
    /// Regions in row order, covering every row exactly once.
    pub regions: Vec<Arc<Region>>,
}

impl TableEntry {
    /// The region holding `row`.
    pub fn region_for(&self, row: &[u8]) -> Arc<Region> {
        self.region_ref(row).clone()
    }

    /// The region holding `row`, borrowed from the entry (no reference count taken: writes and
    /// gets, which hold the entry for their whole call, use it).
    pub fn region_ref(&self, row: &[u8]) -> &Arc<Region> {
        let i = self
            .regions
            .partition_point(|r| cmp_bytes(&r.start, row).is_le())
            .saturating_sub(1);
        &self.regions[i]
    }

    /// The last region whose start is < `row` (the region holding the rows just below `row`).
    pub fn region_before(&self, row: &[u8]) -> Option<Arc<Region>> {
        let i = self
            .regions
            .partition_point(|r| cmp_bytes(&r.start, row).is_lt());
        i.checked_sub(1).map(|i| self.regions[i].clone())
    }
}
