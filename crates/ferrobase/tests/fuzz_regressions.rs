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
#[allow(
    dead_code,
    reason = "the binary's module, of which these tests use the parser only"
)]
#[path = "../src/shell/syntax.rs"]
mod syntax;

// The converters and what they use, behind the shell's hidden fuzzing module.
#[allow(
    dead_code,
    reason = "the binary's module, of which the converters use the error type"
)]
#[path = "../src/shell/args.rs"]
mod args;
#[allow(
    dead_code,
    reason = "the binary's module, of which these tests use the converters"
)]
#[path = "../src/shell/converter.rs"]
mod converter;
#[allow(
    dead_code,
    reason = "the binary's module, of which the converters use a part"
)]
#[path = "../src/shell/format.rs"]
mod format;
#[allow(
    dead_code,
    reason = "the binary's module, of which these tests use the converters"
)]
#[path = "../src/shell/fuzzing.rs"]
mod fuzzing;

// The parser expands the Ruby idioms it accepts (loops, interpolation, pack) with this module.
#[allow(
    dead_code,
    reason = "the binary's module, of which the parser uses a part"
)]
#[path = "../src/shell/ruby.rs"]
mod ruby;

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
