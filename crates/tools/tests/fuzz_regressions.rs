//! The `export_file` fuzz target's checked-in inputs run under `cargo test`: every seed and every
//! input that once failed (`fuzz/corpus/export_file/`, `fuzz/regressions/export_file/`) goes
//! through the target's own harness and must not panic.

#[path = "../../../fuzz/harness/export_file.rs"]
mod export_file;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn export_file_inputs_replay() {
    let n = replay::replay("export_file", export_file::run);
    assert!(n.corpus >= 4, "{n:?}");
}
