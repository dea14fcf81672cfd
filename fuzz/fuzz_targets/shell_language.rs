//! The shell's parser never panics: any input parses or is a positioned syntax error.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/syntax.rs"]
mod syntax;

// The parser expands the Ruby idioms it accepts (loops, interpolation, pack) with this module.
#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/ruby.rs"]
mod ruby;

#[path = "../harness/shell_language.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
