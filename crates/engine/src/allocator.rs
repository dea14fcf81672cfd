//! The global allocator of binaries built on the engine (feature `mimalloc`): mimalloc, tuned
//! for the engine's allocation pattern, and [`release_thread_cache`] and [`purge_freed_memory`]
//! for threads that go quiet after large allocations (without the feature they do nothing).
//!
//! Why: a memstore allocates a skip-list node per cell on the writer's thread and frees it on
//! the flusher's, and the block cache allocates a ~64 KiB buffer per block miss and frees one
//! per eviction. glibc's malloc spent about a sixth of a small-cell load in its bins
//! (`_int_malloc`, `unlink_chunk`, `malloc_consolidate`); with mimalloc that load runs about
//! twice as fast (`docs/performance.md`).
//!
//! Tuning, both for the block cache's steady churn of large buffers:
//! - no transparent huge pages (built with mimalloc's `no_thp`): filling the cache otherwise
//!   faulted in and zeroed 2 MiB pages, millisecond stalls in the first scans;
//! - freed memory goes back to the OS only after 5 s ([`PURGE_DELAY_MS`]; mimalloc's
//!   `purge_delay`, 1 s by default in version 3) or when a thread asks for it
//!   ([`purge_freed_memory`]): purged buffers are faulted back in on the next misses, a
//!   fifth of scan throughput at short delays. `MIMALLOC_PURGE_DELAY` in the environment still
//!   wins.
//!
//! Per-thread caches, and what bounds them: mimalloc gives each thread its own pages, and a
//! page goes back to the process-wide arenas only when its thread collects it, which it does
//! while it allocates in the same size class, not when it is idle. Blocks of 84–512 KiB live in
//! 4 MiB pages, one set per thread. And a thread takes fresh pages from the arenas at an offset
//! of its own (to spread threads apart), so pages another thread gave back are not the ones it
//! touches next: without purging, every page any thread ever touched stays resident. A server
//! with a thread per connection (the Thrift gateway) with purging off (`-1`, this module's
//! setting until issue 20) kept, per open connection, the pages of the largest call it had
//! decoded or answered and the blocks other threads freed into them (memstore cells the
//! flusher dropped): 1,000 connections grew a soak to 3.1 GiB against 0.95 GiB of data
//! (`docs/reliability.md`). Neither half alone bounds it (measured with 200 connections that
//! each read 200–400 KiB rows and stay open: 473 MiB with no collection at any purge delay,
//! 147 MiB collecting with purging off, 32 MiB collecting with the 5 s delay). So connection
//! threads [`release_thread_cache_and_purge`] after a call of 32 KiB or more,
//! [`release_thread_cache`] (no purge) every second while busy, and when they go quiet
//! [`release_thread_cache`] and [`purge_freed_memory`] (at most one purge a second
//! process-wide). A forced purge every second on each of 1,000 connection threads (issue 20)
//! made every freed page a page fault when reused and cost a fifth of the server's CPU per
//! call. A program without such threads (`ferrobase bench engine`) keeps its freed buffers for
//! 5 s, as with `-1`.

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "mimalloc")]
/// mimalloc's `mi_option_purge_delay` (the same position in the option enum of versions 2 and
/// 3; the Rust bindings do not name it).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay the engine sets, in milliseconds (see the module documentation): long
/// enough that the block cache's churn reuses freed buffers before they are purged, short
/// enough that memory no thread collects explicitly goes back within seconds.
pub const PURGE_DELAY_MS: i64 = 5_000;

#[cfg(feature = "mimalloc")]
/// mimalloc's default purge delays in milliseconds (version 3: 1000, version 2: 10): the option
/// is changed only while it holds one of them, so neither an explicit `MIMALLOC_PURGE_DELAY`
/// nor a differently numbered option is overwritten.
const DEFAULT_PURGE_DELAYS: [std::os::raw::c_long; 2] = [1000, 10];

/// Applies the engine's allocator settings. Call once, first thing in `main`; harmless to call
/// again. Thread-safe.
#[cfg(feature = "mimalloc")]
pub fn tune() {
    // SAFETY: mi_option_get/mi_option_set read and write one option slot of mimalloc's; any
    // option number is accepted (an unknown one is ignored).
    unsafe {
        if DEFAULT_PURGE_DELAYS.contains(&libmimalloc_sys::mi_option_get(PURGE_DELAY)) {
            libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS as std::os::raw::c_long);
        }
    }
}

/// How many of mimalloc's ordinary collections free every empty page of a thread: a thread
/// keeps the last empty page of a size class ("retired", for an allocation that may come next)
/// for up to 16 of them (`MI_RETIRE_CYCLES` in mimalloc's `page.c`; 4 for blocks over 10 KiB),
/// and frees its other empty pages at the first.
pub const RETIRE_CYCLES: usize = 16;

