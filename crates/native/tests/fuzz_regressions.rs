//! The native door's fuzz targets' checked-in inputs run under `cargo test` (`fuzz/corpus/`,
//! `fuzz/regressions/` of `native_frame`, `native_cell_block`, `native_compressed_cell_block` and `native_filter`): each goes
//! through the target's own harness and must not panic.

#[path = "../../../fuzz/harness/native_cell_block.rs"]
mod native_cell_block;
#[path = "../../../fuzz/harness/native_compressed_cell_block.rs"]
mod native_compressed_cell_block;
#[path = "../../../fuzz/harness/native_filter.rs"]
mod native_filter;
#[path = "../../../fuzz/harness/native_frame.rs"]
mod native_frame;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn native_frame_inputs_replay() {
    let n = replay::replay("native_frame", native_frame::run);
    assert!(n.corpus >= 3, "{n:?}");
}

#[test]
fn native_cell_block_inputs_replay() {
    let n = replay::replay("native_cell_block", native_cell_block::run);
    assert!(n.corpus >= 1, "{n:?}");
}

#[test]
fn native_filter_inputs_replay() {
    let n = replay::replay("native_filter", native_filter::run);
    assert!(n.corpus >= 2, "{n:?}");
}

#[test]
fn native_compressed_cell_block_inputs_replay() {
    let n = replay::replay(
        "native_compressed_cell_block",
        native_compressed_cell_block::run,
    );
    assert!(n.corpus >= 4, "{n:?}");
}
