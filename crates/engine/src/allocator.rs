//! The global allocator of binaries built on the engine (feature `mimalloc`): mimalloc, tuned
//! for the engine's allocation pattern.
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
//! - freed memory is kept for reuse rather than returned to the OS after a delay (mimalloc's
//!   `purge_delay`, 1 s in version 3), as glibc keeps its heap: purged buffers were faulted
//!   back in on the next misses, a fifth of scan throughput. `MIMALLOC_PURGE_DELAY` in the
//!   environment still wins.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the same position in the option enum of versions 2 and
/// 3; the Rust bindings do not name it).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc's default purge delays in milliseconds (version 3: 1000, version 2: 10): the option
/// is changed only while it holds one of them, so neither an explicit `MIMALLOC_PURGE_DELAY`
/// nor a differently numbered option is overwritten.
const DEFAULT_PURGE_DELAYS: [std::os::raw::c_long; 2] = [1000, 10];

/// Applies the engine's allocator settings. Call once, first thing in `main`; harmless to call
/// again. Thread-safe.
pub fn tune() {
    // SAFETY: mi_option_get/mi_option_set read and write one option slot of mimalloc's; any
    // option number is accepted (an unknown one is ignored).
    unsafe {
        if DEFAULT_PURGE_DELAYS.contains(&libmimalloc_sys::mi_option_get(PURGE_DELAY)) {
            libmimalloc_sys::mi_option_set(PURGE_DELAY, -1);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn tune_turns_off_purging_unless_the_environment_chose_a_delay() {
        // SAFETY: reading a mimalloc option is thread-safe and takes no pointers.
        let before = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        super::tune();
        // SAFETY: as above.
        let after = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert!(super::DEFAULT_PURGE_DELAYS.contains(&before), "{before}");
            assert_eq!(after, -1);
        } else {
            assert_eq!(after, before);
        }
    }
}
