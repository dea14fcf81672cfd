//! Reading an `hbase:meta` `info:regioninfo` cell never panics.
#![no_main]

#[path = "../harness/region_info.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
