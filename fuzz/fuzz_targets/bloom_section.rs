//! The decoder of a block file's bloom section (`BloomFilter::decode`) never panics.
#![no_main]

#[path = "../harness/bloom_section.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
