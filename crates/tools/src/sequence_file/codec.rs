//! The compression codecs of a SequenceFile (Hadoop's `CompressionCodec` classes), each buffer
//! or value one self-contained stream (docs/format/sequencefile.md, "Codecs").

use std::io::{Read, Write};

/// A compression codec, named in the header by its Java class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// `org.apache.hadoop.io.compress.DefaultCodec`: a zlib stream (RFC 1950).
    Default,
    /// `org.apache.hadoop.io.compress.GzipCodec`: a gzip stream (RFC 1952).
    Gzip,
    /// `org.apache.hadoop.io.compress.SnappyCodec`: Hadoop's block framing of raw Snappy.
    Snappy,
}

/// Hadoop's `io.compression.codec.snappy.buffersize` default: the largest piece one Snappy
/// frame holds.
const SNAPPY_BUFFER: usize = 256 * 1024;

/// The most bytes one value or buffer may decompress to (a record length is a Java int).
const MAX_DECOMPRESSED: u64 = i32::MAX as u64;

impl Codec {
    /// The Java class name stored in the header.
    pub fn class_name(self) -> &'static str {
        match self {
            Codec::Default => "org.apache.hadoop.io.compress.DefaultCodec",
            Codec::Gzip => "org.apache.hadoop.io.compress.GzipCodec",
            Codec::Snappy => "org.apache.hadoop.io.compress.SnappyCodec",
        }
    }

    /// The codec of a class name; `None` for one this module does not have.
    pub fn from_class_name(name: &str) -> Option<Codec> {
        [Codec::Default, Codec::Gzip, Codec::Snappy]
            .into_iter()
            .find(|c| c.class_name() == name)
    }

    /// `data` compressed as one stream.
    pub fn compress(self, data: &[u8]) -> Vec<u8> {
        match self {
            Codec::Default => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(data)
                    .and_then(|_| e.finish())
                    .expect("writing to a Vec cannot fail")
            }
            Codec::Gzip => {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(data)
                    .and_then(|_| e.finish())
                    .expect("writing to a Vec cannot fail")
            }
            Codec::Snappy => {
                // BlockCompressorStream: per piece, the piece's length, then one compressed
                // chunk with its length (both 4-byte big-endian).
                let mut out = Vec::new();
                let mut enc = snap::raw::Encoder::new();
                for piece in data.chunks(SNAPPY_BUFFER) {
                    let c = enc
                        .compress_vec(piece)
                        .expect("a piece under 4 GiB compresses");
                    out.extend_from_slice(&(piece.len() as u32).to_be_bytes());
                    out.extend_from_slice(&(c.len() as u32).to_be_bytes());
                    out.extend_from_slice(&c);
                }
                out
            }
        }
    }

    /// The bytes of the stream `data`; an error message when it does not decode.
    pub fn decompress(self, data: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        match self {
            Codec::Default => {
                flate2::read::ZlibDecoder::new(data)
                    .take(MAX_DECOMPRESSED)
                    .read_to_end(&mut out)
                    .map_err(|e| format!("zlib stream does not decode: {e}"))?;
            }
            Codec::Gzip => {
                flate2::read::MultiGzDecoder::new(data)
                    .take(MAX_DECOMPRESSED)
                    .read_to_end(&mut out)
                    .map_err(|e| format!("gzip stream does not decode: {e}"))?;
            }
            Codec::Snappy => {
                let mut rest = data;
                let mut dec = snap::raw::Decoder::new();
                while !rest.is_empty() {
                    let (piece_len, r) =
                        take_u32(rest).ok_or("snappy frame ends inside a length")?;
                    rest = r;
                    let mut produced = 0usize;
                    while produced < piece_len as usize {
                        let (clen, r) =
                            take_u32(rest).ok_or("snappy frame ends inside a length")?;
                        let chunk = r
                            .get(..clen as usize)
                            .ok_or("snappy frame ends inside a chunk")?;
                        rest = &r[clen as usize..];
                        let d = dec
                            .decompress_vec(chunk)
                            .map_err(|e| format!("snappy chunk does not decode: {e}"))?;
                        if d.is_empty() {
                            return Err("snappy chunk decodes to nothing".into());
                        }
                        produced += d.len();
                        out.extend_from_slice(&d);
                        if out.len() as u64 > MAX_DECOMPRESSED {
                            return Err("snappy stream decodes past 2 GiB".into());
                        }
                    }
                    if produced != piece_len as usize {
                        return Err(format!(
                            "snappy piece holds {produced} bytes, its header says {piece_len}"
                        ));
                    }
                }
            }
        }
        Ok(out)
    }
}

fn take_u32(b: &[u8]) -> Option<(u32, &[u8])> {
    let head: [u8; 4] = b.get(..4)?.try_into().ok()?;
    Some((u32::from_be_bytes(head), &b[4..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_round_trips() {
        let data: Vec<u8> = (0..700_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for codec in [Codec::Default, Codec::Gzip, Codec::Snappy] {
            for input in [&data[..], b"", b"x"] {
                let c = codec.compress(input);
                assert_eq!(codec.decompress(&c).unwrap(), input, "{codec:?}");
            }
            assert_eq!(Codec::from_class_name(codec.class_name()), Some(codec));
        }
    }

    #[test]
    fn damaged_streams_are_errors() {
        for codec in [Codec::Default, Codec::Gzip, Codec::Snappy] {
            let mut c = codec.compress(b"hello hello hello hello");
            let n = c.len();
            c.truncate(n - 3);
            assert!(codec.decompress(&c).is_err(), "{codec:?}");
        }
    }
}
