//! The SASL PLAIN negotiation of a connection never panics and logs in only the right password.
#![no_main]

#[path = "../harness/sasl_negotiation.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
