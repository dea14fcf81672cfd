//! Hadoop's SequenceFile (`org.apache.hadoop.io.SequenceFile`, header version 6), the container
//! HBase's `Export` writes and `Import` reads: a header naming the key and value classes and the
//! compression, then records (each value optionally compressed) or blocks of records, with a
//! 16-byte sync marker between them. The byte layout is docs/format/sequencefile.md; this module
//! reads and writes it from that description (no Hadoop code).

mod reader;
pub mod vint;
mod writer;

/// A SequenceFile's compression codec: Hadoop's, as HBase's RPC compresses cell blocks with them
/// (`ferrobase_native::hadoop_codec`).
pub use ferrobase_native::hadoop_codec::HadoopCodec as Codec;

/// The most bytes one value or buffer may decompress to (a record length is a Java int).
pub(crate) const MAX_DECOMPRESSED: usize = i32::MAX as usize;
pub use reader::{Record, SequenceFileReader};
pub use writer::SequenceFileWriter;

/// The first three bytes of every SequenceFile.
pub const MAGIC: [u8; 3] = *b"SEQ";
/// The header version this module reads and writes (Hadoop 0.19 onwards: metadata and codecs).
pub const VERSION: u8 = 6;
/// Bytes of a sync marker.
pub const SYNC_SIZE: usize = 16;
/// The record length that announces a sync marker instead of a record (`SYNC_ESCAPE`).
pub const SYNC_ESCAPE: i32 = -1;
/// A record-layout writer puts a sync marker before the first record that starts at least this
/// many bytes after the previous marker (Hadoop 2's `SequenceFile.SYNC_INTERVAL`, 2000; Hadoop
/// 3 raised it to 100 KiB; readers accept any spacing).
pub const SYNC_INTERVAL: u64 = 2000;
/// A block-layout writer closes a block once its key and value buffers hold this many bytes
/// (Hadoop's `io.seqfile.compress.blocksize` default).
pub const BLOCK_SIZE: usize = 1_000_000;

/// How a file's records are compressed (the header's two flags and codec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Records as they are (`CompressionType.NONE`); HBase's Export default.
    #[default]
    None,
    /// Each value compressed on its own, keys as they are (`CompressionType.RECORD`).
    Record(Codec),
    /// Blocks of records, keys, values and their lengths each compressed as a buffer
    /// (`CompressionType.BLOCK`).
    Block(Codec),
}

impl Compression {
    /// The codec, if any.
    pub fn codec(self) -> Option<Codec> {
        match self {
            Compression::None => None,
            Compression::Record(c) | Compression::Block(c) => Some(c),
        }
    }
}

/// A SequenceFile's header (docs/format/sequencefile.md, "Header").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The key class's Java name, e.g. `org.apache.hadoop.hbase.io.ImmutableBytesWritable`.
    pub key_class: String,
    /// The value class's Java name, e.g. `org.apache.hadoop.hbase.client.Result`.
    pub value_class: String,
    /// The compression of the records.
    pub compression: Compression,
    /// The file's metadata pairs, in order (HBase's Export writes none).
    pub metadata: Vec<(Vec<u8>, Vec<u8>)>,
    /// The sync marker every marker in the file repeats.
    pub sync: [u8; SYNC_SIZE],
}
