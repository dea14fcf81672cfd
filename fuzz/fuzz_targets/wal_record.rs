//! The decoder of a WAL record payload (`WalEdit::decode`) never panics.
#![no_main]

#[path = "../harness/wal_record.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
