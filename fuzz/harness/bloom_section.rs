//! The decoder of a block file's bloom section (`BloomFilter::decode`) never panics.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/bloom_section/`, `fuzz/regressions/bloom_section/`).

use ferrobase_engine::fuzzing::BloomFilter;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = BloomFilter::decode(data);
}
