//! Bloom filters over row keys (ROW) or row+qualifier (ROWCOL), one per block file.
//!
//! Bits are probed with double hashing of one 64-bit xxh3 hash: probe i tests bit
//! `(h1 + i * h2) mod nbits`, where h1 and h2 are the hash's low and high 32 bits. The layout on
//! disk is in `docs/format/block-file.md` (section "Bloom section").

use crate::byte_reader::{put_varint, ByteReader};
use xxhash_rust::xxh3::xxh3_64;

/// Bits per key; 10 gives about 1 % false positives, as HBase's default error rate.
pub const BITS_PER_KEY: usize = 10;

/// Collects key hashes and builds a filter sized for them.
#[derive(Debug, Default)]
pub struct BloomBuilder {
    hashes: Vec<u64>,
}

impl BloomBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder with room for `keys` hashes (capped at 2^26), so a large file's
    /// builder does not grow by doubling: at the last doubling the old and the new buffer
    /// both live, three times the hashes' bytes. Room never touched costs no resident memory.
    pub fn with_capacity(keys: u64) -> Self {
        BloomBuilder {
            hashes: Vec::with_capacity(keys.min(1 << 26) as usize),
        }
    }

    /// Adds a key. Adding the same key twice in a row is deduplicated.
    pub fn add(&mut self, key: &[u8]) {
        let h = xxh3_64(key);
        if self.hashes.last() != Some(&h) {
            self.hashes.push(h);
        }
    }

    /// Number of keys added.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// True when nothing was added.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Encodes the filter: `k:u8 nbits:varint bits`.
    pub fn finish(&self) -> Vec<u8> {
        let nbits = (self.hashes.len() * BITS_PER_KEY).max(64);
        let nbytes = nbits.div_ceil(8);
        let nbits = nbytes * 8;
        let k: u32 = 7; // ln 2 * 10
        let mut bits = vec![0u8; nbytes];
        for &h in &self.hashes {
            for pos in probes(h, k, nbits) {
                bits[pos / 8] |= 1 << (pos % 8);
            }
        }
        let mut out = Vec::with_capacity(nbytes + 8);
        out.push(k as u8);
        put_varint(&mut out, nbits as u64);
        out.extend_from_slice(&bits);
        out
    }
}

fn probes(h: u64, k: u32, nbits: usize) -> impl Iterator<Item = usize> {
    let h1 = h as u32 as u64;
    let h2 = (h >> 32) | 1;
    (0..k as u64).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % nbits as u64) as usize)
}

/// A decoded filter.
#[derive(Debug, Clone)]
pub struct BloomFilter {
    k: u32,
    nbits: usize,
    bits: Vec<u8>,
}

impl BloomFilter {
    /// Decodes a filter written by [`BloomBuilder::finish`]; `None` when malformed.
    pub fn decode(buf: &[u8]) -> Option<BloomFilter> {
        let mut r = ByteReader::new(buf);
        let k = u32::from(r.u8()?);
        let nbits = usize::try_from(r.varint()?).ok()?;
        if k == 0 || k > 30 || nbits == 0 || nbits % 8 != 0 {
            return None;
        }
        let bits = r.bytes(nbits / 8)?.to_vec();
        Some(BloomFilter { k, nbits, bits })
    }

    /// False when `key` was certainly never added.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        let h = xxh3_64(key);
        probes(h, self.k, self.nbits).all(|pos| self.bits[pos / 8] & (1 << (pos % 8)) != 0)
    }
}

/// The ROWCOL bloom key of (row, qualifier): `row_len:u32be row qualifier`.
pub fn row_col_key(row: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + row.len() + qualifier.len());
    row_col_key_into(&mut k, row, qualifier);
    k
}

/// Appends the ROWCOL bloom key of (`row`, `qualifier`) to `out`.
pub fn row_col_key_into(out: &mut Vec<u8>, row: &[u8], qualifier: &[u8]) {
    out.extend_from_slice(&(row.len() as u32).to_be_bytes());
    out.extend_from_slice(row);
    out.extend_from_slice(qualifier);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_keys_are_found_and_false_positives_are_rare() {
        let mut b = BloomBuilder::new();
        for i in 0..10_000u32 {
            b.add(format!("row{i}").as_bytes());
        }
        let f = BloomFilter::decode(&b.finish()).unwrap();
        for i in 0..10_000u32 {
            assert!(f.may_contain(format!("row{i}").as_bytes()));
        }
        let fp = (0..10_000u32)
            .filter(|i| f.may_contain(format!("absent{i}").as_bytes()))
            .count();
        assert!(fp < 300, "false positives: {fp}");
    }

    #[test]
    fn malformed_filters_decode_to_none() {
        assert!(BloomFilter::decode(&[]).is_none());
        assert!(BloomFilter::decode(&[7, 64]).is_none());
        assert!(BloomFilter::decode(&[0, 64, 0, 0, 0, 0, 0, 0, 0, 0]).is_none());
    }
}
