//! Opens a block file (trailer, meta, index and bloom sections) and reads its data blocks
//! through the block cache: the read I/O under a [`FileScanner`](super::FileScanner).

use super::{
    decode_index, unframe_block, unframe_block_shared, BlockFormat, BlockIndex, FileMeta,
    SectionHandle, Trailer, TRAILER_LEN,
};
use crate::block_cache::{BlockCache, Priority};
use crate::bloom::{row_col_key, BloomFilter};
use crate::cell::CellKey;
use crate::compound_bloom::{ChunkEntry, ChunkIndex, ChunkedBloom};
use crate::error::{Error, IoContext, Result};
use crate::file_handles::{FileHandles, HandleSlot};
use crate::fs::{FileSystem, ReadableFile};
use crate::metrics::{FamilyReads, Metrics};
use crate::schema::BloomType;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

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

/// An open block file: trailer and meta held from the open on; index and bloom read on first
/// use; data blocks read on demand. The file's descriptor is borrowed from the engine's
/// [`FileHandles`] on each read, so it may be closed between reads (and reopened
/// transparently) when more files are open than the handle cache holds. Thread-safe (reads use
/// positional I/O).
pub struct BlockFileReader {
    path: PathBuf,
    handles: Arc<FileHandles>,
    slot: Arc<HandleSlot>,
    id: u64,
    pub(super) size: u64,
    trailer: Trailer,
    meta: FileMeta,
    /// The block index, searched by seeks; read on first use.
    index: OnceLock<BlockIndex>,
    /// The bloom filter (`None` inside when the file has none); read on first use.
    bloom: OnceLock<Option<FileBloom>>,
    cache: Arc<BlockCache>,
    metrics: Arc<Metrics>,
    /// The layout of the file's data blocks (from its format version).
    pub(super) block_format: BlockFormat,
    /// Set once the file left the store: what to remove when the last reader is gone.
    removal: OnceLock<Arc<Removal>>,
}

/// A path removed when the last holder drops it: a block file replaced by a compaction, or the
/// directory of a split region once none of its files is read any more. A read in flight
/// whose file the handle cache closed must be able to open it again, so nothing it may need
/// goes while it runs (with every file held open, unlinking at once was enough).
pub struct Removal {
    fs: Arc<dyn FileSystem>,
    path: PathBuf,
    dir: bool,
}

impl Removal {
    /// Removes the file at `path` once dropped.
    pub fn file(fs: Arc<dyn FileSystem>, path: &Path) -> Arc<Removal> {
        Arc::new(Removal {
            fs,
            path: path.to_path_buf(),
            dir: false,
        })
    }

    /// Removes the directory at `path` and everything in it once dropped.
    pub fn dir(fs: Arc<dyn FileSystem>, path: &Path) -> Arc<Removal> {
        Arc::new(Removal {
            fs,
            path: path.to_path_buf(),
            dir: true,
        })
    }
}

impl Drop for Removal {
    fn drop(&mut self) {
        // Best effort: a file left behind is an orphan the next open removes.
        let _ = if self.dir {
            self.fs.remove_dir_all(&self.path)
        } else {
            self.fs.remove_file(&self.path)
        };
    }
}

