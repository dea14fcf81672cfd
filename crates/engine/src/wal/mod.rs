//! The write-ahead log: one per engine, split into segments, CRC-framed records, group commit.
//! Layout in `docs/format/wal.md`.
//!
//! Writers append a record into a shared buffer; one of them becomes the leader, writes the
//! whole buffer with one `write` (and one `fdatasync` if any waiter asked for it) and wakes the
//! others. SYNC_WAL returns once its record is in the OS; FSYNC_WAL once it is on disk;
//! ASYNC_WAL returns at once and the buffer is written by the next leader or `flush_buffer`.

mod group_commit;
mod reader;
mod record;
mod segment;
mod synced;

pub use reader::{
    decode_segment, read_segment, records_past_damage, segment_version, SegmentEnd, MAX_RECORD,
};
pub use record::{WalCell, WalEdit};
pub use segment::{
    cut_torn_tail, list_segments, remove_started_segment, segment_path, start_segment,
    StartSegment, FREE_SUFFIX, TMP_SUFFIX,
};
pub use synced::{against_mark, read_marks, SyncedMarks};

use segment::{create_segment, recycle_segment, remove_free, reuse_segment, FreeSegment};

use crate::error::{Error, IoContext, Result};
use crate::fs::{FileSystem, WritableFile};
use crate::health::{is_transient_write_error, WriteGate};
use crate::lock;
use crate::metrics::Metrics;
use crate::poison::Poison;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The first 8 bytes of every segment written now (format version 2: cells may carry a TTL).
pub const SEGMENT_MAGIC: &[u8; 8] = b"FRBSWAL2";

/// The first 8 bytes of a version-1 segment (no cell TTLs), still read.
pub const SEGMENT_MAGIC_V1: &[u8; 8] = b"FRBSWAL1";

/// What a writer waits for before its append returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncLevel {
    /// Return at once; the record is written later.
    Buffered,
    /// Return when the record is in the OS (survives a process kill).
    Written,
    /// Return when the record is on stable storage.
    Synced,
}

/// A closed segment and the largest sequence id it holds.
#[derive(Debug, Clone)]
struct Segment {
    number: u64,
    max_seq: u64,
}

struct Inner {
    /// The active segment, shared with the writer of the moment (no descriptor duplicated per
    /// write).
    file: Arc<dyn WritableFile>,
    number: u64,
    size: u64,
    max_seq: u64,
    closed: Vec<Segment>,
    /// Records appended but not yet handed to a writer.
    buf: Vec<u8>,
    /// The buffer the last writer emptied, kept for its capacity (no reallocation or page
    /// faults on the next batch).
    spare: Vec<u8>,
    buf_max_seq: u64,
    appended: u64,
    written: u64,
    synced: u64,
    sync_wanted: u64,
    busy: bool,
    /// Offset of the active segment up to which the OS was asked to start writing to disk
    /// (by a sync or by [`group_commit::WRITEBACK_BYTES`] steps).
    writeback_from: u64,
    /// Threads waiting on `done`; a writer wakes them only when there are any (a wake is a
    /// system call even when nobody waits).
    waiters: usize,
    /// A follower is spinning for the leader's write to end (at most one at a time).
    spinning: bool,
    /// ASYNC_WAL records in `buf` (acknowledged already, and in the memstores).
    buf_buffered: u64,
    /// Ticket ranges `(after, upto]` whose write failed with a transient error, and why (the
    /// newest few; their writers fail with [`Error::WritesSuspended`]).
    failed: Vec<(u64, u64, String)>,
    /// The active segment may hold bytes of a failed write past `size`: nothing is written
    /// until [`Wal::resume`] cuts them off.
    torn: bool,
    /// A failed write held ASYNC_WAL records (acknowledged, in the memstores, not in the log):
    /// the memstores must be flushed before writes resume.
    lost_buffered: bool,
    /// Bytes of the last failed write (the size of [`Wal::resume`]'s probe).
    failed_len: usize,
    /// Closed segments zeroed for reuse ("Recycled segments" in `docs/format/wal.md`).
    free: Vec<FreeSegment>,
    /// Segments being zeroed for reuse now (counted against [`Wal::recycle`] with `free`).
    preparing: usize,
    /// The active segment is a recycled one, written over its old length: it is cut to its
    /// records when closed. Otherwise it was preallocated ([`Wal::segment_bytes`] of blocks past
    /// its end, `WritableFile::preallocate`), and the blocks past its records are given back
    /// when it is closed.
    overwrites: bool,
}

/// What [`Wal::resume`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumed {
    /// A failed write held ASYNC_WAL records: they are in the memstores but not in the log,
    /// so every memstore must be flushed before writes resume.
    pub needs_flush: bool,
}

