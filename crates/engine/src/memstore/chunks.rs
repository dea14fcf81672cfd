//! Where memstores keep their cells: chunks of memory filled in turn (HBase's MSLAB) and an
//! engine-wide pool of the chunks flushed memstores gave back (HBase's `MemStoreChunkPool`).
//!
//! A memstore's skip-list nodes and its cells' bytes live in its chunks, so a flushed
//! memstore gives back a few dozen 2 MiB chunks, not one small allocation per cell freed on
//! the flusher's thread into pages the writers' threads own. The pool hands those chunks to the
//! next memstores: memory flushes free is reused at once instead of waiting in the allocator
//! for its purge delay (`docs/performance.md`, "Memstore nodes in chunks").

use crate::lock;
use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Alignment of every chunk and of every allocation in it.
pub(super) const ALIGN: usize = 8;

/// Cells whose node would be larger than this get a buffer of their own instead of a place in
/// a chunk (HBase's `hbase.hregion.memstore.mslab.max.allocation`, 256 KiB): one would waste
/// most of a chunk.
pub(super) const MAX_CHUNKED: usize = 256 << 10;

/// A pool none of whose chunks was taken for this long gives them back: a load that stopped
/// leaves no memory behind it for the block cache to grow beside (the peer benchmark's reads
/// right after a load's settling measured a pool held for a second as 60 MiB more peak RSS).
/// Under a load, memstores take a chunk every few milliseconds.
const POOL_IDLE: std::time::Duration = std::time::Duration::from_millis(250);

/// One allocation of `len` bytes aligned to [`ALIGN`], freed on drop.
///
/// Chunks and other buffers of [`MAP_THRESHOLD`] or more are mapped from the OS (anonymous
/// memory) rather than taken from the global allocator, and unmapped when dropped. A chunk is
/// allocated on a writer's thread and freed on the flusher's (the pool's overflow, an idle
/// pool's trim), and mimalloc hands a block freed on another thread back to the thread that
/// allocated it, which takes it back only when it next allocates: after a load, the chunks of
/// the last memstores stayed resident while the writers sat idle (reads right after a load
/// measured them as RSS beside the block cache). Unmapped, they go back to the system at once,
/// whichever thread drops them. Smaller buffers (a write's cells when memstores use no chunks)
/// stay with the allocator, whose caches make them cheap.
#[derive(Debug)]
pub(super) struct Buf {
    ptr: NonNull<u8>,
    len: usize,
    /// Mapped from the OS (unmapped on drop) rather than taken from the allocator.
    mapped: bool,
}

/// Buffers at least this large are mapped from the OS (see [`Buf`]): chunks, and cells over
/// [`MAX_CHUNKED`]. Not under Miri, which has no `mmap`, nor in fuzzing builds, where
/// AddressSanitizer checks accesses to the allocator's memory and not to mappings.
const MAP_THRESHOLD: usize = if cfg!(any(miri, fuzzing)) {
    usize::MAX
} else {
    MAX_CHUNKED
};

// SAFETY: a `Buf` owns its allocation outright (no aliasing handle exists outside the arena
// that holds it), so it may move to and be dropped on any thread.
unsafe impl Send for Buf {}
// SAFETY: `&Buf` gives access to nothing but the pointer value and length.
unsafe impl Sync for Buf {}

impl Buf {
    pub(super) fn new(len: usize) -> Buf {
        let layout = Layout::from_size_align(len.max(ALIGN), ALIGN).expect("chunk layout");
        if layout.size() >= MAP_THRESHOLD {
            return Buf {
                ptr: map(layout),
                len: layout.size(),
                mapped: true,
            };
        }
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout)
        };
        Buf {
            ptr,
            len: layout.size(),
            mapped: false,
        }
    }

    /// The first byte.
    pub(super) fn start(&self) -> NonNull<u8> {
        self.ptr
    }
}

/// Maps `layout.size()` bytes of zeroed anonymous memory (page-aligned, so aligned to
/// [`ALIGN`]); a failure is an allocation failure.
fn map(layout: Layout) -> NonNull<u8> {
    // SAFETY: an anonymous private mapping at an address the kernel picks touches no existing
    // memory; the result is checked before use.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            layout.size(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        std::alloc::handle_alloc_error(layout)
    }
    NonNull::new(ptr.cast()).unwrap_or_else(|| std::alloc::handle_alloc_error(layout))
}

