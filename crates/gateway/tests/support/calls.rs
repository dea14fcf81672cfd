//! Writing Thrift1 call messages (binary protocol, unframed) in the integration tests of the
//! gateway and of `ferrobase serve`. Shared by both through `#[path]`.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_gateway::thrift::{Binary, Codec, MessageHeader, MessageType, TStruct};

/// The bytes of a call of method `name` with sequence id `seq_id` and arguments `args`.
pub fn call_message(name: &str, seq_id: i32, args: &TStruct) -> Vec<u8> {
    let mut msg = Vec::new();
    Binary.write_header(
        &mut msg,
        &MessageHeader {
            name: name.into(),
            kind: MessageType::Call,
            seq_id,
        },
    );
    Binary.write_struct(&mut msg, args);
    msg
}
