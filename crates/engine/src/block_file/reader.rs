//! Opens a block file and reads its cells through the block cache.

use super::{
    decode_index, unframe_block, unframe_block_shared, BlockDecoder, BlockFormat, FileMeta,
    IndexEntry, Trailer, TRAILER_LEN,
};
use crate::block_cache::{BlockCache, Priority};
use crate::bloom::{row_col_key, BloomFilter};
use crate::cell::{Cell, CellKey, KeyValue, KeyValueRef};
use crate::error::{Error, IoContext, Result};
use crate::fs::{FileSystem, ReadableFile};
use crate::metrics::Metrics;
use crate::schema::BloomType;
use bytes::Bytes;
use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How data blocks of one read interact with the cache.
#[derive(Debug, Clone, Copy)]
pub struct CacheMode {
    /// Whether blocks read are inserted into the cache (the family's BLOCKCACHE). Lookups always
    /// consult the cache unless this is false.
    pub use_cache: bool,
    /// Priority of inserted blocks (IN_MEMORY families get `InMemory`).
    pub priority: Priority,
    /// The read runs through whole files (compaction, split): the file ahead of the cursor is
    /// requested from the OS in `SEQUENTIAL_READAHEAD` (2 MiB) steps. Other reads ask for
    /// readahead only once a scanner has stepped into `SCAN_READAHEAD_AFTER` (4) consecutive
    /// blocks.
    pub sequential: bool,
    /// Bytes past the block a seek lands in that the read expects to need (a scan with a row
    /// limit: the limit times the file's mean cell size). When that block is not in the page
    /// cache, they are requested from the OS together with it, so the disk reads them in
    /// parallel instead of one block after the other. 0 for Gets and scans of unknown length.
    pub seek_readahead: u64,
}

impl CacheMode {
    /// A read that runs through whole files (compaction, split): blocks bypass the cache, and
    /// the file ahead of the cursor is requested from the OS in `SEQUENTIAL_READAHEAD` (2 MiB)
    /// steps.
    pub fn whole_file() -> CacheMode {
        CacheMode {
            use_cache: false,
            priority: Priority::Normal,
            sequential: true,
            seek_readahead: 0,
        }
    }
}

/// Bytes requested ahead of a cursor that reads whole files (RocksDB's compaction readahead).
pub const SEQUENTIAL_READAHEAD: u64 = 2 << 20;

/// Bytes requested ahead of a scanner once it has read consecutive blocks (RocksDB's
/// `max_auto_readahead_size`).
pub const SCAN_READAHEAD: u64 = 256 << 10;

/// Blocks a scanner steps into one after another before it asks for readahead. Short scans
/// (a 100-row scan of 1 KiB rows spans about three 64 KiB blocks) read only what they use:
/// reading ahead from their second block doubled the bytes a cold 100-row scan read from disk.
pub const SCAN_READAHEAD_AFTER: u32 = 4;

/// An open block file: trailer, meta, index and bloom held in memory; data blocks read on
/// demand. Thread-safe (reads use positional I/O).
pub struct BlockFileReader {
    path: PathBuf,
    file: Arc<dyn ReadableFile>,
    id: u64,
    size: u64,
    meta: FileMeta,
    index: Vec<IndexEntry>,
    /// `row_prefix` of each index entry's first key, in index order: a dense array the
    /// binary search of a seek probes before it compares whole keys.
    index_prefixes: Vec<u128>,
    /// Every `TOP_STRIDE`-th entry of `index_prefixes`: a small array that stays in the CPU
    /// cache, so a seek's search touches a few cache lines instead of one per halving of a
    /// large index (a fifth of a Get that reads a block was spent in those misses).
    index_top: Vec<u128>,
    bloom: Option<BloomFilter>,
    cache: Arc<BlockCache>,
    metrics: Arc<Metrics>,
    /// The layout of the file's data blocks (from its format version).
    block_format: BlockFormat,
}

impl std::fmt::Debug for BlockFileReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockFileReader")
            .field("path", &self.path)
            .field("id", &self.id)
            .field("size", &self.size)
            .finish()
    }
}

