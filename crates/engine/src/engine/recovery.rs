//! Opening a data directory: lock, manifest, live files, orphan clean-up and WAL replay.

use super::catalog::{Catalog, TableEntry};
use super::{EngineOptions, Inner, WorkQueue};
use crate::block_cache::BlockCache;
use crate::block_file::BlockFileReader;
use crate::cell::{CellKey, KeyValue};
use crate::error::{Error, IoContext, Result};
use crate::fs::FileSystem;
use crate::health::{SpaceGuard, WriteGate};
use crate::lock;
use crate::manifest;
use crate::metrics::Metrics;
use crate::mvcc::Mvcc;
use crate::poison::Poison;
use crate::region::Region;
use crate::store::{Store, StoreFile};
use crate::wal::{self, SegmentEnd, Wal};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};

pub(crate) fn open(dir: &Path, opts: EngineOptions) -> Result<Inner> {
    let fs_handle = opts.fs.clone();
    let fs = &*fs_handle;
    let sync_dir = |d: &Path| fs.sync_dir(d).synced(d);
    if !fs.exists(dir) {
        fs.create_dir_all(dir).at(dir)?;
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
    }
    let wal_dir = dir.join("wal");
    let data_dir = dir.join("data");
    fs.create_dir_all(&wal_dir).at(&wal_dir)?;
    fs.create_dir_all(&data_dir).at(&data_dir)?;
    // `wal/` and `data/` are durable before anything is put in them.
    sync_dir(dir)?;
    let lock_path = dir.join("LOCK");
    let lock_file = lock_data_dir(fs, dir, &lock_path)?;
    let tmp = dir.join(manifest::MANIFEST_TMP_FILE);
    if fs.exists(&tmp) {
        let _ = fs.remove_file(&tmp);
    }
    let data = manifest::read(fs, dir)?.unwrap_or_else(|| manifest::ManifestData {
        next_region_id: 1,
        next_file_number: 1,
        ..Default::default()
    });
    let metrics = Arc::new(Metrics::default());
    let cache = Arc::new(BlockCache::new(opts.block_cache_bytes, metrics.clone()));

    // Live tables, regions and files.
    let mut catalog = Catalog {
        namespaces: data.namespaces.iter().cloned().collect(),
        ..Catalog::default()
    };
    let mut live_regions = HashSet::new();
    let mut live_files = HashSet::new();
    for t in &data.tables {
        let mut regions = Vec::new();
        for r in &t.regions {
            live_regions.insert(r.id);
            let mut stores = BTreeMap::new();
            for s in &r.stores {
                let Some(family) = t.descriptor.family(&s.family) else {
                    return Err(Error::corruption(
                        dir.join(manifest::MANIFEST_FILE),
                        0,
                        format!("region {} has a store for unknown family", r.id),
                    ));
                };
                let mut files = Vec::new();
                for &n in &s.files {
                    live_files.insert((r.id, n));
                    let path = data_dir.join(r.id.to_string()).join(format!("{n:016}.blk"));
                    let reader =
                        BlockFileReader::open(fs, &path, n, cache.clone(), metrics.clone())?;
                    files.push(Arc::new(StoreFile {
                        number: n,
                        reader: Arc::new(reader),
                    }));
                }
                stores.insert(
                    s.family.clone(),
                    Arc::new(Store::new(family.clone(), files, s.flushed_seq)),
                );
            }
            let region = Arc::new(Region::new(
                r.id,
                t.descriptor.name.clone(),
                r.start.clone(),
                r.end.clone(),
                stores,
            ));
            // A disabled table's regions stay offline: no background work until enabled.
            region.jobs.set_offline(!t.enabled);
            regions.push(region);
        }
        catalog.tables.insert(
            t.descriptor.name.clone(),
            Arc::new(TableEntry {
                descriptor: t.descriptor.clone(),
                enabled: t.enabled,
                regions,
            }),
        );
    }
    remove_orphans(fs, &data_dir, &live_regions, &live_files)?;

    // WAL replay.
    for e in fs.list_dir(&wal_dir).at(&wal_dir)? {
        let name = e.name.to_string_lossy();
        if name.ends_with(wal::TMP_SUFFIX) || name == wal::PROBE_FILE {
            let p = wal_dir.join(&e.name);
            fs.remove_file(&p).at(&p)?;
        }
    }
    let segments = wal::list_segments(fs, &wal_dir)?;
    let mut max_seq = data.last_seq;
    let mut replayed = 0usize;
    for (i, &n) in segments.iter().enumerate() {
        let path = wal::segment_path(&wal_dir, n);
        let end = wal::read_segment(fs, &path, i + 1 == segments.len(), |edit| {
            max_seq = max_seq.max(edit.seq);
            let Some(region) = catalog.region_by_id(edit.region_id) else {
                return Ok(());
            };
            for c in edit.cells {
                let Some(store) = region.store(&c.family) else {
                    continue;
                };
                if edit.seq <= store.flushed_seq() {
                    continue;
                }
                replayed += store.insert(KeyValue {
                    key: CellKey {
                        row: c.row,
                        qualifier: c.qualifier,
                        timestamp: c.timestamp,
                        cell_type: c.cell_type,
                        seq: edit.seq,
                    },
                    value: c.value,
                    ttl_ms: c.ttl_ms,
                });
            }
            Ok(())
        })?;
        if let SegmentEnd::TornAt { offset, reason } = end {
            eprintln!(
                "ferrobase: WAL {} ends in a torn record at offset {offset} ({reason}); \
                 the unacknowledged tail is ignored",
                path.display()
            );
            // The new segment created below makes this one no longer the last: its records
            // before the tear are kept, the tear cut off.
            wal::cut_torn_tail(fs, &wal_dir, n, offset)?;
        }
    }
    let next_segment = segments.last().map_or(1, |n| n + 1);
    let poison = Arc::new(Poison::new());
    let gate = Arc::new(WriteGate::new(metrics.clone()));
    let wal = Wal::create(
        fs_handle.clone(),
        &wal_dir,
        next_segment,
        &segments,
        max_seq,
        opts.wal_segment_bytes,
        metrics.clone(),
        poison.clone(),
        gate.clone(),
    )?;
    let inner = Inner {
        dir: dir.to_path_buf(),
        metrics,
        cache,
        wal,
        mvcc: Mvcc::new(max_seq),
        catalog: RwLock::new(catalog),
        ddl_lock: Mutex::new(()),
        manifest_lock: Mutex::new(()),
        next_file: AtomicU64::new(data.next_file_number.max(1)),
        next_region: AtomicU64::new(data.next_region_id.max(1)),
        poison,
        gate,
        space_guard: SpaceGuard::new(opts.min_free_space, opts.free_space_check_interval),
        closed: AtomicBool::new(false),
        work: Mutex::new(WorkQueue::default()),
        work_ready: Condvar::new(),
        global_memstore: AtomicUsize::new(replayed),
        memstore_drained: Condvar::new(),
        memstore_wait: Mutex::new(()),
        scanner_read_points: Mutex::new(BTreeMap::new()),
        opts,
        _lock_file: lock_file,
    };
    // Make the replayed edits durable in files so the old segments can go.
    for r in inner.all_regions() {
        if r.memstore_size() > 0 {
            inner.flush_region(&r)?;
        }
    }
    {
        let _g = lock::lock(&inner.manifest_lock);
        inner.persist()?;
    }
    inner.wal.delete_obsolete(inner.min_unflushed_seq())?;
    debug_assert_eq!(inner.global_memstore.load(Ordering::Acquire), 0);
    Ok(inner)
}

