//! The decoders of a block file's own sections never panic and allocate in proportion to their
//! input: the trailer (as read, and with a valid magic and checksum so the version and section
//! handles are reached), the block index section and the meta section (their raw bytes, as
//! they are once the section's frame has been checked).
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/block_file_sections/`, `fuzz/regressions/block_file_sections/`).

use ferrobase_engine::fuzzing::masked_crc;
use ferrobase_engine::fuzzing::{
    decode_index, FileMeta, Trailer, FORMAT_VERSION, MAGIC, MIN_FORMAT_VERSION, TRAILER_LEN,
};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = Trailer::decode(data);
    // The first 52 bytes as a trailer's checked fields, given the checksum and magic a writer
    // would add.
    let mut trailer = data[..data.len().min(TRAILER_LEN - 12)].to_vec();
    trailer.resize(TRAILER_LEN - 12, 0);
    let crc = masked_crc(&trailer);
    trailer.extend_from_slice(&crc.to_be_bytes());
    trailer.extend_from_slice(MAGIC);
    if let Ok(t) = Trailer::decode(&trailer) {
        assert!((MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&t.version));
        std::hint::black_box(t.block_format());
    }
    if let Ok(index) = decode_index(data) {
        assert!(index.len() <= data.len());
    }
    let _ = FileMeta::decode(data);
}