/// The engine's write-ahead log. Thread-safe.
pub struct Wal {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    segment_bytes: u64,
    inner: Mutex<Inner>,
    done: Condvar,
    /// `Inner::busy`, stored with it under the lock and read without it by a follower that
    /// spins for the leader's write to end.
    leading: AtomicBool,
    metrics: Arc<Metrics>,
    /// The engine's poison flag: a failed sync or segment roll, or a write that failed for a
    /// reason other than a full disk, sets it (memory is then ahead of the log), and every
    /// append and wait checks it first.
    poison: Arc<Poison>,
    /// The engine's write gate: a write that failed with a transient error (`ENOSPC`,
    /// `EDQUOT`, `EIO`) closes it until [`Wal::resume`] succeeds.
    gate: Arc<WriteGate>,
    /// How far each segment was synced, for the next open (`wal/SYNCED`).
    marks: Mutex<SyncedMarks>,
    /// How many closed segments are kept, zeroed, for reuse (0: none).
    recycle: usize,
}

impl std::fmt::Debug for Wal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wal").field("dir", &self.dir).finish()
    }
}

/// The smallest closed segment kept for reuse (smaller ones, closed early by an idle roll, are
/// removed: their few cached pages are not worth a write of zeros and a sync).
pub const RECYCLE_MIN_BYTES: u64 = 1 << 20;

/// Whether `name` in the WAL directory is a file an interrupted step leaves behind (removed at
/// open): a torn tail's rewrite, the disk probe, a fresh marks' file, a recycled segment.
pub fn is_leftover(name: &str) -> bool {
    name.ends_with(TMP_SUFFIX)
        || name.ends_with(FREE_SUFFIX)
        || name == PROBE_FILE
        || synced::is_leftover(name)
}

/// The file [`Wal::resume`] writes to check the disk takes bytes again (removed at once; one
/// left by a crash is removed at open).
pub const PROBE_FILE: &str = "probe.tmp";

