//! Writes a block file from cells given in key order.

use super::aligned_output::AlignedOutput;
use super::{
    encode_key, frame_block, BlockBuilder, CompressionProbe, FileMeta, SectionHandle, Trailer,
    FRAME_BYTES,
};
use crate::bloom::row_col_key_into;
use crate::byte_reader::put_varint;
use crate::cell::{KeyValue, KeyValueRef};
use crate::compound_bloom::{ChunkedBloomBuilder, PendingChunk, DEFAULT_CHUNK_BYTES};
use crate::compression::Compression;
use crate::error::{IoContext, Result};
use crate::fs::FileSystem;
use crate::schema::{BloomType, ColumnFamilyDescriptor, DataBlockEncoding};
use std::path::{Path, PathBuf};

/// How a file is written; taken from the family's attributes.
#[derive(Debug, Clone)]
pub struct FileOptions {
    /// The family name stored in the file's meta section.
    pub family: Vec<u8>,
    /// Target raw size of a data block in bytes (the family's BLOCKSIZE).
    pub block_size: usize,
    /// Data block codec.
    pub compression: Compression,
    /// Data block key encoding.
    pub encoding: DataBlockEncoding,
    /// Bloom filter kind.
    pub bloom: BloomType,
    /// Marks the output of a major compaction.
    pub major_compacted: bool,
    /// Bytes of bits in a full bloom chunk ([`DEFAULT_CHUNK_BYTES`]; tests use small ones).
    pub bloom_chunk_bytes: usize,
}

impl FileOptions {
    /// Options for a file of `family` as its attributes say; `major_compacted` marks the output
    /// of a major compaction.
    pub fn of_family(family: &ColumnFamilyDescriptor, major_compacted: bool) -> FileOptions {
        FileOptions {
            family: family.name.to_vec(),
            block_size: family.block_size as usize,
            compression: family.compression,
            encoding: family.data_block_encoding,
            bloom: family.bloom_filter,
            major_compacted,
            bloom_chunk_bytes: DEFAULT_CHUNK_BYTES,
        }
    }
}

/// Streams cells into a new block file. Not thread-safe; one writer per file.
pub struct BlockFileWriter {
    path: PathBuf,
    out: AlignedOutput,
    offset: u64,
    opts: FileOptions,
    block: BlockBuilder,
    block_first: Option<crate::cell::CellKey>,
    index: Vec<u8>,
    index_count: u64,
    /// The bloom filter's chunks: full ones are written among the data blocks as they fill.
    bloom: ChunkedBloomBuilder,
    /// The bloom key of the last cell added (reused buffer: no allocation per cell).
    last_bloom_key: Vec<u8>,
    bloom_key: Vec<u8>,
    /// The last cell's key, held as copies in reused buffers rather than a clone per cell
    /// (which would share or promote the cell's buffers); becomes `meta.last_key` at `finish`.
    last_row: Vec<u8>,
    last_qualifier: Vec<u8>,
    last_rest: Option<(i64, crate::cell::CellType, u64)>,
    meta: FileMeta,
    /// Cells of the current column (row and qualifier) so far.
    column_cells: u64,
    /// Whether the next data block is tried with the codec (incompressible data is probed).
    probe: CompressionProbe,
}

impl BlockFileWriter {
    /// Creates (truncating) the file at `path` in `fs`.
    pub fn create(fs: &dyn FileSystem, path: &Path, opts: FileOptions) -> Result<Self> {
        let file = fs.create(path).at(path)?;
        Ok(BlockFileWriter {
            path: path.to_path_buf(),
            out: AlignedOutput::new(file),
            offset: 0,
            block: BlockBuilder::new(opts.encoding),
            block_first: None,
            index: Vec::new(),
            index_count: 0,
            bloom: ChunkedBloomBuilder::new(if opts.bloom == BloomType::None {
                0
            } else {
                opts.bloom_chunk_bytes
            }),
            last_bloom_key: Vec::new(),
            bloom_key: Vec::new(),
            last_row: Vec::new(),
            last_qualifier: Vec::new(),
            last_rest: None,
            probe: CompressionProbe::default(),
            meta: FileMeta {
                family: opts.family.clone(),
                cell_count: 0,
                delete_count: 0,
                min_ts: i64::MAX,
                max_ts: i64::MIN,
                max_seq: 0,
                first_key: None,
                last_key: None,
                bloom: opts.bloom,
                major_compacted: opts.major_compacted,
                raw_data_bytes: 0,
                max_column_cells: Some(0),
                irregular_cells: Some(0),
            },
            column_cells: 0,
            opts,
        })
    }

