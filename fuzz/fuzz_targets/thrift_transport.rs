//! The Thrift transport never panics, never loops without reading, and never builds past the
//! wire and memory budgets: detection of buffered or framed, binary or compact from the first
//! bytes, frame lengths, and the calls that follow, as the server reads a connection.
#![no_main]

#[path = "../harness/thrift_transport.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