impl Wal {
    /// A log in `dir` appending to `active` ([`start_segment`]'s choice). Segments `old`
    /// (already replayed, `active` not among them) are tracked as closed with `old_max_seq`, so
    /// they are deleted once flushed; a continued `active` holding replayed records counts
    /// `old_max_seq` as its own. A failure of a later write, sync or roll sets `poison`, the
    /// engine's flag.
    #[expect(
        clippy::too_many_arguments,
        reason = "the engine's open passes each piece of its state once"
    )]
    pub fn create(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        active: StartSegment,
        old: &[u64],
        old_max_seq: u64,
        segment_bytes: u64,
        metrics: Arc<Metrics>,
        poison: Arc<Poison>,
        gate: Arc<WriteGate>,
        marks: SyncedMarks,
    ) -> Result<Wal> {
        let holds_records = active.len > SEGMENT_MAGIC.len() as u64;
        // Blocks allocated ahead of the appends: a sync then writes no allocation of its own
        // (`docs/format/wal.md`, "Preallocated segments").
        active.file.preallocate(segment_bytes);
        Ok(Wal {
            fs,
            dir: dir.to_path_buf(),
            segment_bytes,
            inner: Mutex::new(Inner {
                file: active.file,
                number: active.number,
                size: active.len,
                max_seq: if holds_records { old_max_seq } else { 0 },
                closed: old
                    .iter()
                    .map(|&n| Segment {
                        number: n,
                        max_seq: old_max_seq,
                    })
                    .collect(),
                buf: Vec::new(),
                spare: Vec::new(),
                buf_max_seq: 0,
                appended: 0,
                written: 0,
                synced: 0,
                sync_wanted: 0,
                busy: false,
                writeback_from: active.len,
                waiters: 0,
                spinning: false,
                buf_buffered: 0,
                failed: Vec::new(),
                torn: false,
                lost_buffered: false,
                failed_len: 0,
                free: Vec::new(),
                preparing: 0,
                overwrites: false,
            }),
            done: Condvar::new(),
            leading: AtomicBool::new(false),
            metrics,
            poison,
            gate,
            marks: Mutex::new(marks),
            recycle: 0,
        })
    }

    /// Keeps up to `n` closed segments, once every record in them is flushed, for the log to
    /// write over instead of starting new files ("Recycled segments" in
    /// `docs/format/wal.md`).
    pub fn with_recycled_segments(mut self, n: usize) -> Wal {
        self.recycle = n;
        self
    }

    /// Marks segment `number` synced through `offset` (always when `force`, else at most every
    /// [`synced::MARK_EVERY`]).
    fn mark_synced(&self, number: u64, offset: u64, force: bool) {
        lock::lock(&self.marks).mark(number, offset, force);
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock::lock(&self.inner)
    }

    /// Makes the log writable again after a write failed with a transient error: cuts the
    /// active segment back to its last whole record (the failed write may have left part of
    /// its bytes), syncs that, and checks the disk takes as many bytes as the failed write
    /// (a probe file in the WAL directory, removed at once). An error leaves writes suspended
    /// (try again later); a failed sync poisons the engine. Nothing to do when no write failed.
    pub fn resume(&self) -> Result<Resumed> {
        let mut g = self.lock();
        while g.busy {
            g.waiters += 1;
            g = lock::wait(&self.done, g);
            g.waiters -= 1;
        }
        let path = segment_path(&self.dir, g.number);
        if g.torn {
            g.file.truncate(g.size).at(&path)?;
            g.file.sync_data().synced(&path).inspect_err(|e| {
                self.poison.set(format!(
                    "WAL sync after cutting off a failed write failed: {e}"
                ));
            })?;
            g.torn = false;
        }
        let probe_len = g.failed_len.clamp(4096, 16 << 20);
        let probe = self.dir.join(PROBE_FILE);
        let wrote = (|| {
            let f = self.fs.create(&probe)?;
            f.append(&vec![0; probe_len])
        })();
        let removed = if self.fs.exists(&probe) {
            self.fs.remove_file(&probe)
        } else {
            Ok(())
        };
        wrote.at(&probe)?;
        removed.at(&probe)?;
        g.failed_len = 0;
        Ok(Resumed {
            needs_flush: g.lost_buffered,
        })
    }

    /// Every memstore was flushed after [`Wal::resume`] asked for it: ASYNC_WAL records lost
    /// by a failed write are in files now.
    pub fn flushed_after_failure(&self) {
        self.lock().lost_buffered = false;
    }

    /// Closes the active segment and starts the next; a failure poisons the engine (the
    /// closed segment may not be on disk, or there is no segment to append to).
    fn roll(&self, g: &mut Inner) -> Result<()> {
        self.roll_inner(g).inspect_err(|e| {
            self.poison.set(format!("WAL segment roll failed: {e}"));
        })
    }

    fn roll_inner(&self, g: &mut Inner) -> Result<()> {
        let path = segment_path(&self.dir, g.number);
        if g.overwrites {
            // A closed segment ends with its last record, as one appended to does.
            g.file.truncate(g.size).at(&path)?;
        }
        g.file.sync_data().synced(&path)?;
        self.mark_synced(g.number, g.size, true);
        if !g.overwrites {
            g.file.trim_preallocated(g.size);
        }
        let next = g.number + 1;
        let reused = match g.free.pop() {
            Some(free) => match reuse_segment(&*self.fs, &self.dir, free, next)? {
                Ok(f) => Some(f),
                Err(free) => {
                    let _ = remove_free(&*self.fs, free);
                    None
                }
            },
            None => None,
        };
        let overwrites = reused.is_some();
        let created = match reused {
            Some(f) => Ok(f),
            None => create_segment(&*self.fs, &self.dir, next).inspect(|f| {
                f.preallocate(self.segment_bytes);
            }),
        };
        let file = match created {
            Ok(f) => f,
            Err(Error::Io { source, .. }) if is_transient_write_error(&source) => {
                // A full disk: the active segment (synced above) stays active and the roll is
                // tried again after the next write. The new segment's entry is removed durably:
                // left behind, it would be the last segment at the next open, and a torn tail
                // of this one would then read as damage inside the log.
                let new = segment_path(&self.dir, next);
                match self.fs.remove_file(&new) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(Error::io(&new, e))
                    }
                    _ => {}
                }
                self.fs.sync_dir(&self.dir).synced(&self.dir)?;
                eprintln!(
                    "ferrobase: WAL segment {} not started ({source}); segment {} stays active",
                    new.display(),
                    g.number
                );
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let old = std::mem::replace(&mut g.file, file);
        drop(old);
        g.closed.push(Segment {
            number: g.number,
            max_seq: g.max_seq,
        });
        g.number = next;
        g.size = SEGMENT_MAGIC.len() as u64;
        g.writeback_from = 0;
        g.max_seq = 0;
        g.overwrites = overwrites;
        Ok(())
    }

    /// Closes the active segment if it holds records and no write is buffered or being
    /// written, so that once its edits are flushed `delete_obsolete` can remove it. Returns
    /// whether it rolled.
    pub fn roll_idle(&self) -> Result<bool> {
        let mut g = self.lock();
        // A segment holding a failed write's bytes is never closed before `resume` cuts them
        // off: only the last segment may end in a torn record.
        if g.busy || g.torn || !g.buf.is_empty() || g.size <= SEGMENT_MAGIC.len() as u64 {
            return Ok(false);
        }
        let number = g.number;
        self.roll(&mut g)?;
        Ok(g.number != number)
    }

    /// Deletes closed segments whose every record has sequence id < `min_unflushed_seq`, or
    /// keeps them zeroed for reuse, up to [`Wal::with_recycled_segments`] (those of at least
    /// [`RECYCLE_MIN_BYTES`] or a full segment's size).
    pub fn delete_obsolete(&self, min_unflushed_seq: u64) -> Result<usize> {
        let (doomed, room) = {
            let mut g = self.lock();
            let (doomed, keep): (Vec<_>, Vec<_>) = g
                .closed
                .drain(..)
                .partition(|s| s.max_seq < min_unflushed_seq);
            g.closed = keep;
            let room = (self.recycle.saturating_sub(g.free.len() + g.preparing)).min(doomed.len());
            g.preparing += room;
            (doomed, room)
        };
        let mut recycled = Vec::new();
        let res = (|| {
            for (i, s) in doomed.iter().enumerate() {
                let p = segment_path(&self.dir, s.number);
                if i < room {
                    let len = self.fs.open(&p).and_then(|f| f.len()).at(&p)?;
                    if len >= RECYCLE_MIN_BYTES.min(self.segment_bytes) {
                        match recycle_segment(&*self.fs, &self.dir, s.number, len) {
                            Ok(free) => {
                                recycled.push(free);
                                continue;
                            }
                            Err(e) => eprintln!(
                                "ferrobase: WAL segment {} not recycled ({e}); it is removed",
                                p.display()
                            ),
                        }
                        if !self.fs.exists(&p) {
                            continue;
                        }
                    }
                }
                self.fs.remove_file(&p).at(&p)?;
            }
            Ok(doomed.len())
        })();
        let mut g = self.lock();
        g.preparing -= room;
        g.free.extend(recycled);
        res
    }

    /// At the engine's close: a recycled active segment is cut to its records, so the next
    /// open finds no zero-filled tail to report as a tear (a crash leaves the tail, which the
    /// open then cuts), a preallocated one gives back its blocks past them, and the segments
    /// kept for reuse are removed (a crash leaves them to the open). Not in `Drop`: a log
    /// dropped late, after the directory was opened again, must not touch files that may be
    /// another log's by then.
    pub fn close(&self) {
        let mut g = self.lock();
        if !g.overwrites && !g.busy {
            g.file.trim_preallocated(g.size);
        }
        if g.overwrites && !g.busy && !g.torn && self.poison.reason().is_none() {
            let path = segment_path(&self.dir, g.number);
            if g.file.truncate(g.size).is_ok() {
                g.overwrites = false;
            } else {
                eprintln!(
                    "ferrobase: WAL {} not cut to its records at close",
                    path.display()
                );
            }
        }
        for free in std::mem::take(&mut g.free) {
            let _ = remove_free(&*self.fs, free);
        }
    }

    /// Number of closed segments still kept.
    pub fn closed_segments(&self) -> usize {
        self.lock().closed.len()
    }

    /// Sequence id of the oldest closed segment's newest record, if any: flushing every store
    /// holding cells at or below it lets that segment go.
    pub fn oldest_closed_max_seq(&self) -> Option<u64> {
        self.lock().closed.first().map(|s| s.max_seq)
    }
}

