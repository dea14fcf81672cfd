//! See `harness/native_compressed_cell_block.rs`.
#![no_main]

#[path = "../harness/native_compressed_cell_block.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
