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
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
    /// Chunks allocated and not yet freed: in memstores (active, flushing, or held by a
    /// read) and in the pool.
    live: AtomicUsize,
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
            live: AtomicUsize::new(0),
            last_take_ms: AtomicU64::new(0),
            epoch: Instant::now(),
        })
    }

    /// Bytes of chunks held for the next memstores.
    #[cfg(test)]
    pub(super) fn pooled_bytes(&self) -> usize {
        lock::lock(&self.free).len() * self.chunk_bytes
    }

    /// Bytes of every chunk allocated and not freed: the memstores' (active ones, those being
    /// flushed, flushed ones a read still holds) and the pool's.
    pub(crate) fn live_bytes(&self) -> usize {
        self.live.load(Ordering::Relaxed) * self.chunk_bytes
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
        self.trim()
    }

    /// Gives every pooled chunk back to the allocator now (a flush found every memstore empty:
    /// no write is coming to take them); true when it freed any.
    pub fn trim(&self) -> bool {
        let chunks = std::mem::take(&mut *lock::lock(&self.free));
        self.live.fetch_sub(chunks.len(), Ordering::Relaxed);
        let freed = !chunks.is_empty();
        drop(chunks); // freed outside the lock
        freed
    }

    fn take(&self) -> Buf {
        self.last_take_ms.store(self.now_ms(), Ordering::Relaxed);
        let pooled = lock::lock(&self.free).pop();
        // A new chunk is allocated outside the pool's lock.
        pooled.unwrap_or_else(|| {
            self.live.fetch_add(1, Ordering::Relaxed);
            Buf::new(self.chunk_bytes)
        })
    }

    fn give_back(&self, chunks: Vec<Buf>) {
        let mut free = lock::lock(&self.free);
        let room = self.max_chunks.saturating_sub(free.len());
        let mut rest = chunks;
        let keep = rest.len().min(room);
        free.extend(rest.drain(..keep));
        drop(free);
        self.live.fetch_sub(rest.len(), Ordering::Relaxed);
        drop(rest); // freed outside the lock
    }
}

/// The memory of one memstore: chunks from the pool filled in turn, and buffers of their own
/// for what does not fit a chunk. Everything handed out lives, unmoved, until the arena drops.
///
/// Two kinds of allocation fill two chunks at once: skip-list nodes (headers and towers, a few
/// dozen bytes each) and the cells' bytes. Nodes packed together keep a search's steps in a
/// few megabytes that stay in the CPU's caches and TLB: interleaved with 1 KiB values, the
/// nodes of one 64 MiB memstore spread over 16,000 pages, and a third of a single put's time
/// went to the cache and TLB misses of its search.
#[derive(Debug)]
pub(super) struct Arena {
    pool: Arc<ChunkPool>,
    state: Mutex<ArenaState>,
}

#[derive(Debug, Default)]
struct ArenaState {
    /// Chunks from the pool, of both kinds, in the order taken.
    chunks: Vec<Buf>,
    /// Where the next node goes: a chunk of `chunks` and the bytes used of it.
    nodes: Option<(usize, usize)>,
    /// Where the next cell's bytes go.
    data: Option<(usize, usize)>,
    /// Buffers of their own.
    own: Vec<Buf>,
}

/// Where a cell went: its node and its bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    pub(super) node: NonNull<u8>,
    pub(super) data: NonNull<u8>,
}

impl Placement {
    /// A placeholder for arrays filled by [`Arena::alloc_all`].
    pub(super) const NONE: Placement = Placement {
        node: NonNull::dangling(),
        data: NonNull::dangling(),
    };
}

impl ArenaState {
    /// A buffer of its own of `size` bytes.
    fn own_buffer(&mut self, size: usize) -> NonNull<u8> {
        let buf = Buf::new(size);
        let start = buf.start();
        self.own.push(buf);
        start
    }

    /// Places `size` bytes in the chunk `cursor` points to, taking a new one from `pool` when
    /// it is full (the rest of the old one left unused, as HBase's MSLAB does).
    fn place(
        chunks: &mut Vec<Buf>,
        cursor: &mut Option<(usize, usize)>,
        pool: &ChunkPool,
        size: usize,
    ) -> NonNull<u8> {
        let (i, used) = match *cursor {
            Some((i, used)) if pool.chunk_bytes - used >= size => (i, used),
            _ => {
                chunks.push(pool.take());
                (chunks.len() - 1, 0)
            }
        };
        *cursor = Some((i, used + size));
        // SAFETY: `used + size <= chunk_bytes`, the chunk's length (a zero-sized placement may
        // point just past its end).
        unsafe { chunks[i].start().add(used) }
    }
}

impl Arena {
    pub(super) fn new(pool: Arc<ChunkPool>) -> Arena {
        Arena {
            pool,
            state: Mutex::default(),
        }
    }