fn remove_orphans(
    fs: &dyn FileSystem,
    data_dir: &Path,
    regions: &HashSet<u64>,
    files: &HashSet<(u64, u64)>,
) -> Result<()> {
    for e in fs.list_dir(data_dir).at(data_dir)? {
        let path = data_dir.join(&e.name);
        let Some(id) = e.name.to_str().and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        if !regions.contains(&id) {
            fs.remove_dir_all(&path).at(&path)?;
            continue;
        }
        for f in fs.list_dir(&path).at(&path)? {
            let name = f.name.to_string_lossy();
            let n = name
                .strip_suffix(".blk")
                .and_then(|s| s.parse::<u64>().ok());
            if n.is_none_or(|n| !files.contains(&(id, n))) {
                let p = path.join(&f.name);
                fs.remove_file(&p).at(&p)?;
            }
        }
    }
    Ok(())
}

/// How long an open waits for a lock that is held when it first asks: the lock is an `flock`
/// on an open file, which a child process forked by any thread of this process shares until
/// it execs, so an engine closed an instant ago can still look locked for that instant.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(500);

/// Takes the data directory's lock: [`Error::Locked`] when another engine holds it (after
/// [`LOCK_PATIENCE`], so that a fork's brief copy of a released lock is not mistaken for one).
fn lock_data_dir(
    fs: &dyn FileSystem,
    dir: &Path,
    lock_path: &Path,
) -> Result<Box<dyn crate::fs::FileLock>> {
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    loop {
        match fs.lock(lock_path) {
            Ok(l) => return Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if std::time::Instant::now() >= deadline {
                    return Err(Error::Locked(dir.to_path_buf()));
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => return Err(Error::io(lock_path, e)),
        }
    }
}
