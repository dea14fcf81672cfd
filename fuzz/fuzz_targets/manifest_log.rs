//! The manifest's edit log reader (`manifest_log::parse`, then `apply`) never panics.
#![no_main]

#[path = "../harness/manifest_log.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