    /// Appends a cell. Cells must arrive in strictly increasing key order.
    pub fn add(&mut self, kv: &KeyValue) -> Result<()> {
        self.add_view(kv.as_view())
    }

    /// [`BlockFileWriter::add`] of a cell seen in place (a flush writes its memstore's nodes
    /// without copying each cell out first).
    pub fn add_view(&mut self, kv: KeyValueRef<'_>) -> Result<()> {
        debug_assert!(self
            .last_key()
            .is_none_or(|l| kv.cmp_cell_key(&l) == std::cmp::Ordering::Greater));
        if self.ends_block_before(kv) {
            self.finish_block()?;
        }
        if self.block_first.is_none() {
            self.block_first = Some(kv.to_key());
        }
        self.block.add_view(kv);
        if self.opts.bloom != BloomType::None {
            // The bloom key, and the qualifier its chunk index orders it by.
            let (key, qualifier): (&[u8], &[u8]) = if self.opts.bloom == BloomType::Row {
                (kv.row, b"")
            } else {
                self.bloom_key.clear();
                row_col_key_into(&mut self.bloom_key, kv.row, kv.qualifier);
                (&self.bloom_key, kv.qualifier)
            };
            // The first cell's key is added even when empty (an empty row equals the empty buffer).
            if self.meta.cell_count == 0 || key != self.last_bloom_key.as_slice() {
                let full = self.bloom.add(key, kv.row, qualifier);
                self.last_bloom_key.clear();
                self.last_bloom_key.extend_from_slice(key);
                if let Some(chunk) = full {
                    self.write_bloom_chunk(chunk)?;
                }
            }
        }
        let m = &mut self.meta;
        m.cell_count += 1;
        if kv.cell_type.is_delete() {
            m.delete_count += 1;
        }
        m.min_ts = m.min_ts.min(kv.timestamp);
        m.max_ts = m.max_ts.max(kv.timestamp);
        m.max_seq = m.max_seq.max(kv.seq);
        if m.first_key.is_none() {
            m.first_key = Some(kv.to_key());
        }
        let same_column = self.last_rest.is_some()
            && kv.row == &self.last_row[..]
            && kv.qualifier == &self.last_qualifier[..];
        let same_timestamp =
            same_column && self.last_rest.is_some_and(|(ts, _, _)| ts == kv.timestamp);
        self.column_cells = if same_column {
            self.column_cells + 1
        } else {
            1
        };
        m.max_column_cells = m.max_column_cells.max(Some(self.column_cells));
        if kv.ttl_ms.is_some() || same_timestamp {
            m.irregular_cells = Some(m.irregular_cells.unwrap_or(0) + 1);
        }
        self.last_row.clear();
        self.last_row.extend_from_slice(kv.row);
        self.last_qualifier.clear();
        self.last_qualifier.extend_from_slice(kv.qualifier);
        self.last_rest = Some((kv.timestamp, kv.cell_type, kv.seq));
        if self.block.size() >= self.opts.block_size {
            self.finish_block()?;
        }
        Ok(())
    }

    /// Whether the current block is closed before `kv`: it is at least seven eighths full and
    /// `kv` would take its framed size past BLOCKSIZE (RocksDB's `block_size_deviation` rule).
    /// Blocks then stay within BLOCKSIZE, so a cached 64 KiB block fills a 64 KiB allocation
    /// rather than spilling into the next size class (6 % more memory under mimalloc). A block
    /// less full than that still takes the cell and closes once it reaches BLOCKSIZE, as in
    /// HBase.
    fn ends_block_before(&self, kv: KeyValueRef<'_>) -> bool {
        let size = self.block.size();
        !self.block.is_empty()
            && size >= self.opts.block_size / 8 * 7
            && self.block.size_with(kv) + FRAME_BYTES > self.opts.block_size
    }

