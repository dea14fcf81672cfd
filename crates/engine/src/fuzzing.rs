//! The engine's decoders and file-level types, for the fuzz targets (`fuzz/`) and the engine's
//! own format tests. Not part of the supported API: hidden from the documentation, and free to
//! change with the formats.

pub use crate::block_cache::BlockCache;
pub use crate::block_file::{
    decode_index, BlockBuilder, BlockDecoder, BlockFileReader, BlockFileWriter, BlockFormat,
    CacheMode, FileMeta, FileOptions, FileScanner, Trailer, DEFAULT_BLOOM_CHUNK_BYTES,
    FORMAT_VERSION, MAGIC, MIN_FORMAT_VERSION, TRAILER_LEN,
};
pub use crate::bloom::BloomFilter;
pub use crate::cell::{CellKey, CellType, KeyValue};
pub use crate::checksum::masked_crc;
pub use crate::compound_bloom::ChunkIndex as BloomChunkIndex;
pub use crate::compression::Compression;
pub use crate::manifest::{ManifestData, RegionRecord, StoreRecord, TableRecord};
pub use crate::memstore::{ChunkPool, Memstore, MemstoreScanner};
pub use crate::wal::{decode_segment, records_past_damage, WalCell, WalEdit, SEGMENT_MAGIC};

/// Parses `bytes` as a manifest edit log (of the generation its header names, so inputs get
/// past the header) and applies its records to an empty manifest: what an open does with the
/// log `MANIFEST` names (`docs/format/manifest.md`). For the `manifest_log` fuzz target.
pub fn manifest_log_replay(bytes: &[u8]) {
    let generation = bytes
        .get(8..16)
        .and_then(|g| g.try_into().ok())
        .map_or(0, u64::from_be_bytes);
    let path = std::path::Path::new("MANIFEST-fuzz.log");
    if let Ok(read) = crate::manifest_log::parse(path, bytes, generation) {
        let _ = crate::manifest_log::apply(&mut ManifestData::default(), &read.edits);
    }
}