#[cfg(test)]
mod tests {
    use super::group_commit::WRITEBACK_BYTES;
    use super::*;
    use crate::cell::CellType;

    fn gate() -> Arc<WriteGate> {
        Arc::new(WriteGate::new(Arc::default()))
    }

    /// `edit(seq)` with a value of `len` bytes.
    fn sized_edit(seq: u64, len: usize) -> WalEdit {
        WalEdit {
            cells: vec![WalCell {
                value: vec![seq as u8; len].into(),
                ..edit(seq).cells[0].clone()
            }],
            ..edit(seq)
        }
    }

    fn edit(seq: u64) -> WalEdit {
        WalEdit {
            seq,
            region_id: 1,
            cells: vec![WalCell {
                family: b"cf".to_vec().into(),
                row: format!("row{seq}").into_bytes().into(),
                qualifier: b"q".to_vec().into(),
                timestamp: seq as i64,
                cell_type: CellType::Put,
                value: vec![7; (seq % 50) as usize].into(),
                ttl_ms: None,
            }],
        }
    }

    fn replay(dir: &Path) -> (Vec<WalEdit>, Vec<SegmentEnd>) {
        let segs = list_segments(&crate::fs::OsFileSystem, dir).unwrap();
        let mut edits = Vec::new();
        let mut ends = Vec::new();
        for (i, n) in segs.iter().enumerate() {
            ends.push(
                read_segment(
                    &crate::fs::OsFileSystem,
                    &segment_path(dir, *n),
                    i + 1 == segs.len(),
                    |e| {
                        edits.push(e);
                        Ok(())
                    },
                )
                .unwrap(),
            );
        }
        (edits, ends)
    }

