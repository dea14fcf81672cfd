//! The shell's parser never panics: any input parses or is a positioned syntax error.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/shell_language/`, `fuzz/regressions/shell_language/`), through the
//! shell crate's hidden `fuzzing` module.

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = ferrobase_shell::fuzzing::parse(text) {
            assert!(e.offset <= text.len());
        }
    }
}