impl BlockFileReader {
    /// Opens `path` in `fs`, giving it the cache identity `id` (unique per file in the
    /// engine).
    pub fn open(
        fs: &dyn FileSystem,
        path: &Path,
        id: u64,
        cache: Arc<BlockCache>,
        metrics: Arc<Metrics>,
    ) -> Result<Self> {
        let file = fs.open(path).at(path)?;
        // Reads are block-sized and mostly random: without this advice the kernel reads ahead
        // of every miss, several times the bytes asked for (RocksDB's advise_random_on_open).
        // Sequential readers ask for readahead explicitly.
        file.advise_random();
        let size = file.len().at(path)?;
        let corrupt = |off: u64, why: &str| Error::corruption(path, off, why.to_string());
        if size < TRAILER_LEN as u64 {
            return Err(corrupt(0, "file shorter than its trailer"));
        }
        let toff = size - TRAILER_LEN as u64;
        let mut trailer = [0u8; TRAILER_LEN];
        file.read_exact_at(&mut trailer, toff).at(path)?;
        let trailer = Trailer::decode(&trailer).map_err(|why| corrupt(toff, &why))?;
        let block_format = trailer.block_format();
        let read_section = |off: u64, len: u64, what: &str| -> Result<Vec<u8>> {
            if off.checked_add(len).is_none_or(|end| end > toff) || len > 1 << 31 {
                return Err(corrupt(toff, &format!("{what} section out of bounds")));
            }
            let mut buf = vec![0u8; len as usize];
            file.read_exact_at(&mut buf, off).at(path)?;
            unframe_block(&buf).map_err(|e| corrupt(off, &format!("{what} section: {e}")))
        };
        let (meta_off, index_off, bloom_off) = (
            trailer.meta.offset,
            trailer.index.offset,
            trailer.bloom.offset,
        );
        let meta_raw = read_section(meta_off, trailer.meta.len, "meta")?;
        let meta = FileMeta::decode(&meta_raw)
            .ok_or_else(|| corrupt(meta_off, "malformed meta section"))?;
        let index_raw = read_section(index_off, trailer.index.len, "index")?;
        let index = decode_index(&index_raw).map_err(|why| corrupt(index_off, &why))?;
        let bloom = if meta.bloom == BloomType::None {
            None
        } else {
            let raw = read_section(bloom_off, trailer.bloom.len, "bloom")?;
            if raw.is_empty() {
                None
            } else {
                Some(
                    BloomFilter::decode(&raw)
                        .ok_or_else(|| corrupt(bloom_off, "malformed bloom section"))?,
                )
            }
        };
        let index_prefixes: Vec<u128> =
            index.iter().map(|e| row_prefix(&e.first_key.row)).collect();
        let index_top = index_prefixes.iter().step_by(TOP_STRIDE).copied().collect();
        Ok(BlockFileReader {
            index_prefixes,
            index_top,
            block_format,
            path: path.to_path_buf(),
            file,
            id,
            size,
            meta,
            index,
            bloom,
            cache,
            metrics,
        })
    }

    /// The file's metadata.
    pub fn meta(&self) -> &FileMeta {
        &self.meta
    }

    /// Size of the file on disk in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The cache identity of the file.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of data blocks.
    pub fn block_count(&self) -> usize {
        self.index.len()
    }

    /// The most distinct bloom keys (rows, or row-columns, as `meta().bloom` says) the file
    /// holds: its cell count, or less when its bloom filter bounds them.
    pub fn bloom_key_bound(&self) -> u64 {
        let cells = self.meta.cell_count;
        self.bloom
            .as_ref()
            .map_or(cells, |b| b.key_bound().min(cells))
    }

