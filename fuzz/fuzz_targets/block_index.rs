//! A block file's index section decoder never panics and returns at most one entry per input
//! byte.
#![no_main]

#[path = "../harness/block_index.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