/// A file's bloom filter as its format has it.
#[derive(Debug)]
enum FileBloom {
    /// One filter for the whole file (formats 1 to 4).
    Whole(BloomFilter),
    /// Chunks among the data blocks, read on first use (format 5).
    Chunked(ChunkedBloom),
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

/// Bytes read from the end of a file when it is opened: the trailer and, in one read, the meta
/// section before it when it fits (it does unless its first and last keys are long).
const TAIL_READ: u64 = 1024;

impl BlockFileReader {
    /// Opens `path` through `handles` (which opens it in the engine's file system), giving it
    /// the cache identity `id` (unique per file in the engine). Reads the trailer and the meta
    /// section only.
    pub fn open(
        handles: &Arc<FileHandles>,
        path: &Path,
        id: u64,
        cache: Arc<BlockCache>,
        metrics: Arc<Metrics>,
    ) -> Result<Self> {
        let slot = HandleSlot::new(path);
        let file = handles.get(&slot).at(path)?;
        let size = file.len().at(path)?;
        let corrupt = |off: u64, why: &str| Error::corruption(path, off, why.to_string());
        if size < TRAILER_LEN as u64 {
            return Err(corrupt(0, "file shorter than its trailer"));
        }
        let tail_off = size - size.min(TAIL_READ);
        let mut tail = vec![0u8; (size - tail_off) as usize];
        file.read_exact_at(&mut tail, tail_off).at(path)?;
        let toff = size - TRAILER_LEN as u64;
        let trailer = Trailer::decode(&tail[(toff - tail_off) as usize..])
            .map_err(|why| corrupt(toff, &why))?;
        let block_format = trailer.block_format();
        let m = trailer.meta;
        if m.offset.checked_add(m.len).is_none_or(|end| end > toff) || m.len > 1 << 31 {
            return Err(corrupt(toff, "meta section out of bounds"));
        }
        let meta_raw = if m.offset >= tail_off {
            let at = (m.offset - tail_off) as usize;
            unframe_block(&tail[at..at + m.len as usize])
                .map_err(|e| corrupt(m.offset, &format!("meta section: {e}")))?
        } else {
            read_section(&*file, path, toff, m, "meta")?
        };
        let meta = FileMeta::decode(&meta_raw)
            .ok_or_else(|| corrupt(m.offset, "malformed meta section"))?;
        Ok(BlockFileReader {
            block_format,
            path: path.to_path_buf(),
            handles: handles.clone(),
            slot,
            id,
            size,
            trailer,
            meta,
            index: OnceLock::new(),
            bloom: OnceLock::new(),
            cache,
            metrics,
            removal: OnceLock::new(),
        })
    }

    /// Removes the file once no reader holds it any more (it left its store).
    pub fn remove_when_unused(&self) {
        let _ = self
            .removal
            .set(Removal::file(self.handles.fs().clone(), &self.path));
    }

    /// Keeps `removal` (of the directory holding the file) until no reader holds the file.
    pub fn hold_until_unused(&self, removal: Arc<Removal>) {
        let _ = self.removal.set(removal);
    }

    /// The open file, reopened through the handle cache if it was closed.
    pub(super) fn file(&self) -> Result<Arc<dyn ReadableFile>> {
        self.handles.get(&self.slot).at(&self.path)
    }

    /// The block index, read from the file on first use.
    pub(super) fn index(&self) -> Result<&BlockIndex> {
        if let Some(i) = self.index.get() {
            return Ok(i);
        }
        let file = self.file()?;
        let toff = self.size - TRAILER_LEN as u64;
        let raw = read_section(&*file, &self.path, toff, self.trailer.index, "index")?;
        let index = BlockIndex::new(
            decode_index(&raw)
                .map_err(|why| Error::corruption(&self.path, self.trailer.index.offset, why))?,
        );
        // A racing reader may have set it first; both read the same bytes.
        let _ = self.index.set(index);
        Ok(self.index.get().expect("set above"))
    }

    /// The bloom filter, read from the file on first use (of format 5, its chunk index);
    /// `None` when the file has none.
    fn bloom(&self) -> Result<Option<&FileBloom>> {
        if let Some(b) = self.bloom.get() {
            return Ok(b.as_ref());
        }
        let bloom = if self.meta.bloom == BloomType::None {
            None
        } else {
            let file = self.file()?;
            let toff = self.size - TRAILER_LEN as u64;
            let at = self.trailer.bloom.offset;
            let raw = read_section_shared(&*file, &self.path, toff, self.trailer.bloom, "bloom")?;
            let malformed = || Error::corruption(&self.path, at, "malformed bloom section");
            if raw.is_empty() {
                None
            } else if self.trailer.chunked_bloom() {
                let index = ChunkIndex::decode(&raw).ok_or_else(malformed)?;
                // Chunks lie among the data blocks, before the bloom section.
                if let Some(e) = index.entries().iter().find(|e| {
                    e.offset.checked_add(e.size).is_none_or(|end| end > at) || e.size > 1 << 31
                }) {
                    return Err(Error::corruption(
                        &self.path,
                        at,
                        format!("bloom chunk at {} out of bounds", e.offset),
                    ));
                }
                Some(FileBloom::Chunked(ChunkedBloom::new(index)))
            } else {
                Some(FileBloom::Whole(
                    BloomFilter::decode_shared(raw).ok_or_else(malformed)?,
                ))
            }
        };
        let _ = self.bloom.set(bloom);
        Ok(self.bloom.get().expect("set above").as_ref())
    }

