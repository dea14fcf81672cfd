//! The block index ("Index section" of `docs/format/block-file.md`): one entry per data block
//! with its offset, size and first key, decoded from the file and searched by seeks through a
//! two-level array of 16-byte row prefixes.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::decode_key;
use crate::byte_reader::ByteReader;
use crate::cell::CellKey;

/// One block index entry ("Index section"): where a data block lies and its first key.
#[derive(Debug, Clone)]
pub struct IndexEntry {
    /// Offset of the framed data block from the start of the file, in bytes.
    pub offset: u64,
    /// Length of the framed data block, in bytes (at most 2 GiB).
    pub size: u64,
    /// The key of the block's first cell.
    pub first_key: CellKey,
}

/// The fewest bytes an encoded index entry takes: one-byte offset, size, row and qualifier
/// lengths, the 8-byte timestamp, the type and a one-byte sequence id.
const MIN_INDEX_ENTRY: usize = 14;

/// Decodes an index section's raw (unframed) bytes. `Err` describes what is wrong; never
/// panics, and allocates in proportion to `raw`, whatever count it declares.
pub fn decode_index(raw: &[u8]) -> Result<Vec<IndexEntry>, String> {
    let mut r = ByteReader::new(raw);
    let n = r.varint().ok_or("truncated index count")?;
    let mut out = Vec::with_capacity(index_capacity(n, r.remaining()));
    for i in 0..n {
        let offset = r
            .varint()
            .ok_or_else(|| format!("truncated index entry {i}"))?;
        let size = r
            .varint()
            .ok_or_else(|| format!("truncated index entry {i}"))?;
        let first_key = decode_key(&mut r).ok_or_else(|| format!("truncated index key {i}"))?;
        if size > 1 << 31 {
            return Err(format!("index entry {i} has implausible size {size}"));
        }
        out.push(IndexEntry {
            offset,
            size,
            first_key,
        });
    }
    Ok(out)
}

/// Entries to reserve for an index declaring `count` entries in `remaining` bytes: no more
/// than those bytes can hold (a 3-byte section declaring a million entries reserved 100 MiB).
fn index_capacity(count: u64, remaining: usize) -> usize {
    usize::try_from(count)
        .map_or(usize::MAX, |c| c)
        .min(remaining / MIN_INDEX_ENTRY)
}

/// A file's decoded block index with the prefix arrays its searches probe. Dereferences to the
/// entries in file order.
#[derive(Debug, Default)]
pub struct BlockIndex {
    entries: Vec<IndexEntry>,
    /// `row_prefix` of each entry's first key, in index order: a dense array the binary search
    /// of a seek probes before it compares whole keys.
    prefixes: Vec<u128>,
    /// Every `TOP_STRIDE`-th entry of `prefixes`: a small array that stays in the CPU cache, so
    /// a seek's search touches a few cache lines instead of one per halving of a large index (a
    /// fifth of a Get that reads a block was spent in those misses).
    top: Vec<u128>,
}

impl std::ops::Deref for BlockIndex {
    type Target = [IndexEntry];

    fn deref(&self) -> &[IndexEntry] {
        &self.entries
    }
}

impl BlockIndex {
    /// The index of `entries` (in file order, first keys ascending).
    pub fn new(entries: Vec<IndexEntry>) -> BlockIndex {
        let prefixes: Vec<u128> = entries
            .iter()
            .map(|e| row_prefix(&e.first_key.row))
            .collect();
        let top = prefixes.iter().step_by(TOP_STRIDE).copied().collect();
        BlockIndex {
            entries,
            prefixes,
            top,
        }
    }

    /// The number of index entries whose first key satisfies `before`, a predicate true for a
    /// prefix of the index (`first_key <= key` or `first_key < key`). Entries whose row prefix
    /// differs from the key's are decided by the prefix array alone; whole keys are compared
    /// only among entries sharing it.
    pub(crate) fn partition(&self, key: &CellKey, before: impl Fn(&CellKey) -> bool) -> usize {
        let p = row_prefix(&key.row);
        let lo = self.first_prefix_at_least(p);
        // Entries sharing the prefix are few (a row, or rows alike in 16 bytes, spread over
        // blocks): step over them, and search only past a long run.
        let prefixes = &self.prefixes;
        let mut hi = lo;
        while prefixes.get(hi) == Some(&p) && hi - lo < 8 {
            hi += 1;
        }
        if hi - lo == 8 {
            hi += prefixes
                .get(hi..)
                .map_or(0, |rest| rest.partition_point(|&e| e == p));
        }
        lo + self
            .entries
            .get(lo..hi)
            .map_or(0, |run| run.partition_point(|e| before(&e.first_key)))
    }

    /// The number of index entries whose prefix is below `p`: the top array, then one stride.
    fn first_prefix_at_least(&self, p: u128) -> usize {
        let t = self.top.partition_point(|&e| e < p);
        if t == 0 {
            return 0;
        }
        // index_prefixes[(t - 1) * TOP_STRIDE] < p, and index_prefixes[t * TOP_STRIDE] >= p
        // when it exists: the answer lies between.
        let from = (t - 1) * TOP_STRIDE + 1;
        let to = (t * TOP_STRIDE).min(self.prefixes.len());
        from + self
            .prefixes
            .get(from..to)
            .map_or(0, |stride| stride.partition_point(|&e| e < p))
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
    for (to, from) in b.iter_mut().zip(row) {
        *to = *from;
    }
    u128::from_be_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_file::encode_key;
    use crate::block_file::reader::tests::rows;
    use crate::byte_reader::put_varint;
    use crate::cell::CellType;

    #[test]
    fn index_decoding_reserves_only_what_its_bytes_can_hold() {
        // A million entries declared in three bytes.
        let mut raw = Vec::new();
        put_varint(&mut raw, 1 << 20);
        assert_eq!(index_capacity(1 << 20, 0), 0);
        assert!(decode_index(&raw).is_err());
        assert_eq!(index_capacity(u64::MAX, 140), 10);
        assert_eq!(index_capacity(3, 1 << 20), 3);
        let k = CellKey {
            row: bytes::Bytes::from_static(b"r"),
            qualifier: bytes::Bytes::new(),
            timestamp: 5,
            cell_type: CellType::Put,
            seq: 0,
        };
        let mut entry = Vec::new();
        put_varint(&mut entry, 0);
        put_varint(&mut entry, 0);
        encode_key(&mut entry, &k);
        assert_eq!(
            entry.len(),
            MIN_INDEX_ENTRY + 1,
            "one row byte past the minimum"
        );
        let mut raw = Vec::new();
        put_varint(&mut raw, 2);
        raw.extend_from_slice(&entry);
        raw.extend_from_slice(&entry);
        let index = decode_index(&raw).unwrap();
        assert_eq!(index.len(), 2);
        assert_eq!(index[1].first_key, k);
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
}
