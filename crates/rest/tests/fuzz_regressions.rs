//! The REST door's fuzz target's checked-in inputs run under `cargo test` (`fuzz/corpus/` and
//! `fuzz/regressions/` of `rest_bodies`): each goes through the target's own harness and must
//! not panic.

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/rest_bodies.rs"]
mod rest_bodies;

#[test]
fn rest_bodies_inputs_replay() {
    let n = replay::replay("rest_bodies", rest_bodies::run);
    assert!(n.corpus >= 5, "{n:?}");
}