    /// Reads and decodes the bloom chunk `e`.
    fn read_bloom_chunk(&self, e: &ChunkEntry) -> Result<BloomFilter> {
        let buf = self
            .file()?
            .read_block(e.size as usize, e.offset, None)
            .at(&self.path)?;
        let raw = unframe_block_shared(buf)
            .map_err(|why| Error::corruption(&self.path, e.offset, why))?;
        BloomFilter::decode_shared(raw)
            .ok_or_else(|| Error::corruption(&self.path, e.offset, "malformed bloom chunk"))
    }

    /// Reads the index and the bloom sections, and every bloom chunk (checking their
    /// checksums): the number of data blocks and whether the file has a bloom filter, for the
    /// inspectors and the warmer.
    pub(crate) fn read_sections(&self) -> Result<(usize, bool)> {
        let blocks = self.index()?.len();
        let bloom = self.bloom()?;
        if let Some(FileBloom::Chunked(c)) = bloom {
            c.read_all(|e| self.read_bloom_chunk(e))?;
        }
        Ok((blocks, bloom.is_some()))
    }

    /// Bytes of the index, bloom section and bloom chunks read so far.
    pub(crate) fn loaded_section_bytes(&self) -> u64 {
        let index = self.index.get().map_or(0, |_| self.trailer.index.len);
        let bloom = match self.bloom.get() {
            Some(Some(FileBloom::Chunked(c))) => self.trailer.bloom.len + c.loaded_bytes(),
            Some(_) => self.trailer.bloom.len,
            None => 0,
        };
        index + bloom
    }

    /// The file's trailer (its sections and format version).
    pub(crate) fn trailer(&self) -> &Trailer {
        &self.trailer
    }

    /// False when the bloom filter proves the file holds no bloom key `key` of (`row`,
    /// `qualifier`). A bloom (or a chunk of it) that cannot be read answers "maybe": the read
    /// goes on to the data blocks, which report the error.
    fn bloom_may_contain(&self, key: &[u8], row: &[u8], qualifier: &[u8]) -> bool {
        match self.bloom() {
            Ok(Some(FileBloom::Whole(b))) => b.may_contain(key),
            Ok(Some(FileBloom::Chunked(c))) => {
                c.may_contain(key, row, qualifier, |e| self.read_bloom_chunk(e))
            }
            Ok(None) | Err(_) => true,
        }
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

    /// Number of data blocks (reads the index if it is not loaded yet; 0 if that fails).
    pub fn block_count(&self) -> usize {
        self.index().map_or(0, |i| i.len())
    }

    /// False when the bloom filter proves the file holds no cell of `row`. Always true
    /// without a ROW bloom.
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        self.meta.bloom != BloomType::Row || self.bloom_may_contain(row, row, b"")
    }

    /// False when a ROWCOL bloom proves the file holds no cell of any of `qualifiers` in
    /// `row`, nor a family-level marker (empty qualifier). True without a ROWCOL bloom.
    pub fn may_contain_columns(&self, row: &[u8], qualifiers: &[&[u8]]) -> bool {
        match self.meta.bloom {
            BloomType::RowCol => {
                // Family markers carry the empty qualifier; probe for them only when the file
                // holds any marker at all.
                (self.meta.delete_count > 0
                    && self.bloom_may_contain(&row_col_key(row, b""), row, b""))
                    || qualifiers
                        .iter()
                        .any(|q| self.bloom_may_contain(&row_col_key(row, q), row, q))
            }
            BloomType::Row => self.bloom_may_contain(row, row, b""),
            BloomType::None => true,
        }
    }

    /// The first key of the middle data block: the split point HBase would choose (`None`
    /// also when the index cannot be read).
    pub fn mid_key(&self) -> Option<&CellKey> {
        let index = self.index().ok()?;
        index.get(index.len() / 2).map(|e| &e.first_key)
    }

