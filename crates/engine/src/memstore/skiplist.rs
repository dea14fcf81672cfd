//! The memstore's sorted index: a concurrent skip list that only grows, its nodes placed in
//! the memstore's arena (RocksDB's `InlineSkipList`, where HBase uses Java's
//! `ConcurrentSkipListMap`).
//!
//! A node is one allocation in a chunk of nodes: its tower of next-links, then a 64-byte header
//! (the cell's key fields, the first 16 bytes of its row, where its bytes are); the node's
//! address is the header's, its links lie below it, the bottom one right before the header
//! (RocksDB's layout), so a search's step at the bottom levels reads one cache line. The cell's
//! row, qualifier and value are a second allocation, in a chunk of bytes: nodes packed
//! together keep a search inside a few megabytes (about 75 bytes a cell, where a node of a
//! general-purpose skip map with the cell's buffer handles took about 200 and was freed one by
//! one).
//!
//! Writers insert concurrently: a node is written whole, then linked level by level from the
//! bottom up, each link a compare-and-swap from the successor it was placed before (a failed
//! one searches again from the same predecessor: nodes never leave the list, so a predecessor
//! stays before the key). Readers follow links with acquire loads and never wait. Nothing is
//! removed: a second insert of an equal key (HBase replaces such a cell) goes in front of the
//! first and marks it shadowed, and reads pass over shadowed nodes. Nodes live until the
//! memstore, and with it the arena, is dropped.

use super::chunks::{Arena, Buf, Placement, ALIGN};
use crate::cell::{CellType, KeyValue, KeyValueRef};
use std::cell::Cell;
use std::cmp::Ordering;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering as Mem};

/// The tallest tower: with a quarter of the nodes reaching each next level, searches stay
/// logarithmic to 4^16 cells.
const MAX_HEIGHT: usize = 16;

/// A node's header; its tower of `height` links lies right below it in the same allocation,
/// and its row, qualifier and value at `data`, in a chunk of bytes.
#[repr(C)]
pub(super) struct Node {
    /// The first 16 bytes of the row, big-endian and zero-padded (`row_prefix`): most
    /// comparisons in a search end here.
    prefix_hi: u64,
    prefix_lo: u64,
    timestamp: i64,
    seq: u64,
    ttl_ms: i64,
    /// The row, then the qualifier, then the value (written before the node is published,
    /// never changed after).
    data: *const u8,
    row_len: u32,
    qualifier_len: u32,
    value_len: u32,
    cell_type: u8,
    has_ttl: bool,
    height: u8,
    /// Set once a later insert of an equal key stands in front of this node.
    shadowed: AtomicBool,
}

const HEADER: usize = std::mem::size_of::<Node>();
const LINK: usize = std::mem::size_of::<AtomicPtr<Node>>();
const _: () = assert!(HEADER.is_multiple_of(ALIGN) && std::mem::align_of::<Node>() <= ALIGN);

/// A node in the list (or the head). Valid while the list lives.
pub(super) type NodePtr = NonNull<Node>;

/// The bytes of a node with a tower of `height`.
fn node_size(height: usize) -> usize {
    height * LINK + HEADER
}

/// The bytes a cell's row, qualifier and value take in a chunk, aligned.
fn data_size(kv: &KeyValue) -> usize {
    (kv.key.row.len() + kv.key.qualifier.len() + kv.value.len()).next_multiple_of(ALIGN)
}

/// Cells placed under one arena lock, at most (a write's larger batches take it once per
/// group): their placements live on the stack.
const GROUP: usize = 64;

/// The first 16 bytes of a row, big-endian, zero-padded: padded prefixes that differ order as
/// the rows do. Sixteen bytes hold the articles' `uid + reversed timestamp` rowkeys whole.
pub(super) fn row_prefix(row: &[u8]) -> u128 {
    let mut p = [0u8; 16];
    let n = row.len().min(16);
    p[..n].copy_from_slice(&row[..n]);
    u128::from_be_bytes(p)
}

