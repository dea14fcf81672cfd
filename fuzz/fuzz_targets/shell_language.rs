//! The shell's parser never panics: any input parses or is a positioned syntax error.
#![no_main]

#[path = "../harness/shell_language.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
