//! The native RPC door's framing never panics and never allocates past its limit: the six
//! preamble bytes, then length-prefixed frames read as the server reads them (the first as the
//! connection header, the rest split into request header, parameter and cell block).
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs
//! (`fuzz/corpus/native_frame/`, `fuzz/regressions/native_frame/`).

use ferrobase_native::wire::{connection_header, read_frame, read_preamble, split_request};

/// The frame limit of the harness: small, so a length past it is refused before allocation.
const LIMIT: usize = 1 << 16;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let mut r = data;
    let _ = read_preamble(&mut r);
    let mut first = true;
    while let Ok(Some(frame)) = read_frame(&mut r, LIMIT) {
        assert!(frame.len() <= LIMIT);
        if std::mem::take(&mut first) {
            let _ = connection_header(&frame);
        } else if let Ok(req) = split_request(&frame) {
            assert!(req.param.len() + req.cells.len() <= frame.len());
        }
    }
}
