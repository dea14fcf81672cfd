//! A block file's bloom filter in chunks (HBase's compound bloom filter; block file format 5).
//!
//! The writer closes a chunk once it holds its most keys and writes it among the data blocks
//! at once, so a file of any size is built in one chunk's memory: a single filter sized for a
//! compaction of 50 M rows held 62 MB of bits until the file's end. The bloom section is then
//! an index of the chunks (where each lies, how many keys it holds, its first key), and a
//! reader reads a chunk when a lookup first needs it. Each chunk is a whole filter of
//! [`crate::bloom`]'s layout, so it is probed as one. Layout: `docs/format/block-file.md`,
//! "Bloom section".

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::bloom::{BloomBuilder, BloomFilter, BITS_PER_KEY};
use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use bytes::Bytes;
use std::sync::OnceLock;

/// Bytes of bits in a full chunk: 64 KiB, 52,428 keys at 10 bits a key, one data block's size
/// (HBase's `io.storefile.bloom.block.size` is 128 KiB). A lookup reads one chunk, so a small
/// chunk is a short first read; the index holds one entry per chunk.
pub const DEFAULT_CHUNK_BYTES: usize = 64 << 10;

/// Where a chunk lies and which keys it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkEntry {
    /// Offset of the chunk's frame in the file.
    pub offset: u64,
    /// Length of the chunk's frame.
    pub size: u64,
    /// Distinct keys added to the chunk.
    pub keys: u64,
    /// Row of the chunk's first key; the chunk holds the keys from its first one up to the
    /// next chunk's first.
    pub first_row: Bytes,
    /// Qualifier of the chunk's first key (empty in a ROW bloom).
    pub first_qualifier: Bytes,
}

impl ChunkEntry {
    fn first(&self) -> (&[u8], &[u8]) {
        (&self.first_row, &self.first_qualifier)
    }
}

/// A file's decoded bloom section of format 5: its chunks in key order.
#[derive(Debug, Clone, Default)]
pub struct ChunkIndex {
    chunks: Vec<ChunkEntry>,
    keys: u64,
}

impl ChunkIndex {
    /// Decodes `count:varint entry*`, `entry := offset:varint size:varint keys:varint
    /// row:lp qualifier:lp`; `None` when malformed (truncated, trailing bytes, first keys not
    /// strictly ascending, a chunk of no keys, key counts that overflow).
    pub fn decode(buf: &[u8]) -> Option<ChunkIndex> {
        let mut r = ByteReader::new(buf);
        let count = r.varint()?;
        // An entry takes at least five bytes: no more room than the section can hold.
        let room = usize::try_from(count).ok()?.min(r.remaining() / 5);
        let mut chunks: Vec<ChunkEntry> = Vec::with_capacity(room);
        let mut keys = 0u64;
        for _ in 0..count {
            let entry = ChunkEntry {
                offset: r.varint()?,
                size: r.varint()?,
                keys: r.varint()?,
                first_row: Bytes::copy_from_slice(r.len_prefixed()?),
                first_qualifier: Bytes::copy_from_slice(r.len_prefixed()?),
            };
            if entry.keys == 0 || chunks.last().is_some_and(|p| p.first() >= entry.first()) {
                return None;
            }
            keys = keys.checked_add(entry.keys)?;
            chunks.push(entry);
        }
        r.is_empty().then_some(ChunkIndex { chunks, keys })
    }

    /// The chunks, in key order.
    pub fn entries(&self) -> &[ChunkEntry] {
        &self.chunks
    }

    /// Distinct keys in all chunks.
    pub fn key_count(&self) -> u64 {
        self.keys
    }

    /// The chunk that holds (`row`, `qualifier`) if the file does: the last one whose first key
    /// is at or before it. `None` before the first chunk's first key.
    pub fn find(&self, row: &[u8], qualifier: &[u8]) -> Option<usize> {
        self.chunks
            .partition_point(|c| c.first() <= (row, qualifier))
            .checked_sub(1)
    }
}

/// A format-5 bloom ready for lookups: the chunk index, and each chunk once read.
#[derive(Debug)]
pub struct ChunkedBloom {
    index: ChunkIndex,
    chunks: Box<[OnceLock<BloomFilter>]>,
}

impl ChunkedBloom {
    /// A bloom whose chunks are read on first use.
    pub fn new(index: ChunkIndex) -> ChunkedBloom {
        let chunks = (0..index.chunks.len()).map(|_| OnceLock::new()).collect();
        ChunkedBloom { index, chunks }
    }

    /// The chunk index.
    #[cfg(test)]
    pub fn index(&self) -> &ChunkIndex {
        &self.index
    }

    /// False when the file certainly holds no bloom key `key` of (`row`, `qualifier`).
    /// `read` reads and decodes a chunk on its first use; a chunk it cannot read answers
    /// "maybe", and is tried again by the next lookup.
    pub fn may_contain<E>(
        &self,
        key: &[u8],
        row: &[u8],
        qualifier: &[u8],
        read: impl FnOnce(&ChunkEntry) -> Result<BloomFilter, E>,
    ) -> bool {
        let Some(i) = self.index.find(row, qualifier) else {
            return false;
        };
        match (self.chunks.get(i), self.index.chunks.get(i)) {
            (Some(slot), Some(entry)) => {
                Self::chunk(slot, entry, read).map_or(true, |f| f.may_contain(key))
            }
            _ => true,
        }
    }