    /// Block `idx`, from the cache or the file. `readahead`: bytes past the block to request
    /// from the OS along with it when it is not in the page cache.
    /// `reads`: the family's counters, for a read (not a compaction).
    pub(super) fn read_block(
        &self,
        idx: usize,
        mode: CacheMode,
        readahead: u64,
        reads: Option<&FamilyReads>,
    ) -> Result<bytes::Bytes> {
        let e = &self.index()?[idx];
        if mode.use_cache {
            if let Some(b) = self.cache.get(self.id, e.offset) {
                Metrics::add(&self.metrics.data_block_bytes_touched, b.len() as u64);
                if let Some(r) = reads {
                    Metrics::inc(&r.blocks_from_cache);
                }
                crate::read::record_cost(|c| c.blocks_from_cache += 1);
                return Ok(b);
            }
        }
        Metrics::inc(&self.metrics.data_blocks_read);
        if let Some(r) = reads {
            Metrics::inc(&r.blocks_from_disk);
        }
        let file = self.file()?;
        let ahead = || {
            let to = e
                .offset
                .saturating_add(e.size)
                .saturating_add(readahead)
                .min(self.size);
            file.readahead(e.offset, to.saturating_sub(e.offset));
        };
        let on_cold = (readahead > 0).then_some(&ahead as &dyn Fn());
        let buf = file
            .read_block(e.size as usize, e.offset, on_cold)
            .at(&self.path)?;
        let compressed = buf
            .first()
            .is_some_and(|&id| id != crate::compression::Compression::None.id());
        let block = unframe_block_shared(buf)
            .map_err(|why| Error::corruption(&self.path, e.offset, why))?;
        Metrics::add(&self.metrics.data_block_bytes_touched, block.len() as u64);
        crate::read::record_cost(|c| {
            c.blocks_from_disk += 1;
            if compressed {
                c.bytes_decompressed += block.len() as u64;
            }
        });
        if mode.use_cache {
            self.cache
                .insert(self.id, e.offset, block.clone(), mode.priority);
        }
        Ok(block)
    }

