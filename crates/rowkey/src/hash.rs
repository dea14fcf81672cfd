//! The hash functions behind hash-prefix and salt fields.
//!
//! MurmurHash3 comes from the `murmur3` crate, whose functions read from `std::io::Read`; a
//! byte slice's reader never fails, which is the invariant the `expect`s below state.

use crate::field::HashAlgo;
use md5::{Digest, Md5};

/// The full 16-byte digest of `data` under `algo`.
pub(crate) fn digest(algo: HashAlgo, data: &[u8]) -> [u8; 16] {
    match algo {
        HashAlgo::Md5 => Md5::digest(data).into(),
        HashAlgo::Murmur3 => {
            let h = murmur3::murmur3_x64_128(&mut { data }, 0)
                .expect("reading a byte slice cannot fail");
            // The crate returns (h2 << 64) | h1; the reference digest is h1 then h2, each
            // little-endian, which is exactly the u128's little-endian bytes.
            h.to_le_bytes()
        }
    }
}

/// The salt bucket of `data`: `murmur3_x86_32(data, seed 0) % buckets`.
pub(crate) fn salt_bucket(data: &[u8], buckets: u32) -> u32 {
    let h = murmur3::murmur3_32(&mut { data }, 0).expect("reading a byte slice cannot fail");
    h % buckets.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn md5_matches_rfc_1321() {
        assert_eq!(
            hex(&digest(HashAlgo::Md5, b"")),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        assert_eq!(
            hex(&digest(HashAlgo::Md5, b"abc")),
            "900150983cd24fb0d6963f7d28e17f72"
        );
    }

    #[test]
    fn murmur3_matches_reference_vectors() {
        // MurmurHash3_x86_32("hello", 0) = 0x248bfa47 (Python's mmh3.hash, unsigned).
        assert_eq!(salt_bucket(b"hello", u32::MAX), 0x248b_fa47);
        assert_eq!(salt_bucket(b"Hello, world!", u32::MAX), 0xc036_3e43);
        // x64_128 in the reference implementation's byte order (h1, then h2, little-endian).
        assert_eq!(
            hex(&digest(HashAlgo::Murmur3, b"Hello, world!")),
            "df65d6d2d12d51f164c5f3a85066322c"
        );
    }
}