/// Gives the calling thread's cached allocator pages back to mimalloc's shared arenas: frees
/// its pages that hold no live block, including blocks other threads freed into them and the
/// last empty page of each size class, which mimalloc keeps for a while in case the thread
/// allocates that size again (ordinary collections, `mi_collect(false)`, [`RETIRE_CYCLES`]
/// times). Purges nothing at once: what it frees goes back to the OS after [`PURGE_DELAY_MS`]
/// unless a thread takes it first (see [`purge_freed_memory`]), so it costs a walk over the
/// thread's own pages and no page faults. For a thread that made large allocations and may now
/// sit idle (a connection thread after a large call). Does nothing without the `mimalloc`
/// feature. Thread-safe: it touches only the caller's heap and mimalloc's synchronized arenas.
pub fn release_thread_cache() {
    #[cfg(feature = "mimalloc")]
    for _ in 0..RETIRE_CYCLES {
        // SAFETY: mi_collect works on the calling thread's own heap, which no other thread
        // touches; an ordinary collection purges only what the purge delay has expired.
        unsafe {
            libmimalloc_sys::mi_collect(false);
        }
    }
}

/// Gives the calling thread's cached allocator pages back as [`release_thread_cache`] does and
/// returns all the memory free in mimalloc's arenas to the OS at once (`mi_collect(true)`, a
/// forced purge), whenever another thread purged last. For a thread that has just made an
/// allocation large enough that keeping its pages for [`PURGE_DELAY_MS`] would matter (a
/// connection thread after a call of 32 KiB or more). Costs the walk over the thread's pages
/// and page faults wherever purged memory is reused soon after: forced after every call of
/// 1,000 connection threads, it cost a fifth of a soak's throughput (`docs/reliability.md`);
/// see [`purge_freed_memory`] for a rate-limited purge. Does nothing without the `mimalloc`
/// feature. Thread-safe.
pub fn release_thread_cache_and_purge() {
    #[cfg(feature = "mimalloc")]
    // SAFETY: mi_collect works on the calling thread's own heap, which no other thread
    // touches; `force` also visits its full pages and purges the arenas' free memory (one
    // thread purges at a time, the others skip it).
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
}

/// The shortest time between two [`purge_freed_memory`] purges, process-wide.
pub const PURGE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// Returns the memory free in mimalloc's arenas to the OS now instead of after
/// [`PURGE_DELAY_MS`] (`mi_collect(true)`: also gives the calling thread's empty pages back,
/// as [`release_thread_cache`] does), unless some thread did so less than [`PURGE_INTERVAL`]
/// ago; true when it purged. For a thread going idle: a forced purge also drops the pages
/// busy threads were about to reuse (the block cache's buffers, other connections'), so page
/// faults follow it; 1,000 connection threads forcing one every second (issue 20) cost a fifth
/// of a server's CPU per call (`docs/reliability.md`). Does nothing without the `mimalloc`
/// feature. Thread-safe.
pub fn purge_freed_memory() -> bool {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    use std::time::Instant;
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    /// Milliseconds after [`EPOCH`] of the last purge, plus one (0: none yet).
    static LAST: AtomicU64 = AtomicU64::new(0);
    let epoch = *EPOCH.get_or_init(Instant::now);
    let now = epoch.elapsed().as_millis() as u64 + 1;
    let last = LAST.load(Ordering::Acquire);
    if last != 0 && now.saturating_sub(last) < PURGE_INTERVAL.as_millis() as u64 {
        return false;
    }
    if LAST
        .compare_exchange(last, now, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return false; // another thread purges
    }
    #[cfg(feature = "mimalloc")]
    // SAFETY: as in release_thread_cache; `force` also visits the thread's full pages and
    // purges the arenas' free memory at once (one thread purges at a time).
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
    true
}

#[cfg(all(test, feature = "mimalloc"))]
mod tests {
    #[test]
    fn purge_freed_memory_purges_at_most_once_an_interval() {
        // No other test of this binary purges.
        let started = std::time::Instant::now();
        assert!(
            super::purge_freed_memory(),
            "the process's first purge runs"
        );
        let again = super::purge_freed_memory();
        if started.elapsed() < super::PURGE_INTERVAL {
            assert!(!again, "a second purge within {:?}", super::PURGE_INTERVAL);
        }
    }

    #[test]
    fn tune_sets_the_purge_delay_unless_the_environment_chose_one() {
        // SAFETY: reading a mimalloc option is thread-safe and takes no pointers.
        let before = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        super::tune();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert!(super::DEFAULT_PURGE_DELAYS.contains(&before), "{before}");
            assert_eq!(after, super::PURGE_DELAY_MS as std::os::raw::c_long);
        } else {
            assert_eq!(after, before);
        }
    }
}
