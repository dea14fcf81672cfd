//! Block compression codecs (HBase's `Compression.Algorithm`). Codec ids are stored on disk and
//! frozen: 0 NONE, 1 GZ, 2 SNAPPY, 3 LZ4, 4 ZSTD.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::error::{Error, Result};
use std::io::{Read, Write};

/// A column family's COMPRESSION attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// No compression (HBase's default).
    #[default]
    None,
    /// Deflate in a gzip container (HBase's `GZ`).
    Gz,
    /// Snappy raw format.
    Snappy,
    /// LZ4 block format.
    Lz4,
    /// Zstandard, level 3.
    Zstd,
}

impl Compression {
    /// The on-disk codec id.
    pub fn id(self) -> u8 {
        match self {
            Compression::None => 0,
            Compression::Gz => 1,
            Compression::Snappy => 2,
            Compression::Lz4 => 3,
            Compression::Zstd => 4,
        }
    }

    /// Decodes an on-disk codec id.
    pub fn from_id(id: u8) -> Option<Compression> {
        Some(match id {
            0 => Compression::None,
            1 => Compression::Gz,
            2 => Compression::Snappy,
            3 => Compression::Lz4,
            4 => Compression::Zstd,
            _ => return None,
        })
    }

    /// The name HBase uses (`NONE`, `GZ`, `SNAPPY`, `LZ4`, `ZSTD`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "NONE",
            Compression::Gz => "GZ",
            Compression::Snappy => "SNAPPY",
            Compression::Lz4 => "LZ4",
            Compression::Zstd => "ZSTD",
        }
    }

    /// Parses an HBase compression name, case-insensitively. `GZIP` is accepted for `GZ`.
    /// `LZO`, `BZIP2` and `LZMA` are known to HBase but have no codec here and are refused with
    /// [`Error::UnsupportedCompression`].
    pub fn parse(name: &str) -> Result<Compression> {
        Ok(match name.to_ascii_uppercase().as_str() {
            "NONE" | "" => Compression::None,
            "GZ" | "GZIP" => Compression::Gz,
            "SNAPPY" => Compression::Snappy,
            "LZ4" => Compression::Lz4,
            "ZSTD" => Compression::Zstd,
            "LZO" | "BZIP2" | "LZMA" => {
                return Err(Error::UnsupportedCompression(name.to_string()))
            }
            _ => {
                return Err(Error::IllegalArgument(format!(
                    "unknown compression {name:?}; expected NONE, GZ, SNAPPY, LZ4 or ZSTD"
                )))
            }
        })
    }

    /// Compresses `data`.
    pub fn compress(self, data: &[u8]) -> Vec<u8> {
        match self {
            Compression::None => data.to_vec(),
            Compression::Gz => {
                let mut enc =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                // Writing into a Vec cannot fail.
                let _ = enc.write_all(data);
                enc.finish().unwrap_or_default()
            }
            Compression::Snappy => snap::raw::Encoder::new()
                .compress_vec(data)
                .unwrap_or_default(),
            Compression::Lz4 => lz4_flex::block::compress(data),
            Compression::Zstd => zstd::bulk::compress(data, 3).unwrap_or_default(),
        }
    }

    /// Decompresses `data`, which must expand to exactly `raw_len` bytes. Returns a description
    /// of the failure on bad input; never panics.
    pub fn decompress(self, data: &[u8], raw_len: usize) -> std::result::Result<Vec<u8>, String> {
        let out = match self {
            Compression::None => data.to_vec(),
            Compression::Gz => {
                let mut out = Vec::with_capacity(raw_len);
                flate2::read::GzDecoder::new(data)
                    .take(raw_len as u64 + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| format!("gzip: {e}"))?;
                out
            }
            Compression::Snappy => {
                // The payload's own header says how long it decompresses; `decompress_vec`
                // would allocate that (up to 4 GiB) before anything is checked. Compare it with
                // the length the block records (bounded by the frame check) first.
                let declared =
                    snap::raw::decompress_len(data).map_err(|e| format!("snappy: {e}"))?;
                if declared != raw_len {
                    return Err(format!(
                        "snappy payload declares {declared} bytes, the block records {raw_len}"
                    ));
                }
                let mut out = vec![0u8; raw_len];
                let n = snap::raw::Decoder::new()
                    .decompress(data, &mut out)
                    .map_err(|e| format!("snappy: {e}"))?;
                out.truncate(n);
                out
            }
            Compression::Lz4 => {
                lz4_flex::block::decompress(data, raw_len).map_err(|e| format!("lz4: {e}"))?
            }
            Compression::Zstd => {
                zstd::bulk::decompress(data, raw_len).map_err(|e| format!("zstd: {e}"))?
            }
        };
        if out.len() != raw_len {
            return Err(format!(
                "decompressed to {} bytes, expected {raw_len}",
                out.len()
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_round_trips_and_shrinks_repetitive_data() {
        let data: Vec<u8> = (0..20_000u32)
            .flat_map(|i| (i % 50).to_be_bytes())
            .collect();
        for c in [
            Compression::None,
            Compression::Gz,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ] {
            let z = c.compress(&data);
            if c != Compression::None {
                assert!(z.len() < data.len() / 2, "{c:?} did not compress");
            }
            assert_eq!(c.decompress(&z, data.len()).unwrap(), data);
            assert_eq!(Compression::from_id(c.id()), Some(c));
            assert_eq!(Compression::parse(c.name()).unwrap(), c);
        }
    }

    #[test]
    fn a_snappy_header_declaring_more_than_the_block_records_is_refused_before_allocating() {
        // Found by AddressSanitizer runs of the disk_decoders fuzz target: payload headers that
        // declare up to 4 GiB. The error names both lengths, and comes from the header check,
        // before any buffer is allocated.
        for (hex, raw_len) in [("f5f5f5f5ff0813000001", 10), ("01ffffffff0f", 6)] {
            let payload: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let e = Compression::Snappy
                .decompress(&payload, raw_len)
                .unwrap_err();
            assert!(
                e.contains("declares") || e.contains("snappy: "),
                "{hex}: {e}"
            );
        }
        let e = Compression::Snappy
            .decompress(&[0xff, 0xff, 0xff, 0xff, 0x0f, 0], 100)
            .unwrap_err();
        assert_eq!(
            e,
            "snappy payload declares 4294967295 bytes, the block records 100"
        );
    }

    #[test]
    fn garbage_input_is_an_error_not_a_panic() {
        let junk = [0xffu8; 64];
        for c in [
            Compression::Gz,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ] {
            assert!(c.decompress(&junk, 1000).is_err(), "{c:?}");
        }
        assert!(Compression::None.decompress(&junk, 10).is_err());
    }

    #[test]
    fn lzo_is_a_clear_error() {
        assert!(matches!(
            Compression::parse("lzo"),
            Err(Error::UnsupportedCompression(_))
        ));
    }
}
