//! A block file's meta section decoder never panics.
#![no_main]

#[path = "../harness/file_meta.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
