//! The decoder of the manifest payload (`ManifestData::decode`) never panics.
#![no_main]

#[path = "../harness/manifest_data.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