    fn finish_block(&mut self) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let raw = self.block.take();
        self.meta.raw_data_bytes += raw.len() as u64;
        let codec = self.opts.compression;
        let tried = codec != Compression::None && self.probe.should_try();
        let framed = frame_block(&raw, if tried { codec } else { Compression::None });
        if tried {
            self.probe.record(framed[0] == codec.id());
        }
        let first = self
            .block_first
            .take()
            .expect("a non-empty block has a first key");
        put_varint(&mut self.index, self.offset);
        put_varint(&mut self.index, framed.len() as u64);
        encode_key(&mut self.index, &first);
        self.index_count += 1;
        self.write(&framed)
    }

    /// Writes a bloom chunk where the file has got to (among the data blocks; the block being
    /// built is written after it) and records it in the bloom's index.
    fn write_bloom_chunk(&mut self, mut chunk: PendingChunk) -> Result<()> {
        let offset = self.offset;
        let (head, bits) = chunk.builder.finish_parts();
        let size = self.write_frame_parts(&[&head, bits])?;
        self.bloom.record(&chunk, offset, size as u64);
        Ok(())
    }

    /// Writes a frame of raw (uncompressed) content made of `parts`, as [`frame_block`] frames
    /// their concatenation, without concatenating them; returns the frame's length.
    fn write_frame_parts(&mut self, parts: &[&[u8]]) -> Result<usize> {
        let raw_len: usize = parts.iter().map(|p| p.len()).sum();
        let mut head = [0u8; 5];
        head[0] = Compression::None.id();
        head[1..].copy_from_slice(&(raw_len as u32).to_be_bytes());
        let mut all = vec![&head[..]];
        all.extend_from_slice(parts);
        let crc = crate::checksum::masked_crc_parts(&all);
        for p in all {
            self.write(p)?;
        }
        self.write(&crc.to_be_bytes())?;
        Ok(head.len() + raw_len + 4)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes).at(&self.path)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// The key of the last cell added.
    fn last_key(&self) -> Option<crate::cell::CellKey> {
        let (timestamp, cell_type, seq) = self.last_rest?;
        Some(crate::cell::CellKey {
            row: bytes::Bytes::copy_from_slice(&self.last_row),
            qualifier: bytes::Bytes::copy_from_slice(&self.last_qualifier),
            timestamp,
            cell_type,
            seq,
        })
    }

    /// Cells added so far.
    pub fn cell_count(&self) -> u64 {
        self.meta.cell_count
    }

    /// Bytes written so far (data blocks and bloom chunks, until `finish`).
    pub fn bytes_written(&self) -> u64 {
        self.offset
    }

    /// Writes the bloom, index and meta sections and the trailer, then fsyncs the file.
    /// Returns the file's metadata and its total size.
    pub fn finish(mut self) -> Result<(FileMeta, u64)> {
        self.finish_block()?;
        self.meta.last_key = self.last_key();
        if let Some(last) = self.bloom.finish() {
            self.write_bloom_chunk(last)?;
        }
        let bloom_off = self.offset;
        let bloom_index = if self.opts.bloom == BloomType::None {
            Vec::new()
        } else {
            self.bloom.encode_index()
        };
        let bloom_len = self.write_frame_parts(&[&bloom_index])?;
        let index_off = self.offset;
        let mut index_raw = Vec::new();
        put_varint(&mut index_raw, self.index_count);
        index_raw.extend_from_slice(&self.index);
        let index = frame_block(&index_raw, Compression::None);
        self.write(&index)?;
        let meta_off = self.offset;
        let meta = frame_block(&self.meta.encode(), Compression::None);
        self.write(&meta)?;
        let handle = |offset, len: usize| SectionHandle {
            offset,
            len: len as u64,
        };
        let trailer = Trailer::new(
            handle(bloom_off, bloom_len),
            handle(index_off, index.len()),
            handle(meta_off, meta.len()),
        )
        .encode();
        self.write(&trailer)?;
        let file = self.out.finish().at(&self.path)?;
        file.sync_all().synced(&self.path)?;
        Ok((self.meta, self.offset))
    }
}
