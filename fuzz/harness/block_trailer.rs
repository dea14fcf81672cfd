//! A block file's trailer decoder (`block_file::Trailer::decode`) never panics: the input as
//! read from the end of a file, and its first 52 bytes as the trailer's checked fields with the
//! checksum and magic a writer would add, so the format version and section handles are
//! reached.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/block_trailer/`, `fuzz/regressions/block_trailer/`).

use ferrobase_engine::fuzzing::masked_crc;
use ferrobase_engine::fuzzing::{Trailer, FORMAT_VERSION, MAGIC, MIN_FORMAT_VERSION, TRAILER_LEN};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = Trailer::decode(data);
    let mut trailer = data[..data.len().min(TRAILER_LEN - 12)].to_vec();
    trailer.resize(TRAILER_LEN - 12, 0);
    let crc = masked_crc(&trailer);
    trailer.extend_from_slice(&crc.to_be_bytes());
    trailer.extend_from_slice(MAGIC);
    if let Ok(t) = Trailer::decode(&trailer) {
        assert!((MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&t.version));
        std::hint::black_box(t.block_format());
    }
}
