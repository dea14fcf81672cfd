//! The shared block cache (HBase's `BlockCache`): decoded data blocks keyed by (file id, offset),
//! bounded by a byte capacity, with two priorities. Blocks of IN_MEMORY families are evicted only
//! when no ordinary block is left. Eviction within a priority is CLOCK (second chance).
//!
//! A lookup takes its shard's lock shared: a hit sets the block's reference bit, an atomic, so
//! readers never wait for one another (with more threads than cores, a reader preempted while
//! holding an exclusive lock made the others queue behind it); inserts and evictions take it
//! exclusive.

use crate::lock;
use crate::metrics::Metrics;
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

/// Most shards a cache is split into (one lock each).
const MAX_SHARDS: usize = 16;

/// Least capacity of a shard. A shard evicts on its own, so a small cache split 16 ways holds
/// fewer blocks than it could: each shard's last partial block of room is idle, and blocks do
/// not hash evenly over the shards. An 8 MiB cache of 64 KiB blocks held about 110 blocks in 16
/// shards; in two it holds 126.
const MIN_SHARD_BYTES: usize = 4 << 20;

/// Cache priority of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// Ordinary blocks.
    Normal = 0,
    /// Blocks of IN_MEMORY families: evicted last.
    InMemory = 1,
}

type Key = (u64, u64);

#[derive(Debug)]
struct Entry {
    block: Bytes,
    priority: Priority,
    /// CLOCK's second-chance bit: set by a hit under the shared lock, cleared by the sweep
    /// under the exclusive one.
    referenced: AtomicBool,
}

#[derive(Debug, Default)]
struct Shard {
    map: HashMap<Key, Entry>,
    queues: [VecDeque<Key>; 2],
    used: usize,
}

/// A sharded, byte-bounded block cache. Thread-safe.
#[derive(Debug)]
pub struct BlockCache {
    shards: Vec<RwLock<Shard>>,
    shard_capacity: usize,
    metrics: Arc<Metrics>,
}

impl BlockCache {
    /// A cache holding at most about `capacity_bytes` of block data.
    pub fn new(capacity_bytes: usize, metrics: Arc<Metrics>) -> Self {
        let shards = (capacity_bytes / MIN_SHARD_BYTES).clamp(1, MAX_SHARDS);
        BlockCache {
            shards: (0..shards).map(|_| RwLock::new(Shard::default())).collect(),
            shard_capacity: capacity_bytes / shards,
            metrics,
        }
    }

    fn shard(&self, key: Key) -> &RwLock<Shard> {
        let h =
            key.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ key.1.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        let idx = (h >> 40) as usize % self.shards.len();
        &self.shards[idx]
    }

    /// Looks a block up, counting a hit or a miss.
    pub fn get(&self, file_id: u64, offset: u64) -> Option<Bytes> {
        let s = lock::read(self.shard((file_id, offset)));
        match s.map.get(&(file_id, offset)) {
            Some(e) => {
                // Written only when clear, so hot blocks' lines are not dirtied at every hit.
                if !e.referenced.load(Ordering::Relaxed) {
                    e.referenced.store(true, Ordering::Relaxed);
                }
                Metrics::inc(&self.metrics.block_cache_hits);
                Some(e.block.clone())
            }
            None => {
                Metrics::inc(&self.metrics.block_cache_misses);
                None
            }
        }
    }

    /// Inserts a block, evicting others as needed to stay within capacity.
    pub fn insert(&self, file_id: u64, offset: u64, block: Bytes, priority: Priority) {
        let key = (file_id, offset);
        let size = block.len() + 64;
        if size > self.shard_capacity {
            return;
        }
        let mut s = lock::write(self.shard(key));
        if s.map.contains_key(&key) {
            return;
        }
        while s.used + size > self.shard_capacity {
            if !self.evict_one(&mut s) {
                break;
            }
        }
        s.used += size;
        s.queues[priority as usize].push_back(key);
        s.map.insert(
            key,
            Entry {
                block,
                priority,
                referenced: AtomicBool::new(false),
            },
        );
    }

