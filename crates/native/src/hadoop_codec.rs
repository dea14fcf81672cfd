//! Hadoop's compression codecs (`org.apache.hadoop.io.compress.CompressionCodec` classes) as
//! their streams are laid out on the wire and on disk: HBase's RPC compresses cell blocks with
//! them (`docs/design/native-protocol.md`, "Compressed cell blocks") and a SequenceFile its
//! values and blocks (`docs/format/sequencefile.md`, "Codecs"). Each buffer is one
//! self-contained stream.
//!
//! - `DefaultCodec`: a zlib stream (RFC 1950); concatenated streams are read one after another,
//!   as Hadoop's `DecompressorStream` does.
//! - `GzipCodec`: a gzip stream (RFC 1952), one or more members.
//! - `SnappyCodec` and `Lz4Codec`: Hadoop's block framing (`BlockCompressorStream`): per piece
//!   of the input, the piece's length (4 bytes, big-endian), then compressed chunks, each its
//!   length (4 bytes) and raw Snappy or LZ4 block bytes, until they decompress to the piece.
//!
//! Decompression is bounded: past the caller's limit it stops with [`CodecError::TooLarge`]
//! before holding more than the limit (a zip bomb costs its limit, not its claim).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::io::{Read, Write};

/// A Hadoop compression codec, named by its Java class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HadoopCodec {
    /// `org.apache.hadoop.io.compress.DefaultCodec`: a zlib stream.
    Default,
    /// `org.apache.hadoop.io.compress.GzipCodec`: a gzip stream.
    Gzip,
    /// `org.apache.hadoop.io.compress.SnappyCodec`: Hadoop's block framing of raw Snappy.
    Snappy,
    /// `org.apache.hadoop.io.compress.Lz4Codec`: Hadoop's block framing of raw LZ4 blocks.
    Lz4,
}

/// Why a stream did not decompress.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The bytes are not a stream of the codec.
    #[error("{codec} stream does not decode: {why}")]
    Corrupt {
        /// The codec's short name (`zlib`, `gzip`, `snappy`, `lz4`).
        codec: &'static str,
        /// What is wrong, with the offset where known.
        why: String,
    },
    /// The stream decompresses to more than the limit; decompression stopped there.
    #[error("{codec} stream decompresses to more than {limit} bytes")]
    TooLarge {
        /// The codec's short name.
        codec: &'static str,
        /// The limit in bytes.
        limit: usize,
    },
}

/// Hadoop's `io.compression.codec.{snappy,lz4}.buffersize` default: the buffer each side of a
/// block-framed codec decompresses into.
const BLOCK_BUFFER: usize = 256 * 1024;

impl HadoopCodec {
    /// Every codec, in a fixed order.
    pub const ALL: [HadoopCodec; 4] = [
        HadoopCodec::Default,
        HadoopCodec::Gzip,
        HadoopCodec::Snappy,
        HadoopCodec::Lz4,
    ];

