//! The handle cache: a bound on the block files held open at once (RocksDB's table cache,
//! HBase's `hbase.regionserver.fd` worries), so a data directory of thousands of regions opens
//! under an ordinary `ulimit -n`.
//!
//! Every [`crate::block_file::BlockFileReader`] owns a [`HandleSlot`]: its file's path and, while
//! the file is open, its [`ReadableFile`]. A read asks [`FileHandles::get`] for the file: an
//! open one is handed out at once (a read lock on the slot and a flag store, no global lock); a
//! closed one is opened again through the engine's [`FileSystem`] (so the fault file system sees
//! every reopen) and registered. Past [`FileHandles::capacity`] open slots, the least recently
//! used ones are closed with the CLOCK approximation of LRU: a hand sweeps the registered
//! slots, clearing the "used since" flag of each slot it passes and closing the first whose flag
//! was already clear. A read in flight keeps its own `Arc` of the file, so a file closed under
//! it is closed when that read ends: the descriptors open at once are at most the capacity plus
//! the reads in flight.
//!
//! Files being written (flush and compaction outputs, the WAL) are not counted here: they are
//! few (one per running job and the WAL's active segment), and the default capacity leaves
//! room for them (`EngineOptions::max_open_files`).

use crate::fs::{FileSystem, ReadableFile};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

/// The fewest open files the cache keeps, whatever the limit.
pub const MIN_OPEN_FILES: usize = 16;

/// Descriptors left outside the cache for everything else (WAL, manifest, lock, sockets of
/// clients and peers, files being written) when the capacity is derived from the limit.
pub const RESERVED_DESCRIPTORS: u64 = 64;

/// The default capacity for a process whose soft `RLIMIT_NOFILE` is `soft`: half of it less
/// `RESERVED_DESCRIPTORS` (64), at least `MIN_OPEN_FILES` (16). An unlimited limit counts as
/// 1,048,576. (A limit of 256 gives 64; 1,024 gives 448; 1,048,576 gives 524,224.)
pub fn capacity_for_limit(soft: u64) -> usize {
    let soft = soft.min(1 << 20);
    let cap = (soft / 2).saturating_sub(RESERVED_DESCRIPTORS);
    usize::try_from(cap)
        .unwrap_or(usize::MAX)
        .max(MIN_OPEN_FILES)
}

/// The process's soft `RLIMIT_NOFILE` now (1,024 if it cannot be read).
pub fn soft_nofile_limit() -> u64 {
    rlimit::Resource::NOFILE
        .get()
        .map(|(soft, _)| soft)
        .unwrap_or(1024)
}

/// One block file's place in the cache.
pub(crate) struct HandleSlot {
    path: PathBuf,
    file: RwLock<Option<Arc<dyn ReadableFile>>>,
    /// Set by each use, cleared by the CLOCK hand as it passes.
    used: AtomicBool,
}

impl HandleSlot {
    pub(crate) fn new(path: &Path) -> Arc<HandleSlot> {
        Arc::new(HandleSlot {
            path: path.to_path_buf(),
            file: RwLock::new(None),
            used: AtomicBool::new(false),
        })
    }

    /// Whether the file is open now.
    #[cfg(test)]
    pub(crate) fn is_open(&self) -> bool {
        crate::lock::read(&self.file).is_some()
    }
}

struct Clock {
    ring: Vec<Weak<HandleSlot>>,
    hand: usize,
}

/// Open block files of one engine, at most `capacity` at once. Thread-safe.
pub struct FileHandles {
    fs: Arc<dyn FileSystem>,
    capacity: usize,
    clock: Mutex<Clock>,
    opens: AtomicU64,
    closes: AtomicU64,
}

impl std::fmt::Debug for FileHandles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileHandles")
            .field("capacity", &self.capacity)
            .field("open", &self.open_count())
            .finish()
    }
}

impl FileHandles {
    /// A cache opening files through `fs`, keeping at most `capacity` (at least 1) open.
    pub fn new(fs: Arc<dyn FileSystem>, capacity: usize) -> Arc<FileHandles> {
        Arc::new(FileHandles {
            fs,
            capacity: capacity.max(1),
            clock: Mutex::new(Clock {
                ring: Vec::new(),
                hand: 0,
            }),
            opens: AtomicU64::new(0),
            closes: AtomicU64::new(0),
        })
    }

    /// The file system files are opened in.
    pub(crate) fn fs(&self) -> &Arc<dyn FileSystem> {
        &self.fs
    }

