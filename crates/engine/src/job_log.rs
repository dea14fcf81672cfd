//! The flushes and compactions running now and the last [`RECENT_JOBS`] that ended, kept for the
//! server's console and `/metrics` (HBase's region server UI lists its compactions and flushes
//! the same way). Each job is one region's: a flush of its memstores, or a compaction of one
//! store's files. Bounded: the running set is at most one flush per region and one compaction
//! per store, the ring [`RECENT_JOBS`] entries.
//!
//! A job states why it ran ([`JobReason`]): the caller sets it for the jobs it runs on its
//! thread (with `reason`, a guard), so the flush and compaction code need not be told.

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Ended jobs kept, newest last.
pub const RECENT_JOBS: usize = 64;

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Memstores written to block files.
    Flush,
    /// Some of a store's files merged into one.
    MinorCompaction,
    /// Every file of a store merged into one.
    MajorCompaction,
}

impl JobKind {
    /// `flush`, `minor_compaction` or `major_compaction`.
    pub fn label(self) -> &'static str {
        match self {
            JobKind::Flush => "flush",
            JobKind::MinorCompaction => "minor_compaction",
            JobKind::MajorCompaction => "major_compaction",
        }
    }
}

/// Why a job ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobReason {
    /// Asked for by an operator or client (`Admin::flush`, `compact`, `major_compact`).
    Requested,
    /// A memstore reached its flush size (the background flusher's queue).
    MemstoreSize,
    /// Too many WAL segments held the region's oldest edits.
    WalSegments,
    /// The compaction policy picked files after a flush (the background compactor's queue).
    Policy,
    /// A store's oldest file was older than the periodic major compaction's interval.
    Periodic,
    /// A split flushes its region first.
    Split,
    /// A snapshot flushes the table first.
    Snapshot,
    /// Disabling, truncating or dropping a table flushes it first.
    Ddl,
    /// Resuming suspended writes, or opening the engine, flushes what the WAL held.
    Recovery,
}

impl JobReason {
    /// `requested`, `memstore_size`, `wal_segments`, `policy`, `periodic`, `split`,
    /// `snapshot`, `ddl` or `recovery`.
    pub fn label(self) -> &'static str {
        match self {
            JobReason::Requested => "requested",
            JobReason::MemstoreSize => "memstore_size",
            JobReason::WalSegments => "wal_segments",
            JobReason::Policy => "policy",
            JobReason::Periodic => "periodic",
            JobReason::Split => "split",
            JobReason::Snapshot => "snapshot",
            JobReason::Ddl => "ddl",
            JobReason::Recovery => "recovery",
        }
    }
}

/// How a job stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobState {
    /// Still running.
    Running,
    /// Ended with its output installed.
    Done,
    /// Stopped part way (a major compaction or DDL wanted the store); its inputs stay.
    Cancelled,
    /// The region was closed (split, dropped) or its family deleted meanwhile; nothing kept.
    Abandoned,
    /// Failed (the region's failure or the engine's error names why).
    Failed,
}

impl JobState {
    /// `running`, `done`, `cancelled`, `abandoned` or `failed`.
    pub fn label(&self) -> &'static str {
        match self {
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Cancelled => "cancelled",
            JobState::Abandoned => "abandoned",
            JobState::Failed => "failed",
        }
    }
}

/// One flush or compaction, running or ended.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRecord {
    /// A number unique in this process, in start order.
    pub id: u64,
    /// What it does.
    pub kind: JobKind,
    /// Why it ran.
    pub reason: JobReason,
    /// The table.
    pub table: String,
    /// The region's id.
    pub region: u64,
    /// The families: a compaction's one, the families a flush wrote.
    pub families: Vec<String>,
    /// When it started, ms since the epoch.
    pub started_ms: u64,
    /// How long it ran (so far, while running).
    pub duration: Duration,
    /// Files read (a flush reads memstores: 0).
    pub files_in: u64,
    /// Bytes read: a flush's memstore bytes, a compaction's input file bytes.
    pub bytes_in: u64,
    /// Files written.
    pub files_out: u64,
    /// Bytes written to block files.
    pub bytes_out: u64,
    /// How it stands.
    pub state: JobState,
}

impl JobRecord {
    /// One line for the shell's `status`: `flush t region 3 [cf] 1 file 2.0 KiB in, 1 file
    /// 1.1 KiB out, 4.2 ms, requested, done`.
    pub fn summary_line(&self) -> String {
        let kib = |b: u64| format!("{:.1} KiB", b as f64 / 1024.0);
        format!(
            "{} {} region {} [{}] {} files {} in, {} files {} out, {:.1} ms, {}, {}",
            self.kind.label(),
            self.table,
            self.region,
            self.families.join(","),
            self.files_in,
            kib(self.bytes_in),
            self.files_out,
            kib(self.bytes_out),
            self.duration.as_secs_f64() * 1000.0,
            self.reason.label(),
            self.state.label()
        )
    }
}

/// The running jobs and the ring of ended ones. Thread-safe; one short lock per job start and
/// end, none while a job runs.
#[derive(Debug, Default)]
pub(crate) struct JobLog {
    next_id: AtomicU64,
    inner: Mutex<Jobs>,
}

#[derive(Debug, Default)]
struct Jobs {
    running: BTreeMap<u64, (JobRecord, Instant)>,
    recent: VecDeque<JobRecord>,
}

/// What [`crate::Engine::background_jobs`] answers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackgroundJobs {
    /// Running now, oldest first.
    pub running: Vec<JobRecord>,
    /// The last [`RECENT_JOBS`] that ended, newest first.
    pub recent: Vec<JobRecord>,
}

