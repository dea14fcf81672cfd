//! Decoders of bytes read from disk never panic: WAL records, the manifest payload, block-file
//! meta sections, bloom filters and data blocks.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/disk_decoders/`, `fuzz/regressions/disk_decoders/`).

use bytes::Bytes;
use ferrobase_engine::fuzzing::BloomFilter;
use ferrobase_engine::fuzzing::CellKey;
use ferrobase_engine::fuzzing::Compression;
use ferrobase_engine::fuzzing::ManifestData;
use ferrobase_engine::fuzzing::WalEdit;
use ferrobase_engine::fuzzing::{BlockDecoder, BlockFormat};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = WalEdit::decode(data);
    let _ = ManifestData::decode(data);
    let _ = BloomFilter::decode(data);
    // Every codec's decompressor (LZ4 runs lz4_flex's checked fast path) on arbitrary input.
    if let Some((&first, rest)) = data.split_first() {
        let raw_len = usize::from(first) * 64;
        for id in 0..=4 {
            if let Some(codec) = Compression::from_id(id) {
                let _ = codec.decompress(rest, raw_len);
            }
        }
    }
    let block = Bytes::copy_from_slice(data);
    // Blocks of every format version (1: no restart trailer, 2: untagged cells and a restart
    // trailer, 3: tagged cells and a footer, 4: cells may carry a TTL), read in order and by seeking to a key taken from
    // the input.
    for format in [
        BlockFormat::V1,
        BlockFormat::V2,
        BlockFormat::V3,
        BlockFormat::V4,
    ] {
        let Ok(mut d) = BlockDecoder::new(block.clone(), format) else {
            continue;
        };
        let mut s = d.clone();
        let family = Bytes::from_static(b"cf");
        let mut out = Vec::new();
        for _ in 0..10_000 {
            match d.advance() {
                Ok(true) => {
                    // The in-place view and the packed cell read the ranges the parser took.
                    let v = d.current().expect("a current cell after advance");
                    std::hint::black_box((v.row, v.qualifier, v.value));
                    assert!(d.push_current(&family, &mut out));
                    let c = out.pop().expect("pushed");
                    assert_eq!(
                        (c.row(), c.qualifier(), c.value()),
                        (v.row, v.qualifier, v.value)
                    );
                }
                _ => break,
            }
        }
        let target = CellKey::first_on_row(&data[..data.len().min(8)]);
        if let Ok(true) = s.seek(&target) {
            let _ = s.current();
            let _ = s.next_cell();
        }
    }
}