    #[test]
    fn a_write_failing_part_way_fails_its_group_and_resume_cuts_its_bytes_off() {
        use crate::fs::fault::FaultFileSystem;
        let fs = FaultFileSystem::new();
        let dir = Path::new("/wal");
        fs.create_dir_all(dir).unwrap();
        let gate = gate();
        let wal = Wal::create(
            Arc::new(fs.clone()),
            dir,
            start_segment(&fs, dir, &[], false).unwrap(),
            &[],
            0,
            1 << 30,
            Arc::default(),
            Arc::default(),
            gate.clone(),
            SyncedMarks::start(&fs, dir).unwrap(),
        )
        .unwrap();
        for s in 1..=3 {
            wal.append(&edit(s), SyncLevel::Written).unwrap();
        }
        let good = fs.read(&segment_path(dir, 1)).unwrap().len();
        fs.set_free_space(Some(5));
        let e = wal.append(&edit(4), SyncLevel::Synced).unwrap_err();
        assert!(matches!(e, Error::WritesSuspended { .. }), "{e}");
        assert_eq!(fs.read(&segment_path(dir, 1)).unwrap().len(), good + 5);
        // Writes fail at the gate, and a sync of what was written before fails too (the
        // segment holds the failed bytes) instead of waiting.
        assert!(wal.append(&edit(5), SyncLevel::Written).is_err());
        assert!(matches!(wal.sync(), Err(Error::WritesSuspended { .. })));
        assert!(wal.resume().is_err(), "the probe does not fit");
        assert_eq!(
            fs.read(&segment_path(dir, 1)).unwrap().len(),
            good,
            "cut off"
        );
        fs.set_free_space(None);
        assert_eq!(wal.resume().unwrap(), Resumed { needs_flush: false });
        wal.sync().unwrap();
        // The gate is the engine's to open; the log itself takes writes again.
        std::thread::sleep(crate::health::RETRY_FIRST);
        assert!(gate.retry_succeeded(gate.due().unwrap()));
        wal.append(&edit(6), SyncLevel::Synced).unwrap();
        drop(wal);
        let mut seqs = Vec::new();
        read_segment(&fs, &segment_path(dir, 1), true, |e| {
            seqs.push(e.seq);
            Ok(())
        })
        .unwrap();
        assert_eq!(seqs, vec![1, 2, 3, 6]);
    }

    #[test]
    fn unsynced_writes_start_writeback_every_few_mebibytes_and_all_replay() {
        let dir = tempfile::tempdir().unwrap();
        let metrics = Arc::new(Metrics::default());
        let wal = Wal::create(
            crate::fs::os(),
            dir.path(),
            start_segment(&*crate::fs::os(), dir.path(), &[], false).unwrap(),
            &[],
            0,
            64 << 20,
            metrics.clone(),
            Arc::default(),
            gate(),
            SyncedMarks::start(&*crate::fs::os(), dir.path()).unwrap(),
        )
        .unwrap();
        // 10 MiB of 64 KiB records, written to the OS but never synced by a writer.
        let big = |seq: u64| sized_edit(seq, 64 << 10);
        for seq in 1..=160 {
            wal.append(&big(seq), SyncLevel::Written).unwrap();
        }
        let n = Metrics::get(&metrics.wal_writebacks);
        assert_eq!(n, 10 * (1 << 20) / WRITEBACK_BYTES, "{n}");
        // A synced write covers the rest itself.
        wal.append(&big(161), SyncLevel::Synced).unwrap();
        assert_eq!(Metrics::get(&metrics.wal_writebacks), n);
        drop(wal);
        let (edits, _) = replay(dir.path());
        assert_eq!(edits.len(), 161);
        assert!(edits
            .iter()
            .zip(1..)
            .all(|(e, s)| e.seq == s && e == &big(s)));
    }

