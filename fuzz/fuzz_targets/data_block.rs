//! The data block decoder (`BlockDecoder`) never panics: blocks of every format version, read in
//! order and by seeking.
#![no_main]

#[path = "../harness/data_block.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
