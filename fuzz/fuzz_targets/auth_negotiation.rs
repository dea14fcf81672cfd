//! The authentication decoders never panic: SASL PLAIN negotiation, password file, certificate CN.
#![no_main]

#[path = "../harness/auth_negotiation.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
