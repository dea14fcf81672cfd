//! The decoder of a WAL record payload (`WalEdit::decode`) never panics.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/wal_record/`, `fuzz/regressions/wal_record/`).

use ferrobase_engine::fuzzing::WalEdit;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = WalEdit::decode(data);
}
