//! The shell-language fuzz target's checked-in inputs run under `cargo test`: every seed and
//! every input that once failed (`fuzz/corpus/shell_language/`,
//! `fuzz/regressions/shell_language/`) goes through the target's own harness and must not
//! panic.

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/shell_language.rs"]
mod shell_language;
#[allow(
    dead_code,
    reason = "the binary's module, of which these tests use the parser only"
)]
#[path = "../src/shell/syntax.rs"]
mod syntax;

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
