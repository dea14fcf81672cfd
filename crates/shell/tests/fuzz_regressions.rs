//! The shell's fuzz targets' checked-in inputs run under `cargo test`: every seed and every
//! input that once failed (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`, for
//! `shell_language` and `shell_converters`) goes through the target's own harness and must not
//! panic.

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/shell_converters.rs"]
mod shell_converters;
#[path = "../../../fuzz/harness/shell_language.rs"]
mod shell_language;

#[test]
fn shell_language_inputs_replay() {
    let n = replay::replay("shell_language", shell_language::run);
    assert!(n.corpus > 0, "{n:?}");
    // Arrays and hashes nested 3,000 deep: a syntax error, not a stack overflow.
    assert!(n.regressions >= 2, "{n:?}");
}

#[test]
fn shell_converters_inputs_replay() {
    let n = replay::replay("shell_converters", shell_converters::run);
    assert!(n.corpus > 0, "{n:?}");
}
