//! The manifest's edit log reader (`manifest_log::parse`, then `apply` to a manifest) never
//! panics.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/manifest_log/`, `fuzz/regressions/manifest_log/`).

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    ferrobase_engine::fuzzing::manifest_log_replay(data);
}
