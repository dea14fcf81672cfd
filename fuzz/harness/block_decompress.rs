//! Every codec's decompressor (`Compression::decompress`; LZ4 runs lz4_flex's checked fast
//! path) never panics on arbitrary input: the first byte times 64 is the raw length the block
//! claims, the rest the compressed payload.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/block_decompress/`, `fuzz/regressions/block_decompress/`).

use ferrobase_engine::fuzzing::Compression;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let raw_len = usize::from(first) * 64;
    for id in 0..=4 {
        if let Some(codec) = Compression::from_id(id) {
            let _ = codec.decompress(rest, raw_len);
        }
    }
}
