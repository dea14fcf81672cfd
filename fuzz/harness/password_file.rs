//! The password file parser (`ferrobase_gateway::sasl::PasswordFile::parse`) never panics on a
//! file's text, and a refused file names a line counted from 1. The input is read as UTF-8,
//! invalid sequences replaced, as the server reads the file.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/password_file/`, `fuzz/regressions/password_file/`).

use ferrobase_gateway::sasl::PasswordFile;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Err((line, _)) = PasswordFile::parse(&String::from_utf8_lossy(data)) {
        assert!(line >= 1);
    }
}
