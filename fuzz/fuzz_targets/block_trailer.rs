//! A block file's trailer decoder never panics: as read, and with a valid magic and checksum so
//! the format version and section handles are reached.
#![no_main]

#[path = "../harness/block_trailer.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
