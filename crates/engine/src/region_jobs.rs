//! Background work on one region and what stops it (HBase's region close): flushes, compactions
//! and splits run as *jobs*; table administration *pauses* a region, which refuses new jobs, asks
//! running compactions to stop at their next cell and waits until no job runs. A disabled
//! table's regions stay *offline*: they refuse jobs until the table is enabled again.
//!
//! The rules (which DDL waits for which job) are in `docs/design/background-work.md`.

use crate::lock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The jobs of one region. Thread-safe.
#[derive(Debug, Default)]
pub struct RegionJobs {
    state: Mutex<JobState>,
    /// Signalled when the last running job ends.
    idle: Condvar,
    /// Mirrors `pauses > 0 || offline`, read at every cell by compactions.
    stop: AtomicBool,
}

#[derive(Debug, Default)]
struct JobState {
    running: usize,
    pauses: usize,
    /// A split holds the region (it is one of the pauses): other pauses wait for it to end.
    splitting: bool,
    offline: bool,
}

impl JobState {
    fn refuses_jobs(&self) -> bool {
        self.pauses > 0 || self.offline
    }
}

impl RegionJobs {
    /// Registers a job, or returns `None` when the region is paused or offline (the job is then
    /// not run: whoever paused the region changes or removes it). The job ends when the guard
    /// drops.
    pub fn start(self: &Arc<Self>) -> Option<JobGuard> {
        let mut g = lock::lock(&self.state);
        if g.refuses_jobs() {
            return None;
        }
        g.running += 1;
        Some(JobGuard(self.clone()))
    }

    /// Refuses new jobs, asks running compactions to stop, and waits until no job runs. Jobs
    /// stay refused until the guard drops. The caller must not hold a [`JobGuard`] of this
    /// region (it would wait for itself). Pauses nest: several callers may hold one.
    #[cfg(test)]
    pub fn pause(self: &Arc<Self>) -> PauseGuard {
        self.pause_then(|| {})
    }

    /// [`RegionJobs::pause`], calling `waiting` once (with no lock held) if jobs are running
    /// when the pause is in force: they have been asked to stop and the pause waits for them.
    /// The test hook's `PauseWaiting` point.
    pub fn pause_then(self: &Arc<Self>, waiting: impl FnOnce()) -> PauseGuard {
        let g = lock::lock(&self.state);
        self.pause_locked(g, false, waiting)
    }

    /// Pauses the region for a split: like [`RegionJobs::pause`], and other pauses (DDL)
    /// wait until the split ends, so whoever pauses next sees its outcome. `None` when the
    /// region is already paused or offline: DDL is changing it, or another split runs, and
    /// this split is not done.
    pub fn pause_for_split(self: &Arc<Self>) -> Option<PauseGuard> {
        let g = lock::lock(&self.state);
        if g.refuses_jobs() {
            return None;
        }
        Some(self.pause_locked(g, true, || {}))
    }

    fn pause_locked<'a>(
        self: &'a Arc<Self>,
        mut g: std::sync::MutexGuard<'a, JobState>,
        split: bool,
        waiting: impl FnOnce(),
    ) -> PauseGuard {
        g.pauses += 1;
        self.stop.store(true, Ordering::Release);
        if g.running > 0 || g.splitting {
            // The pause is in force (jobs refused, compactions asked to stop) before `waiting`
            // runs; the lock is released meanwhile so that jobs can end.
            drop(g);
            waiting();
            g = lock::lock(&self.state);
        }
        while g.running > 0 || g.splitting {
            g = lock::wait(&self.idle, g);
        }
        g.splitting = split;
        PauseGuard {
            jobs: self.clone(),
            split,
        }
    }

    /// Takes the region offline (its table was disabled) or back online. Offline, jobs are
    /// refused as while paused; callers pause the region first, so none is running.
    pub fn set_offline(&self, offline: bool) {
        let mut g = lock::lock(&self.state);
        g.offline = offline;
        self.stop.store(g.refuses_jobs(), Ordering::Release);
    }

    /// True while the region is offline (its table disabled).
    pub fn is_offline(&self) -> bool {
        lock::lock(&self.state).offline
    }

    /// True when running jobs should stop at their next step (the region is paused or offline).
    /// One atomic load: compactions poll it at every cell.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

/// A running job; dropping it ends the job.
#[derive(Debug)]
pub struct JobGuard(Arc<RegionJobs>);

impl Drop for JobGuard {
    fn drop(&mut self) {
        let mut g = lock::lock(&self.0.state);
        g.running -= 1;
        if g.running == 0 {
            self.0.idle.notify_all();
        }
    }
}

/// A pause of a region's jobs; dropping it lets jobs start again (unless other pauses remain or
/// the region is offline).
#[derive(Debug)]
pub struct PauseGuard {
    jobs: Arc<RegionJobs>,
    split: bool,
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        let mut g = lock::lock(&self.jobs.state);
        g.pauses -= 1;
        if self.split {
            g.splitting = false;
            self.jobs.idle.notify_all();
        }
        self.jobs.stop.store(g.refuses_jobs(), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_refuses_new_jobs_and_waits_for_running_ones() {
        let jobs = Arc::new(RegionJobs::default());
        let job = jobs.start().expect("an idle region takes jobs");
        let pauser = {
            let jobs = jobs.clone();
            std::thread::spawn(move || {
                let p = jobs.pause();
                assert!(jobs.start().is_none(), "paused: no new job");
                drop(p);
            })
        };
        while !jobs.stop_requested() {
            std::thread::yield_now();
        }
        assert!(jobs.start().is_none(), "a pending pause refuses new jobs");
        drop(job);
        pauser.join().unwrap();
        assert!(!jobs.stop_requested());
        assert!(jobs.start().is_some(), "jobs run again after the pause");
    }

    #[test]
    fn an_offline_region_refuses_jobs_until_back_online() {
        let jobs = Arc::new(RegionJobs::default());
        let p = jobs.pause();
        jobs.set_offline(true);
        drop(p);
        assert!(jobs.stop_requested() && jobs.start().is_none());
        jobs.set_offline(false);
        assert!(!jobs.stop_requested() && jobs.start().is_some());
    }
}
