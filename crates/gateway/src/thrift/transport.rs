//! Transports: buffered (messages back to back on the socket) and framed (each message behind
//! a 4-byte big-endian length), detected per connection from the first bytes, so a client never
//! hangs on a transport or protocol mismatch.
//!
//! A [`Connection`] reads from any byte stream ([`Connection::over_stream`]): the server's is a
//! socket with a deadline ([`DeadlineWire`]), the `thrift_transport` fuzz target's a byte slice.

use super::deadline::DeadlineWire;
use super::{
    malformed, Binary, Budget, Codec, Compact, Field, InflightMemory, Limits, MessageHeader,
    Reservation, TStruct, TValue, ThriftError,
};
use crate::tls::{ServerWire, Wire};
use std::io::{BufRead, BufReader, Cursor, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Instant;

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
/// protocol, over a stream `S` (by default the server's socket with its deadline).
pub struct Connection<S = DeadlineWire> {
    /// Reads through the buffer; replies are written to the stream beneath it.
    reader: BufReader<S>,
    limits: Limits,
    pool: Option<Arc<InflightMemory>>,
    kind: Option<(Transport, Protocol)>,
    prefix: Vec<u8>,
    /// Bytes of the largest call decoded or reply encoded since [`Connection::take_largest`],
    /// replies written in the kept buffer (`reply`) and calls counted in `held` not counted.
    largest: usize,
    /// Bytes of the largest call decoded since [`Connection::release_buffers`] whose memory the
    /// connection's thread keeps for the next call (with the reply buffer, at most
    /// [`KEEP_REPLY_BUFFER`]): a busy loader's 1,000-row batches are decoded into the pages
    /// the batch before freed, not into fresh ones after a purge.
    held: usize,
    /// The buffer replies are encoded in, kept between calls while it holds at most
    /// [`KEEP_REPLY_BUFFER`] bytes ([`Connection::release_buffers`] drops it).
    reply: Vec<u8>,
    /// Bytes of `reply` charged to `pool` while it is kept.
    reply_charged: usize,
}

/// The largest reply buffer a connection keeps for its next call (1 MiB): a 1,000-row scan's
/// reply is encoded in the memory of the one before instead of in fresh pages, and the
/// connection's thread need not give them back after the call. Dropped when the connection
/// goes idle ([`Connection::release_buffers`]). A kept buffer is charged to the server's
/// in-flight memory ([`InflightMemory::try_reserve_spare`]) and kept only while that stays at
/// most half full, so a thousand busy connections hold at most half of
/// `--max-inflight-memory` this way, never the room requests need.
pub const KEEP_REPLY_BUFFER: usize = 1 << 20;

fn protocol_of(byte: u8) -> Option<Protocol> {
    match byte {
        0x80 => Some(Protocol::Binary),
        0x82 => Some(Protocol::Compact),
        _ => None,
    }
}

/// Counts a call's `decoded` bytes: kept for the next call (`held`) when they fit beside the
/// reply buffer (`reply` bytes) within [`KEEP_REPLY_BUFFER`], else as a large call (`largest`).
fn count_decoded(held: &mut usize, largest: &mut usize, reply: usize, decoded: usize) {
    if decoded.saturating_add(reply) <= KEEP_REPLY_BUFFER {
        *held = (*held).max(decoded);
    } else {
        *largest = (*largest).max(decoded);
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
    /// Wraps an accepted plain socket.
    pub fn new(stream: TcpStream, limits: Limits) -> std::io::Result<Connection> {
        Ok(Connection::over(Wire::Plain(stream), limits))
    }

    /// Wraps an accepted socket, plain or TLS (after its handshake).
    pub fn over(wire: ServerWire, limits: Limits) -> Connection {
        Connection::over_stream(DeadlineWire::new(wire), limits)
    }

    /// Wraps an accepted socket whose first bytes `head` were read already (decrypted, to
    /// tell which protocol it speaks): the calls are read from `head` onwards.
    pub fn over_with_head(wire: ServerWire, head: Vec<u8>, limits: Limits) -> Connection {
        Connection::over_stream(DeadlineWire::with_head(wire, head), limits)
    }

    /// Sets the time by which the message being read or written must be through (a read or
    /// write past it fails with `TimedOut`), or clears it, with the socket's timeouts.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) -> std::io::Result<()> {
        self.reader.get_mut().set_deadline(deadline)
    }

    /// The socket beneath (for its timeouts and addresses).
    pub fn socket(&self) -> &TcpStream {
        self.reader.get_ref().socket()
    }
}

impl<S> Drop for Connection<S> {
    fn drop(&mut self) {
        if let Some(pool) = &self.pool {
            pool.release(self.reply_charged);
        }
    }
}

impl<S: Read> Connection<S> {
    /// Reads calls from `stream` through a 64 KiB buffer (replies, when `S` is also `Write`,
    /// are written to it unbuffered): what [`Connection::over`] does with a socket, for any
    /// stream of bytes.
    pub fn over_stream(stream: S, limits: Limits) -> Connection<S> {
        Connection {
            reader: BufReader::with_capacity(64 * 1024, stream),
            limits,
            pool: None,
            kind: None,
            prefix: Vec::new(),
            largest: 0,
            held: 0,
            reply: Vec::new(),
            reply_charged: 0,
        }
    }

    /// Charges the memory of decoded requests to `pool`, shared with other connections.
    pub fn with_pool(mut self, pool: Arc<InflightMemory>) -> Connection<S> {
        self.pool = Some(pool);
        self
    }

    /// Bytes of the largest message handled since the last call of this method (the decoded
    /// arguments of a call as charged to the memory budget, or an encoded reply too large for
    /// the kept buffer), and starts counting again: how much the connection's thread allocated
    /// and freed for its largest call.
    pub fn take_largest(&mut self) -> usize {
        std::mem::take(&mut self.largest)
    }

    /// Drops the buffer kept for replies (a connection going idle gives its memory back);
    /// returns the bytes it kept: that buffer's, or the largest call's decoded since the last
    /// release whose freed memory its thread kept, whichever is larger.
    pub fn release_buffers(&mut self) -> usize {
        self.uncharge_reply();
        let reply = std::mem::take(&mut self.reply).capacity();
        reply.max(std::mem::take(&mut self.held))
    }

    /// Gives the kept reply buffer's charge back to the pool (the buffer is about to be used
    /// or dropped).
    fn uncharge_reply(&mut self) {
        if let Some(pool) = &self.pool {
            pool.release(std::mem::take(&mut self.reply_charged));
        }
    }

    /// Keeps `out` for the next reply when it is small enough and the pool has room for it.
    fn keep_reply(&mut self, out: Vec<u8>) {
        let n = out.capacity();
        if n > KEEP_REPLY_BUFFER {
            self.largest = self.largest.max(out.len());
            return;
        }
        match &self.pool {
            Some(pool) if !pool.try_reserve_spare(n) => {
                self.largest = self.largest.max(out.len());
            }
            Some(_) => {
                self.reply_charged = n;
                self.reply = out;
            }
            None => self.reply = out,
        }
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

    /// Reads the next call, decoding its arguments against `declared(method)` (an unknown
    /// method's arguments are read past, none built). `Eof` when the client closed the
    /// connection between calls; `Refused` when the call was read to its end but decoding it
    /// would pass a memory limit (the connection stays in step).
    pub fn read_call(
        &mut self,
        declared: impl Fn(&str) -> Option<&'static [Field]>,
    ) -> Result<Call, ThriftError> {
        let (transport, protocol) = self.detect()?;
        let prefix = std::mem::take(&mut self.prefix);
        let limits = self.limits;
        let pool = self.pool.clone();
        let (decoded, call) = match transport {
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
                if n > limits.max_message {
                    return Err(malformed(format!(
                        "frame of {n} bytes exceeds the limit of {} bytes",
                        limits.max_message
                    )));
                }
                if n < rest_of_prefix.len() {
                    return Err(malformed("frame shorter than a message header"));
                }
                // Decoded straight from the socket: a frame is never held whole in memory.
                if rest_of_prefix.is_empty() {
                    let b = Budget::new(&mut self.reader, &limits).with_wire_limit(n);
                    framed(protocol, b, pool, &declared)?
                } else {
                    let mut chained = Cursor::new(rest_of_prefix.to_vec()).chain(&mut self.reader);
                    let b = Budget::new(&mut chained, &limits).with_wire_limit(n);
                    framed(protocol, b, pool, &declared)?
                }
            }
            // The first call's detected bytes are read again before the stream; later calls
            // are decoded from the buffered stream itself (its `read_exact` copies straight
            // out of the buffer, where a chain reads each primitive through two layers).
            Transport::Buffered if prefix.is_empty() => {
                let b = Budget::new(&mut self.reader, &limits);
                buffered(protocol, b, pool, &declared)
            }
            Transport::Buffered => {
                let mut chained = Cursor::new(prefix).chain(&mut self.reader);
                let b = Budget::new(&mut chained, &limits);
                buffered(protocol, b, pool, &declared)
            }
        };
        count_decoded(
            &mut self.held,
            &mut self.largest,
            self.reply.capacity(),
            decoded,
        );
        call
    }
}

/// Decodes a framed call whose frame length `b` is limited to: (bytes decoded, the call).
/// Bytes of the frame after the message belong to no one: read past them.
fn framed<R: Read>(
    protocol: Protocol,
    mut b: Budget<'_, R>,
    pool: Option<Arc<InflightMemory>>,
    declared: &impl Fn(&str) -> Option<&'static [Field]>,
) -> Result<(usize, Result<Call, ThriftError>), ThriftError> {
    if let Some(p) = pool {
        b = b.with_pool(p);
    }
    let call = parse(protocol, &mut b, declared);
    let left = b.remaining();
    if call.is_ok() || matches!(call, Err(ThriftError::Refused { .. })) {
        b.skip(left)?;
    }
    Ok((b.decoded(), finish(call, b)))
}

/// Decodes a buffered call: (bytes decoded, the call).
fn buffered<R: Read>(
    protocol: Protocol,
    mut b: Budget<'_, R>,
    pool: Option<Arc<InflightMemory>>,
    declared: &impl Fn(&str) -> Option<&'static [Field]>,
) -> (usize, Result<Call, ThriftError>) {
    if let Some(p) = pool {
        b = b.with_pool(p);
    }
    let call = parse(protocol, &mut b, declared);
    (b.decoded(), finish(call, b))
}

impl<S: Read + Write> Connection<S> {
    /// Writes a reply (or exception) message.
    pub fn write(&mut self, header: &MessageHeader, body: &TStruct) -> std::io::Result<()> {
        let (transport, protocol) = self.kind.unwrap_or((Transport::Buffered, Protocol::Binary));
        // Values their producer writes (a bulk scan's rows) say about how large they are: the
        // buffer is sized once instead of growing by doubling (a copy and fresh pages each time).
        let hint: usize = body
            .fields
            .iter()
            .map(|(_, v)| match v {
                TValue::Encoded(e) => e.size_hint(),
                _ => 0,
            })
            .sum();
        self.uncharge_reply();
        let mut out = std::mem::take(&mut self.reply);
        out.clear();
        out.reserve(256 + hint);
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
        let writer = self.reader.get_mut();
        let written = writer.write_all(&out).and_then(|()| writer.flush());
        self.keep_reply(out);
        written
    }
}

/// A call read off the wire.
#[derive(Debug)]
pub struct Call {
    /// The message header.
    pub header: MessageHeader,
    /// The arguments, as declared for the method.
    pub args: TStruct,
    /// Memory reserved for the decoded arguments; hold it until the call is answered.
    pub memory: Reservation,
}

fn parse<R: Read>(
    protocol: Protocol,
    b: &mut Budget<'_, R>,
    declared: &impl Fn(&str) -> Option<&'static [Field]>,
) -> Result<(MessageHeader, TStruct), ThriftError> {
    match protocol {
        Protocol::Binary => {
            let h = Binary.read_header(b)?;
            let args = Binary.read_declared(b, declared(&h.name).unwrap_or(&[]))?;
            Ok((h, args))
        }
        Protocol::Compact => {
            let h = Compact.read_header(b)?;
            let args = Compact.read_declared(b, declared(&h.name).unwrap_or(&[]))?;
            Ok((h, args))
        }
    }
}

fn finish<R: Read>(
    call: Result<(MessageHeader, TStruct), ThriftError>,
    b: Budget<'_, R>,
) -> Result<Call, ThriftError> {
    let (header, args) = call?;
    if let Some(over) = b.overrun() {
        return Err(ThriftError::Refused { header, over });
    }
    Ok(Call {
        header,
        args,
        memory: b.into_reservation(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrobase_thrift::{MessageType, TValue};

    /// A stream that has nothing to read and takes every write.
    struct Sink;

    impl Read for Sink {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Ok(0)
        }
    }

    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn reply(conn: &mut Connection<Sink>, bytes: usize) {
        let header = MessageHeader {
            name: "scannerGetList".into(),
            kind: MessageType::Reply,
            seq_id: 1,
        };
        let body = TStruct {
            fields: vec![(0, TValue::Binary(vec![7; bytes]))],
        };
        conn.write(&header, &body).unwrap();
    }

    #[test]
    fn a_kept_reply_buffer_is_charged_to_the_pool_while_kept() {
        let pool = Arc::new(InflightMemory::new(4 << 20));
        let mut conn = Connection::over_stream(Sink, Limits::default()).with_pool(pool.clone());
        reply(&mut conn, 100 << 10);
        let kept = pool.used();
        assert!(kept >= 100 << 10, "{kept}");
        // The next reply reuses the buffer: charged once, not twice.
        reply(&mut conn, 50 << 10);
        assert_eq!(pool.used(), kept);
        assert_eq!(conn.release_buffers(), kept);
        assert_eq!(pool.used(), 0);
        reply(&mut conn, 10 << 10);
        assert!(pool.used() > 0);
        drop(conn);
        assert_eq!(pool.used(), 0, "a closed connection gives its charge back");
    }

    #[test]
    fn a_reply_buffer_is_not_kept_past_half_the_pool() {
        let pool = Arc::new(InflightMemory::new(1 << 20));
        // Requests in flight hold 400 KiB: a 200 KiB buffer would pass half of the pool.
        assert!(pool.try_reserve(400 << 10));
        let mut conn = Connection::over_stream(Sink, Limits::default()).with_pool(pool.clone());
        reply(&mut conn, 200 << 10);
        assert_eq!(pool.used(), 400 << 10);
        assert_eq!(conn.release_buffers(), 0);
        assert!(
            conn.take_largest() >= 200 << 10,
            "counted as a large reply instead"
        );
        pool.release(400 << 10);
    }
}
