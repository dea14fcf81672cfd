//! The shell's value converters never panic, and print what they read.
#![no_main]

#[path = "../harness/shell_converters.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