    /// Reads every chunk not read yet through `read`; the first failure ends it.
    pub fn read_all<E>(
        &self,
        read: impl Fn(&ChunkEntry) -> Result<BloomFilter, E>,
    ) -> Result<(), E> {
        for (slot, entry) in self.chunks.iter().zip(&self.index.chunks) {
            Self::chunk(slot, entry, &read)?;
        }
        Ok(())
    }

    /// The chunk in `slot`, read through `read` if it was not yet.
    fn chunk<'s, E>(
        slot: &'s OnceLock<BloomFilter>,
        entry: &ChunkEntry,
        read: impl FnOnce(&ChunkEntry) -> Result<BloomFilter, E>,
    ) -> Result<&'s BloomFilter, E> {
        if let Some(f) = slot.get() {
            return Ok(f);
        }
        // Two lookups may read the same chunk at once; both read the same bytes.
        let f = read(entry)?;
        Ok(slot.get_or_init(|| f))
    }

    /// Bytes of the chunks read so far.
    pub fn loaded_bytes(&self) -> u64 {
        let sizes = self.index.chunks.iter().map(|e| e.size);
        self.chunks
            .iter()
            .zip(sizes)
            .filter_map(|(slot, size)| slot.get().map(|_| size))
            .sum()
    }
}

/// A full chunk, or the last one, for the file writer to write: its builder and first key.
#[derive(Debug)]
pub struct PendingChunk {
    /// The chunk's filter; `finish_parts` encodes it.
    pub builder: BloomBuilder,
    first_row: Vec<u8>,
    first_qualifier: Vec<u8>,
}

/// Builds a file's bloom chunk by chunk as its keys arrive in key order.
#[derive(Debug)]
pub struct ChunkedBloomBuilder {
    /// Keys a chunk holds at most.
    chunk_keys: usize,
    /// The chunk keys go to; none before the first key and after a full one was handed out
    /// (a file of a family without a bloom filter never allocates one).
    current: Option<PendingChunk>,
    /// The encoded entries written so far (`ChunkIndex::decode`'s entries).
    index: Vec<u8>,
    count: u64,
}

impl ChunkedBloomBuilder {
    /// A builder of chunks of `chunk_bytes` bytes of bits (at least 8).
    pub fn new(chunk_bytes: usize) -> ChunkedBloomBuilder {
        let chunk_keys = (chunk_bytes.max(8) * 8 / BITS_PER_KEY).max(1);
        ChunkedBloomBuilder {
            chunk_keys,
            current: None,
            index: Vec::new(),
            count: 0,
        }
    }

    /// Adds bloom key `key` of (`row`, `qualifier`), which sorts after every key added before
    /// (the caller adds each distinct key once). Returns the chunk `key` did not fit in, full,
    /// for the caller to write and then [`record`](Self::record).
    pub fn add(&mut self, key: &[u8], row: &[u8], qualifier: &[u8]) -> Option<PendingChunk> {
        let full = self
            .current
            .take_if(|c| c.builder.key_count() >= self.chunk_keys);
        let current = self.current.get_or_insert_with(|| PendingChunk {
            builder: BloomBuilder::with_capacity(self.chunk_keys),
            first_row: row.to_vec(),
            first_qualifier: qualifier.to_vec(),
        });
        current.builder.add(key);
        full
    }

    /// The last chunk, if it holds any key.
    pub fn finish(&mut self) -> Option<PendingChunk> {
        self.current.take()
    }

    /// Records `chunk`, written at `offset` in a frame of `size` bytes, in the index.
    pub fn record(&mut self, chunk: &PendingChunk, offset: u64, size: u64) {
        put_varint(&mut self.index, offset);
        put_varint(&mut self.index, size);
        put_varint(&mut self.index, chunk.builder.key_count() as u64);
        put_len_prefixed(&mut self.index, &chunk.first_row);
        put_len_prefixed(&mut self.index, &chunk.first_qualifier);
        self.count += 1;
    }

    /// The bloom section's payload: the index of the chunks recorded.
    pub fn encode_index(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.index.len() + 10);
        put_varint(&mut out, self.count);
        out.extend_from_slice(&self.index);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::row_col_key;

    /// Builds chunks of `chunk_bytes` from (row, qualifier) keys in order, "writing" each
    /// chunk to a vector; returns the index and the chunks by offset.
    fn build(
        chunk_bytes: usize,
        keys: &[(Vec<u8>, Vec<u8>)],
        row_col: bool,
    ) -> (ChunkIndex, Vec<Vec<u8>>) {
        let mut b = ChunkedBloomBuilder::new(chunk_bytes);
        let mut written: Vec<Vec<u8>> = Vec::new();
        let mut write = |b: &mut ChunkedBloomBuilder, mut c: PendingChunk| {
            let (head, bits) = c.builder.finish_parts();
            let framed = [&head[..], bits].concat();
            b.record(&c, written.len() as u64, framed.len() as u64);
            written.push(framed);
        };
        for (row, q) in keys {
            let key = if row_col {
                row_col_key(row, q)
            } else {
                row.clone()
            };
            if let Some(full) = b.add(&key, row, q) {
                write(&mut b, full);
            }
        }
        if let Some(last) = b.finish() {
            write(&mut b, last);
        }
        (ChunkIndex::decode(&b.encode_index()).unwrap(), written)
    }

