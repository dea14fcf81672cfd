//! The filter-language parser never panics: any input is a filter or a positioned error.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ferrobase_engine::filter::parse_filter(data) {
        assert!(e.position <= data.len());
    }
});
