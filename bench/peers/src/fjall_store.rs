//! fjall under the benchmark interface.

use crate::store::{kv_column_prefix, kv_key, kv_row_prefix, CellIn, Settings, Store};
use anyhow::Result;
use fjall::config::{BlockSizePolicy, BloomConstructionPolicy, FilterPolicy, FilterPolicyEntry};
use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};
use std::path::Path;

pub struct Fjall {
    db: Database,
    ks: Keyspace,
}

impl Fjall {
    pub fn open(dir: &Path, s: Settings) -> Result<Fjall> {
        let db = Database::builder(dir)
            .cache_size(s.block_cache as u64)
            .worker_threads(2)
            .open()?;
        let bloom = s.bloom;
        let ks = db.keyspace("t", move || {
            let filter = if bloom {
                FilterPolicy::all(FilterPolicyEntry::Bloom(
                    BloomConstructionPolicy::BitsPerKey(10.0),
                ))
            } else {
                FilterPolicy::disabled()
            };
            KeyspaceCreateOptions::default()
                .data_block_size_policy(BlockSizePolicy::all(65536))
                .max_memtable_size(64 << 20)
                .filter_policy(filter)
        })?;
        Ok(Fjall { db, ks })
    }
}

impl Store for Fjall {
    fn write(&self, cells: Vec<CellIn>, fsync: bool) -> Result<()> {
        // Without fsync the journal is still handed to the OS on every commit (PersistMode::Buffer),
        // the guarantee RocksDB's WAL and ferrobase's SYNC_WAL give: an acknowledged write survives
        // a process kill. fjall's default keeps up to 8 KiB in its own buffer instead.
        let mode = if fsync {
            PersistMode::SyncData
        } else {
            PersistMode::Buffer
        };
        let mut b = self.db.batch().durability(Some(mode));
        for c in cells {
            b.insert(&self.ks, kv_key(&c.row, &c.qualifier, c.ts), c.value);
        }
        Ok(b.commit()?)
    }
    fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
        match self.ks.prefix(kv_column_prefix(row, qualifier)).next() {
            Some(kv) => {
                kv.into_inner()?;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
        let mut c = 0;
        for kv in self.ks.prefix(prefix).take(n) {
            kv.into_inner()?;
            c += 1;
        }
        Ok(c)
    }
    fn scan_from(&self, start: &[u8], n: usize) -> Result<usize> {
        let mut c = 0;
        for kv in self.ks.range(start.to_vec()..).take(n) {
            kv.into_inner()?;
            c += 1;
        }
        Ok(c)
    }
    fn wide(&self, row: &[u8], n: usize) -> Result<usize> {
        self.scan_prefix(&kv_row_prefix(row), n)
    }
    fn settle(&self) -> Result<()> {
        self.ks.rotate_memtable_and_wait()?;
        Ok(self.ks.major_compact()?)
    }
}
