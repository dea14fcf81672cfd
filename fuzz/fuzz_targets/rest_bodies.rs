//! See `harness/rest_bodies.rs`.
#![no_main]

#[path = "../harness/rest_bodies.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
