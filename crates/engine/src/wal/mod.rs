//! The write-ahead log: one per engine, split into segments, CRC-framed records, group commit.
//! Layout in `docs/format/wal.md`.
//!
//! Writers append a record into a shared buffer; one of them becomes the leader, writes the
//! whole buffer with one `write` (and one `fdatasync` if any waiter asked for it) and wakes the
//! others. SYNC_WAL returns once its record is in the OS; FSYNC_WAL once it is on disk;
//! ASYNC_WAL returns at once and the buffer is written by the next leader or `flush_buffer`.

mod reader;
mod record;

pub use reader::{decode_segment, read_segment, SegmentEnd, MAX_RECORD};
pub use record::{WalCell, WalEdit};

use crate::checksum::masked_crc;
use crate::error::{Error, IoContext, Result};
use crate::fs::{FileSystem, WritableFile};
use crate::health::{
    is_transient_wal_write_error, is_transient_write_error, StallCause, WriteGate,
};
use crate::lock;
use crate::metrics::Metrics;
use crate::poison::Poison;
use std::path::{Path, PathBuf};
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
    /// (by a sync or by [`WRITEBACK_BYTES`] steps).
    writeback_from: u64,
    /// Threads waiting on `done`; a writer wakes them only when there are any (a wake is a
    /// system call even when nobody waits).
    waiters: usize,
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
}

/// Failed ticket ranges kept for writers still to wake (a range's writers were all waiting
/// when it failed, so a few suffice).
const FAILED_RANGES_KEPT: usize = 16;

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
    metrics: Arc<Metrics>,
    /// The engine's poison flag: a failed sync or segment roll, or a write that failed for a
    /// reason other than a full disk, sets it (memory is then ahead of the log), and every
    /// append and wait checks it first.
    poison: Arc<Poison>,
    /// The engine's write gate: a write that failed with a transient error (`ENOSPC`,
    /// `EDQUOT`, `EIO`) closes it until [`Wal::resume`] succeeds.
    gate: Arc<WriteGate>,
}

impl std::fmt::Debug for Wal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wal").field("dir", &self.dir).finish()
    }
}

/// Path of segment `number` in `dir`.
pub fn segment_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:016}.wal"))
}

