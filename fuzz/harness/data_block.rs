//! The data block decoder (`BlockDecoder`) never panics: blocks of every format version, read in
//! order and by seeking.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/data_block/`, `fuzz/regressions/data_block/`).

use bytes::Bytes;
use ferrobase_engine::fuzzing::CellKey;
use ferrobase_engine::fuzzing::{BlockDecoder, BlockFormat};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let block = Bytes::copy_from_slice(data);
    // Blocks of every format version (1: no restart trailer, 2: untagged cells and a restart
    // trailer, 3: tagged cells and a footer, 4: cells may carry a TTL), read in order and by
    // seeking to a key taken from the input.
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
