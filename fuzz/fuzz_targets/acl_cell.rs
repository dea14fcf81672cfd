//! Reading an `hbase:acl` cell (scope, user, actions) never panics.
#![no_main]

#[path = "../harness/acl_cell.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