    /// The Java class name.
    pub fn class_name(self) -> &'static str {
        match self {
            HadoopCodec::Default => "org.apache.hadoop.io.compress.DefaultCodec",
            HadoopCodec::Gzip => "org.apache.hadoop.io.compress.GzipCodec",
            HadoopCodec::Snappy => "org.apache.hadoop.io.compress.SnappyCodec",
            HadoopCodec::Lz4 => "org.apache.hadoop.io.compress.Lz4Codec",
        }
    }

    /// The codec of a Java class name; `None` for one this module does not have.
    pub fn from_class_name(name: &str) -> Option<HadoopCodec> {
        HadoopCodec::ALL
            .into_iter()
            .find(|c| c.class_name() == name)
    }

    /// The short name errors use.
    pub fn short_name(self) -> &'static str {
        match self {
            HadoopCodec::Default => "zlib",
            HadoopCodec::Gzip => "gzip",
            HadoopCodec::Snappy => "snappy",
            HadoopCodec::Lz4 => "lz4",
        }
    }

    /// The largest piece of input one block of a block-framed codec holds: Hadoop's
    /// `MAX_INPUT_SIZE`, the buffer less the codec's worst-case growth, so that a Java reader's
    /// fixed buffer holds every compressed chunk.
    fn block_input(self) -> usize {
        match self {
            HadoopCodec::Lz4 => BLOCK_BUFFER - (BLOCK_BUFFER / 255 + 16),
            _ => BLOCK_BUFFER - (BLOCK_BUFFER / 6 + 32),
        }
    }

    /// `data` compressed as one stream.
    pub fn compress(self, data: &[u8]) -> Vec<u8> {
        match self {
            HadoopCodec::Default => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(data)
                    .and_then(|_| e.finish())
                    .expect("writing to a Vec cannot fail")
            }
            HadoopCodec::Gzip => {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(data)
                    .and_then(|_| e.finish())
                    .expect("writing to a Vec cannot fail")
            }
            HadoopCodec::Snappy | HadoopCodec::Lz4 => {
                // Per piece: its length, then one compressed chunk with its length.
                let mut out = Vec::new();
                let mut snappy = snap::raw::Encoder::new();
                for piece in data.chunks(self.block_input()) {
                    let chunk = match self {
                        HadoopCodec::Lz4 => lz4_flex::block::compress(piece),
                        _ => snappy
                            .compress_vec(piece)
                            .expect("a piece under 4 GiB compresses"),
                    };
                    out.extend_from_slice(&(piece.len() as u32).to_be_bytes());
                    out.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
                    out.extend_from_slice(&chunk);
                }
                out
            }
        }
    }

    /// The bytes the stream `data` holds, at most `limit` of them.
    pub fn decompress(self, data: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
        match self {
            HadoopCodec::Default => self.inflate(data, limit),
            HadoopCodec::Gzip => {
                let mut out = Vec::new();
                flate2::read::MultiGzDecoder::new(data)
                    .take((limit as u64).saturating_add(1))
                    .read_to_end(&mut out)
                    .map_err(|e| self.corrupt(e.to_string()))?;
                self.within(out, limit)
            }
            HadoopCodec::Snappy | HadoopCodec::Lz4 => self.unblock(data, limit),
        }
    }

    fn corrupt(self, why: impl Into<String>) -> CodecError {
        CodecError::Corrupt {
            codec: self.short_name(),
            why: why.into(),
        }
    }

    fn within(self, out: Vec<u8>, limit: usize) -> Result<Vec<u8>, CodecError> {
        if out.len() > limit {
            return Err(CodecError::TooLarge {
                codec: self.short_name(),
                limit,
            });
        }
        Ok(out)
    }

    /// Zlib streams, one after another.
    fn inflate(self, data: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        let mut rest = data;
        loop {
            let before = rest.len();
            let mut decoder = flate2::bufread::ZlibDecoder::new(rest);
            let room = ((limit - out.len()) as u64).saturating_add(1);
            (&mut decoder)
                .take(room)
                .read_to_end(&mut out)
                .map_err(|e| {
                    self.corrupt(format!("{e} (stream at offset {})", data.len() - before))
                })?;
            if out.len() > limit {
                return self.within(out, limit);
            }
            rest = decoder.into_inner();
            if rest.is_empty() {
                return Ok(out);
            }
            if rest.len() == before {
                return Err(
                    self.corrupt(format!("nothing decodes at offset {}", data.len() - before))
                );
            }
        }
    }

    /// Hadoop's block framing of Snappy or LZ4 chunks.
    fn unblock(self, data: &[u8], limit: usize) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        let mut rest = data;
        let mut snappy = snap::raw::Decoder::new();
        let at = |rest: &[u8]| data.len() - rest.len();
        while !rest.is_empty() {
            let (piece, r) = take_u32(rest)
                .ok_or_else(|| self.corrupt(format!("ends inside a length at {}", at(rest))))?;
            let piece = piece as usize;
            if piece > limit - out.len() {
                return Err(CodecError::TooLarge {
                    codec: self.short_name(),
                    limit,
                });
            }
            rest = r;
            let end = out.len() + piece;
            while out.len() < end {
                let (len, r) = take_u32(rest)
                    .ok_or_else(|| self.corrupt(format!("ends inside a length at {}", at(rest))))?;
                let (chunk, r) = r
                    .split_at_checked(len as usize)
                    .ok_or_else(|| self.corrupt(format!("ends inside a chunk at {}", at(rest))))?;
                rest = r;
                let room = end - out.len();
                let produced = match self {
                    HadoopCodec::Lz4 => {
                        let from = out.len();
                        out.resize(end, 0);
                        let n = lz4_flex::block::decompress_into(
                            chunk,
                            out.get_mut(from..).unwrap_or_default(),
                        )
                        .map_err(|e| self.corrupt(format!("chunk at {}: {e}", at(chunk))))?;
                        out.truncate(from + n);
                        n
                    }
                    _ => {
                        let n = snap::raw::decompress_len(chunk)
                            .map_err(|e| self.corrupt(format!("chunk at {}: {e}", at(chunk))))?;
                        if n > room {
                            return Err(self.corrupt(format!(
                                "chunk at {} holds {n} bytes, its piece has {room} left",
                                at(chunk)
                            )));
                        }
                        let from = out.len();
                        out.resize(from + n, 0);
                        snappy
                            .decompress(chunk, out.get_mut(from..).unwrap_or_default())
                            .map_err(|e| self.corrupt(format!("chunk at {}: {e}", at(chunk))))?
                    }
                };
                if produced == 0 {
                    return Err(self.corrupt(format!("chunk at {} decodes to nothing", at(chunk))));
                }
            }
        }
        Ok(out)
    }
}

