//! The memstore's skip list and chunks answer as a sorted map does (`harness/memstore_ops.rs`).
#![no_main]

#[path = "../harness/memstore_ops.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