    /// The most files kept open at once.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Files open now.
    pub fn open_count(&self) -> usize {
        let clock = crate::lock::lock(&self.clock);
        clock.ring.iter().filter(|w| w.strong_count() > 0).count()
    }

    /// Files opened so far (first opens and reopens).
    pub fn opens(&self) -> u64 {
        self.opens.load(Ordering::Relaxed)
    }

    /// Files closed by the cache to stay within its capacity.
    pub fn closes(&self) -> u64 {
        self.closes.load(Ordering::Relaxed)
    }

    /// The file of `slot`, opened (again) if it is closed.
    pub(crate) fn get(&self, slot: &Arc<HandleSlot>) -> io::Result<Arc<dyn ReadableFile>> {
        if let Some(f) = crate::lock::read(&slot.file).as_ref() {
            slot.used.store(true, Ordering::Relaxed);
            return Ok(f.clone());
        }
        let opened = self.fs.open(&slot.path)?;
        // Reads are block-sized and mostly random: without this advice the kernel reads ahead
        // of every miss, several times the bytes asked for (RocksDB's advise_random_on_open).
        // Sequential readers ask for readahead explicitly.
        opened.advise_random();
        self.opens.fetch_add(1, Ordering::Relaxed);
        let (file, fresh) = {
            let mut g = crate::lock::write(&slot.file);
            match g.as_ref() {
                // Another reader opened it meanwhile: ours is closed as it drops.
                Some(f) => (f.clone(), false),
                None => {
                    *g = Some(opened.clone());
                    // In the ring exactly while open: the sweep closes and unlists together.
                    (opened, true)
                }
            }
        };
        slot.used.store(true, Ordering::Relaxed);
        // The slot lock is released before the clock's is taken (the sweep takes slot locks
        // under the clock's).
        if fresh {
            let mut clock = crate::lock::lock(&self.clock);
            clock.ring.push(Arc::downgrade(slot));
            self.evict(&mut clock);
        }
        Ok(file)
    }

    /// Closes slots until at most `capacity` are open.
    fn evict(&self, clock: &mut Clock) {
        // Two full turns clear every flag, so a bounded sweep always finds a victim.
        let mut steps = 0usize;
        while clock.ring.len() > self.capacity && steps <= 3 * clock.ring.len() + 3 {
            steps += 1;
            if clock.hand >= clock.ring.len() {
                clock.hand = 0;
            }
            let i = clock.hand;
            let Some(slot) = clock.ring[i].upgrade() else {
                // The reader is gone and its file with it.
                clock.ring.swap_remove(i);
                continue;
            };
            if slot.used.swap(false, Ordering::Relaxed) {
                clock.hand += 1;
                continue;
            }
            *crate::lock::write(&slot.file) = None;
            clock.ring.swap_remove(i);
            self.closes.fetch_add(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_follows_the_limit() {
        assert_eq!(capacity_for_limit(256), 64);
        assert_eq!(capacity_for_limit(1024), 448);
        assert_eq!(capacity_for_limit(64), MIN_OPEN_FILES);
        assert_eq!(capacity_for_limit(u64::MAX), (1 << 19) - 64);
    }

    #[test]
    fn least_recently_used_files_close_and_reopen_on_use() {
        let dir = tempfile::tempdir().unwrap();
        let fs = crate::fs::os();
        let handles = FileHandles::new(fs, 4);
        let slots: Vec<_> = (0..10)
            .map(|i| {
                let p = dir.path().join(format!("{i}"));
                std::fs::write(&p, format!("file {i}")).unwrap();
                HandleSlot::new(&p)
            })
            .collect();
        let read = |s: &Arc<HandleSlot>| {
            let f = handles.get(s).unwrap();
            let mut buf = vec![0; f.len().unwrap() as usize];
            f.read_exact_at(&mut buf, 0).unwrap();
            String::from_utf8(buf).unwrap()
        };
        for round in 0..3 {
            for (i, s) in slots.iter().enumerate() {
                assert_eq!(read(s), format!("file {i}"), "round {round}");
                assert!(handles.open_count() <= 4);
            }
        }
        assert_eq!(slots.iter().filter(|s| s.is_open()).count(), 4);
        assert_eq!(handles.opens(), 30);
        // A hot file stays open while cold ones come and go.
        for s in &slots[4..] {
            read(&slots[0]);
            read(s);
        }
        assert!(slots[0].is_open());
        // Dropped readers free their places.
        drop(slots);
        let p = dir.path().join("0");
        let s = HandleSlot::new(&p);
        read(&s);
        assert_eq!(handles.open_count(), 1);
    }
}
