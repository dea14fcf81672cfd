//! The `export_file` and `tsv_line` fuzz targets' checked-in inputs run under `cargo test`: every
//! seed and every input that once failed (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`)
//! goes through the target's own harness and must not panic.

#[path = "../../../fuzz/harness/export_file.rs"]
mod export_file;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/tsv_line.rs"]
mod tsv_line;

#[test]
fn export_file_inputs_replay() {
    let n = replay::replay("export_file", export_file::run);
    assert!(n.corpus >= 4, "{n:?}");
}

#[test]
fn tsv_line_inputs_replay() {
    let n = replay::replay("tsv_line", tsv_line::run);
    assert!(n.corpus >= 2, "{n:?}");
}
