//! See `harness/native_filter.rs`.
#![no_main]

#[path = "../harness/native_filter.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
