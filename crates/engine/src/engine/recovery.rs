//! Opening a data directory: lock, manifest, live files, orphan clean-up and WAL replay.

use super::catalog::Catalog;
use super::{EngineOptions, Inner, WalRecovery, WorkQueue};
use crate::block_cache::BlockCache;
use crate::block_file::BlockFileReader;
use crate::cell::{CellKey, KeyValue};
use crate::error::{Error, IoContext, Result, StallCause};
use crate::file_handles::FileHandles;
use crate::fs::FileSystem;
use crate::health::{SpaceGuard, WriteGate};
use crate::lock;
use crate::manifest;
use crate::memstore::ChunkPool;
use crate::metrics::Metrics;
use crate::mvcc::Mvcc;
use crate::poison::Poison;
use crate::region::{Region, TableEntry};
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
    let loaded = manifest::read_full(fs, dir)?;
    let writer = super::manifest_writer::ManifestWriter::opened(fs, loaded.as_ref())?;
    remove_stale_logs(fs, dir, loaded.as_ref().map_or(0, |l| l.generation))?;
    let data = loaded
        .map(|l| l.data)
        .unwrap_or_else(|| manifest::ManifestData {
            next_region_id: 1,
            next_file_number: 1,
            ..Default::default()
        });
    let metrics = Arc::new(Metrics::default());
    // The chunks flushed memstores give back wait here for the next memstores, up to one
    // region's flush size (what the memstore that replaces a flushed one fills next).
    let memstore_chunks = ChunkPool::new(
        opts.memstore_chunk_bytes,
        opts.memstore_flush_size
            .min(opts.memory_limits().global_memstore_limit),
    );
    let cache = Arc::new(BlockCache::new(
        opts.memory_limits().block_cache,
        metrics.clone(),
    ));
    let handles = FileHandles::new(
        fs_handle.clone(),
        opts.max_open_files.unwrap_or_else(|| {
            crate::file_handles::capacity_for_limit(crate::file_handles::soft_nofile_limit())
        }),
    );

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
                        BlockFileReader::open(&handles, &path, n, cache.clone(), metrics.clone())?;
                    files.push(Arc::new(StoreFile {
                        number: n,
                        reader: Arc::new(reader),
                    }));
                }
                stores.insert(
                    s.family.clone(),
                    Arc::new(Store::new(
                        family.clone(),
                        files,
                        s.flushed_seq,
                        memstore_chunks.clone(),
                    )),
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
    super::snapshot::remove_unfinished(fs, dir)?;

    // WAL replay.
    for e in fs.list_dir(&wal_dir).at(&wal_dir)? {
        let name = e.name.to_string_lossy();
        if wal::is_leftover(&name) {
            let p = wal_dir.join(&e.name);
            fs.remove_file(&p).at(&p)?;
        }
    }
    let mut segments = wal::list_segments(fs, &wal_dir)?;
    // How far the last run synced each segment: one found shorter lost acknowledged bytes.
    let marks = wal::read_marks(fs, &wal_dir)?;
    let mut max_seq = data.last_seq;
    let mut replayed = 0usize;
    // Each edit names its region: found by id in a map, not a walk over every region (which
    // made a replay's cost the edits times the regions).
    let regions_by_id: std::collections::HashMap<u64, Arc<Region>> =
        catalog.all_regions().map(|r| (r.id, r.clone())).collect();
    // Records read from the newest segment replayed so far (an empty one is continued).
    let mut last_records = 0usize;
    let mut i = 0;
    while let Some(&n) = segments.get(i) {
        i += 1;
        let path = wal::segment_path(&wal_dir, n);
        last_records = 0;
        let end = wal::read_segment(fs, &path, i == segments.len(), |edit| {
            last_records += 1;
            max_seq = max_seq.max(edit.seq);
            let Some(region) = regions_by_id.get(&edit.region_id) else {
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
        let end = wal::against_mark(fs, &path, end, marks.get(&n).copied())?;
        match end {
            SegmentEnd::Clean => {}
            SegmentEnd::TornAt { offset, reason } => {
                eprintln!(
                    "ferrobase: WAL {} ends in an incomplete record at offset {offset} \
                     ({reason}): a write cut by a crash, never acknowledged at FSYNC_WAL; \
                     it is cut off",
                    path.display()
                );
                // Its records before the tear are kept, the tear cut off: a new segment
                // started below makes this one no longer the last, and one continued below
                // takes its next records after the cut.
                wal::cut_torn_tail(fs, &wal_dir, n, offset)?;
            }
            SegmentEnd::DamagedAt { offset, reason } => {
                if opts.wal_recovery == WalRecovery::Strict {
                    return Err(Error::corruption(
                        &path,
                        offset,
                        format!(
                            "{reason} in a complete WAL record: the edits logged from here on \
                             would be lost, so nothing was changed; to open anyway, skipping \
                             them and keeping a copy of the log in wal-quarantine/, use \
                             point-in-time WAL recovery (ferrobase serve --wal-recovery \
                             point-in-time)"
                        ),
                    ));
                }
                let skipped = segments.split_off(i - 1);
                quarantine(fs, dir, &wal_dir, &skipped, offset, &reason)?;
                // What stays of the log: the records before the damage.
                wal::cut_torn_tail(fs, &wal_dir, n, offset)?;
                for &later in &skipped[1..] {
                    let p = wal::segment_path(&wal_dir, later);
                    fs.remove_file(&p).at(&p)?;
                }
                fs.sync_dir(&wal_dir).synced(&wal_dir)?;
                segments.push(n);
                break;
            }
        }
    }
    // The marks of this run start afresh (the last run's were checked above).
    // A directory that cannot take the file (a full disk) opens without marks, as it opens
    // degraded without a flush.
    let marks = wal::SyncedMarks::start(fs, &wal_dir)
        .unwrap_or_else(|e| wal::SyncedMarks::off(fs, &wal_dir, &e));
    let active = wal::start_segment(fs, &wal_dir, &segments, last_records > 0)?;
    let started = active.created.then_some(active.number);
    segments.retain(|&n| n != active.number);
    let poison = Arc::new(Poison::new());
    let gate = Arc::new(WriteGate::new(metrics.clone()));
    let wal = Wal::create(
        fs_handle.clone(),
        &wal_dir,
        active,
        &segments,
        max_seq,
        opts.wal_segment_bytes,
        metrics.clone(),
        poison.clone(),
        gate.clone(),
        marks,
    )?
    .with_recycled_segments(opts.wal_recycled_segments);
    let inner = Inner {
        dir: dir.to_path_buf(),
        metrics,
        job_log: crate::job_log::JobLog::default(),
        memstore_chunks,
        cache,
        handles,
        wal,
        mvcc: Mvcc::new(max_seq),
        catalog: RwLock::new(catalog),
        ddl_lock: Mutex::new(()),
        manifest_lock: Mutex::new(()),
        manifest_writer: Mutex::new(writer),
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
        // Files written before this open were pruned at read points up to `max_seq` at most.
        scanner_read_points: Mutex::new(super::ReadPoints::new(max_seq)),
        heat: crate::heat_map::HeatMap::new(opts.heat_map.clone()),
        memory: opts.memory_limits(),
        opts,
        _lock_file: lock_file,
        _purge: super::PurgeOnDrop,
    };
    if let Err(e) = flush_replayed(&inner) {
        // A failed open leaves no new segment behind (nothing was logged in it).
        if let Some(n) = started {
            let _ = wal::remove_started_segment(fs, &wal_dir, n);
        }
        return Err(e);
    }
    Ok(inner)
}

/// Makes the replayed edits durable in files so the old segments can go, and writes the
/// manifest. A full disk (`ENOSPC`, `EDQUOT` on a block file or `MANIFEST.tmp`) does not fail
/// the open: writes are suspended, as at run time, the replayed edits stay in their segments
/// on disk (and in the memstores, or in flushed files no manifest names yet), and the
/// flusher's retry flushes them and writes the manifest once space returns ("Errors from the
/// disk" in `docs/design/durability.md`). No segment is deleted before a manifest naming the
/// files holding its edits is written. Free space below the reserve suspends writes too (the
/// flush may still use the reserve).
fn flush_replayed(inner: &Inner) -> Result<()> {
    let suspended = |r: Result<()>| match r {
        Ok(()) | Err(Error::WritesSuspended { .. }) => Ok(()),
        Err(e) => Err(e),
    };
    let _why = crate::job_log::reason(crate::job_log::JobReason::Recovery);
    for r in inner.all_regions() {
        if r.memstore_size() > 0 {
            // One manifest for all of them, written below (each flush writing its own would
            // make the restart's cost grow with the square of the regions written to).
            suspended(inner.flush_region_uncommitted(&r))?;
            if inner.gate.health().is_some() {
                // The next flush would meet the same full disk; the retry flushes them all.
                break;
            }
        }
    }
    let persisted = {
        let _g = lock::lock(&inner.manifest_lock);
        inner.persist_job()
    };
    match persisted {
        // The manifest names the flushed files: the segments holding only their edits can go.
        Ok(()) => {
            inner.wal.delete_obsolete(inner.min_unflushed_seq())?;
        }
        // The files are installed in memory only, and the manifest in force does not name
        // them: until the retry writes it (`try_resume`, which then deletes the segments), the
        // replayed edits are durable in their WAL segments alone, so every segment stays.
        Err(Error::WritesSuspended { .. }) => {}
        Err(e) => return Err(e),
    }
    if let Err(reason) = inner.space_guard.check_now(inner.fs(), &inner.dir) {
        inner.gate.suspend(StallCause::LowDiskSpace, reason);
    }
    if inner.gate.health().is_some() {
        let held = inner.global_memstore.load(Ordering::Acquire);
        eprintln!(
            "ferrobase: opened with writes suspended, reads are served{}",
            if held > 0 {
                format!(
                    "; {held} bytes of replayed WAL edits stay in memory and in their WAL \
                     segments until a flush succeeds"
                )
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// Removes manifest logs other than the one of `generation` (the one the snapshot in force
/// names): a roll cut before its snapshot was renamed into place, or whose removal of the
/// old log was not durable.
fn remove_stale_logs(fs: &dyn FileSystem, dir: &Path, generation: u64) -> Result<()> {
    for e in fs.list_dir(dir).at(dir)? {
        let stale = e
            .name
            .to_str()
            .and_then(crate::manifest_log::log_generation_of)
            .is_some_and(|g| g != generation);
        if stale {
            let p = dir.join(&e.name);
            fs.remove_file(&p).at(&p)?;
        }
    }
    Ok(())
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

/// Point-in-time recovery's record of what it skips: a copy of every segment from the damaged
/// one (`segments[0]`, damaged at `offset`) on, whole, in `wal-quarantine/<unix-ms>/`, with a
/// `REPORT.txt` saying what was skipped, printed too. Synced before the log is cut.
fn quarantine(
    fs: &dyn FileSystem,
    dir: &Path,
    wal_dir: &Path,
    segments: &[u64],
    offset: u64,
    reason: &str,
) -> Result<()> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let root = dir.join("wal-quarantine");
    let qdir = root.join(stamp.to_string());
    fs.create_dir_all(&qdir).at(&qdir)?;
    let mut report = format!(
        "ferrobase point-in-time WAL recovery\n\
         damage: {} at offset {offset}: {reason}\n\
         skipped: everything logged from that record on\n",
        wal::segment_path(wal_dir, segments[0]).display()
    );
    for (k, &n) in segments.iter().enumerate() {
        let src = wal::segment_path(wal_dir, n);
        let bytes = fs.read(&src).at(&src)?;
        let from = if k == 0 { offset as usize } else { 0 };
        let version = wal::segment_version(&bytes).unwrap_or(2);
        let found = if k == 0 {
            wal::records_past_damage(&bytes, from, version)
        } else {
            let mut all = Vec::new();
            let _ = wal::decode_segment(&src, &bytes, true, |e| {
                all.push(e);
                Ok(())
            });
            all
        };
        let cells: usize = found.iter().map(|e| e.cells.len()).sum();
        let seqs = match (
            found.iter().map(|e| e.seq).min(),
            found.iter().map(|e| e.seq).max(),
        ) {
            (Some(lo), Some(hi)) => format!(", sequence ids {lo}..={hi}"),
            _ => String::new(),
        };
        report.push_str(&format!(
            "segment {}: {} bytes skipped from offset {from}; {} records ({cells} cells) \
             recognised in them{seqs}\n",
            src.display(),
            (bytes.len() as u64).saturating_sub(from as u64),
            found.len(),
        ));
        let dst = qdir.join(src.file_name().unwrap_or_default());
        let f = fs.create(&dst).at(&dst)?;
        f.append(&bytes).at(&dst)?;
        f.sync_all().synced(&dst)?;
    }
    report.push_str(&format!(
        "copies of the segments as they were: {}\n",
        qdir.display()
    ));
    let rp = qdir.join("REPORT.txt");
    let f = fs.create(&rp).at(&rp)?;
    f.append(report.as_bytes()).at(&rp)?;
    f.sync_all().synced(&rp)?;
    fs.sync_dir(&qdir).synced(&qdir)?;
    fs.sync_dir(&root).synced(&root)?;
    fs.sync_dir(dir).synced(dir)?;
    eprint!("ferrobase: {report}");
    Ok(())
}
