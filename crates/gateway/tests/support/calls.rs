//! Writing Thrift1 call messages (binary protocol, unframed) and making calls over a socket in
//! the integration tests of the gateway and of `ferrobase serve`. Shared by both through `#[path]`.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_gateway::thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, TStruct,
};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

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

/// One call of method `name` on `s` in `codec`, framed or not, and its reply (header and
/// result struct), waiting at most `timeout` for it.
pub fn call_on<C: Codec>(
    s: &mut TcpStream,
    codec: &C,
    framed: bool,
    name: &str,
    args: &TStruct,
    timeout: Duration,
) -> (MessageHeader, TStruct) {
    s.set_read_timeout(Some(timeout)).unwrap();
    let mut msg = Vec::new();
    codec.write_header(
        &mut msg,
        &MessageHeader {
            name: name.into(),
            kind: MessageType::Call,
            seq_id: 7,
        },
    );
    codec.write_struct(&mut msg, args);
    if framed {
        let mut f = (msg.len() as u32).to_be_bytes().to_vec();
        f.extend_from_slice(&msg);
        msg = f;
    }
    s.write_all(&msg).unwrap();
    let mut reader: Box<dyn Read> = if framed {
        let mut len = [0u8; 4];
        s.read_exact(&mut len).unwrap();
        let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
        s.read_exact(&mut frame).unwrap();
        Box::new(std::io::Cursor::new(frame))
    } else {
        Box::new(s.try_clone().unwrap())
    };
    let limits = Limits {
        max_message: 1 << 24,
        ..Default::default()
    };
    let mut b = Budget::new(&mut reader, &limits);
    let h = codec.read_header(&mut b).unwrap();
    let body = codec.read_struct(&mut b).unwrap();
    (h, body)
}
