//! RocksDB under the benchmark interface (`--features rocksdb`).

use crate::store::{kv_column_prefix, kv_key, kv_row_prefix, CellIn, Settings, Store};
use anyhow::Result;
use std::path::Path;

/// Debian's RocksDB 7.8 (`--features system-rocksdb`) has no write buffer manager in its C API;
/// the crate names its destructor in a drop this program never reaches (it creates none), and
/// the link needs the name defined.
#[cfg(feature = "system-rocksdb")]
#[no_mangle]
pub extern "C" fn rocksdb_write_buffer_manager_destroy(_manager: *mut std::ffi::c_void) {}

pub struct Rocks {
    db: rocksdb::DB,
}

/// `--rocksdb-stats`: print RocksDB's compaction statistics when a data set is done.
pub static PRINT_STATS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// RocksDB's own account of its writes, as `--ferrobase-jobs` gives ferrobase's: the
/// compaction table of `rocksdb.stats` (per level: files, GB read and written, write
/// amplification) and its cumulative write and WAL lines.
impl Drop for Rocks {
    fn drop(&mut self) {
        if !PRINT_STATS.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let Ok(Some(stats)) = self.db.property_value("rocksdb.stats") else {
            return;
        };
        for line in stats.lines() {
            let t = line.trim_start();
            if t.starts_with("Level")
                || t.starts_with("L0")
                || t.starts_with("L1")
                || t.starts_with("L2")
                || t.starts_with("Sum")
                || t.starts_with("Cumulative writes")
                || t.starts_with("Cumulative WAL")
                || t.starts_with("Flush(GB)")
                || t.starts_with("Cumulative compaction")
            {
                eprintln!("  rocksdb: {line}");
            }
        }
    }
}

/// Tall-narrow rows are 16 bytes; the prefix extractor takes them, so RocksDB's prefix bloom
/// answers column gets of absent rows, as ferrobase's ROW bloom does (a whole-key bloom could
/// not: a get does not know the newest timestamp).
const PREFIX_LEN: usize = 16;

impl Rocks {
    pub fn open(dir: &Path, s: Settings) -> Result<Rocks> {
        let mut o = rocksdb::Options::default();
        o.create_if_missing(true);
        o.set_compression_type(rocksdb::DBCompressionType::Lz4);
        o.set_max_background_jobs(2);
        o.set_write_buffer_size(64 << 20);
        o.set_prefix_extractor(rocksdb::SliceTransform::create_fixed_prefix(PREFIX_LEN));
        let mut t = rocksdb::BlockBasedOptions::default();
        t.set_block_size(65536);
        if s.bloom {
            t.set_bloom_filter(10.0, false);
            t.set_whole_key_filtering(false);
        }
        t.set_block_cache(&rocksdb::Cache::new_lru_cache(s.block_cache));
        o.set_block_based_table_factory(&t);
        let db = rocksdb::DB::open(&o, dir)?;
        Ok(Rocks { db })
    }

    fn count_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
        let mut ro = rocksdb::ReadOptions::default();
        if prefix.len() >= PREFIX_LEN {
            ro.set_prefix_same_as_start(true);
        } else {
            ro.set_total_order_seek(true);
        }
        let mut it = self.db.raw_iterator_opt(ro);
        it.seek(prefix);
        let mut c = 0;
        while c < n && it.valid() {
            match it.key() {
                Some(k) if k.starts_with(prefix) => c += 1,
                _ => break,
            }
            let _ = it.value();
            it.next();
        }
        it.status()?;
        Ok(c)
    }
}

impl Store for Rocks {
    fn write(&self, cells: Vec<CellIn>, fsync: bool) -> Result<()> {
        let mut b = rocksdb::WriteBatch::default();
        for c in &cells {
            b.put(kv_key(&c.row, &c.qualifier, c.ts), &c.value);
        }
        let mut wo = rocksdb::WriteOptions::default();
        wo.set_sync(fsync);
        Ok(self.db.write_opt(b, &wo)?)
    }
    fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
        Ok(self.count_prefix(&kv_column_prefix(row, qualifier), 1)? == 1)
    }
    fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
        self.count_prefix(prefix, n)
    }
    fn scan_from(&self, start: &[u8], n: usize) -> Result<usize> {
        let mut ro = rocksdb::ReadOptions::default();
        ro.set_total_order_seek(true);
        let mut it = self.db.raw_iterator_opt(ro);
        it.seek(start);
        let mut c = 0;
        while c < n && it.valid() {
            let _ = it.value();
            c += 1;
            it.next();
        }
        it.status()?;
        Ok(c)
    }
    fn wide(&self, row: &[u8], n: usize) -> Result<usize> {
        self.count_prefix(&kv_row_prefix(row), n)
    }
    fn settle(&self) -> Result<()> {
        self.db.flush()?;
        self.db.compact_range::<&[u8], &[u8]>(None, None);
        Ok(())
    }
}
