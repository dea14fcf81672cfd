//! The Thrift transport never panics, never loops without reading, and never builds past the
//! wire and memory budgets: transport and protocol detection from a connection's first 5 bytes
//! (buffered or framed, binary or compact), the frame length against the message limit, and the
//! calls that follow, read one after another as the server reads them
//! (`thrift::Connection::read_call` over the input as the connection's bytes).
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/thrift_transport/`, `fuzz/regressions/thrift_transport/`).

use ferrobase_gateway::idl::arguments;
use ferrobase_gateway::thrift::{Connection, InflightMemory, Limits, ThriftError};
use std::sync::Arc;

/// Small limits, so inputs of a few KiB reach them.
pub const LIMITS: Limits = Limits {
    max_message: 1 << 16,
    max_depth: 16,
    max_decoded: 1 << 20,
};

/// The memory all calls in flight may hold together: less than one call's limit, so both
/// refusals (`Overrun::Request` and `Overrun::Server`) are reachable.
pub const POOL_BYTES: usize = 1 << 18;

/// What reading an input's calls came to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Calls read whole.
    pub calls: usize,
    /// Calls read to their end but refused for memory.
    pub refused: usize,
    /// The connection ended with a malformed message (not at a clean end of input).
    pub malformed: bool,
}

/// Reads the input's calls until the connection would close; panics only on a bug.
pub fn read_calls(data: &[u8]) -> Outcome {
    let pool = Arc::new(InflightMemory::new(POOL_BYTES));
    let mut conn = Connection::over_stream(data, LIMITS).with_pool(pool.clone());
    let mut out = Outcome::default();
    // Every call, read or refused, takes at least one byte of the input.
    for _ in 0..=data.len() {
        match conn.fill() {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => panic!("reading from memory failed: {e}"),
        }
        match conn.read_call(arguments) {
            Ok(call) => {
                assert!(
                    call.memory.bytes() <= LIMITS.max_decoded,
                    "a call holds {} bytes",
                    call.memory.bytes()
                );
                assert!(pool.used() <= POOL_BYTES, "the pool holds {}", pool.used());
                out.calls += 1;
            }
            Err(ThriftError::Refused { .. }) => out.refused += 1,
            Err(ThriftError::Malformed(_)) => {
                out.malformed = true;
                break;
            }
            Err(ThriftError::Eof) | Err(ThriftError::Io(_)) => break,
        }
        assert_eq!(pool.used(), 0, "a call dropped kept its memory reserved");
    }
    assert!(
        out.calls + out.refused <= data.len(),
        "{} calls from {} bytes",
        out.calls + out.refused,
        data.len()
    );
    out
}

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    read_calls(data);
}