    /// False when the bloom filter proves the file holds no cell of `row`. Always true
    /// without a ROW bloom.
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        match (&self.bloom, self.meta.bloom) {
            (Some(b), BloomType::Row) => b.may_contain(row),
            _ => true,
        }
    }

    /// False when a ROWCOL bloom proves the file holds no cell of any of `qualifiers` in
    /// `row`, nor a family-level marker (empty qualifier). True without a ROWCOL bloom.
    pub fn may_contain_columns(&self, row: &[u8], qualifiers: &[&[u8]]) -> bool {
        match (&self.bloom, self.meta.bloom) {
            (Some(b), BloomType::RowCol) => {
                // Family markers carry the empty qualifier; probe for them only when the file
                // holds any marker at all.
                (self.meta.delete_count > 0 && b.may_contain(&row_col_key(row, b"")))
                    || qualifiers
                        .iter()
                        .any(|q| b.may_contain(&row_col_key(row, q)))
            }
            (Some(b), BloomType::Row) => b.may_contain(row),
            _ => true,
        }
    }

    /// The first key of the middle data block: the split point HBase would choose.
    pub fn mid_key(&self) -> Option<&CellKey> {
        self.index.get(self.index.len() / 2).map(|e| &e.first_key)
    }

    /// The number of index entries whose first key satisfies `before`, a predicate true for a
    /// prefix of the index (`first_key <= key` or `first_key < key`). Entries whose row prefix
    /// differs from the key's are decided by the prefix array alone; whole keys are compared
    /// only among entries sharing it.
    fn index_partition(&self, key: &CellKey, before: impl Fn(&CellKey) -> bool) -> usize {
        let p = row_prefix(&key.row);
        let lo = self.first_prefix_at_least(p);
        // Entries sharing the prefix are few (a row, or rows alike in 16 bytes, spread over
        // blocks): step over them, and search only past a long run.
        let prefixes = &self.index_prefixes;
        let mut hi = lo;
        while hi < prefixes.len() && prefixes[hi] == p && hi - lo < 8 {
            hi += 1;
        }
        if hi - lo == 8 {
            hi += prefixes[hi..].partition_point(|&e| e == p);
        }
        lo + self.index[lo..hi].partition_point(|e| before(&e.first_key))
    }

    /// The number of index entries whose prefix is below `p`: the top array, then one stride.
    fn first_prefix_at_least(&self, p: u128) -> usize {
        let t = self.index_top.partition_point(|&e| e < p);
        if t == 0 {
            return 0;
        }
        // index_prefixes[(t - 1) * TOP_STRIDE] < p, and index_prefixes[t * TOP_STRIDE] >= p
        // when it exists: the answer lies between.
        let from = (t - 1) * TOP_STRIDE + 1;
        let to = (t * TOP_STRIDE).min(self.index_prefixes.len());
        from + self.index_prefixes[from..to].partition_point(|&e| e < p)
    }

    /// Block `idx`, from the cache or the file. `readahead`: bytes past the block to request
    /// from the OS along with it when it is not in the page cache.
    fn read_block(&self, idx: usize, mode: CacheMode, readahead: u64) -> Result<bytes::Bytes> {
        let e = &self.index[idx];
        if mode.use_cache {
            if let Some(b) = self.cache.get(self.id, e.offset) {
                Metrics::add(&self.metrics.data_block_bytes_touched, b.len() as u64);
                return Ok(b);
            }
        }
        Metrics::inc(&self.metrics.data_blocks_read);
        let ahead = || {
            let to = e
                .offset
                .saturating_add(e.size)
                .saturating_add(readahead)
                .min(self.size);
            self.file.readahead(e.offset, to.saturating_sub(e.offset));
        };
        let on_cold = (readahead > 0).then_some(&ahead as &dyn Fn());
        let buf = self
            .file
            .read_block(e.size as usize, e.offset, on_cold)
            .at(&self.path)?;
        let block = unframe_block_shared(buf)
            .map_err(|why| Error::corruption(&self.path, e.offset, why))?;
        Metrics::add(&self.metrics.data_block_bytes_touched, block.len() as u64);
        if mode.use_cache {
            self.cache
                .insert(self.id, e.offset, block.clone(), mode.priority);
        }
        Ok(block)
    }

    fn decode_err(&self, idx: usize, at: usize) -> Error {
        Error::corruption(
            &self.path,
            self.index[idx].offset,
            format!("malformed cell at byte {at} of the decompressed data block"),
        )
    }
}

/// Index entries per entry of the top-level prefix array.
const TOP_STRIDE: usize = 32;

/// The first 16 bytes of `row` as a big-endian number, zero-padded (16 bytes hold whole the
/// common `id + reversed timestamp` rowkeys). Rows whose prefixes differ compare as their
/// prefixes do: at the first differing position either both rows have a byte, or the shorter
/// row ended there (a padding 0 against a non-zero byte, and a shorter row that is a prefix of
/// the other sorts first).
fn row_prefix(row: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    let n = row.len().min(16);
    b[..n].copy_from_slice(&row[..n]);
    u128::from_be_bytes(b)
}