impl Drop for Buf {
    fn drop(&mut self) {
        if self.mapped {
            // SAFETY: mapped in `Buf::new` with this length, and unmapped only here; nothing
            // points into it any more (the arena holding it is gone).
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
            return;
        }
        // SAFETY: allocated in `Buf::new` with this very layout, and freed only here.
        unsafe {
            std::alloc::dealloc(
                self.ptr.as_ptr(),
                Layout::from_size_align_unchecked(self.len, ALIGN),
            )
        }
    }
}

/// The chunks of an engine's memstores that no memstore holds, up to a limit. Thread-safe.
#[derive(Debug)]
pub struct ChunkPool {
    chunk_bytes: usize,
    /// The most chunks kept; more go back to the allocator.
    max_chunks: usize,
    free: Mutex<Vec<Buf>>,
    /// When a chunk was last taken, in milliseconds after `epoch`.
    last_take_ms: AtomicU64,
    epoch: Instant,
}

impl ChunkPool {
    /// A pool of chunks of `chunk_bytes` (0: memstores use no chunks; each write's cells get
    /// one buffer of their own) keeping at most `max_pooled_bytes` of them between memstores.
    pub fn new(chunk_bytes: usize, max_pooled_bytes: usize) -> Arc<ChunkPool> {
        Arc::new(ChunkPool {
            chunk_bytes,
            max_chunks: max_pooled_bytes.checked_div(chunk_bytes).unwrap_or(0),
            free: Mutex::new(Vec::new()),
            last_take_ms: AtomicU64::new(0),
            epoch: Instant::now(),
        })
    }

    /// Bytes of chunks held for the next memstores.
    #[cfg(test)]
    pub(super) fn pooled_bytes(&self) -> usize {
        lock::lock(&self.free).len() * self.chunk_bytes
    }

    /// Gives the pooled chunks back to the allocator when none was taken for [`POOL_IDLE`]
    /// (writes stopped); true when it freed any, so the caller can have the allocator return
    /// them to the system at once. Called on the flusher's tick.
    pub fn trim_idle(&self) -> bool {
        self.trim_idle_at(self.now_ms())
    }

    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn trim_idle_at(&self, now: u64) -> bool {
        if now.saturating_sub(self.last_take_ms.load(Ordering::Relaxed))
            < POOL_IDLE.as_millis() as u64
        {
            return false;
        }
        let chunks = std::mem::take(&mut *lock::lock(&self.free));
        let freed = !chunks.is_empty();
        drop(chunks); // freed outside the lock
        freed
    }

    fn take(&self) -> Buf {
        self.last_take_ms.store(self.now_ms(), Ordering::Relaxed);
        let pooled = lock::lock(&self.free).pop();
        // A new chunk is allocated outside the pool's lock.
        pooled.unwrap_or_else(|| Buf::new(self.chunk_bytes))
    }

    fn give_back(&self, chunks: Vec<Buf>) {
        let mut free = lock::lock(&self.free);
        let room = self.max_chunks.saturating_sub(free.len());
        let mut rest = chunks;
        let keep = rest.len().min(room);
        free.extend(rest.drain(..keep));
        drop(free);
        drop(rest); // freed outside the lock
    }
}

/// The memory of one memstore: chunks from the pool filled in turn, and buffers of their own
/// for what does not fit a chunk. Everything handed out lives, unmoved, until the arena drops.
#[derive(Debug)]
pub(super) struct Arena {
    pool: Arc<ChunkPool>,
    state: Mutex<ArenaState>,
}

#[derive(Debug, Default)]
struct ArenaState {
    /// Chunks from the pool, the one being filled last.
    chunks: Vec<Buf>,
    /// Bytes used of the last chunk.
    used: usize,
    /// Buffers of their own.
    own: Vec<Buf>,
}

impl Arena {
    pub(super) fn new(pool: Arc<ChunkPool>) -> Arena {
        Arena {
            pool,
            state: Mutex::default(),
        }
    }

