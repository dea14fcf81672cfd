//! The engine's decoders and file-level types, for the fuzz targets (`fuzz/`) and the engine's
//! own format tests. Not part of the supported API: hidden from the documentation, and free to
//! change with the formats.

pub use crate::block_cache::BlockCache;
pub use crate::block_file::{
    decode_index, BlockBuilder, BlockDecoder, BlockFileReader, BlockFileWriter, BlockFormat,
    CacheMode, FileMeta, FileOptions, FileScanner, Trailer, FORMAT_VERSION, MAGIC,
    MIN_FORMAT_VERSION, TRAILER_LEN,
};
pub use crate::bloom::BloomFilter;
pub use crate::cell::{CellKey, CellType, KeyValue};
pub use crate::checksum::masked_crc;
pub use crate::compression::Compression;
pub use crate::manifest::{ManifestData, RegionRecord, StoreRecord, TableRecord};
pub use crate::wal::{decode_segment, records_past_damage, WalCell, WalEdit, SEGMENT_MAGIC};
