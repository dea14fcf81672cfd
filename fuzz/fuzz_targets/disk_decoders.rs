//! Decoders of bytes read from disk never panic: WAL records, the manifest payload, block-file
//! meta sections, bloom filters and data blocks.
#![no_main]

#[path = "../harness/disk_decoders.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
