//! The filter-language parser never panics: any input is a filter or a positioned error.
#![no_main]

#[path = "../harness/filter_language.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
