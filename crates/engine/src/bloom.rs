//! Bloom filters over row keys (ROW) or row+qualifier (ROWCOL), one per block file.
//!
//! Bits are probed with double hashing of one 64-bit xxh3 hash: probe i tests bit
//! `(h1 + i * h2) mod nbits`, where h1 and h2 are the hash's low and high 32 bits. The layout on
//! disk is in `docs/format/block-file.md` (section "Bloom section").

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::{put_varint, ByteReader};
use xxhash_rust::xxh3::xxh3_64;

/// Bits per key; 10 gives about 1 % false positives, as HBase's default error rate.
pub const BITS_PER_KEY: usize = 10;

/// Probes per key; ln 2 × 10 bits per key.
const PROBES: u32 = 7;

/// The bit array of a builder that knows its most keys is sized in multiples of this many
/// bits (8 KiB), so it can be folded in half many times over.
const GRANULE_BITS: usize = 1 << 16;

/// The most keys a builder sizes its bit array for (2^28 keys: 320 MiB of bits); a larger
/// capacity is clamped to it (more keys are still found, at a higher false-positive rate).
const MAX_SIZED_KEYS: usize = 1 << 28;

/// Builds a filter. Told the most keys it will hold (`with_capacity`: a bloom chunk's), it sets
/// bits as keys arrive in an array sized for that many, and at the end folds the array in half
/// (OR of its halves) while the keys actually added still get their 10 bits each, as HBase's
/// `ByteBloomFilter.compactBloom` does. A probe tests `x mod nbits` for an `x` that does not
/// depend on `nbits`, and halving `nbits` maps bit `p` to `p mod nbits/2`, so a folded filter
/// answers as one built at the smaller size, and readers do not know the difference: a file's
/// last chunk, short of keys, is written no larger than they need.
#[derive(Debug)]
pub struct BloomBuilder {
    /// The bit array, sized up front.
    bits: Vec<u8>,
    /// Distinct keys added.
    keys: usize,
    /// Hash of the last key added (a repeat of it is not counted again).
    last: Option<u64>,
}

impl BloomBuilder {
    /// An empty builder for at most `keys` keys (at least one; at most `MAX_SIZED_KEYS`).
    /// More keys than that are still found, at a higher false-positive rate.
    pub fn with_capacity(keys: usize) -> Self {
        let keys = keys.clamp(1, MAX_SIZED_KEYS);
        let nbits = (keys * BITS_PER_KEY).next_multiple_of(GRANULE_BITS);
        BloomBuilder {
            bits: vec![0; nbits / 8],
            keys: 0,
            last: None,
        }
    }

    /// Adds a key. Adding the same key twice in a row is deduplicated.
    pub fn add(&mut self, key: &[u8]) {
        let h = xxh3_64(key);
        if self.last == Some(h) {
            return;
        }
        self.last = Some(h);
        self.keys += 1;
        set_probes(&mut self.bits, h);
    }

    /// Number of keys added.
    pub fn key_count(&self) -> usize {
        self.keys
    }

    /// Encodes the filter: `k:u8 nbits:varint bits`.
    #[cfg(test)]
    pub fn finish(mut self) -> Vec<u8> {
        let (head, bits) = self.finish_parts();
        [&head[..], bits].concat()
    }

    /// Encodes the filter in two parts, its header (`k:u8 nbits:varint`) and its bits, the
    /// bits left in the builder's own array: a large file's filter (12.5 MB for 10 M rows) is
    /// folded in place and written from there, never copied (a compaction of 40 M rows held
    /// four copies of 50 MB at its end).
    pub fn finish_parts(&mut self) -> (Vec<u8>, &[u8]) {
        let want = (self.keys * BITS_PER_KEY).max(64);
        // Halve while the half is still a whole number of 64-bit words and big enough.
        let mut n = self.bits.len();
        while n.is_multiple_of(16) && n / 2 * 8 >= want {
            n /= 2;
        }
        let (head, tail) = self.bits.split_at_mut(n);
        for chunk in tail.chunks(n) {
            for (f, b) in head.iter_mut().zip(chunk) {
                *f |= b;
            }
        }
        self.bits.truncate(n);
        let mut head = Vec::with_capacity(11);
        head.push(PROBES as u8);
        put_varint(&mut head, self.bits.len() as u64 * 8);
        (head, &self.bits)
    }
}

