//! Another protocol on the Thrift port: HBase's native RPC, told apart from Thrift by a
//! connection's first bytes (`HBas`, `Regist`), which no Thrift transport or protocol starts
//! with. A plain connection's bytes are peeked (nothing read); behind TLS they are read after
//! the handshake, decrypted, and handed over with the connection.

use crate::tls::ServerWire;
use std::io::Read;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A protocol the Thrift port also serves, told apart by a connection's first bytes.
#[derive(Clone)]
pub struct ProtocolHandoff {
    /// The first bytes that select it (each at least 2 bytes long).
    pub magics: Vec<&'static [u8]>,
    /// Serves a connection to its end, on the calling thread.
    pub serve: Arc<dyn Fn(HandedOver) + Send + Sync>,
}

impl std::fmt::Debug for ProtocolHandoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtocolHandoff")
            .field("magics", &self.magics)
            .finish_non_exhaustive()
    }
}

/// A connection handed to the other protocol, as far as the Thrift port got with it.
pub struct HandedOver {
    /// The socket: plain, or TLS with its handshake done.
    pub wire: ServerWire,
    /// Bytes already read from `wire` (decrypted) that the protocol must read first: the magic
    /// and what came with it. Empty for a plain socket, whose first bytes were only peeked.
    pub head: Vec<u8>,
    /// With mutual TLS, the client certificate's subject CN.
    pub user: Option<String>,
}

/// What a connection's first bytes say it is.
pub(crate) enum Opening {
    /// The other protocol's.
    Other,
    /// Thrift (or anything else: the Thrift reader refuses what is not).
    Thrift,
    /// Closed, silent past the limits, or the server stopping.
    Gone,
}

/// How long [`opening`] and [`tls_opening`] wait for the first bytes.
pub(crate) struct Patience<'a> {
    /// The bytes that decide must arrive within this time.
    pub(crate) limit: Duration,
    /// A connection idle this long is closed (`--idle-timeout`).
    pub(crate) idle_timeout: Option<Duration>,
    /// Set when the server stops.
    pub(crate) stopping: &'a AtomicBool,
}

impl Patience<'_> {
    /// After a quiet quarter second: whether to give up.
    fn exhausted(&self, started: Instant) -> bool {
        self.stopping.load(Ordering::Acquire)
            || self.idle_timeout.is_some_and(|t| started.elapsed() >= t)
    }
}

/// What `head` says so far: `None` while it is a magic's start (more bytes decide).
fn decide(magics: &[&[u8]], head: &[u8]) -> Option<Opening> {
    if magics.iter().any(|m| head.starts_with(m)) {
        return Some(Opening::Other);
    }
    if !head.is_empty() && !magics.iter().any(|m| m.starts_with(head)) {
        return Some(Opening::Thrift);
    }
    None
}

fn quiet(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// Looks at a plain connection's first bytes without reading them: one of the handoff's magics
/// or Thrift. Waits only while the bytes so far are a magic's start (a Thrift client's first
/// byte never is), at most `patience.limit`.
pub(crate) fn opening(
    handoff: &ProtocolHandoff,
    stream: &TcpStream,
    patience: &Patience<'_>,
) -> Opening {
    let started = Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_millis(250)));
    let longest = handoff.magics.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut buf = vec![0u8; longest];
    let seen = loop {
        match stream.peek(&mut buf) {
            Ok(0) => break Opening::Gone,
            Ok(n) => {
                if let Some(seen) = decide(&handoff.magics, buf.get(..n).unwrap_or_default()) {
                    break seen;
                }
                // The start of a magic: wait for the rest.
                if started.elapsed() >= patience.limit {
                    break Opening::Gone;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) if quiet(&e) => {
                if patience.exhausted(started) {
                    break Opening::Gone;
                }
            }
            Err(_) => break Opening::Gone,
        }
    };
    let _ = stream.set_read_timeout(None);
    seen
}

/// Reads a TLS connection's first decrypted bytes into `head` until they are one of the
/// handoff's magics or cannot be: the first call (or the other protocol's preamble) must
/// begin within `patience.limit`, as on a plain connection.
pub(crate) fn tls_opening(
    handoff: &ProtocolHandoff,
    wire: &mut ServerWire,
    head: &mut Vec<u8>,
    patience: &Patience<'_>,
) -> Opening {
    let started = Instant::now();
    let _ = wire
        .socket()
        .set_read_timeout(Some(Duration::from_millis(250)));
    let longest = handoff.magics.iter().map(|m| m.len()).max().unwrap_or(0);
    let seen = loop {
        if let Some(seen) = decide(&handoff.magics, head) {
            break seen;
        }
        let mut buf = vec![0u8; longest.saturating_sub(head.len()).max(1)];
        match wire.read(&mut buf) {
            Ok(0) => break Opening::Gone,
            Ok(n) => head.extend_from_slice(buf.get(..n).unwrap_or_default()),
            Err(e) if quiet(&e) => {
                if patience.exhausted(started) || started.elapsed() >= patience.limit {
                    break Opening::Gone;
                }
            }
            Err(_) => break Opening::Gone,
        }
    };
    let _ = wire.socket().set_read_timeout(None);
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_decide() {
        let magics: [&[u8]; 2] = [b"HBas", b"Regist"];
        assert!(matches!(decide(&magics, b"HBas\0P"), Some(Opening::Other)));
        assert!(matches!(decide(&magics, b"Regist"), Some(Opening::Other)));
        assert!(decide(&magics, b"Reg").is_none());
        assert!(decide(&magics, b"").is_none());
        assert!(matches!(
            decide(&magics, b"\x80\x01"),
            Some(Opening::Thrift)
        ));
        assert!(matches!(decide(&magics, b"HBx"), Some(Opening::Thrift)));
    }
}