fn take_u32(b: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = b.split_first_chunk::<4>()?;
    Some((u32::from_be_bytes(*head), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_round_trips() {
        let data: Vec<u8> = (0..700_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for codec in HadoopCodec::ALL {
            for input in [&data[..], b"", b"x"] {
                let c = codec.compress(input);
                assert_eq!(
                    codec.decompress(&c, usize::MAX / 2).unwrap(),
                    input,
                    "{codec:?}"
                );
                assert_eq!(
                    codec.decompress(&c, input.len()).unwrap(),
                    input,
                    "{codec:?}"
                );
            }
            assert_eq!(
                HadoopCodec::from_class_name(codec.class_name()),
                Some(codec)
            );
        }
    }

    #[test]
    fn damaged_streams_are_errors() {
        for codec in HadoopCodec::ALL {
            let mut c = codec.compress(b"hello hello hello hello");
            let n = c.len();
            c.truncate(n - 3);
            assert!(
                matches!(
                    codec.decompress(&c, 1 << 20),
                    Err(CodecError::Corrupt { .. })
                ),
                "{codec:?}"
            );
            for cut in 0..n {
                let _ = codec.decompress(&c[..cut.min(c.len())], 1 << 20);
            }
        }
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let zeros = vec![0u8; 4 << 20];
        for codec in HadoopCodec::ALL {
            let c = codec.compress(&zeros);
            assert!(c.len() < zeros.len() / 20, "{codec:?} {}", c.len());
            assert_eq!(
                codec.decompress(&c, 1 << 20),
                Err(CodecError::TooLarge {
                    codec: codec.short_name(),
                    limit: 1 << 20
                }),
                "{codec:?}"
            );
        }
    }

    #[test]
    fn block_framing_byte_for_byte() {
        // A piece of 3 bytes, one chunk: the piece length, the chunk length, raw Snappy
        // (varint length 3, a literal of 3).
        let c = HadoopCodec::Snappy.compress(b"abc");
        assert_eq!(c, b"\x00\x00\x00\x03\x00\x00\x00\x05\x03\x08abc");
        // LZ4: a token of 3 literals and no match.
        let c = HadoopCodec::Lz4.compress(b"abc");
        assert_eq!(c, b"\x00\x00\x00\x03\x00\x00\x00\x04\x30abc");
        // A piece may arrive in several chunks (Hadoop's decompressor loops to the piece).
        let mut two = b"\x00\x00\x00\x06".to_vec();
        two.extend_from_slice(b"\x00\x00\x00\x05\x03\x08abc\x00\x00\x00\x05\x03\x08def");
        assert_eq!(
            HadoopCodec::Snappy.decompress(&two, 100).unwrap(),
            b"abcdef"
        );
        // A chunk claiming more than its piece is refused before it is decoded.
        let over = b"\x00\x00\x00\x02\x00\x00\x00\x05\x03\x08abc";
        assert!(HadoopCodec::Snappy.decompress(over, 100).is_err());
    }

    #[test]
    fn concatenated_zlib_streams_read_as_one() {
        let mut c = HadoopCodec::Default.compress(b"abc");
        c.extend(HadoopCodec::Default.compress(b"def"));
        assert_eq!(HadoopCodec::Default.decompress(&c, 6).unwrap(), b"abcdef");
        assert!(matches!(
            HadoopCodec::Default.decompress(&c, 5),
            Err(CodecError::TooLarge { .. })
        ));
        c.push(7);
        assert!(HadoopCodec::Default.decompress(&c, 100).is_err());
    }
}
