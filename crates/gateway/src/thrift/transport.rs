//! Transports: buffered (messages back to back on the socket) and framed (each message behind
//! a 4-byte big-endian length), detected per connection from the first bytes, so a client never
//! hangs on a transport or protocol mismatch.

use super::{
    malformed, Binary, Budget, Codec, Compact, Limits, MessageHeader, TStruct, ThriftError,
};
use std::io::{BufRead, BufReader, Cursor, Read, Write};
use std::net::TcpStream;

/// How messages are delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Messages back to back.
    Buffered,
    /// Each message behind its length.
    Framed,
}

/// Which encoding messages use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// TBinaryProtocol.
    Binary,
    /// TCompactProtocol.
    Compact,
}

/// A server-side connection: reads calls and writes replies in the detected transport and
/// protocol.
pub struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    limits: Limits,
    kind: Option<(Transport, Protocol)>,
    prefix: Vec<u8>,
}

fn protocol_of(byte: u8) -> Option<Protocol> {
    match byte {
        0x80 => Some(Protocol::Binary),
        0x82 => Some(Protocol::Compact),
        _ => None,
    }
}

fn read_some<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<(), ThriftError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Err(ThriftError::Eof),
            Ok(0) => return Err(malformed("connection closed mid-message")),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ThriftError::Io(e)),
        }
    }
    Ok(())
}

impl Connection {
    /// Wraps an accepted socket.
    pub fn new(stream: TcpStream, limits: Limits) -> std::io::Result<Connection> {
        Ok(Connection {
            reader: BufReader::with_capacity(64 * 1024, stream.try_clone()?),
            writer: stream,
            limits,
            kind: None,
            prefix: Vec::new(),
        })
    }

    /// The detected transport and protocol, once the first call has arrived.
    pub fn kind(&self) -> Option<(Transport, Protocol)> {
        self.kind
    }

    /// Waits until the next call's first byte is readable: `Ok(false)` when the peer closed,
    /// an error of kind `WouldBlock`/`TimedOut` when a read timeout set on the socket passed.
    pub fn fill(&mut self) -> std::io::Result<bool> {
        if !self.prefix.is_empty() {
            return Ok(true);
        }
        Ok(!self.reader.fill_buf()?.is_empty())
    }

    /// Every valid call is at least 5 bytes, so reading 5 never waits on a well-behaved client.
    fn detect(&mut self) -> Result<(Transport, Protocol), ThriftError> {
        if let Some(k) = self.kind {
            return Ok(k);
        }
        let mut head = [0u8; 5];
        read_some(&mut self.reader, &mut head)?;
        self.prefix = head.to_vec();
        let k = match protocol_of(head[0]) {
            Some(p) => (Transport::Buffered, p),
            None => match protocol_of(head[4]) {
                Some(p) => (Transport::Framed, p),
                None => {
                    return Err(malformed(
                        "not a Thrift binary or compact message, buffered or framed",
                    ))
                }
            },
        };
        self.kind = Some(k);
        Ok(k)
    }

    /// Reads the next call. `Eof` when the client closed the connection between calls.
    pub fn read_call(&mut self) -> Result<(MessageHeader, TStruct), ThriftError> {
        let (transport, protocol) = self.detect()?;
        let prefix = std::mem::take(&mut self.prefix);
        match transport {
            Transport::Framed => {
                let mut len = [0u8; 4];
                let mut rest_of_prefix: &[u8] = &[];
                if prefix.is_empty() {
                    read_some(&mut self.reader, &mut len)?;
                } else {
                    len.copy_from_slice(&prefix[..4]);
                    rest_of_prefix = &prefix[4..];
                }
                let n = u32::from_be_bytes(len) as usize;
                if n > self.limits.max_message {
                    return Err(malformed(format!(
                        "frame of {n} bytes exceeds the limit of {} bytes",
                        self.limits.max_message
                    )));
                }
                if n < rest_of_prefix.len() {
                    return Err(malformed("frame shorter than a message header"));
                }
                let mut frame = rest_of_prefix.to_vec();
                frame.resize(n, 0);
                let start = rest_of_prefix.len();
                self.reader
                    .read_exact(&mut frame[start..])
                    .map_err(|_| malformed("frame cut short"))?;
                let mut r = &frame[..];
                parse(protocol, &mut r, n, self.limits.max_depth)
            }
            Transport::Buffered => {
                let mut chained = Cursor::new(prefix).chain(&mut self.reader);
                parse(
                    protocol,
                    &mut chained,
                    self.limits.max_message,
                    self.limits.max_depth,
                )
            }
        }
    }

    /// Writes a reply (or exception) message.
    pub fn write(&mut self, header: &MessageHeader, body: &TStruct) -> std::io::Result<()> {
        let (transport, protocol) = self.kind.unwrap_or((Transport::Buffered, Protocol::Binary));
        let mut out = Vec::with_capacity(256);
        if transport == Transport::Framed {
            out.extend_from_slice(&[0; 4]);
        }
        match protocol {
            Protocol::Binary => {
                Binary.write_header(&mut out, header);
                Binary.write_struct(&mut out, body);
            }
            Protocol::Compact => {
                Compact.write_header(&mut out, header);
                Compact.write_struct(&mut out, body);
            }
        }
        if transport == Transport::Framed {
            let n = (out.len() - 4) as u32;
            out[..4].copy_from_slice(&n.to_be_bytes());
        }
        self.writer.write_all(&out)?;
        self.writer.flush()
    }
}

fn parse<R: Read>(
    protocol: Protocol,
    r: &mut R,
    budget: usize,
    depth: usize,
) -> Result<(MessageHeader, TStruct), ThriftError> {
    let mut b = Budget {
        inner: r,
        remaining: budget,
        depth_left: depth,
    };
    match protocol {
        Protocol::Binary => {
            let h = Binary.read_header(&mut b)?;
            Ok((h, Binary.read_struct(&mut b)?))
        }
        Protocol::Compact => {
            let h = Compact.read_header(&mut b)?;
            Ok((h, Compact.read_struct(&mut b)?))
        }
    }
}
