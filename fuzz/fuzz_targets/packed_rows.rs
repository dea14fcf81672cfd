//! The packed scan rows' reader never panics, and its writer writes back what it read.
#![no_main]

#[path = "../harness/packed_rows.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