/// A cursor over a file's cells in key order, with seeks.
#[derive(Debug)]
pub struct FileScanner {
    reader: Arc<BlockFileReader>,
    mode: CacheMode,
    block_idx: usize,
    /// The current block's decoder; its current cell is the cursor's.
    decoder: Option<BlockDecoder>,
    /// Blocks entered one after another by stepping (not seeking), since the last seek.
    consecutive: u32,
    /// The file offset up to which readahead has been requested.
    read_ahead_to: u64,
}

impl FileScanner {
    /// An unpositioned cursor over `reader`; call `seek` first.
    pub fn new(reader: Arc<BlockFileReader>, mode: CacheMode) -> Self {
        FileScanner {
            reader,
            mode,
            block_idx: 0,
            decoder: None,
            consecutive: 0,
            read_ahead_to: 0,
        }
    }

    /// The file read.
    pub fn reader(&self) -> &Arc<BlockFileReader> {
        &self.reader
    }

    /// The cell under the cursor, seen in place in its block.
    #[inline]
    pub fn peek(&self) -> Option<KeyValueRef<'_>> {
        self.decoder.as_ref()?.current()
    }

    /// The sequence id of the cell under the cursor.
    #[inline]
    pub fn peek_seq(&self) -> Option<u64> {
        self.decoder.as_ref()?.current_seq()
    }

    /// The row of the cell under the cursor.
    #[inline]
    pub fn peek_row(&self) -> Option<&[u8]> {
        self.decoder.as_ref()?.current_row()
    }

    fn load(&mut self, idx: usize) -> Result<bool> {
        if idx >= self.reader.index.len() {
            self.decoder = None;
            return Ok(false);
        }
        let stepping = self.decoder.is_some() && idx == self.block_idx + 1;
        self.consecutive = if stepping { self.consecutive + 1 } else { 0 };
        let window = if self.mode.sequential {
            SEQUENTIAL_READAHEAD
        } else if self.consecutive >= SCAN_READAHEAD_AFTER {
            SCAN_READAHEAD
        } else {
            0
        };
        let e = &self.reader.index[idx];
        let end = e.offset.saturating_add(e.size);
        if window > 0 && end > self.read_ahead_to.saturating_sub(window / 2) {
            let from = end.max(self.read_ahead_to);
            let to = end.saturating_add(window).min(self.reader.size);
            if to > from {
                self.reader.file.readahead(from, to - from);
                self.read_ahead_to = to;
            }
        }
        let readahead = if stepping {
            0
        } else {
            self.mode.seek_readahead
        };
        if readahead > 0 {
            // Requested with the block if it is cold; either way not to be asked for again.
            self.read_ahead_to = self.read_ahead_to.max(end.saturating_add(readahead));
        }
        let block = self.reader.read_block(idx, self.mode, readahead)?;
        self.block_idx = idx;
        let decoder = BlockDecoder::new(block, self.reader.block_format)
            .map_err(|at| self.reader.decode_err(idx, at))?;
        self.decoder = Some(decoder);
        Ok(true)
    }

    /// Moves to the next cell, returning the one under the cursor (sharing the block).
    pub fn take(&mut self) -> Result<Option<KeyValue>> {
        let cur = self.decoder.as_ref().and_then(|d| d.current_key_value());
        self.advance()?;
        Ok(cur)
    }

    /// Moves past the current cell, appending it to `out` as a client cell of `family` (one
    /// handle on the block); false when there was none.
    pub fn take_cell(&mut self, family: &Bytes, out: &mut Vec<Cell>) -> Result<bool> {
        let taken = self
            .decoder
            .as_ref()
            .is_some_and(|d| d.push_current(family, out));
        self.advance()?;
        Ok(taken)
    }

    /// Moves to the next cell.
    pub fn advance(&mut self) -> Result<()> {
        loop {
            let Some(d) = self.decoder.as_mut() else {
                return Ok(());
            };
            match d.advance() {
                Ok(true) => return Ok(()),
                Ok(false) => {
                    if !self.load(self.block_idx + 1)? {
                        return Ok(());
                    }
                }
                Err(at) => return Err(self.reader.decode_err(self.block_idx, at)),
            }
        }
    }

    /// Positions the cursor at the first cell ≥ `key`.
    pub fn seek(&mut self, key: &CellKey) -> Result<()> {
        let idx = self
            .reader
            .index_partition(key, |k| k <= key)
            .saturating_sub(1);
        // Stay in the current block when the target lies ahead within it.
        let at = self.peek().map(|c| c.cmp_cell_key(key));
        let reuse = idx == self.block_idx && at.is_some_and(|o| o != Ordering::Greater);
        if reuse && at == Some(Ordering::Equal) {
            return Ok(());
        }
        if !reuse && !self.load(idx)? {
            return Ok(());
        }
        let found = match self.decoder.as_mut() {
            Some(d) => d
                .seek(key)
                .map_err(|at| self.reader.decode_err(self.block_idx, at))?,
            None => false,
        };
        // The target lies past this block: the next block's first cell is the answer.
        if !found && self.load(self.block_idx + 1)? {
            self.advance()?;
        }
        Ok(())
    }

    /// The row of the last cell whose key is < `first_on_row(row)`, or `None`.
    pub fn last_row_before(&mut self, row: &[u8]) -> Result<Option<Vec<u8>>> {
        let target = CellKey::first_on_row(row);
        let idx = self.reader.index_partition(&target, |k| *k < target);
        if idx == 0 {
            return Ok(None);
        }
        let block = self.reader.read_block(idx - 1, self.mode, 0)?;
        let mut d = BlockDecoder::new(block, self.reader.block_format)
            .map_err(|at| self.reader.decode_err(idx - 1, at))?;
        let mut last = None;
        loop {
            match d.advance() {
                Ok(true) => match d.current() {
                    Some(kv) if kv.cmp_cell_key(&target) == Ordering::Less => {
                        last = Some(kv.row.to_vec())
                    }
                    _ => break,
                },
                Ok(false) => break,
                Err(at) => return Err(self.reader.decode_err(idx - 1, at)),
            }
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_file::{BlockFileWriter, FileOptions};
    use crate::cell::CellType;
    use crate::compression::Compression;
    use crate::schema::DataBlockEncoding;
    use bytes::Bytes;

    /// Rows drawn from a small alphabet with zero bytes and lengths around 8, where prefix
    /// comparisons are most likely to go wrong.
    fn rows(n: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = ferrobase_testkit::Rng::from_state(seed);
        let mut next = || rng.next_u64();
        (0..n)
            .map(|_| {
                let len = (next() % 20) as usize;
                (0..len)
                    .map(|_| [0u8, 1, 0x7f, 0x80, 0xff][(next() % 5) as usize])
                    .collect()
            })
            .collect()
    }

    /// Writes `cells` to a file at `path` with `opts` and opens it.
    fn write_and_open(path: &Path, opts: FileOptions, cells: &[KeyValue]) -> Arc<BlockFileReader> {
        let mut w = BlockFileWriter::create(&crate::fs::OsFileSystem, path, opts).unwrap();
        for c in cells {
            w.add(c).unwrap();
        }
        w.finish().unwrap();
        let m = Arc::new(Metrics::default());
        Arc::new(
            BlockFileReader::open(
                &crate::fs::OsFileSystem,
                path,
                1,
                Arc::new(BlockCache::new(1 << 20, m.clone())),
                m,
            )
            .unwrap(),
        )
    }

    #[test]
    fn row_prefix_orders_rows_whenever_prefixes_differ() {
        let rs = rows(400, 99);
        for a in &rs {
            for b in &rs {
                let (pa, pb) = (row_prefix(a), row_prefix(b));
                if pa != pb {
                    assert_eq!(pa.cmp(&pb), a.cmp(b), "{a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn bloom_key_bound_counts_rows_not_cells() {
        let dir = tempfile::tempdir().unwrap();
        let cells: Vec<KeyValue> = (0..100u32)
            .flat_map(|r| {
                (0..50u32).map(move |q| KeyValue {
                    key: CellKey {
                        row: Bytes::from(format!("row{r:04}").into_bytes()),
                        qualifier: Bytes::from(format!("q{q:03}").into_bytes()),
                        timestamp: 5,
                        cell_type: CellType::Put,
                        seq: 1,
                    },
                    value: Bytes::from_static(b"v"),
                    ttl_ms: None,
                })
            })
            .collect();
        for (bloom, expected_keys, low, high) in [
            (BloomType::Row, 5000, 100, 200),
            (BloomType::Row, 0, 100, 200),
            (BloomType::RowCol, 5000, 5000, 10_000),
            (BloomType::None, 0, 5000, 5000),
        ] {
            let opts = FileOptions {
                family: b"cf".to_vec(),
                block_size: 4096,
                compression: Compression::None,
                encoding: DataBlockEncoding::None,
                bloom,
                major_compacted: false,
                expected_keys,
            };
            let path = dir.path().join(format!("{bloom:?}-{expected_keys}.blk"));
            let bound = write_and_open(&path, opts, &cells).bloom_key_bound();
            assert!((low..=high).contains(&bound), "{bloom:?}: {bound}");
        }
    }

    #[test]
    fn seeks_through_the_prefix_index_match_a_plain_search() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.blk");
        let mut rs = rows(3000, 7);
        // A long run of blocks whose rows share their 16-byte prefix.
        rs.extend((0..600u32).map(|i| {
            let mut r = b"sixteen-byte-pfx".to_vec();
            r.extend_from_slice(&i.to_be_bytes());
            r
        }));
        rs.sort();
        rs.dedup();
        let opts = FileOptions {
            family: b"cf".to_vec(),
            block_size: 256,
            compression: Compression::None,
            encoding: DataBlockEncoding::Prefix,
            bloom: BloomType::None,
            major_compacted: false,
            expected_keys: 0,
        };
        let cells: Vec<KeyValue> = rs
            .iter()
            .map(|r| KeyValue {
                key: CellKey {
                    row: Bytes::copy_from_slice(r),
                    qualifier: Bytes::from_static(b"q"),
                    timestamp: 5,
                    cell_type: CellType::Put,
                    seq: 1,
                },
                value: Bytes::from_static(b"v"),
                ttl_ms: None,
            })
            .collect();
        let reader = write_and_open(&path, opts, &cells);
        assert!(reader.block_count() > 50, "the test wants many blocks");
        let mut targets: Vec<CellKey> = rows(500, 3)
            .iter()
            .map(|r| CellKey::first_on_row(r))
            .collect();
        targets.extend(cells.iter().map(|c| c.key.clone()));
        targets.extend(rs.iter().map(|r| CellKey::after_row(r)));
        let mode = CacheMode {
            use_cache: true,
            priority: Priority::Normal,
            sequential: false,
            seek_readahead: 0,
        };
        for t in &targets {
            let plain = reader.index.partition_point(|e| e.first_key <= *t);
            assert_eq!(reader.index_partition(t, |k| k <= t), plain, "{t:?}");
            let plain = reader.index.partition_point(|e| e.first_key < *t);
            assert_eq!(reader.index_partition(t, |k| k < t), plain, "{t:?}");
            let mut s = FileScanner::new(reader.clone(), mode);
            s.seek(t).unwrap();
            let want = cells.iter().find(|c| c.key >= *t);
            assert_eq!(s.peek(), want.map(KeyValue::as_view), "seek to {t:?}");
            let want_before = cells
                .iter()
                .rev()
                .find(|c| c.key < CellKey::first_on_row(&t.row))
                .map(|c| c.key.row.to_vec());
            assert_eq!(s.last_row_before(&t.row).unwrap(), want_before, "{t:?}");
        }
    }

    #[test]
    fn writer_probes_incompressible_data_and_compresses_again_once_it_turns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.blk");
        let opts = FileOptions {
            family: b"cf".to_vec(),
            block_size: 4096,
            compression: Compression::Lz4,
            encoding: DataBlockEncoding::None,
            bloom: BloomType::None,
            major_compacted: false,
            expected_keys: 0,
        };
        // Rows "a…": 16 symbols at random (LZ4 saves far less than an eighth); rows "b…": zeros.
        let mut seed = 12345u64;
        let mut cells = Vec::new();
        for (prefix, n) in [("a", 400), ("b", 400)] {
            for i in 0..n {
                let value: Vec<u8> = (0..1000)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        if prefix == "a" {
                            b"abcdefghijklmnop"[(seed >> 60) as usize]
                        } else {
                            0
                        }
                    })
                    .collect();
                cells.push(KeyValue {
                    key: CellKey {
                        row: Bytes::from(format!("{prefix}{i:06}")),
                        qualifier: Bytes::from_static(b"q"),
                        timestamp: 5,
                        cell_type: CellType::Put,
                        seq: 1,
                    },
                    value: Bytes::from(value),
                    ttl_ms: None,
                });
            }
        }
        let reader = write_and_open(&path, opts, &cells);
        let file = std::fs::read(&path).unwrap();
        let codecs: Vec<(bool, u8)> = reader
            .index
            .iter()
            .map(|e| (e.first_key.row[0] == b'b', file[e.offset as usize]))
            .collect();
        assert!(codecs.len() > 150, "the test wants many blocks");
        assert!(codecs
            .iter()
            .all(|&(b, c)| b || c == Compression::None.id()));
        let b_raw = codecs
            .iter()
            .filter(|&&(b, c)| b && c == Compression::None.id())
            .count();
        assert!(
            b_raw <= super::super::compression_probe::MAX_PROBE_INTERVAL as usize,
            "{b_raw} compressible blocks stored raw"
        );
        let mode = CacheMode {
            use_cache: true,
            priority: Priority::Normal,
            sequential: true,
            seek_readahead: 0,
        };
        let mut s = FileScanner::new(reader.clone(), mode);
        s.seek(&CellKey::first_on_row(b"")).unwrap();
        for c in &cells {
            assert_eq!(s.take().unwrap().as_ref(), Some(c));
        }
        assert!(s.peek().is_none());
    }

    #[test]
    fn nearly_full_blocks_close_before_a_cell_would_take_them_past_blocksize() {
        let dir = tempfile::tempdir().unwrap();
        let block_size = 64 << 10;
        let opts = FileOptions {
            family: b"cf".to_vec(),
            block_size,
            compression: Compression::None,
            encoding: DataBlockEncoding::None,
            bloom: BloomType::None,
            major_compacted: false,
            expected_keys: 0,
        };
        let cells = |n: u32, value_len: usize| -> Vec<KeyValue> {
            (0..n)
                .map(|i| KeyValue {
                    key: CellKey {
                        row: Bytes::from(format!("row{i:08}")),
                        qualifier: Bytes::from_static(b"q"),
                        timestamp: 5,
                        cell_type: CellType::Put,
                        seq: 1,
                    },
                    value: Bytes::from(vec![b'v'; value_len]),
                    ttl_ms: None,
                })
                .collect()
        };
        // 1 KiB cells: every block but the last ends within BLOCKSIZE, framing included, and
        // no earlier than seven eighths of it.
        let small = cells(3000, 1024);
        let reader = write_and_open(&dir.path().join("1.blk"), opts.clone(), &small);
        let sizes: Vec<u64> = reader.index.iter().map(|e| e.size).collect();
        assert!(sizes.len() > 40, "{sizes:?}");
        for &s in &sizes[..sizes.len() - 1] {
            assert!(s <= block_size as u64, "{sizes:?}");
            assert!(s >= block_size as u64 / 8 * 7, "{sizes:?}");
        }
        let mut scanner = FileScanner::new(
            reader.clone(),
            CacheMode {
                use_cache: true,
                priority: Priority::Normal,
                sequential: false,
                seek_readahead: 0,
            },
        );
        scanner.seek(&CellKey::first_on_row(b"")).unwrap();
        let mut n = 0;
        while let Some(kv) = scanner.take().unwrap() {
            assert_eq!(kv, small[n]);
            n += 1;
        }
        assert_eq!(n, small.len());
        // 40 KiB cells: a block less than seven eighths full takes the next cell and closes
        // once past BLOCKSIZE (HBase's rule), so each block holds two.
        let reader = write_and_open(&dir.path().join("2.blk"), opts, &cells(10, 40 << 10));
        assert_eq!(reader.block_count(), 5);
        assert!(reader.index.iter().all(|e| e.size > block_size as u64));
    }
}
