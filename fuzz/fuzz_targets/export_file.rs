//! HBase Export files (Hadoop SequenceFiles of row keys and `Result`s) never panic the reader:
//! the input as a whole file and as the body behind a valid header of each layout and codec.
#![no_main]

#[path = "../harness/export_file.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
