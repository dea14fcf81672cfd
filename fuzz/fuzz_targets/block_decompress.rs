//! Every codec's decompressor (`Compression::decompress`; LZ4 runs lz4_flex's checked fast
//! path) never panics on arbitrary input: the first byte times 64 is the raw length the block
//! claims, the rest the compressed payload.
#![no_main]

#[path = "../harness/block_decompress.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