    fn lookup(index: &ChunkIndex, chunks: &[Vec<u8>], row: &[u8], q: &[u8], rc: bool) -> bool {
        let bloom = ChunkedBloom::new(index.clone());
        let key = if rc {
            row_col_key(row, q)
        } else {
            row.to_vec()
        };
        bloom.may_contain(&key, row, q, |e| {
            BloomFilter::decode(&chunks[e.offset as usize]).ok_or(())
        })
    }

    /// Rows of varied lengths (so the ROWCOL key's length prefix does not sort as the rows do)
    /// with a few qualifiers each, in key order.
    fn keys(rows: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut rows: Vec<Vec<u8>> = (0..rows)
            .map(|i| format!("r{}{}", i % 7, "x".repeat((i % 5) as usize)) + &i.to_string())
            .map(String::into_bytes)
            .collect();
        rows.sort();
        rows.dedup();
        let mut out = Vec::new();
        for r in rows {
            for q in [&b""[..], b"a", b"bb"] {
                out.push((r.clone(), q.to_vec()));
            }
        }
        out
    }

    #[test]
    fn every_key_is_found_across_chunk_boundaries_and_absent_keys_rarely() {
        let all = keys(3_000);
        for row_col in [false, true] {
            let keys: Vec<_> = if row_col {
                all.clone()
            } else {
                let mut rows: Vec<_> = all.iter().map(|(r, _)| (r.clone(), Vec::new())).collect();
                rows.dedup();
                rows
            };
            let (index, chunks) = build(64, &keys, row_col);
            assert!(index.entries().len() > 20, "{}", index.entries().len());
            assert_eq!(index.key_count(), keys.len() as u64);
            for (r, q) in &keys {
                assert!(lookup(&index, &chunks, r, q, row_col), "{r:?} {q:?}");
            }
            let fp = (0..3_000u32)
                .filter(|i| {
                    let row = format!("r{}absent{i}", i % 7).into_bytes();
                    lookup(&index, &chunks, &row, b"a", row_col)
                })
                .count();
            assert!(fp < 150, "row_col {row_col}: {fp} false positives of 3000");
            // Before the first key: nothing.
            assert!(!lookup(&index, &chunks, b"a", b"", row_col));
        }
    }

    #[test]
    fn the_last_chunk_is_folded_to_its_keys() {
        let keys = keys(10);
        let (index, chunks) = build(DEFAULT_CHUNK_BYTES, &keys, true);
        assert_eq!(index.entries().len(), 1);
        assert!(chunks[0].len() < 100, "{}", chunks[0].len());
    }

    #[test]
    fn a_chunk_that_cannot_be_read_answers_maybe_and_is_tried_again() {
        let keys = keys(100);
        let (index, chunks) = build(16, &keys, false);
        let bloom = ChunkedBloom::new(index);
        let (row, _) = &keys[50];
        assert!(bloom.may_contain(row, row, b"", |_| Err(())));
        assert_eq!(bloom.loaded_bytes(), 0);
        assert!(bloom.may_contain(row, row, b"", |e| {
            BloomFilter::decode(&chunks[e.offset as usize]).ok_or(())
        }));
        assert!(bloom.loaded_bytes() > 0);
    }

    #[test]
    fn malformed_indexes_decode_to_none() {
        let entry = |out: &mut Vec<u8>, row: &[u8], keys: u64| {
            put_varint(out, 0);
            put_varint(out, 10);
            put_varint(out, keys);
            put_len_prefixed(out, row);
            put_len_prefixed(out, b"");
        };
        let mut good = vec![2];
        entry(&mut good, b"a", 3);
        entry(&mut good, b"b", 4);
        assert_eq!(ChunkIndex::decode(&good).unwrap().key_count(), 7);
        assert!(ChunkIndex::decode(&good[..good.len() - 1]).is_none());
        assert!(ChunkIndex::decode(&[&good[..], &[0]].concat()).is_none());
        let mut unsorted = vec![2];
        entry(&mut unsorted, b"b", 3);
        entry(&mut unsorted, b"a", 4);
        assert!(ChunkIndex::decode(&unsorted).is_none());
        let mut empty_chunk = vec![1];
        entry(&mut empty_chunk, b"a", 0);
        assert!(ChunkIndex::decode(&empty_chunk).is_none());
        let mut overflow = vec![2];
        entry(&mut overflow, b"a", u64::MAX);
        entry(&mut overflow, b"b", 1);
        assert!(ChunkIndex::decode(&overflow).is_none());
        // A count far past the bytes allocates nothing up front.
        assert!(ChunkIndex::decode(&[0xff, 0xff, 0xff, 0xff, 0x0f]).is_none());
    }
}
