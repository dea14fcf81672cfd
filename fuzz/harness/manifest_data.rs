//! The decoder of the manifest payload (`ManifestData::decode`) never panics.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/manifest_data/`, `fuzz/regressions/manifest_data/`).

use ferrobase_engine::fuzzing::ManifestData;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = ManifestData::decode(data);
}
