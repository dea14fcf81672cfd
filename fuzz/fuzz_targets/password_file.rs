//! The password file parser never panics and names a line from 1 on a bad one.
#![no_main]

#[path = "../harness/password_file.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