    fn evict_one(&self, s: &mut Shard) -> bool {
        for q in 0..2 {
            // Each entry gets one second chance, so two passes over the queue are enough.
            let mut budget = s.queues[q].len() * 2;
            while budget > 0 {
                budget -= 1;
                let Some(key) = s.queues[q].pop_front() else {
                    break;
                };
                let Some(e) = s.map.get_mut(&key) else {
                    continue;
                };
                if e.priority as usize != q {
                    continue;
                }
                if *e.referenced.get_mut() {
                    *e.referenced.get_mut() = false;
                    s.queues[q].push_back(key);
                    continue;
                }
                if let Some(e) = s.map.remove(&key) {
                    s.used -= e.block.len() + 64;
                    Metrics::inc(&self.metrics.block_cache_evictions);
                    return true;
                }
            }
        }
        false
    }

    /// Drops every block of `file_id` (after the file is deleted).
    pub fn evict_file(&self, file_id: u64) {
        for shard in &self.shards {
            let mut s = lock::write(shard);
            let keys: Vec<Key> = s.map.keys().filter(|k| k.0 == file_id).copied().collect();
            for k in keys {
                if let Some(e) = s.map.remove(&k) {
                    s.used -= e.block.len() + 64;
                }
            }
        }
    }

    /// Bytes of block data the cache holds at most: the capacity it was made with, rounded
    /// down to a multiple of its shards (each evicts on its own).
    pub fn capacity(&self) -> usize {
        self.shard_capacity * self.shards.len()
    }

    /// Bytes of block data held.
    pub fn used_bytes(&self) -> usize {
        self.shards.iter().map(|s| lock::read(s).used).sum()
    }

    /// Number of blocks held.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| lock::read(s).map.len()).sum()
    }

    /// True when no block is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_is_respected_and_in_memory_blocks_outlive_normal_ones() {
        let m = Arc::new(Metrics::default());
        let cache = BlockCache::new(2 * MIN_SHARD_BYTES, m.clone());
        for f in 0..50u64 {
            cache.insert(1, f * 4096, Bytes::from(vec![0; 1000]), Priority::InMemory);
        }
        for f in 0..2000u64 {
            cache.insert(
                2,
                f * 4096,
                Bytes::from(vec![0; 16 << 10]),
                Priority::Normal,
            );
        }
        assert!(cache.used_bytes() <= 2 * MIN_SHARD_BYTES);
        let in_mem = (0..50u64)
            .filter(|f| cache.get(1, f * 4096).is_some())
            .count();
        assert_eq!(
            in_mem, 50,
            "in-memory blocks were evicted before normal ones"
        );
        assert!(Metrics::get(&m.block_cache_evictions) > 0);
    }

    #[test]
    fn a_small_cache_holds_as_many_blocks_as_its_capacity_allows() {
        // 8 MiB of 64 KiB blocks: 127 fit by bytes; split 16 ways only 16 x 7 = 112 would.
        let cache = BlockCache::new(8 << 20, Arc::new(Metrics::default()));
        for b in 0..400u64 {
            cache.insert(1, b << 16, Bytes::from(vec![0; 64 << 10]), Priority::Normal);
        }
        assert!(cache.len() >= 120, "{} blocks held", cache.len());
        assert!(cache.used_bytes() <= 8 << 20);
    }

    #[test]
    fn concurrent_hits_and_inserts_keep_the_capacity_and_every_hit_exact() {
        // Readers hit under the shared lock while writers insert and evict under the
        // exclusive one: every block found is the one inserted under its key.
        let cache = Arc::new(BlockCache::new(
            2 * MIN_SHARD_BYTES,
            Arc::new(Metrics::default()),
        ));
        let threads: Vec<_> = (0..8u64)
            .map(|t| {
                let cache = cache.clone();
                std::thread::spawn(move || {
                    for i in 0..2000u64 {
                        let off = (i * 7 + t) % 600;
                        if t % 2 == 0 {
                            cache.insert(
                                1,
                                off,
                                Bytes::from(vec![off as u8; 16 << 10]),
                                Priority::Normal,
                            );
                        } else if let Some(b) = cache.get(1, off) {
                            assert!(b.iter().all(|&x| x == off as u8));
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread finished");
        }
        assert!(cache.used_bytes() <= 2 * MIN_SHARD_BYTES);
        assert!(!cache.is_empty());
    }

    #[test]
    fn evict_file_removes_its_blocks() {
        let cache = BlockCache::new(1 << 20, Arc::new(Metrics::default()));
        cache.insert(7, 0, Bytes::from(vec![1; 10]), Priority::Normal);
        cache.insert(8, 0, Bytes::from(vec![1; 10]), Priority::Normal);
        cache.evict_file(7);
        assert!(cache.get(7, 0).is_none());
        assert!(cache.get(8, 0).is_some());
    }
}