/// A key to search for, its row prefix computed once.
pub(super) struct SearchKey<'a> {
    prefix: u128,
    key: KeyValueRef<'a>,
}

impl<'a> SearchKey<'a> {
    pub(super) fn new(key: KeyValueRef<'a>) -> SearchKey<'a> {
        SearchKey {
            prefix: row_prefix(key.row),
            key,
        }
    }
}

/// The `level`th link of `n`'s tower.
///
/// # Safety
/// `n` is a live node (or the head) of a list and `level` below its height.
unsafe fn link<'a>(n: NodePtr, level: usize) -> &'a AtomicPtr<Node> {
    // SAFETY: the tower lies below the header inside the node's allocation (the pointer keeps
    // the allocation's provenance), `level` is within it, and links are only touched
    // atomically.
    unsafe { &*n.as_ptr().cast::<u8>().sub((level + 1) * LINK).cast() }
}

/// The node after `n` at `level`.
///
/// # Safety
/// As [`link`].
unsafe fn next(n: NodePtr, level: usize) -> Option<NodePtr> {
    // SAFETY: as the caller's; the acquire load sees the whole node the release CAS published.
    NonNull::new(unsafe { link(n, level) }.load(Mem::Acquire))
}

/// Asks the processor to fetch, while a scan works on node `n`'s cell, what its next steps
/// read: the next node's cell bytes (their first four cache lines: the row and qualifier a
/// merge compares, the start of the value) and the header and bottom link of the node after
/// that. A scan's next node was fetched so one step before (its header is read here, from the
/// cache): cells inserted in random order lie scattered over the arena, and each step of a
/// scan otherwise waited for two cache misses (a scan over a memstore ran at the speed of its
/// misses, `docs/performance.md`, eighteenth stop).
///
/// # Safety
/// `n` is a published node (not the head) of a list that is alive.
pub(super) unsafe fn prefetch_after(n: NodePtr) {
    // SAFETY: as the caller's: `n` and the nodes its bottom links lead to are published nodes.
    unsafe {
        let Some(y) = next(n, 0) else {
            return;
        };
        let h = y.as_ptr();
        let data = (*h).data;
        let len = (*h).row_len as usize + (*h).qualifier_len as usize + (*h).value_len as usize;
        for line in (0..len.min(256)).step_by(64) {
            prefetch(data.wrapping_add(line));
        }
        if let Some(z) = next(y, 0) {
            prefetch(z.as_ptr().cast::<u8>().wrapping_sub(LINK));
            prefetch(z.as_ptr().cast::<u8>().wrapping_add(HEADER - 1));
        }
    }
}

/// A hint to load the cache line of `p` (never faults, whatever `p` is).
#[inline(always)]
fn prefetch(p: *const u8) {
    // (Not under Miri, which has no prefetch: the hint changes nothing it checks.)
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch is a hint: it reads nothing into the program and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// The cell of node `n`, borrowed from it.
///
/// # Safety
/// `n` is a published node (not the head) of a list that outlives `'a`.
pub(super) unsafe fn view<'a>(n: NodePtr) -> KeyValueRef<'a> {
    // SAFETY: a published node's header and data were written before its release-publication
    // and never change; the data lives as long as the node (the same arena).
    unsafe {
        let h = n.as_ptr();
        let data = (*h).data;
        let (r, q, v) = (
            (*h).row_len as usize,
            (*h).qualifier_len as usize,
            (*h).value_len as usize,
        );
        KeyValueRef {
            row: std::slice::from_raw_parts(data, r),
            qualifier: std::slice::from_raw_parts(data.add(r), q),
            value: std::slice::from_raw_parts(data.add(r + q), v),
            timestamp: (*h).timestamp,
            cell_type: CellType::from_code((*h).cell_type).unwrap_or(CellType::Put),
            seq: (*h).seq,
            ttl_ms: (*h).has_ttl.then_some((*h).ttl_ms),
        }
    }
}

/// The cell of node `n` in buffers of its own (one copy of its row, qualifier and value).
///
/// # Safety
/// As [`view`].
pub(super) unsafe fn copy_out(n: NodePtr) -> KeyValue {
    // SAFETY: as the caller's.
    unsafe { view(n) }.to_key_value()
}

/// Orders node `n` against `k`.
///
/// # Safety
/// As [`view`].
unsafe fn cmp(n: NodePtr, k: &SearchKey<'_>) -> Ordering {
    // SAFETY: as the caller's.
    unsafe {
        let h = n.as_ptr();
        let prefix = (u128::from((*h).prefix_hi) << 64) | u128::from((*h).prefix_lo);
        prefix.cmp(&k.prefix).then_with(|| view(n).cmp_key(&k.key))
    }
}

/// True when `n` stands behind a later insert of its key.
///
/// # Safety
/// As [`view`].
unsafe fn shadowed(n: NodePtr) -> bool {
    // SAFETY: as the caller's.
    unsafe { (*n.as_ptr()).shadowed.load(Mem::Acquire) }
}

thread_local! {
    /// Each thread's state for tower heights (xorshift64).
    static HEIGHT_RNG: Cell<u64> = Cell::new({
        // A stack address differs between threads; the clock between runs.
        let local = 0u8;
        let here = std::ptr::addr_of!(local) as u64;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        (here ^ now).max(1)
    });
}

/// A tower height: 1, and one more with probability 1/4 each, up to [`MAX_HEIGHT`].
fn random_height() -> usize {
    HEIGHT_RNG.with(|s| {
        let mut x = s.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.set(x);
        // Two bits a level: both zero (probability 1/4) grows the tower.
        let grow = (x.trailing_zeros() / 2) as usize;
        1 + grow.min(MAX_HEIGHT - 1)
    })
}

/// The skip list of one memstore, with the arena its nodes live in.
pub(super) struct SkipList {
    /// The head's tower (a node header that holds no cell, and `MAX_HEIGHT` links).
    head: Buf,
    /// The tallest tower linked so far.
    height: AtomicUsize,
    len: AtomicUsize,
    arena: Arena,
}

impl std::fmt::Debug for SkipList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkipList")
            .field("len", &self.len())
            .field("height", &self.height.load(Mem::Relaxed))
            .finish()
    }
}