/// Segment numbers present in `dir`, ascending.
pub fn list_segments(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    for e in fs.list_dir(dir).at(dir)? {
        let name = e.name.to_string_lossy();
        if let Some(n) = name
            .strip_suffix(".wal")
            .and_then(|n| n.parse::<u64>().ok())
        {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// A writer's emptied buffer is kept for reuse up to this capacity (bytes).
const SPARE_BUFFER_LIMIT: usize = 16 << 20;

/// Once this many bytes of the active segment were written without a sync, the OS is asked to
/// start writing them to disk without waiting (`sync_file_range`, RocksDB's
/// `wal_bytes_per_sync`). A segment is fdatasynced when it is closed; without these steps that
/// sync wrote the whole segment (64 MiB: ~40 ms here) while every writer waited.
pub const WRITEBACK_BYTES: u64 = 4 << 20;

/// Suffix of the temporary file [`cut_torn_tail`] writes; one left by a crash is removed at open.
pub const TMP_SUFFIX: &str = ".wal.tmp";

/// Rewrites segment `number` of `dir` to its first `valid_len` bytes (its records before a
/// torn tail found at open): the prefix goes to a synced temporary file renamed over the
/// segment, and the directory is synced. Once a newer segment exists this one is no longer the
/// last, and a torn tail there would be `Corruption` ("Recovery rules" in `docs/format/wal.md`).
pub fn cut_torn_tail(fs: &dyn FileSystem, dir: &Path, number: u64, valid_len: u64) -> Result<()> {
    let path = segment_path(dir, number);
    let data = fs.read(&path).at(&path)?;
    let keep = usize::try_from(valid_len)
        .ok()
        .and_then(|n| data.get(..n))
        .filter(|k| k.len() >= SEGMENT_MAGIC.len())
        .unwrap_or(SEGMENT_MAGIC);
    let tmp = dir.join(format!("{number:016}{TMP_SUFFIX}"));
    let f = fs.create(&tmp).at(&tmp)?;
    f.append(keep).at(&tmp)?;
    f.sync_all().synced(&tmp)?;
    drop(f);
    fs.rename(&tmp, &path).at(&path)?;
    fs.sync_dir(dir).synced(dir)
}

/// The file [`Wal::resume`] writes to check the disk takes bytes again (removed at once; one
/// left by a crash is removed at open).
pub const PROBE_FILE: &str = "probe.tmp";

/// The newest ticket not in a failed range (what a flush of the buffer or a sync waits for).
fn last_good_ticket(g: &Inner) -> u64 {
    let mut t = g.appended;
    while let Some((after, _, _)) = g.failed.iter().find(|(a, u, _)| *a < t && t <= *u) {
        t = *after;
    }
    t
}

/// Marks the tickets of `g.buf`, about to be discarded (`len` bytes), as failed with `reason`.
fn fail_records(g: &mut Inner, len: usize, reason: String) {
    let upto = g.appended;
    let buffered = std::mem::replace(&mut g.buf_buffered, 0);
    g.buf_max_seq = 0;
    g.failed_len = g.failed_len.max(len);
    record_failure(g, upto, buffered, reason);
}

/// Records that the tickets `(g.written, upto]` failed with `reason`; `buffered` of them were
/// ASYNC_WAL records (acknowledged: the memstores must be flushed before writes resume).
fn record_failure(g: &mut Inner, upto: u64, buffered: u64, reason: String) {
    if g.written < upto {
        if g.failed.len() >= FAILED_RANGES_KEPT {
            g.failed.remove(0);
        }
        g.failed.push((g.written, upto, reason));
        g.written = upto;
    }
    g.lost_buffered |= buffered > 0;
}

/// Creates segment `number` holding only the magic, synced, with its directory entry synced.
fn create_segment(fs: &dyn FileSystem, dir: &Path, number: u64) -> Result<Arc<dyn WritableFile>> {
    let path = segment_path(dir, number);
    let f = fs.create_new(&path).at(&path)?;
    f.append(SEGMENT_MAGIC).at(&path)?;
    f.sync_all().synced(&path)?;
    fs.sync_dir(dir).synced(dir)?;
    Ok(Arc::from(f))
}

impl Wal {
    /// Starts a new segment numbered `number` in `dir`. Segments `old` (already replayed) are
    /// tracked as closed with `old_max_seq`, so they are deleted once flushed. A failure of a
    /// later write, sync or roll sets `poison`, the engine's flag.
    #[expect(
        clippy::too_many_arguments,
        reason = "the engine's open passes each piece of its state once"
    )]
    pub fn create(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        number: u64,
        old: &[u64],
        old_max_seq: u64,
        segment_bytes: u64,
        metrics: Arc<Metrics>,
        poison: Arc<Poison>,
        gate: Arc<WriteGate>,
    ) -> Result<Wal> {
        let file = create_segment(&*fs, dir, number)?;
        Ok(Wal {
            fs,
            dir: dir.to_path_buf(),
            segment_bytes,
            inner: Mutex::new(Inner {
                file,
                number,
                size: SEGMENT_MAGIC.len() as u64,
                max_seq: 0,
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
                writeback_from: 0,
                waiters: 0,
                buf_buffered: 0,
                failed: Vec::new(),
                torn: false,
                lost_buffered: false,
                failed_len: 0,
            }),
            done: Condvar::new(),
            metrics,
            poison,
            gate,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock::lock(&self.inner)
    }

    /// Appends `edit` and waits as `level` says.
    pub fn append(&self, edit: &WalEdit, level: SyncLevel) -> Result<()> {
        self.poison.check()?;
        self.gate.check()?;
        let mut g = self.lock();
        // Encoded in place after room for the length and CRC, which are filled in after.
        let start = g.buf.len();
        g.buf.extend_from_slice(&[0; 8]);
        edit.encode(&mut g.buf);
        let len = g.buf.len() - start - 8;
        if len > MAX_RECORD {
            g.buf.truncate(start);
            return Err(Error::TooLarge {
                what: "WAL record",
                size: len,
                limit: MAX_RECORD,
            });
        }
        let crc = masked_crc(&g.buf[start + 8..]);
        g.buf[start..start + 4].copy_from_slice(&(len as u32).to_be_bytes());
        g.buf[start + 4..start + 8].copy_from_slice(&crc.to_be_bytes());
        g.buf_max_seq = g.buf_max_seq.max(edit.seq);
        g.appended += 1;
        if level == SyncLevel::Buffered {
            g.buf_buffered += 1;
        }
        let ticket = g.appended;
        match level {
            SyncLevel::Buffered => Ok(()),
            SyncLevel::Written => self.wait(g, ticket, false),
            SyncLevel::Synced => self.wait(g, ticket, true),
        }
    }

    /// Writes whatever is buffered (for ASYNC_WAL records) to the OS.
    pub fn flush_buffer(&self) -> Result<()> {
        let g = self.lock();
        let t = last_good_ticket(&g);
        self.wait(g, t, false)
    }

    /// Writes and fdatasyncs everything appended so far (but records whose write failed).
    #[cfg(test)]
    pub fn sync(&self) -> Result<()> {
        let g = self.lock();
        let t = last_good_ticket(&g);
        self.wait(g, t, true)
    }

    fn wait<'a>(&'a self, mut g: MutexGuard<'a, Inner>, ticket: u64, sync: bool) -> Result<()> {
        if sync {
            g.sync_wanted = g.sync_wanted.max(ticket);
        }
        loop {
            self.poison.check()?;
            if let Some((_, _, reason)) = g
                .failed
                .iter()
                .find(|(after, upto, _)| *after < ticket && ticket <= *upto)
            {
                return Err(Error::WritesSuspended {
                    cause: StallCause::WalWrite,
                    reason: reason.clone(),
                });
            }
            if g.written >= ticket && (!sync || g.synced >= ticket) {
                return Ok(());
            }
            if g.busy {
                g.waiters += 1;
                g = lock::wait(&self.done, g);
                g.waiters -= 1;
                continue;
            }
            if g.torn {
                // Nothing may be written (or synced) after a failed write's bytes until
                // `resume` cuts them off: records appended since fail too, and a wait for the
                // sync of records written before fails (retryably) rather than spin.
                let reason = match self.gate.check() {
                    Err(Error::WritesSuspended { reason, .. }) => reason,
                    _ => "an earlier WAL write failed".to_string(),
                };
                if g.buf.is_empty() {
                    return Err(Error::WritesSuspended {
                        cause: StallCause::WalWrite,
                        reason,
                    });
                }
                let len = g.buf.len();
                g.buf.clear();
                fail_records(&mut g, len, reason);
                if g.waiters > 0 {
                    self.done.notify_all();
                }
                continue;
            }
            // Become the leader for everything buffered so far.
            g.busy = true;
            let spare = std::mem::take(&mut g.spare);
            let mut buf = std::mem::replace(&mut g.buf, spare);
            let upto = g.appended;
            let buf_max = std::mem::replace(&mut g.buf_max_seq, 0);
            let buffered = std::mem::replace(&mut g.buf_buffered, 0);
            let do_sync = g.sync_wanted > g.synced;
            let file = g.file.clone();
            let number = g.number;
            // The leader alone moves `size` and `writeback_from` (under `busy`).
            let end = g.size + buf.len() as u64;
            let writeback = (end - g.writeback_from >= WRITEBACK_BYTES || do_sync)
                .then_some((g.writeback_from, end));
            drop(g);
            let written: std::result::Result<(), (&str, std::io::Error)> = (|| {
                file.append(&buf).map_err(|e| ("write", e))?;
                if do_sync {
                    file.sync_data().map_err(|e| ("sync", e))?;
                    Metrics::inc(&self.metrics.wal_syncs);
                } else if let Some((from, to)) = writeback {
                    file.start_writeback(from, to - from);
                    Metrics::inc(&self.metrics.wal_writebacks);
                }
                Ok(())
            })();
            // The path is spelled out only for an error (no allocation per write).
            let res = written.map_err(|(step, e)| {
                let transient = step == "write" && is_transient_wal_write_error(&e);
                let reason = format!(
                    "WAL {step} failed on {}: {e}",
                    segment_path(&self.dir, number).display()
                );
                (transient, reason)
            });
            g = self.lock();
            g.busy = false;
            let written_len = buf.len();
            if buf.capacity() <= SPARE_BUFFER_LIMIT {
                buf.clear();
                g.spare = buf;
            }
            match res {
                Ok(()) => {
                    Metrics::add(&self.metrics.bytes_written_wal, written_len as u64);
                    g.written = upto;
                    if do_sync {
                        g.synced = upto;
                    }
                    g.size += written_len as u64;
                    if let Some((_, to)) = writeback {
                        g.writeback_from = to;
                    }
                    g.max_seq = g.max_seq.max(buf_max);
                    if g.size >= self.segment_bytes {
                        // A failure poisons (in `roll`); the loop's check reports it.
                        let _ = self.roll(&mut g);
                    }
                }
                Err((true, reason)) => {
                    // A full disk: this write's records are dropped (their writers fail, and
                    // none of them is in a memstore yet), the segment keeps its bytes up to
                    // `size` (what follows is cut off by `resume`), and writes are suspended.
                    g.failed_len = written_len;
                    self.gate.suspend(StallCause::WalWrite, reason.clone());
                    g.torn = true;
                    record_failure(&mut g, upto, buffered, reason);
                }
                Err((false, reason)) => {
                    self.poison.set(reason);
                }
            }
            if g.waiters > 0 {
                self.done.notify_all();
            }
        }
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
        g.file.sync_data().synced(&path)?;
        let next = g.number + 1;
        let file = match create_segment(&*self.fs, &self.dir, next) {
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

    /// Deletes closed segments whose every record has sequence id < `min_unflushed_seq`.
    pub fn delete_obsolete(&self, min_unflushed_seq: u64) -> Result<usize> {
        let doomed: Vec<Segment> = {
            let mut g = self.lock();
            let (doomed, keep): (Vec<_>, Vec<_>) = g
                .closed
                .drain(..)
                .partition(|s| s.max_seq < min_unflushed_seq);
            g.closed = keep;
            doomed
        };
        for s in &doomed {
            let p = segment_path(&self.dir, s.number);
            self.fs.remove_file(&p).at(&p)?;
        }
        Ok(doomed.len())
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
    use super::*;
    use crate::cell::CellType;

    fn gate() -> Arc<WriteGate> {
        Arc::new(WriteGate::new(Arc::default()))
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
            1,
            &[],
            0,
            1 << 30,
            Arc::default(),
            Arc::default(),
            gate.clone(),
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
            1,
            &[],
            0,
            64 << 20,
            metrics.clone(),
            Arc::default(),
            gate(),
        )
        .unwrap();
        // 10 MiB of 64 KiB records, written to the OS but never synced by a writer.
        let big = |seq: u64| WalEdit {
            cells: vec![WalCell {
                value: vec![seq as u8; 64 << 10].into(),
                ..edit(seq).cells[0].clone()
            }],
            ..edit(seq)
        };
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

    #[test]
    fn concurrent_appends_all_replay_across_rolled_segments() {
        let dir = tempfile::tempdir().unwrap();
        let wal = Arc::new(
            Wal::create(
                crate::fs::os(),
                dir.path(),
                1,
                &[],
                0,
                4096,
                Arc::new(Metrics::default()),
                Arc::default(),
                gate(),
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

    #[test]
    fn torn_tail_is_dropped_but_middle_damage_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let wal = Wal::create(
            crate::fs::os(),
            dir.path(),
            1,
            &[],
            0,
            1 << 30,
            Arc::new(Metrics::default()),
            Arc::default(),
            gate(),
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
        let err = read_segment(&crate::fs::OsFileSystem, &path, true, |_| Ok(())).unwrap_err();
        assert!(matches!(err, Error::Corruption { .. }), "{err}");
        assert!(err.to_string().contains("0000000000000001.wal"));
    }
}
