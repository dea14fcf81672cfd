//! See `harness/zookeeper_session.rs`.
#![no_main]

#[path = "../harness/zookeeper_session.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