// SAFETY: the list owns its head and (through its arena) every node; nodes are written whole
// before an atomic release publishes them and afterwards only their atomics change, so shared
// access from any thread is sound and the list may move between threads.
unsafe impl Send for SkipList {}
// SAFETY: as above.
unsafe impl Sync for SkipList {}

impl SkipList {
    pub(super) fn new(arena: Arena) -> SkipList {
        let head = Buf::new(node_size(MAX_HEIGHT));
        // SAFETY: the buffer holds MAX_HEIGHT links and then the header, aligned.
        unsafe {
            let h = Self::head_in(&head);
            h.as_ptr().write(Node {
                prefix_hi: 0,
                prefix_lo: 0,
                timestamp: 0,
                seq: 0,
                ttl_ms: 0,
                data: std::ptr::NonNull::<u8>::dangling().as_ptr(),
                row_len: 0,
                qualifier_len: 0,
                value_len: 0,
                cell_type: 0,
                has_ttl: false,
                height: MAX_HEIGHT as u8,
                shadowed: AtomicBool::new(false),
            });
            for level in 0..MAX_HEIGHT {
                head.start()
                    .as_ptr()
                    .add(level * LINK)
                    .cast::<AtomicPtr<Node>>()
                    .write(AtomicPtr::new(std::ptr::null_mut()));
            }
        }
        SkipList {
            head,
            height: AtomicUsize::new(1),
            len: AtomicUsize::new(0),
            arena,
        }
    }

    /// The head node in its buffer: after its MAX_HEIGHT links.
    fn head_in(buf: &Buf) -> NodePtr {
        // SAFETY: the buffer is `node_size(MAX_HEIGHT)` bytes long.
        unsafe { buf.start().add(MAX_HEIGHT * LINK).cast() }
    }

