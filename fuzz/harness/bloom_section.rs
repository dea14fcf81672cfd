//! The decoders of a block file's bloom section never panic: a whole filter (formats 1 to 4, and
//! each chunk of format 5: `BloomFilter::decode`) and format 5's chunk index
//! (`BloomChunkIndex::decode`).
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/bloom_section/`, `fuzz/regressions/bloom_section/`).

use ferrobase_engine::fuzzing::{BloomChunkIndex, BloomFilter};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = BloomFilter::decode(data);
    let _ = BloomChunkIndex::decode(data);
}