/// Sets the probe bits of hash `h` in `bits`.
fn set_probes(bits: &mut [u8], h: u64) {
    for pos in probes(h, PROBES, bits.len() * 8) {
        if let Some(b) = bits.get_mut(pos / 8) {
            *b |= 1 << (pos % 8);
        }
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
    bits: bytes::Bytes,
}

impl BloomFilter {
    /// Decodes a filter written by [`BloomBuilder::finish`]; `None` when malformed.
    pub fn decode(buf: &[u8]) -> Option<BloomFilter> {
        Self::decode_shared(bytes::Bytes::copy_from_slice(buf))
    }

    /// Decodes a filter from a buffer it then keeps its bits in (a slice of it, no copy: a
    /// file's filter is as large as 12.5 MB for 10 M rows).
    pub fn decode_shared(buf: bytes::Bytes) -> Option<BloomFilter> {
        let mut r = ByteReader::new(&buf);
        let k = u32::from(r.u8()?);
        let nbits = usize::try_from(r.varint()?).ok()?;
        if k == 0 || k > 30 || nbits == 0 || nbits % 8 != 0 {
            return None;
        }
        let start = r.position();
        r.bytes(nbits / 8)?;
        let bits = buf.slice(start..start + nbits / 8);
        Some(BloomFilter { k, nbits, bits })
    }

    /// The most distinct keys the filter can have been built from: writers give each key at
    /// least `BITS_PER_KEY` bits.
    pub fn key_bound(&self) -> u64 {
        (self.nbits / BITS_PER_KEY) as u64
    }

    /// False when `key` was certainly never added.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        let h = xxh3_64(key);
        // A probe past the bits (which `decode` rules out) answers "maybe", never a false "no".
        probes(h, self.k, self.nbits).all(|pos| {
            self.bits
                .get(pos / 8)
                .is_none_or(|b| b & (1 << (pos % 8)) != 0)
        })
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
        let mut b = BloomBuilder::with_capacity(10_000);
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

    fn false_positives(f: &BloomFilter) -> usize {
        (0..10_000u32)
            .filter(|i| f.may_contain(format!("absent{i}").as_bytes()))
            .count()
    }

    #[test]
    fn a_filter_sized_up_front_folds_to_the_keys_added_and_equals_one_built_at_that_size() {
        for (capacity, keys) in [(1_000_000usize, 10_000u32), (10_000, 10_000), (5, 3)] {
            let mut b = BloomBuilder::with_capacity(capacity);
            for i in 0..keys {
                b.add(format!("row{i}").as_bytes());
                b.add(format!("row{i}").as_bytes());
            }
            assert_eq!(b.key_count(), keys as usize);
            let encoded = b.finish();
            let f = BloomFilter::decode(&encoded).unwrap();
            assert!(
                f.nbits >= keys as usize * BITS_PER_KEY,
                "{capacity}: {}",
                f.nbits
            );
            assert!(f.nbits < 2 * (keys as usize * BITS_PER_KEY).max(64) + GRANULE_BITS);
            if capacity > 100 * keys as usize {
                assert!(
                    f.nbits < 2 * keys as usize * BITS_PER_KEY,
                    "not folded: {}",
                    f.nbits
                );
            }
            let mut direct = vec![0u8; f.nbits / 8];
            for i in 0..keys {
                set_probes(&mut direct, xxh3_64(format!("row{i}").as_bytes()));
            }
            assert!(f.bits == direct, "capacity {capacity}: folding differs");
            assert!((0..keys).all(|i| f.may_contain(format!("row{i}").as_bytes())));
            if keys >= 10_000 {
                assert!(false_positives(&f) < 300, "{}", false_positives(&f));
            }
        }
    }

    #[test]
    fn a_capacity_past_the_bound_is_clamped_and_none_is_one_key() {
        for capacity in [0, 1] {
            let mut b = BloomBuilder::with_capacity(capacity);
            b.add(b"row");
            let f = BloomFilter::decode(&b.finish()).unwrap();
            assert!(f.may_contain(b"row"));
            assert_eq!(f.nbits, 64);
        }
        let b = BloomBuilder::with_capacity(usize::MAX);
        assert_eq!(b.bits.len() * 8, MAX_SIZED_KEYS * BITS_PER_KEY);
    }

    #[test]
    fn more_keys_than_the_capacity_are_still_found() {
        let mut b = BloomBuilder::with_capacity(100);
        for i in 0..20_000u32 {
            b.add(format!("row{i}").as_bytes());
        }
        let f = BloomFilter::decode(&b.finish()).unwrap();
        assert!((0..20_000u32).all(|i| f.may_contain(format!("row{i}").as_bytes())));
    }

    #[test]
    fn malformed_filters_decode_to_none() {
        assert!(BloomFilter::decode(&[]).is_none());
        assert!(BloomFilter::decode(&[7, 64]).is_none());
        assert!(BloomFilter::decode(&[0, 64, 0, 0, 0, 0, 0, 0, 0, 0]).is_none());
    }
}