    /// Places cells, each a node and its bytes of the given `(node, data)` sizes (each a
    /// multiple of [`ALIGN`]), and writes where each went into `out` (as long as `sizes`).
    /// One lock for all of them: they are a write's cells. Without chunks they share one
    /// buffer of their own; with chunks, nodes go in one chunk and bytes in another, and bytes
    /// over [`MAX_CHUNKED`] (or over the chunk) get a buffer of their own.
    pub(super) fn alloc_all(&self, sizes: &[(usize, usize)], out: &mut [Placement]) {
        debug_assert!(sizes.iter().all(|(n, d)| n % ALIGN == 0 && d % ALIGN == 0));
        debug_assert_eq!(sizes.len(), out.len());
        let chunk = self.pool.chunk_bytes;
        let mut st = lock::lock(&self.state);
        let st = &mut *st;
        if chunk == 0 {
            let buf = Buf::new(sizes.iter().map(|(n, d)| n + d).sum());
            let mut at = 0;
            for (&(n, d), place) in sizes.iter().zip(out.iter_mut()) {
                // SAFETY: the sizes sum to the buffer's length, so each offset is inside it
                // (or, for a last zero-sized placement, just past its end).
                unsafe {
                    *place = Placement {
                        node: buf.start().add(at),
                        data: buf.start().add(at + n),
                    };
                }
                at += n + d;
            }
            st.own.push(buf);
            return;
        }
        for (&(n, d), place) in sizes.iter().zip(out.iter_mut()) {
            let node = if n > chunk {
                st.own_buffer(n)
            } else {
                ArenaState::place(&mut st.chunks, &mut st.nodes, &self.pool, n)
            };
            let data = if d == 0 {
                // An empty slice may start anywhere valid: no chunk is taken for it.
                node
            } else if d > MAX_CHUNKED.min(chunk) {
                st.own_buffer(d)
            } else {
                ArenaState::place(&mut st.chunks, &mut st.data, &self.pool, d)
            };
            *place = Placement { node, data };
        }
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

    /// Places cells of `sizes` in `arena`.
    fn place(arena: &Arena, sizes: &[(usize, usize)]) -> Vec<Placement> {
        let mut out = vec![Placement::NONE; sizes.len()];
        arena.alloc_all(sizes, &mut out);
        out
    }

    fn gap(a: NonNull<u8>, b: NonNull<u8>) -> usize {
        (b.as_ptr() as usize).wrapping_sub(a.as_ptr() as usize)
    }

    /// Whether `p` lies in the 1 KiB chunk that starts at or before `start` and holds it.
    fn in_chunk_of(start: NonNull<u8>, p: NonNull<u8>) -> bool {
        gap(start, p) < 1024
    }

    #[test]
    fn nodes_and_bytes_fill_chunks_of_their_own_then_take_the_next() {
        let pool = ChunkPool::new(1024, 1 << 20);
        let arena = Arena::new(pool.clone());
        let a = place(&arena, &[(64, 448), (72, 256), (64, 256)]);
        // Nodes side by side in one chunk, the bytes side by side in another.
        assert_eq!(gap(a[0].node, a[1].node), 64);
        assert_eq!(gap(a[1].node, a[2].node), 72);
        assert_eq!(gap(a[0].data, a[1].data), 448);
        assert_eq!(gap(a[1].data, a[2].data), 256);
        assert!(!in_chunk_of(a[0].node, a[0].data) && !in_chunk_of(a[0].data, a[0].node));
        // The bytes' chunk has 64 bytes left: the next cell's go to a new one, its node not.
        let b = place(&arena, &[(64, 128)]);
        assert_eq!(gap(a[2].node, b[0].node), 64);
        assert!(!in_chunk_of(a[0].data, b[0].data) && !in_chunk_of(a[0].node, b[0].data));
        // Empty bytes take no room.
        let c = place(&arena, &[(64, 0)]);
        assert_eq!(gap(b[0].node, c[0].node), 64);
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 3072, "all three chunks pooled");
    }

    #[test]
    fn a_pool_keeps_at_most_its_limit_and_hands_chunks_out_again() {
        let pool = ChunkPool::new(1024, 2048);
        let arena = Arena::new(pool.clone());
        let first = place(&arena, &[(1024, 1024), (1024, 1024)]);
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 2048);
        let again = Arena::new(pool.clone());
        let reused = place(&again, &[(16, 8)]);
        let starts: Vec<NonNull<u8>> = first.iter().flat_map(|p| [p.node, p.data]).collect();
        assert!(starts.contains(&reused[0].node), "a pooled chunk is reused");
        assert!(starts.contains(&reused[0].data), "a pooled chunk is reused");
        assert_eq!(pool.pooled_bytes(), 0);
    }

    #[test]
    fn large_allocations_and_chunkless_pools_get_buffers_of_their_own() {
        let pool = ChunkPool::new(1024, 1 << 20);
        let arena = Arena::new(pool.clone());
        place(&arena, &[(2048, 8)]);
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 1024, "only the bytes' chunk was taken");
        let arena = Arena::new(pool.clone());
        place(&arena, &[(64, 2048)]);
        drop(arena);
        assert_eq!(pool.pooled_bytes(), 1024, "only the node's chunk was taken");
        let none = ChunkPool::new(0, 1 << 20);
        let arena = Arena::new(none.clone());
        let a = place(&arena, &[(16, 8), (24, 16)]);
        assert_eq!(gap(a[0].node, a[0].data), 16);
        assert_eq!(gap(a[0].node, a[1].node), 24);
        assert_eq!(gap(a[1].node, a[1].data), 24);
        drop(arena);
        assert_eq!(none.pooled_bytes(), 0);
    }

    #[test]
    fn an_idle_pool_gives_its_chunks_back() {
        let pool = ChunkPool::new(1024, 1 << 20);
        let arena = Arena::new(pool.clone());
        place(&arena, &[(8, 0)]);
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
