//! The ZooKeeper façade's session never panics: the input read as a client connection is read
//! (4-byte length frames up to 64 KiB), the first frame as `ConnectRequest`, the rest answered
//! by `session::answer` over the façade's tree; each answer is a well-formed reply frame or a
//! close.
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs
//! (`fuzz/corpus/zookeeper_session/`, `fuzz/regressions/zookeeper_session/`).

use ferrobase_native::zookeeper::protocol::ConnectRequest;
use ferrobase_native::zookeeper::session::answer;
use ferrobase_native::zookeeper::znodes::Tree;
use ferrobase_native::zookeeper::Discovery;

/// The frame limit of the harness.
const LIMIT: usize = 1 << 16;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let tree = Tree::new(
        &Discovery {
            cluster_id: "aa73463a-6e3c-44f0-9758-04a38acc3cda".into(),
            host: "localhost".into(),
            port: 16020,
            start_code: 1_700_000_000_000,
        },
        7,
        |_| [0; 8],
    );
    let mut rest = data;
    let mut first = true;
    while rest.len() >= 4 {
        let (len, tail) = rest.split_at(4);
        let len = i32::from_be_bytes([len[0], len[1], len[2], len[3]]);
        let Ok(len) = usize::try_from(len) else {
            return;
        };
        if len > LIMIT || len > tail.len() {
            return;
        }
        let (frame, tail) = tail.split_at(len);
        rest = tail;
        if std::mem::take(&mut first) {
            let _ = ConnectRequest::decode(frame);
            continue;
        }
        let a = answer(&tree, frame, "127.0.0.1");
        if a.close {
            return;
        }
        assert!(a.frame.len() >= 20);
        assert_eq!(
            u32::from_be_bytes([a.frame[0], a.frame[1], a.frame[2], a.frame[3]]) as usize,
            a.frame.len() - 4
        );
    }
}
