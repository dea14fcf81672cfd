//! A block file's meta section decoder (`FileMeta::decode`) never panics: the input is the
//! section's raw bytes, as they are once the section's frame (codec, length, checksum) has been
//! checked.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/file_meta/`, `fuzz/regressions/file_meta/`).

use ferrobase_engine::fuzzing::FileMeta;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = FileMeta::decode(data);
}
