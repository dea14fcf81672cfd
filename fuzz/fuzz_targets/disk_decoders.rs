//! Decoders of bytes read from disk never panic: WAL records, the manifest payload, block-file
//! meta sections, bloom filters and data blocks.
#![no_main]

use ferrobase_engine::block_file::BlockDecoder;
use ferrobase_engine::bloom::BloomFilter;
use ferrobase_engine::manifest::ManifestData;
use ferrobase_engine::wal::WalEdit;
use std::sync::Arc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = WalEdit::decode(data);
    let _ = ManifestData::decode(data);
    let _ = BloomFilter::decode(data);
    let mut d = BlockDecoder::new(Arc::new(data.to_vec()));
    for _ in 0..10_000 {
        match d.next_cell() {
            Ok(Some(_)) => {}
            _ => break,
        }
    }
});
