//! The shell's parser never panics: any input parses or is a positioned syntax error.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/syntax.rs"]
mod syntax;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = syntax::parse(text) {
            assert!(e.offset <= text.len());
        }
    }
});