    fn head(&self) -> NodePtr {
        Self::head_in(&self.head)
    }

    /// Nodes inserted (shadowed ones too).
    pub(super) fn len(&self) -> usize {
        self.len.load(Mem::Acquire)
    }

    /// Inserts the cells (one write's, of this store); returns the bytes their nodes take.
    pub(super) fn insert_all(&self, cells: &[KeyValue]) -> usize {
        let mut total = 0;
        let mut finger = Finger::new(self.head());
        for group in cells.chunks(GROUP) {
            let mut heights = [0usize; GROUP];
            let mut sizes = [(0usize, 0usize); GROUP];
            for ((kv, h), size) in group.iter().zip(&mut heights).zip(&mut sizes) {
                *h = random_height();
                *size = (node_size(*h), data_size(kv));
                total += size.0 + size.1;
            }
            let mut places = [Placement::NONE; GROUP];
            let n = group.len();
            self.arena.alloc_all(&sizes[..n], &mut places[..n]);
            for ((kv, &height), at) in group.iter().zip(&heights).zip(&places) {
                // SAFETY: `at` holds a fresh, aligned allocation of `node_size(height)` bytes
                // and one of `data_size(kv)` that nothing else refers to.
                let node = unsafe { write_node(*at, height, kv) };
                // SAFETY: the node is written whole and not yet linked; the finger holds
                // nodes of this list only.
                unsafe { self.link_node(node, height, kv, &mut finger) };
            }
        }
        self.len.fetch_add(cells.len(), Mem::AcqRel);
        total
    }

    /// Links a written node of tower `height` into every level it reaches, starting from
    /// `finger`, where the write's previous cell went, and leaving it where this one went.
    ///
    /// # Safety
    /// `node` is a node of this list's arena, written whole by [`write_node`], not yet linked;
    /// `finger` is new or was left by an earlier call on this list.
    unsafe fn link_node(&self, node: NodePtr, height: usize, kv: &KeyValue, finger: &mut Finger) {
        let key = SearchKey::new(kv.as_view());
        let mut top = self.height.load(Mem::Acquire);
        while height > top {
            match self
                .height
                .compare_exchange_weak(top, height, Mem::AcqRel, Mem::Acquire)
            {
                Ok(_) => top = height,
                Err(now) => top = now,
            }
        }
        let head = self.head();
        // The levels from `from` up keep the finger's nodes; below it the search runs down
        // from the finger's node at `from` (from the head when no level's pair holds the key).
        let from = if finger.levels == top {
            // SAFETY: the finger's nodes are published nodes of this list or the head.
            (0..top)
                .find(|&l| unsafe { finger.holds(l, &key, head) })
                .unwrap_or(top)
        } else {
            *finger = Finger::new(head);
            finger.levels = top;
            top
        };
        let mut x = if from < top { finger.prev[from] } else { head };
        for level in (0..from).rev() {
            // SAFETY: `x` is the head or a published node before the key that reaches `level`.
            let (p, n) = unsafe { splice(x, level, &key) };
            finger.prev[level] = p;
            finger.succ[level] = n;
            x = p;
        }
        let (prev, succ) = (&mut finger.prev, &mut finger.succ);
        let mut behind = None;
        for level in 0..height {
            loop {
                let n = succ[level].map_or(std::ptr::null_mut(), NonNull::as_ptr);
                // SAFETY: `level` is within the node's tower and the predecessor's (it is the
                // head or a node reaching this level).
                unsafe { link(node, level) }.store(n, Mem::Relaxed);
                // SAFETY: as above.
                let placed = unsafe { link(prev[level], level) }.compare_exchange(
                    n,
                    node.as_ptr(),
                    Mem::AcqRel,
                    Mem::Acquire,
                );
                if placed.is_ok() {
                    break;
                }
                // Another node went in between (or the finger's pair was not adjacent any
                // more): search on from the same predecessor, which is still before the key
                // (nodes never leave the list).
                // SAFETY: as in the search above.
                let (p, n) = unsafe { splice(prev[level], level, &key) };
                prev[level] = p;
                succ[level] = n;
            }
            if level == 0 {
                behind = succ[0];
            }
            // The next cell's search starts right after this one at the levels it reaches.
            prev[level] = node;
        }
        // An equal key inserted before now stands right behind the node at the bottom level.
        if let Some(n) = behind {
            // SAFETY: a published node of this list.
            if unsafe { cmp(n, &key) }.is_eq() {
                // SAFETY: as above.
                unsafe { (*n.as_ptr()).shadowed.store(true, Mem::Release) };
            }
        }
    }

