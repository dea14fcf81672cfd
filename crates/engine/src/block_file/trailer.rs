//! The fixed trailer at the end of every block file ("Trailer" in `docs/format/block-file.md`):
//! where the bloom, index and meta sections lie, the format version, a checksum and the magic.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::{
    BlockFormat, CHUNKED_BLOOM_VERSION, FORMAT_VERSION, MAGIC, MIN_FORMAT_VERSION, TRAILER_LEN,
};
use crate::byte_reader::ByteReader;
use crate::checksum::masked_crc;

/// Bytes of the trailer its checksum covers (six section offsets and lengths, the version).
const CHECKED_LEN: usize = 52;

/// Where one section lies in the file, as the trailer records it (framed bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionHandle {
    /// Offset of the framed section from the start of the file, in bytes.
    pub offset: u64,
    /// Length of the framed section, in bytes.
    pub len: u64,
}

/// A decoded trailer. Its sections' bounds are not checked against the file here: the reader
/// does that, knowing the file's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    /// The bloom section.
    pub bloom: SectionHandle,
    /// The block index section.
    pub index: SectionHandle,
    /// The meta section.
    pub meta: SectionHandle,
    /// The format version, between [`MIN_FORMAT_VERSION`] and [`FORMAT_VERSION`].
    pub version: u32,
}

impl Trailer {
    /// A trailer of the current [`FORMAT_VERSION`] for the given sections.
    pub(crate) fn new(bloom: SectionHandle, index: SectionHandle, meta: SectionHandle) -> Self {
        Trailer {
            bloom,
            index,
            meta,
            version: FORMAT_VERSION,
        }
    }

    /// The trailer's [`TRAILER_LEN`] bytes: sections, version, masked CRC-32C, magic.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(TRAILER_LEN);
        for s in [self.bloom, self.index, self.meta] {
            out.extend_from_slice(&s.offset.to_be_bytes());
            out.extend_from_slice(&s.len.to_be_bytes());
        }
        out.extend_from_slice(&self.version.to_be_bytes());
        let crc = masked_crc(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out.extend_from_slice(MAGIC);
        out
    }

    /// Decodes the last [`TRAILER_LEN`] bytes of a file. `Err` describes what is wrong (a short
    /// buffer, the magic, the checksum or an unsupported version); never panics.
    pub fn decode(buf: &[u8]) -> Result<Trailer, String> {
        if buf.len() != TRAILER_LEN {
            return Err(format!("trailer of {} bytes, not {TRAILER_LEN}", buf.len()));
        }
        if buf.get(TRAILER_LEN - MAGIC.len()..) != Some(&MAGIC[..]) {
            return Err("bad trailer magic".into());
        }
        let mut r = ByteReader::new(buf);
        let mut v = [0u64; 6];
        for x in &mut v {
            *x = r.u64().ok_or("short trailer")?;
        }
        let version = r.u32().ok_or("short trailer")?;
        let crc = r.u32().ok_or("short trailer")?;
        if buf.get(..CHECKED_LEN).map(masked_crc) != Some(crc) {
            return Err("trailer checksum mismatch".into());
        }
        if !(MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&version)
            || BlockFormat::of_version(version).is_none()
        {
            return Err(format!("unsupported format version {version}"));
        }
        let [bloom_off, bloom_len, index_off, index_len, meta_off, meta_len] = v;
        let handle = |offset, len| SectionHandle { offset, len };
        Ok(Trailer {
            bloom: handle(bloom_off, bloom_len),
            index: handle(index_off, index_len),
            meta: handle(meta_off, meta_len),
            version,
        })
    }

    /// The layout of the file's data blocks.
    pub fn block_format(&self) -> BlockFormat {
        // `decode` accepted only versions that have a format.
        BlockFormat::of_version(self.version).unwrap_or(BlockFormat::V4)
    }

    /// Whether the bloom section is an index of chunks among the data blocks (format 5 on)
    /// rather than one whole filter.
    pub fn chunked_bloom(&self) -> bool {
        self.version >= CHUNKED_BLOOM_VERSION
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Trailer {
        let h = |offset, len| SectionHandle { offset, len };
        Trailer::new(h(100, 9), h(109, 40), h(149, 60))
    }

    #[test]
    fn round_trips() {
        let t = sample();
        let bytes = t.encode();
        assert_eq!(bytes.len(), TRAILER_LEN);
        assert_eq!(Trailer::decode(&bytes), Ok(t));
        assert_eq!(t.block_format(), BlockFormat::V4);
    }

    #[test]
    fn every_single_byte_flip_and_cut_is_an_error() {
        let bytes = sample().encode();
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            assert!(Trailer::decode(&bad).is_err(), "flip at {i} undetected");
        }
        for cut in 0..bytes.len() {
            assert!(Trailer::decode(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn versions_outside_the_supported_range_are_named() {
        for version in [0, FORMAT_VERSION + 1, u32::MAX] {
            let t = Trailer {
                version,
                ..sample()
            };
            assert_eq!(
                Trailer::decode(&t.encode()),
                Err(format!("unsupported format version {version}"))
            );
        }
    }
}
