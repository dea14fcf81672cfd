//! The Thrift decoders never panic and never build past the message's wire and memory budgets,
//! decoding a call's arguments as the server does (against the method's declaration) and a
//! reply as the client does (everything).
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/thrift_messages/`, `fuzz/regressions/thrift_messages/`).

use ferrobase_gateway::idl::arguments;
use ferrobase_gateway::thrift::{Binary, Budget, Codec, Compact, Limits};

const LIMITS: Limits = Limits {
    max_message: 1 << 16,
    max_depth: 16,
    max_decoded: 1 << 20,
};

fn decode<C: Codec>(c: &C, data: &[u8]) {
    for declared in [false, true] {
        let mut r = data;
        let mut b = Budget::new(&mut r, &LIMITS);
        let _ = c.read_header(&mut b).and_then(|h| {
            if declared {
                c.read_declared(&mut b, arguments(&h.name).unwrap_or(&[]))
            } else {
                c.read_struct(&mut b)
            }
        });
    }
}

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    decode(&Binary, data);
    decode(&Compact, data);
}
