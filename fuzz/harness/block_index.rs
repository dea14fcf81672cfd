//! A block file's index section decoder (`block_file::decode_index`) never panics and returns
//! no more entries than its input has bytes: the input is the section's raw bytes, as they are
//! once the section's frame (codec, length, checksum) has been checked.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/block_index/`, `fuzz/regressions/block_index/`).

use ferrobase_engine::fuzzing::decode_index;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Ok(index) = decode_index(data) {
        assert!(index.len() <= data.len());
    }
}
