//! Group commit: a writer appends its record to the shared buffer and waits; the first waiter
//! finding no write under way becomes the leader, writes the whole buffer with one `write` (and
//! one `fdatasync` if any waiter asked for it) and wakes the others. A failed write fails every
//! record it carried (their tickets are kept as failed ranges for the waiters still to wake).

use super::{segment_path, Inner, SyncLevel, Wal, WalEdit, MAX_RECORD};
use crate::error::{Error, Result, StallCause};
use crate::health::is_transient_wal_write_error;
use crate::lock;
use crate::metrics::Metrics;
use std::sync::atomic::Ordering;
use std::sync::MutexGuard;

/// Failed ticket ranges kept for writers still to wake (a range's writers were all waiting
/// when it failed, so a few suffice).
const FAILED_RANGES_KEPT: usize = 16;

/// How long a follower spins for the leader's write to end before it sleeps: a single put's
/// write takes a few microseconds, a 100-row batch's a few dozen.
const FOLLOWER_SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// A writer's emptied buffer is kept for reuse up to this capacity (bytes).
const SPARE_BUFFER_LIMIT: usize = 16 << 20;

/// Once this many bytes of the active segment were written without a sync, the OS is asked to
/// start writing them to disk without waiting (`sync_file_range`, RocksDB's
/// `wal_bytes_per_sync`). A segment is fdatasynced when it is closed; without these steps that
/// sync wrote the whole segment (64 MiB: ~40 ms here) while every writer waited.
pub const WRITEBACK_BYTES: u64 = 4 << 20;

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

impl Wal {
    /// Appends `edit` and waits as `level` says.
    pub fn append(&self, edit: &WalEdit, level: SyncLevel) -> Result<()> {
        self.poison.check()?;
        self.gate.check()?;
        // The length and checksum are taken before the log's lock: under it, writers only
        // encode their records into the shared buffer, and the checksum of one writer's batch
        // no longer holds up the others.
        let (len, crc) = edit.frame();
        if len > MAX_RECORD {
            return Err(Error::TooLarge {
                what: "WAL record",
                size: len,
                limit: MAX_RECORD,
            });
        }
        let mut g = self.lock();
        g.buf.reserve(8 + len);
        g.buf.extend_from_slice(&(len as u32).to_be_bytes());
        g.buf.extend_from_slice(&crc.to_be_bytes());
        edit.encode(&mut g.buf);
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

    /// Writes and fdatasyncs everything appended so far (but records whose write failed);
    /// returns at once when that is on disk already. A flush calls it before its manifest
    /// write.
    pub fn sync(&self) -> Result<()> {
        let g = self.lock();
        let t = last_good_ticket(&g);
        self.wait(g, t, true)
    }

    fn wait<'a>(&'a self, mut g: MutexGuard<'a, Inner>, ticket: u64, sync: bool) -> Result<()> {
        if sync {
            g.sync_wanted = g.sync_wanted.max(ticket);
        }
        let mut spun = false;
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
                if !spun && !sync && g.waiters == 0 && !g.spinning {
                    // The leader's write of a few records ends within microseconds: spinning
                    // for it costs less than a sleep, a wake-up system call from the leader
                    // and a context switch each way. One follower at a time, and only when
                    // none sleeps, so threads beyond the cores do not burn them.
                    g.spinning = true;
                    drop(g);
                    let until = std::time::Instant::now() + FOLLOWER_SPIN;
                    'spin: while self.leading.load(Ordering::Acquire) {
                        for _ in 0..32 {
                            std::hint::spin_loop();
                        }
                        if std::time::Instant::now() >= until {
                            break 'spin;
                        }
                    }
                    g = self.lock();
                    g.spinning = false;
                    spun = true;
                    continue;
                }
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
            self.leading.store(true, Ordering::Release);
            let spare = std::mem::take(&mut g.spare);
            let mut buf = std::mem::replace(&mut g.buf, spare);
            let upto = g.appended;
            // The records this group commit carries.
            let group = upto.saturating_sub(g.written);
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
            if do_sync && written.is_ok() {
                // Still the leader: nothing else moves this segment's end meanwhile.
                self.mark_synced(number, end, false);
            }
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
            self.leading.store(false, Ordering::Release);
            let written_len = buf.len();
            if buf.capacity() <= SPARE_BUFFER_LIMIT {
                buf.clear();
                g.spare = buf;
            }
            match res {
                Ok(()) => {
                    Metrics::add(&self.metrics.bytes_written_wal, written_len as u64);
                    if group > 0 {
                        self.metrics.wal_group(group);
                    }
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
}