    /// The first node not shadowed at or after `n` (along the bottom level).
    ///
    /// # Safety
    /// `n` is `None` or a published node of this list.
    unsafe fn visible(mut n: Option<NodePtr>) -> Option<NodePtr> {
        while let Some(x) = n {
            // SAFETY: as the caller's.
            if !unsafe { shadowed(x) } {
                return Some(x);
            }
            // SAFETY: as the caller's.
            n = unsafe { next(x, 0) };
        }
        None
    }

    /// The first cell.
    pub(super) fn first(&self) -> Option<NodePtr> {
        // SAFETY: the head's links lead to published nodes.
        unsafe { Self::visible(next(self.head(), 0)) }
    }

    /// The cell after `n`.
    ///
    /// # Safety
    /// `n` is a published node of this list.
    pub(super) unsafe fn after(n: NodePtr) -> Option<NodePtr> {
        // SAFETY: as the caller's.
        unsafe { Self::visible(next(n, 0)) }
    }

    /// The first cell at or after `key`.
    pub(super) fn seek(&self, key: &SearchKey<'_>) -> Option<NodePtr> {
        let before = self.last_before(key).unwrap_or(self.head());
        // SAFETY: `before` is the head or a published node.
        unsafe { Self::visible(next(before, 0)) }
    }

    /// The last node before `key` (shadowed or not: an equal key has the same row).
    pub(super) fn last_before(&self, key: &SearchKey<'_>) -> Option<NodePtr> {
        let mut x = self.head();
        for level in (0..self.height.load(Mem::Acquire)).rev() {
            // SAFETY: `x` is the head or a published node before the key.
            x = unsafe { splice(x, level, key) }.0;
        }
        (x != self.head()).then_some(x)
    }
}

/// Where a write's last cell went: per level, the node before it and the node after it when it
/// was linked (RocksDB's `Splice`). The next cell of the write, usually a little after it (a
/// batch's cells are sorted by row), searches down only from the lowest level whose pair
/// still encloses its key, instead of from the head: a few comparisons on nodes still in the
/// CPU's cache instead of a descent through the whole list. The pairs nest (a level's pair lies
/// within the pair of the level above), so the levels above that one enclose the key as well.
/// Other writers may have linked nodes between a pair since; linking then fails its
/// compare-and-swap and searches on from the pair's first node, as after any race.
struct Finger {
    prev: [NodePtr; MAX_HEIGHT],
    succ: [Option<NodePtr>; MAX_HEIGHT],
    /// The levels the pairs were found for (the list's height then); 0: none yet.
    levels: usize,
}

impl Finger {
    fn new(head: NodePtr) -> Finger {
        Finger {
            prev: [head; MAX_HEIGHT],
            succ: [None; MAX_HEIGHT],
            levels: 0,
        }
    }

    /// True when level `l`'s pair encloses `key`: its first node before the key (the head is
    /// before every key) and its second at or after it (or the level's end).
    ///
    /// # Safety
    /// The finger's nodes are `head` or published nodes of `head`'s list.
    unsafe fn holds(&self, l: usize, key: &SearchKey<'_>, head: NodePtr) -> bool {
        let p = self.prev[l];
        // SAFETY: as the caller's.
        (p == head || unsafe { cmp(p, key) }.is_lt())
            && self.succ[l].is_none_or(|s| !unsafe { cmp(s, key) }.is_lt())
    }
}

