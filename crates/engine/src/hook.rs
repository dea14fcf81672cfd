//! Test hooks: named points inside background jobs where a test may run code of its own —
//! block until it says go (a pause point), panic (a crashing job), or cut the power of the
//! fault-injecting file system (a kill point). RocksDB calls these sync points.
//!
//! Production engines have no hook ([`EngineOptions::hook`] is `None`) and pay one branch per
//! point. A hook runs on the job's thread with the job's locks held as listed at each point,
//! so it must not call back into the engine except where the point says it may.
//!
//! [`EngineOptions::hook`]: crate::EngineOptions::hook

use std::sync::Arc;

/// A point in a background job where [`Hook`] is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookPoint {
    /// Mid-flush: a flushed file of `region` is written and synced, not yet in the manifest.
    /// No engine lock is held.
    FlushFileWritten {
        /// The region being flushed.
        region: u64,
    },
    /// A flush of `region` wrote the manifest naming its files; the WAL segments it made
    /// obsolete are not deleted yet. No engine lock is held.
    FlushManifestWritten {
        /// The region flushed.
        region: u64,
    },
    /// Mid-compaction: a compaction of `region` chose its input files and is about to merge
    /// the first cell into its output. No engine lock is held; the store is marked compacting.
    CompactionMerging {
        /// The region being compacted.
        region: u64,
        /// Whether it is a major compaction.
        major: bool,
    },
    /// A major compaction of `region` found a minor one running, asked it to stop, and waits
    /// for it (called on each wait). No engine lock is held.
    CompactionWaiting {
        /// The region being compacted.
        region: u64,
    },
    /// Table administration paused `region` (new jobs refused, running compactions asked to
    /// stop at their next cell) and waits for the jobs running in it. The DDL thread holds
    /// `ddl_lock`; no other engine lock is held.
    PauseWaiting {
        /// The region being paused.
        region: u64,
    },
    /// Mid-compaction: the output of a compaction of `region` is written and synced, not yet
    /// in the manifest. No engine lock is held.
    CompactionFileWritten {
        /// The region being compacted.
        region: u64,
    },
    /// Mid-split: the daughters' files of `region` are written and synced, the manifest still
    /// names the parent (the point just before the manifest commit). The split thread holds
    /// the region's update lock (writes to the region wait); the region's other jobs are paused.
    SplitDaughtersWritten {
        /// The region being split (the parent).
        region: u64,
    },
    /// A split of `region` wrote the manifest naming the daughters; the parent's directory
    /// is not removed yet. The split thread holds the parent's update lock (the parent is
    /// closed).
    SplitManifestWritten {
        /// The region split (the parent).
        region: u64,
    },
}

/// A test's code run at every [`HookPoint`]; shared by every thread of the engine.
#[derive(Clone)]
pub struct Hook(Arc<dyn Fn(HookPoint) + Send + Sync>);

impl Hook {
    /// A hook running `f` at every point.
    pub fn new(f: impl Fn(HookPoint) + Send + Sync + 'static) -> Self {
        Hook(Arc::new(f))
    }

    /// Runs the hook at `point`.
    pub fn call(&self, point: HookPoint) {
        (self.0)(point)
    }
}

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hook")
    }
}
