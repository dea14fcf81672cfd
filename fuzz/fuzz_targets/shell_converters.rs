//! The shell's value converters never panic, and print what they read.
#![no_main]

// The ferrobase crate is a binary: its hidden fuzzing module and the modules that module uses
// are included by path.
#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/fuzzing.rs"]
mod fuzzing;

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/converter.rs"]
mod converter;

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/format.rs"]
mod format;

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/args.rs"]
mod args;

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/syntax.rs"]
mod syntax;

#[allow(dead_code)]
#[path = "../../crates/ferrobase/src/shell/ruby.rs"]
mod ruby;

#[path = "../harness/shell_converters.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
