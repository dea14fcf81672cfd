//! Reading the subject CN of a client certificate never panics.
#![no_main]

#[path = "../harness/certificate_identity.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
