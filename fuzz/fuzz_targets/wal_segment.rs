//! WAL segment framing never panics: a segment's bytes as read from disk, as the last segment
//! (a torn tail ends it) and as an earlier one (damage is corruption), and a segment built from
//! the input with valid checksums, so the record payload decoder and the "valid record after a
//! bad one" rule are reached.
#![no_main]

#[path = "../harness/wal_segment.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