    /// A new segment gets its blocks ahead of its records (so a sync allocates nothing), and
    /// gives back those past its records when it is closed by a roll or by the log's close.
    #[test]
    fn new_segments_are_preallocated_and_give_their_blocks_back_when_closed() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe");
        let f = std::fs::File::create(&probe).unwrap();
        // SAFETY: fallocate reads the descriptor and the integers only.
        let supported = unsafe {
            libc::fallocate(
                std::os::fd::AsRawFd::as_raw_fd(&f),
                libc::FALLOC_FL_KEEP_SIZE,
                0,
                1 << 20,
            )
        } == 0;
        if !supported {
            eprintln!("skipped: the temporary directory's file system has no fallocate");
            return;
        }
        std::fs::remove_file(&probe).unwrap();
        // Segment `n`'s bytes on disk (allocated blocks) and length.
        let disk = |n: u64| {
            let m = std::fs::metadata(segment_path(dir.path(), n)).unwrap();
            (m.blocks() * 512, m.len())
        };
        let fs = crate::fs::os();
        let segment_bytes = 4 << 20;
        let wal = Wal::create(
            fs.clone(),
            dir.path(),
            start_segment(&*fs, dir.path(), &[], false).unwrap(),
            &[],
            0,
            segment_bytes,
            Arc::new(Metrics::default()),
            Arc::default(),
            gate(),
            SyncedMarks::start(&*fs, dir.path()).unwrap(),
        )
        .unwrap();
        assert_eq!(disk(1), (segment_bytes, SEGMENT_MAGIC.len() as u64));
        for seq in 1..=3 {
            wal.append(&sized_edit(seq, 64 << 10), SyncLevel::Synced)
                .unwrap();
        }
        let (allocated, len) = disk(1);
        assert_eq!((allocated, len > 3 * (64 << 10)), (segment_bytes, true));
        // Closed by a roll well below its size: its blocks past the records go back.
        assert!(wal.roll_idle().unwrap());
        let (allocated, len) = disk(1);
        assert!(allocated < len + (64 << 10), "{allocated} bytes for {len}");
        assert_eq!(disk(2).0, segment_bytes);
        wal.append(&sized_edit(4, 64 << 10), SyncLevel::Synced)
            .unwrap();
        // Closed with the log.
        wal.close();
        let (allocated, len) = disk(2);
        assert!(allocated < len + (64 << 10), "{allocated} bytes for {len}");
        drop(wal);
        let (edits, _) = replay(dir.path());
        assert_eq!(
            edits.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn concurrent_appends_all_replay_across_rolled_segments() {
        let dir = tempfile::tempdir().unwrap();
        let wal = Arc::new(
            Wal::create(
                crate::fs::os(),
                dir.path(),
                start_segment(&*crate::fs::os(), dir.path(), &[], false).unwrap(),
                &[],
                0,
                4096,
                Arc::new(Metrics::default()),
                Arc::default(),
                gate(),
                SyncedMarks::start(&*crate::fs::os(), dir.path()).unwrap(),
            )
            .unwrap(),
        );
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let wal = wal.clone();
                std::thread::spawn(move || {
                    for i in 0..200u64 {
                        let level = if i % 3 == 0 {
                            SyncLevel::Synced
                        } else {
                            SyncLevel::Written
                        };
                        wal.append(&edit(t * 1000 + i + 1), level).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(wal.closed_segments() > 2);
        let (edits, _) = replay(dir.path());
        let mut seqs: Vec<u64> = edits.iter().map(|e| e.seq).collect();
        seqs.sort_unstable();
        let mut want: Vec<u64> = (0..4u64)
            .flat_map(|t| (0..200).map(move |i| t * 1000 + i + 1))
            .collect();
        want.sort_unstable();
        assert_eq!(seqs, want);
        assert_eq!(edits.iter().find(|e| e.seq == 5).unwrap(), &edit(5));
        wal.delete_obsolete(u64::MAX).unwrap();
        assert_eq!(
            list_segments(&crate::fs::OsFileSystem, dir.path())
                .unwrap()
                .len(),
            1
        );
    }

    fn recycling_wal(fs: Arc<dyn FileSystem>, dir: &Path, segment_bytes: u64) -> Wal {
        Wal::create(
            fs.clone(),
            dir,
            start_segment(&*fs, dir, &[], false).unwrap(),
            &[],
            0,
            segment_bytes,
            Arc::default(),
            Arc::default(),
            gate(),
            SyncedMarks::start(&*fs, dir).unwrap(),
        )
        .unwrap()
        .with_recycled_segments(2)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".wal"))
            .collect();
        v.sort();
        v
    }

    /// Flushed segments are kept zeroed and written over by the next rolls: the log reads as
    /// if every segment were new (closed ones end at their last record, the replay finds no
    /// record of an earlier use).
    #[test]
    fn flushed_segments_are_written_over_and_replay_as_new_ones() {
        let dir = tempfile::tempdir().unwrap();
        let seg = 64 << 10;
        let wal = recycling_wal(crate::fs::os(), dir.path(), seg);
        let big = |seq: u64| sized_edit(seq, 3000);
        for seq in 1..=100 {
            wal.append(&big(seq), SyncLevel::Written).unwrap();
        }
        assert!(wal.closed_segments() >= 3);
        let closed = wal.closed_segments();
        assert_eq!(wal.delete_obsolete(u64::MAX).unwrap(), closed);
        let free: Vec<String> = names(dir.path())
            .into_iter()
            .filter(|n| n.ends_with(FREE_SUFFIX))
            .collect();
        assert_eq!(free.len(), 2, "{:?}", names(dir.path()));
        for f in &free {
            let bytes = std::fs::read(dir.path().join(f)).unwrap();
            assert!(bytes.len() as u64 >= seg && bytes.iter().all(|&b| b == 0));
        }
        // Write until both are taken, and a few records into the second.
        let free_left = || names(dir.path()).iter().any(|n| n.ends_with(FREE_SUFFIX));
        let mut last = 100;
        let mut after = 0;
        while after < 5 {
            last += 1;
            let level = if last % 10 == 0 {
                SyncLevel::Synced
            } else {
                SyncLevel::Written
            };
            wal.append(&big(last), level).unwrap();
            if !free_left() {
                after += 1;
            }
        }
        assert!(wal.closed_segments() >= 2);
        // A crash: the active segment, written over, ends in zeros (a tear, cut at open).
        let (edits, ends) = replay(dir.path());
        // What the segment active at the deletion held of the first hundred, then every later
        // record, and nothing of the segments' earlier use.
        let first = edits[0].seq;
        assert!(first > 1);
        assert_eq!(
            edits.iter().map(|e| e.seq).collect::<Vec<_>>(),
            (first..=last).collect::<Vec<_>>()
        );
        assert!(edits.iter().all(|e| e == &big(e.seq)));
        let (last, closed_ends) = ends.split_last().unwrap();
        assert!(
            closed_ends.iter().all(|e| *e == SegmentEnd::Clean),
            "{ends:?}"
        );
        assert!(
            matches!(last, SegmentEnd::TornAt { reason, .. } if reason.contains("zero")),
            "{last:?}"
        );
        // A clean close cuts the active segment to its records and removes unused free ones.
        wal.delete_obsolete(u64::MAX).unwrap();
        assert!(free_left());
        wal.close();
        drop(wal);
        assert!(!free_left());
        let (again, ends) = replay(dir.path());
        assert!(!again.is_empty() && edits.ends_with(&again));
        assert!(ends.iter().all(|e| *e == SegmentEnd::Clean), "{ends:?}");
    }

    /// A power cut while the log writes over a recycled segment keeps every synced record and
    /// shows nothing of the segment's earlier use: the zeros were synced before its reuse, so
    /// what a cut leaves reads as a new segment's would (a tear, or under out-of-order pages
    /// and torn overwrites the damage `docs/format/wal.md` already names).
    #[test]
    fn a_power_cut_while_writing_over_a_recycled_segment_keeps_every_synced_record() {
        use crate::fs::fault::{CutMode, FaultFileSystem, FaultModel, TailFill};
        let dir = Path::new("/wal");
        let mut damaged = 0;
        for seed in 0..300u64 {
            let fs = FaultFileSystem::new();
            let model = match seed % 3 {
                0 => FaultModel::default(),
                1 => FaultModel {
                    tail_fill: Some(TailFill::Zeros),
                    ..FaultModel::default()
                },
                _ => FaultModel::everything(512, 0),
            };
            let reshapes = seed % 3 == 2;
            fs.set_model(model, seed);
            fs.create_dir_all(dir).unwrap();
            fs.sync_dir(Path::new("/")).unwrap();
            let wal = recycling_wal(Arc::new(fs.clone()), dir, 8192);
            let rec = |seq: u64| sized_edit(seq, 700);
            for seq in 1..=60 {
                wal.append(&rec(seq), SyncLevel::Written).unwrap();
            }
            wal.delete_obsolete(u64::MAX).unwrap();
            let free = |fs: &FaultFileSystem| {
                fs.list_dir(dir)
                    .unwrap()
                    .iter()
                    .filter(|e| e.name.to_string_lossy().ends_with(FREE_SUFFIX))
                    .count()
            };
            assert_eq!(free(&fs), 2);
            let mut synced = 0;
            let mut seq = 60;
            let stop = 3 + seed % 17;
            let mut after = 0;
            while after < stop {
                seq += 1;
                let level = if seq % 4 == 0 {
                    synced = seq;
                    SyncLevel::Synced
                } else {
                    SyncLevel::Written
                };
                wal.append(&rec(seq), level).unwrap();
                if free(&fs) == 0 {
                    after += 1;
                }
            }
            std::mem::forget(wal);
            fs.power_cut(CutMode::KeepRandom { seed });
            let segs = list_segments(&fs, dir).unwrap();
            let mut seqs = Vec::new();
            for (i, n) in segs.iter().enumerate() {
                let end = read_segment(&fs, &segment_path(dir, *n), i + 1 == segs.len(), |e| {
                    assert_eq!(e, rec(e.seq));
                    seqs.push(e.seq);
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                if let SegmentEnd::DamagedAt { .. } = end {
                    assert!(reshapes, "seed {seed}: {end:?}");
                    damaged += 1;
                }
            }
            let first = seqs[0];
            assert_eq!(
                seqs,
                (first..first + seqs.len() as u64).collect::<Vec<_>>(),
                "seed {seed}"
            );
            assert!(
                seqs.last().copied().unwrap_or(0) >= synced,
                "seed {seed}: synced through {synced}, replayed {seqs:?}"
            );
        }
        // Out-of-order pages do leave holes before later records now and then.
        assert!(damaged > 0);
    }

    /// Random appends, rolls, deletions, failed writes and syncs (and their resumes) over
    /// recycled segments, then a power cut under the prefix model: every segment reads with no
    /// damage, and every record acknowledged at FSYNC_WAL is there.
    #[test]
    fn failures_and_power_cuts_over_recycled_segments_never_read_as_damage() {
        use crate::fs::fault::{CutMode, Fault, FaultFileSystem, OpKind};
        let dir = Path::new("/wal");
        for seed in 0..3000u64 {
            let mut rng = ferrobase_testkit::Rng::new(seed + 1);
            let fs = FaultFileSystem::new();
            fs.create_dir_all(dir).unwrap();
            fs.sync_dir(Path::new("/")).unwrap();
            let wal = recycling_wal(Arc::new(fs.clone()), dir, 1024);
            let rec = sized_edit;
            let mut synced = 0;
            let mut seq = 0;
            let mut trace = Vec::new();
            for _ in 0..rng.below(120) {
                match rng.below(20) {
                    0 => {
                        let kind = [
                            OpKind::Append,
                            OpKind::Sync,
                            OpKind::Truncate,
                            OpKind::Rename,
                            OpKind::SyncDir,
                            OpKind::Open,
                            OpKind::Create,
                            OpKind::Remove,
                        ][rng.index(8)];
                        let errno = [libc::EIO, libc::ENOSPC][rng.index(2)];
                        trace.push(format!("fault {kind:?} {errno}"));
                        fs.inject(Fault {
                            kind,
                            path_contains: String::new(),
                            nth: 1 + rng.below(3),
                            errno,
                        });
                    }
                    1 => {
                        trace.push("delete".into());
                        // Every closed segment counts as flushed and may go: the synced
                        // records that must stay are those logged after this.
                        let _ = wal.delete_obsolete(seq + 1);
                        synced = 0;
                    }
                    2 => {
                        trace.push("roll_idle".into());
                        let _ = wal.roll_idle();
                    }
                    3 => {
                        let r = wal.resume();
                        trace.push(format!("resume {r:?}"));
                    }
                    _ => {
                        seq += 1;
                        let level = if rng.below(3) == 0 {
                            SyncLevel::Synced
                        } else {
                            SyncLevel::Written
                        };
                        let r = wal.append(&rec(seq, rng.below(300) as usize), level);
                        trace.push(format!("append {seq} {level:?} {r:?}"));
                        if r.is_ok() && level == SyncLevel::Synced {
                            synced = seq;
                        }
                    }
                }
            }
            std::mem::forget(wal);
            fs.clear_faults();
            let cut = rng.next_u64();
            fs.power_cut(CutMode::KeepRandom { seed: cut });
            let segs = list_segments(&fs, dir).unwrap();
            let mut last = 0;
            for (i, n) in segs.iter().enumerate() {
                let end = read_segment(&fs, &segment_path(dir, *n), i + 1 == segs.len(), |e| {
                    last = last.max(e.seq);
                    Ok(())
                });
                assert!(
                    !matches!(end, Err(_) | Ok(SegmentEnd::DamagedAt { .. })),
                    "seed {seed}: segment {n} of {segs:?}: {end:?}\n{}",
                    trace.join("\n")
                );
            }
            assert!(
                last >= synced,
                "seed {seed}: synced through {synced}, read through {last}\n{}",
                trace.join("\n")
            );
        }
    }

    #[test]
    fn torn_tail_is_dropped_but_middle_damage_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let wal = Wal::create(
            crate::fs::os(),
            dir.path(),
            start_segment(&*crate::fs::os(), dir.path(), &[], false).unwrap(),
            &[],
            0,
            1 << 30,
            Arc::new(Metrics::default()),
            Arc::default(),
            gate(),
            SyncedMarks::start(&*crate::fs::os(), dir.path()).unwrap(),
        )
        .unwrap();
        for s in 1..=10 {
            wal.append(&edit(s), SyncLevel::Written).unwrap();
        }
        let path = segment_path(dir.path(), 1);
        let full = std::fs::read(&path).unwrap();
        // Every truncation loses at most the cut record.
        for cut in SEGMENT_MAGIC.len()..full.len() {
            std::fs::write(&path, &full[..cut]).unwrap();
            let (edits, ends) = replay(dir.path());
            let n = edits.len();
            assert!(n <= 10);
            for (i, e) in edits.iter().enumerate() {
                assert_eq!(e.seq, i as u64 + 1);
            }
            if matches!(ends[0], SegmentEnd::Clean) {
                // A clean end means the cut fell on a record boundary.
                assert!(n < 10 || cut == full.len());
            }
        }
        // A flipped byte in the middle record, with valid records after it: corruption.
        let mut bad = full.clone();
        let mut pos = SEGMENT_MAGIC.len();
        for _ in 0..4 {
            let len = u32::from_be_bytes([full[pos], full[pos + 1], full[pos + 2], full[pos + 3]]);
            pos += 8 + len as usize;
        }
        bad[pos + 10] ^= 0xff;
        std::fs::write(&path, &bad).unwrap();
        let end = read_segment(&crate::fs::OsFileSystem, &path, true, |_| Ok(())).unwrap();
        assert!(
            matches!(end, SegmentEnd::DamagedAt { offset, .. } if offset == pos as u64),
            "{end:?}"
        );
        // So is a flipped byte in the last record, which no crash can produce: complete
        // records are damaged, never torn.
        let mut last = full.clone();
        let n = last.len();
        last[n - 3] ^= 0xff;
        std::fs::write(&path, &last).unwrap();
        let mut read = 0;
        let end = read_segment(&crate::fs::OsFileSystem, &path, true, |_| {
            read += 1;
            Ok(())
        })
        .unwrap();
        assert!(matches!(end, SegmentEnd::DamagedAt { .. }), "{end:?}");
        assert_eq!(read, 9);
        assert_eq!(
            records_past_damage(&bad, pos, 2)
                .iter()
                .map(|e| e.seq)
                .collect::<Vec<_>>(),
            (6..=10).collect::<Vec<_>>()
        );
        // A zero-filled tail (blocks a power cut left allocated) is a tear.
        let mut zeros = full.clone();
        zeros.extend_from_slice(&[0; 4096]);
        std::fs::write(&path, &zeros).unwrap();
        let (edits, ends) = replay(dir.path());
        assert_eq!(edits.len(), 10);
        assert!(
            matches!(ends[0], SegmentEnd::TornAt { .. }),
            "{:?}",
            ends[0]
        );
    }
}