/// Where `key` goes at `level` after `x`: the last node before it and the one after that.
///
/// # Safety
/// `x` is the head or a published node before `key` that reaches `level`.
unsafe fn splice(mut x: NodePtr, level: usize, key: &SearchKey<'_>) -> (NodePtr, Option<NodePtr>) {
    loop {
        // SAFETY: as the caller's; a node reached at `level` reaches `level`.
        let n = unsafe { next(x, level) };
        match n {
            // SAFETY: published nodes of the same list.
            Some(m) if unsafe { cmp(m, key) }.is_lt() => x = m,
            _ => return (x, n),
        }
    }
}

/// Writes the node of `kv` with a tower of `height` (links null) at `at.node`, its bytes at
/// `at.data`.
///
/// # Safety
/// `at.node` is an aligned allocation of at least `node_size(height)` bytes and `at.data` one
/// of `data_size(kv)`, both of the list's arena and used by nothing else.
unsafe fn write_node(at: Placement, height: usize, kv: &KeyValue) -> NodePtr {
    let (row, qualifier, value) = (&kv.key.row, &kv.key.qualifier, &kv.value);
    let prefix = row_prefix(row);
    // SAFETY: as the caller's: the tower and then the header fit in the node's allocation.
    let node = unsafe { at.node.add(height * LINK) }.cast::<Node>();
    // SAFETY: as the caller's: the header, the tower and the data fit in their allocations.
    unsafe {
        node.as_ptr().write(Node {
            prefix_hi: (prefix >> 64) as u64,
            prefix_lo: prefix as u64,
            timestamp: kv.key.timestamp,
            seq: kv.key.seq,
            ttl_ms: kv.ttl_ms.unwrap_or(0),
            data: at.data.as_ptr(),
            row_len: row.len() as u32,
            qualifier_len: qualifier.len() as u32,
            value_len: value.len() as u32,
            cell_type: kv.key.cell_type.code(),
            has_ttl: kv.ttl_ms.is_some(),
            height: height as u8,
            shadowed: AtomicBool::new(false),
        });
        let tower = at.node.as_ptr();
        for level in 0..height {
            tower
                .add(level * LINK)
                .cast::<AtomicPtr<Node>>()
                .write(AtomicPtr::new(std::ptr::null_mut()));
        }
        let mut data = at.data.as_ptr();
        for part in [&row[..], &qualifier[..], &value[..]] {
            std::ptr::copy_nonoverlapping(part.as_ptr(), data, part.len());
            data = data.add(part.len());
        }
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn tower_heights_grow_by_a_quarter_a_level() {
        let n = 100_000;
        let mut counts = [0usize; MAX_HEIGHT + 1];
        for _ in 0..n {
            counts[random_height()] += 1;
        }
        assert_eq!(counts[0], 0);
        let share = |h: usize| counts[h] as f64 / n as f64;
        assert!((share(1) - 0.75).abs() < 0.02, "{counts:?}");
        assert!((share(2) - 0.1875).abs() < 0.02, "{counts:?}");
        assert!(counts[MAX_HEIGHT + 1..].is_empty());
    }

    #[test]
    fn a_node_is_its_tower_and_header_and_its_bytes_lie_apart() {
        assert_eq!(HEADER, 64);
        assert_eq!(node_size(1), 72);
        assert_eq!(node_size(2), 80);
        let kv = |r: &[u8], v: usize| KeyValue {
            key: crate::cell::CellKey {
                row: Bytes::copy_from_slice(r),
                qualifier: Bytes::from_static(b"q"),
                timestamp: 1,
                cell_type: CellType::Put,
                seq: 1,
            },
            value: Bytes::from(vec![0; v]),
            ttl_ms: None,
        };
        assert_eq!(data_size(&kv(b"row", 100)), 104);
        assert_eq!(data_size(&kv(b"", 7)), 8);
    }
}
