//! ImportTsv's parsers (`importtsv.columns`, a line split as TSV and as CSV, the line's Put) never
//! panic.
#![no_main]

#[path = "../harness/tsv_line.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
