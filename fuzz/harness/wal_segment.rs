//! WAL segment framing never panics: a segment's bytes as read from disk, as the last segment
//! (a torn tail ends it) and as an earlier one (damage is corruption), and a segment built from
//! the input with valid checksums, so the record payload decoder and the "valid record after a
//! bad one" rule are reached.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/wal_segment/`, `fuzz/regressions/wal_segment/`).

use ferrobase_engine::fuzzing::masked_crc;
use ferrobase_engine::fuzzing::{decode_segment, records_past_damage, SEGMENT_MAGIC};
use std::path::Path;

fn read(data: &[u8]) {
    let path = Path::new("fuzz.wal");
    for is_last in [false, true] {
        let mut records = 0usize;
        let _ = decode_segment(path, data, is_last, |e| {
            records += 1;
            std::hint::black_box(e);
            Ok(())
        });
        assert!(records <= data.len() / 8);
    }
    // What point-in-time recovery reports past a damaged record.
    for version in [1, 2] {
        assert!(records_past_damage(data, 0, version).len() <= data.len() / 8);
    }
}

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    read(data);
    // The input as records: each chunk is `n:u8 payload[n]`, framed with its true length and
    // checksum; a chunk whose first byte is 0xff gets a wrong checksum, and a chunk cut short by
    // the input's end is written torn (its header claims the whole `n` bytes).
    let mut segment = SEGMENT_MAGIC.to_vec();
    let mut rest = data;
    while let Some((&n, tail)) = rest.split_first() {
        let n = usize::from(n);
        let payload = &tail[..n.min(tail.len())];
        let crc = masked_crc(payload) ^ u32::from(payload.first() == Some(&0xff));
        segment.extend_from_slice(&(n as u32).to_be_bytes());
        segment.extend_from_slice(&crc.to_be_bytes());
        segment.extend_from_slice(payload);
        rest = &tail[payload.len()..];
    }
    read(&segment);
}