    /// Places allocations of the given sizes (each a multiple of [`ALIGN`]) and returns where
    /// each starts, in order. One lock for all of them: they are a write's cells. Without
    /// chunks they share one buffer of their own; with chunks, a size over [`MAX_CHUNKED`] (or
    /// over the chunk) gets a buffer of its own, the others are placed in the current chunk,
    /// a new one taken from the pool when it is full (the rest of the old one left unused, as
    /// HBase's MSLAB does).
    pub(super) fn alloc_all(&self, sizes: &[usize]) -> Vec<NonNull<u8>> {
        debug_assert!(sizes.iter().all(|s| s % ALIGN == 0));
        let chunk = self.pool.chunk_bytes;
        let mut out = Vec::with_capacity(sizes.len());
        let mut st = lock::lock(&self.state);
        if chunk == 0 {
            let buf = Buf::new(sizes.iter().sum());
            let mut at = 0;
            for &s in sizes {
                // SAFETY: the sizes sum to the buffer's length, so each offset is inside it.
                out.push(unsafe { buf.start().add(at) });
                at += s;
            }
            st.own.push(buf);
            return out;
        }
        for &s in sizes {
            if s > MAX_CHUNKED.min(chunk) {
                let buf = Buf::new(s);
                out.push(buf.start());
                st.own.push(buf);
                continue;
            }
            if st.chunks.is_empty() || chunk - st.used < s {
                st.chunks.push(self.pool.take());
                st.used = 0;
            }
            let last = st.chunks.last().expect("a chunk was just taken");
            // SAFETY: `used + s <= chunk`, the chunk's length.
            out.push(unsafe { last.start().add(st.used) });
            st.used += s;
        }
        out
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        let st = std::mem::take(&mut *lock::lock(&self.state));
        self.pool.give_back(st.chunks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_fill_a_chunk_then_take_the_next() {
        let pool = ChunkPool::new(1024, 1 << 20);
        let arena = Arena::new(pool.clone());
        let a = arena.alloc_all(&[512, 256, 256]);
        assert_eq!(a[1].as_ptr() as usize - a[0].as_ptr() as usize, 512);
        assert_eq!(a[2].as_ptr() as usize - a[1].as_ptr() as usize, 256);
        let b = arena.alloc_all(&[8]);
        let distance = (b[0].as_ptr() as usize).abs_diff(a[0].as_ptr() as usize);
        assert!(distance >= 1024, "a new chunk");
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 2048, "both chunks pooled");
    }

    #[test]
    fn a_pool_keeps_at_most_its_limit_and_hands_chunks_out_again() {
        let pool = ChunkPool::new(1024, 2048);
        let arena = Arena::new(pool.clone());
        let first = arena.alloc_all(&[1024, 1024, 1024]);
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 2048);
        let again = Arena::new(pool.clone());
        let reused = again.alloc_all(&[16]);
        assert!(first.contains(&reused[0]), "a pooled chunk is reused");
        assert_eq!(pool.pooled_bytes(), 1024);
    }

    #[test]
    fn large_allocations_and_chunkless_pools_get_buffers_of_their_own() {
        let pool = ChunkPool::new(1024, 1 << 20);
        let arena = Arena::new(pool.clone());
        arena.alloc_all(&[2048]);
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 0, "no chunk was taken");
        let none = ChunkPool::new(0, 1 << 20);
        let arena = Arena::new(none.clone());
        let a = arena.alloc_all(&[16, 24]);
        assert_eq!(a[1].as_ptr() as usize - a[0].as_ptr() as usize, 16);
        drop(arena);
        assert_eq!(none.pooled_bytes(), 0);
    }

    #[test]
    fn an_idle_pool_gives_its_chunks_back() {
        let pool = ChunkPool::new(1024, 1 << 20);
        let arena = Arena::new(pool.clone());
        arena.alloc_all(&[8]);
        drop(arena);
        let taken = pool.last_take_ms.load(Ordering::Relaxed);
        let idle = POOL_IDLE.as_millis() as u64;
        assert!(!pool.trim_idle_at(taken + idle - 1));
        assert_eq!(pool.pooled_bytes(), 1024, "taken just now: kept");
        assert!(pool.trim_idle_at(taken + idle));
        assert_eq!(pool.pooled_bytes(), 0);
        assert!(!pool.trim_idle_at(taken + idle), "nothing left to free");
    }
}