    pub(super) fn decode_err(&self, idx: usize, at: usize) -> Error {
        Error::corruption(
            &self.path,
            self.index().map_or(0, |i| i[idx].offset),
            format!("malformed cell at byte {at} of the decompressed data block"),
        )
    }
}

/// Reads and unframes the section `h` of `file` (whose trailer starts at `toff`).
fn read_section(
    file: &dyn ReadableFile,
    path: &Path,
    toff: u64,
    h: SectionHandle,
    what: &str,
) -> Result<Vec<u8>> {
    let buf = read_framed_section(file, path, toff, h, what)?;
    unframe_block(&buf)
        .map_err(|e| Error::corruption(path, h.offset, format!("{what} section: {e}")))
}

/// As [`read_section`], into a shared buffer: a section stored raw is a slice of what was read
/// (no copy; a bloom section is as large as 12.5 MB for 10 M rows).
fn read_section_shared(
    file: &dyn ReadableFile,
    path: &Path,
    toff: u64,
    h: SectionHandle,
    what: &str,
) -> Result<bytes::Bytes> {
    let buf = read_framed_section(file, path, toff, h, what)?;
    crate::block_file::unframe_block_shared(buf)
        .map_err(|e| Error::corruption(path, h.offset, format!("{what} section: {e}")))
}

/// A section's frame as stored, its bounds checked against the trailer's offset `toff`.
fn read_framed_section(
    file: &dyn ReadableFile,
    path: &Path,
    toff: u64,
    h: SectionHandle,
    what: &str,
) -> Result<Vec<u8>> {
    if h.offset.checked_add(h.len).is_none_or(|end| end > toff) || h.len > 1 << 31 {
        return Err(Error::corruption(
            path,
            toff,
            format!("{what} section out of bounds"),
        ));
    }
    let mut buf = vec![0u8; h.len as usize];
    file.read_exact_at(&mut buf, h.offset).at(path)?;
    Ok(buf)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::block_file::FileScanner;
    use crate::block_file::{BlockFileWriter, FileOptions, DEFAULT_BLOOM_CHUNK_BYTES};
    use crate::cell::CellType;
    use crate::cell::KeyValue;
    use crate::compression::Compression;
    use crate::schema::DataBlockEncoding;
    use bytes::Bytes;

    /// Rows drawn from a small alphabet with zero bytes and lengths around 8, where prefix
    /// comparisons are most likely to go wrong.
    pub(crate) fn rows(n: usize, seed: u64) -> Vec<Vec<u8>> {
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
    pub(crate) fn write_and_open(
        path: &Path,
        opts: FileOptions,
        cells: &[KeyValue],
    ) -> Arc<BlockFileReader> {
        let mut w = BlockFileWriter::create(&crate::fs::OsFileSystem, path, opts).unwrap();
        for c in cells {
            w.add(c).unwrap();
        }
        w.finish().unwrap();
        let m = Arc::new(Metrics::default());
        Arc::new(
            BlockFileReader::open(
                &FileHandles::new(crate::fs::os(), 16),
                path,
                1,
                Arc::new(BlockCache::new(1 << 20, m.clone())),
                m,
            )
            .unwrap(),
        )
    }

    /// A bloom in chunks (format 5): the chunks lie among the data blocks, which read as
    /// before; every row and column written is found whichever chunk holds it, absent ones
    /// rarely; a lookup reads one chunk; the inspectors' read checks every chunk, and a damaged
    /// chunk answers "maybe" to lookups (the data blocks report the damage) and fails that read.
    /// A whole-file scan of `reader` (through the cache) returns `cells`, and nothing after.
    fn assert_scans_back(reader: &Arc<BlockFileReader>, cells: &[KeyValue]) {
        let mode = CacheMode {
            use_cache: true,
            priority: Priority::Normal,
            sequential: true,
            seek_readahead: 0,
        };
        let mut s = FileScanner::new(reader.clone(), mode);
        s.seek(&CellKey::first_on_row(b"")).unwrap();
        for c in cells {
            assert_eq!(s.take().unwrap().as_ref(), Some(c));
        }
        assert!(s.peek().is_none());
    }

    #[test]
    fn a_bloom_in_chunks_finds_every_key_and_a_lookup_reads_one_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let mut keys = rows(800, 7);
        keys.sort();
        keys.dedup();
        let cells: Vec<KeyValue> = keys
            .iter()
            .flat_map(|r| {
                (0..3u8).map(move |q| KeyValue {
                    key: CellKey {
                        row: Bytes::from(r.clone()),
                        qualifier: Bytes::from(vec![b'q', q]),
                        timestamp: 5,
                        cell_type: CellType::Put,
                        seq: 1,
                    },
                    value: Bytes::from_static(b"value"),
                    ttl_ms: None,
                })
            })
            .collect();
        for bloom in [BloomType::Row, BloomType::RowCol] {
            let opts = FileOptions {
                family: b"cf".to_vec(),
                block_size: 256,
                compression: Compression::None,
                encoding: DataBlockEncoding::None,
                bloom,
                major_compacted: false,
                bloom_chunk_bytes: 16,
            };
            let path = dir.path().join(format!("{bloom:?}.blk"));
            let reader = write_and_open(&path, opts, &cells);
            assert_eq!(reader.trailer().version, super::super::FORMAT_VERSION);
            assert_scans_back(&reader, &cells);

            let Some(FileBloom::Chunked(chunked)) = reader.bloom().unwrap() else {
                panic!("{bloom:?}: no chunked bloom");
            };
            let chunks = chunked.index().entries().to_vec();
            assert!(chunks.len() > 10, "{bloom:?}: {} chunks", chunks.len());
            let want = if bloom == BloomType::Row {
                keys.len()
            } else {
                cells.len()
            };
            assert_eq!(chunked.index().key_count(), want as u64);
            // Chunks lie before the bloom section, outside every data block.
            let data: Vec<(u64, u64)> = reader
                .index()
                .unwrap()
                .iter()
                .map(|e| (e.offset, e.offset + e.size))
                .collect();
            for c in &chunks {
                assert!(c.offset + c.size <= reader.trailer().bloom.offset);
                assert!(data
                    .iter()
                    .all(|&(a, b)| c.offset + c.size <= a || c.offset >= b));
            }

            let first = &keys[keys.len() / 2];
            assert!(reader.may_contain_columns(first, &[b"q\x01"]));
            // The scan above read the index; the lookup read the bloom section and one chunk.
            let t = reader.trailer();
            let one = reader.loaded_section_bytes() - t.index.len - t.bloom.len;
            assert!(
                chunks.iter().any(|c| c.size == one),
                "read {one} bytes of chunks"
            );
            for r in &keys {
                assert!(reader.may_contain_row(r));
                for q in 0..3u8 {
                    assert!(reader.may_contain_columns(r, &[&[b'q', q]]));
                }
            }
            let absent = rows(2000, 99)
                .into_iter()
                .filter(|r| keys.binary_search(r).is_err())
                .filter(|r| reader.may_contain_columns(r, &[b"q\x01"]))
                .count();
            assert!(absent < 200, "{bloom:?}: {absent} false positives");
            assert!(reader.read_sections().unwrap().1);

            // A damaged chunk: lookups that land in it answer "maybe"; the check reports it.
            let mut bytes = std::fs::read(&path).unwrap();
            let hit = &chunks[chunks.len() / 2];
            bytes[(hit.offset + hit.size / 2) as usize] ^= 0x40;
            let damaged = dir.path().join(format!("{bloom:?}-damaged.blk"));
            std::fs::write(&damaged, &bytes).unwrap();
            let m = Arc::new(Metrics::default());
            let reader = BlockFileReader::open(
                &FileHandles::new(crate::fs::os(), 16),
                &damaged,
                2,
                Arc::new(BlockCache::new(1 << 20, m.clone())),
                m,
            )
            .unwrap();
            let q = if bloom == BloomType::Row {
                &b""[..]
            } else {
                &b"q\x05"[..]
            };
            assert!(reader.bloom_may_contain(b"anything", &hit.first_row, q));
            let err = reader.read_sections().unwrap_err().to_string();
            assert!(err.contains(&hit.offset.to_string()), "{err}");
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
            bloom_chunk_bytes: DEFAULT_BLOOM_CHUNK_BYTES,
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
            .index()
            .unwrap()
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
        assert_scans_back(&reader, &cells);
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
            bloom_chunk_bytes: DEFAULT_BLOOM_CHUNK_BYTES,
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
        let sizes: Vec<u64> = reader.index().unwrap().iter().map(|e| e.size).collect();
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
        assert!(reader
            .index()
            .unwrap()
            .iter()
            .all(|e| e.size > block_size as u64));
    }

    #[test]
    fn the_meta_section_counts_cells_per_column_and_irregular_cells_and_reads_older_files() {
        let dir = tempfile::tempdir().unwrap();
        let opts = || FileOptions {
            family: b"cf".to_vec(),
            block_size: 4096,
            compression: Compression::None,
            encoding: DataBlockEncoding::None,
            bloom: BloomType::None,
            major_compacted: false,
            bloom_chunk_bytes: DEFAULT_BLOOM_CHUNK_BYTES,
        };
        let cell = |row: &str, q: &str, ts: i64, seq: u64, ttl_ms: Option<i64>| KeyValue {
            key: CellKey {
                row: Bytes::copy_from_slice(row.as_bytes()),
                qualifier: Bytes::copy_from_slice(q.as_bytes()),
                timestamp: ts,
                cell_type: CellType::Put,
                seq,
            },
            value: Bytes::from_static(b"v"),
            ttl_ms,
        };
        // Three cells in column a:q (two of one timestamp), one in a:r, one in b:q.
        let cells = [
            cell("a", "q", 30, 3, None),
            cell("a", "q", 20, 5, None),
            cell("a", "q", 20, 4, None),
            cell("a", "r", 10, 1, None),
            cell("b", "q", 10, 2, None),
        ];
        let meta = write_and_open(&dir.path().join("1.blk"), opts(), &cells)
            .meta()
            .clone();
        assert_eq!(meta.max_column_cells, Some(3));
        assert_eq!(meta.irregular_cells, Some(1), "the repeated timestamp");
        let cells = [
            cell("a", "q", 30, 3, Some(1000)),
            cell("b", "q", 10, 2, None),
        ];
        let meta = write_and_open(&dir.path().join("2.blk"), opts(), &cells)
            .meta()
            .clone();
        assert_eq!(meta.max_column_cells, Some(1));
        assert_eq!(meta.irregular_cells, Some(1), "the cell with its own TTL");
        // A meta section written before the two counts: decoded, both unknown.
        let older = FileMeta {
            max_column_cells: None,
            irregular_cells: None,
            ..meta.clone()
        };
        let decoded = FileMeta::decode(&older.encode()).unwrap();
        assert_eq!(
            (decoded.max_column_cells, decoded.irregular_cells),
            (None, None)
        );
        assert_eq!(decoded.cell_count, meta.cell_count);
        let decoded = FileMeta::decode(&meta.encode()).unwrap();
        assert_eq!(decoded.max_column_cells, Some(1));
    }
}
