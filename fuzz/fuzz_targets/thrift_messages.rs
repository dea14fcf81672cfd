//! The Thrift decoders never panic and never build past the message's wire and memory budgets,
//! decoding a call's arguments as the server does (against the method's declaration) and a
//! reply as the client does (everything).
#![no_main]

#[path = "../harness/thrift_messages.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));
