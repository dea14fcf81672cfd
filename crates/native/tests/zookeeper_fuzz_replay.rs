//! The `zookeeper_session` fuzz target's checked-in inputs run under `cargo test`
//! (`fuzz/corpus/zookeeper_session/`: hbase-client 2.6.1's and kazoo's connections as
//! captured, and `fuzz/regressions/zookeeper_session/`) through the target's harness.

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/zookeeper_session.rs"]
mod zookeeper_session;

#[test]
fn zookeeper_session_inputs_replay() {
    let n = replay::replay("zookeeper_session", zookeeper_session::run);
    assert!(n.corpus >= 3, "{n:?}");
}
