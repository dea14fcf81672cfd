//! Reading an `hbase:namespace` `info:d` cell never panics.
#![no_main]

#[path = "../harness/namespace_descriptor.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