impl JobLog {
    fn jobs(&self) -> std::sync::MutexGuard<'_, Jobs> {
        // Every critical section is a map or ring insert or remove: consistent after a panic.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a job starting now; it ends when the handle is finished or dropped (dropped
    /// unfinished: [`JobState::Failed`], the job returned an error).
    pub(crate) fn start(
        &self,
        kind: JobKind,
        table: String,
        region: u64,
        families: Vec<String>,
    ) -> RunningJob<'_> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let started_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let record = JobRecord {
            id,
            kind,
            reason: current_reason(),
            table,
            region,
            families,
            started_ms,
            duration: Duration::ZERO,
            files_in: 0,
            bytes_in: 0,
            files_out: 0,
            bytes_out: 0,
            state: JobState::Running,
        };
        self.jobs().running.insert(id, (record, Instant::now()));
        RunningJob {
            log: self,
            id,
            ended: false,
        }
    }

    /// The running jobs and the ended ones.
    pub(crate) fn snapshot(&self) -> BackgroundJobs {
        let jobs = self.jobs();
        BackgroundJobs {
            running: jobs
                .running
                .values()
                .map(|(r, started)| JobRecord {
                    duration: started.elapsed(),
                    ..r.clone()
                })
                .collect(),
            recent: jobs.recent.iter().rev().cloned().collect(),
        }
    }

    fn end(&self, id: u64, state: JobState, sizes: Option<JobSizes>) {
        let mut jobs = self.jobs();
        let Some((mut r, started)) = jobs.running.remove(&id) else {
            return;
        };
        r.duration = started.elapsed();
        r.state = state;
        if let Some(s) = sizes {
            r.files_in = s.files_in;
            r.bytes_in = s.bytes_in;
            r.files_out = s.files_out;
            r.bytes_out = s.bytes_out;
            if let Some(f) = s.families {
                r.families = f;
            }
        }
        if jobs.recent.len() == RECENT_JOBS {
            jobs.recent.pop_front();
        }
        jobs.recent.push_back(r);
    }

    fn discard(&self, id: u64) {
        self.jobs().running.remove(&id);
    }
}

/// What a job read and wrote, given when it ends.
#[derive(Debug, Clone, Default)]
pub(crate) struct JobSizes {
    pub files_in: u64,
    pub bytes_in: u64,
    pub files_out: u64,
    pub bytes_out: u64,
    /// The families it wrote, when known only at its end (a flush's).
    pub families: Option<Vec<String>>,
}

/// A job in the log's running set until finished or dropped.
pub(crate) struct RunningJob<'a> {
    log: &'a JobLog,
    id: u64,
    ended: bool,
}

impl RunningJob<'_> {
    /// Ends the job as `state` with what it read and wrote.
    pub(crate) fn finish(mut self, state: JobState, sizes: JobSizes) {
        self.ended = true;
        self.log.end(self.id, state, Some(sizes));
    }

    /// Ends the job as `state`, sizes unknown.
    pub(crate) fn end(mut self, state: JobState) {
        self.ended = true;
        self.log.end(self.id, state, None);
    }

    /// Forgets the job: it had nothing to do (a flush of empty memstores).
    pub(crate) fn discard(mut self) {
        self.ended = true;
        self.log.discard(self.id);
    }
}

impl Drop for RunningJob<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.log.end(self.id, JobState::Failed, None);
        }
    }
}

thread_local! {
    static REASON: Cell<Option<JobReason>> = const { Cell::new(None) };
}

fn current_reason() -> JobReason {
    REASON.with(|r| r.get()).unwrap_or(JobReason::Requested)
}

/// Sets why the jobs this thread runs run, until the guard drops (then the previous reason is
/// back). Without one, a job is [`JobReason::Requested`].
pub(crate) fn reason(r: JobReason) -> ReasonGuard {
    let previous = REASON.with(|c| c.replace(Some(r)));
    ReasonGuard(previous)
}

/// Restores the previous reason when dropped.
pub(crate) struct ReasonGuard(Option<JobReason>);

impl Drop for ReasonGuard {
    fn drop(&mut self) {
        let previous = self.0;
        REASON.with(|c| c.set(previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_move_from_running_to_a_bounded_ring_newest_first() {
        let log = JobLog::default();
        let job = log.start(JobKind::Flush, "t".into(), 1, vec![]);
        let s = log.snapshot();
        assert_eq!(s.running.len(), 1);
        assert_eq!(s.running[0].state, JobState::Running);
        assert_eq!(s.running[0].reason, JobReason::Requested);
        job.finish(
            JobState::Done,
            JobSizes {
                bytes_in: 10,
                files_out: 1,
                bytes_out: 7,
                families: Some(vec!["cf".into()]),
                ..JobSizes::default()
            },
        );
        let s = log.snapshot();
        assert!(s.running.is_empty());
        assert_eq!(s.recent[0].families, ["cf"]);
        assert_eq!((s.recent[0].bytes_in, s.recent[0].bytes_out), (10, 7));
        {
            let _r = reason(JobReason::Periodic);
            drop(log.start(JobKind::MajorCompaction, "t".into(), 1, vec!["cf".into()]));
        }
        let s = log.snapshot();
        assert_eq!(s.recent[0].state, JobState::Failed);
        assert_eq!(s.recent[0].reason, JobReason::Periodic);
        assert_eq!(current_reason(), JobReason::Requested);
        log.start(JobKind::Flush, "t".into(), 2, vec![]).discard();
        for _ in 0..RECENT_JOBS + 5 {
            log.start(JobKind::Flush, "t".into(), 3, vec![])
                .end(JobState::Done);
        }
        let s = log.snapshot();
        assert_eq!(s.recent.len(), RECENT_JOBS);
        assert!(s.recent[0].id > s.recent[1].id);
    }
}
