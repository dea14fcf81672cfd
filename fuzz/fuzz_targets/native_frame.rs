//! See `harness/native_frame.rs`.
#![no_main]

#[path = "../harness/native_frame.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
