//! TLS on the native door, as HBase 2.6's Netty RPC server does it
//! (`hbase.server.netty.tls.enabled`): the client's TLS handshake comes first, then HBase's
//! preamble and frames inside it (`docs/design/native-protocol.md`, "TLS"). A connection on a
//! TLS port is told apart by its first bytes, peeked: a TLS handshake record, or HBase's
//! plaintext preamble (`HBas`, `Regist`), which is refused unless
//! [`NativeOptions::allow_plaintext`](crate::NativeOptions) (HBase's
//! `hbase.server.netty.tls.supportplaintext`). Anything else goes to the handshake, which
//! refuses it.

use crate::server::Accepted;
use crate::state::Shared;
use crate::wire::{REGISTRY_PREAMBLE, RPC_MAGIC};
use ferrobase_security::tls::{TlsServer, Wire};
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The first byte of a TLS record carrying a handshake message, as every ClientHello does.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

/// What a connection on a TLS port opens with.
enum Hello {
    /// A TLS record, or bytes that are not HBase's preamble (the handshake refuses them).
    Tls,
    /// HBase's preamble in plaintext.
    Preamble,
    /// Closed, or silent past the deadline.
    Gone,
}

/// Peeks at a connection's first bytes until they say [`Hello`] (at most 6, the longest
/// preamble), waiting until `deadline`.
fn hello(stream: &TcpStream, deadline: Instant) -> Hello {
    let magics: [&[u8]; 2] = [RPC_MAGIC, REGISTRY_PREAMBLE];
    let mut buf = [0u8; 6];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Hello::Gone;
        }
        let head = match stream.peek(&mut buf) {
            Ok(0) | Err(_) => return Hello::Gone,
            Ok(n) => buf.get(..n).unwrap_or_default(),
        };
        if head.first() == Some(&TLS_HANDSHAKE_RECORD) {
            return Hello::Tls;
        }
        if magics.iter().any(|m| head.starts_with(m)) {
            return Hello::Preamble;
        }
        if !magics.iter().any(|m| m.starts_with(head)) {
            return Hello::Tls;
        }
        // The start of a preamble: wait for the rest.
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A connection accepted on the door's own TLS port: its handshake done, or a plaintext
/// client (refused later, once its preamble is read, unless plaintext is allowed). `None`
/// when the connection ended here; a refused handshake is logged.
pub(crate) fn accept(shared: &Shared, tls: &TlsServer, stream: TcpStream) -> Option<Accepted> {
    let peer = stream.peer_addr().ok();
    let timeout = shared.opts.handshake_timeout;
    // One deadline for beginning and finishing the handshake.
    let deadline = Instant::now() + timeout;
    let stopping = || shared.stopping.load(Ordering::Acquire);
    match hello(&stream, deadline) {
        Hello::Tls => {}
        Hello::Preamble => {
            let _ = stream.set_read_timeout(None);
            return Some(Accepted::new(Wire::Plain(stream), Vec::new(), None));
        }
        Hello::Gone => {
            if !stopping() {
                if let Some(peer) = peer {
                    tracing::warn!(
                        %peer,
                        "native RPC: {peer} began no TLS handshake within {} s; closed",
                        timeout.as_secs_f64()
                    );
                }
            }
            return None;
        }
    }
    let left = deadline.saturating_duration_since(Instant::now());
    match tls.accept(stream, left.max(Duration::from_millis(1))) {
        Ok((wire, user)) => Some(Accepted::new(wire, Vec::new(), user)),
        Err(e) => {
            if !stopping() {
                if let Some(peer) = peer {
                    tracing::warn!(%peer, "native RPC: TLS handshake with {peer} refused: {e}");
                }
            }
            None
        }
    }
}

/// The `FatalConnectionException` message for a plaintext client on a TLS port.
pub(crate) fn plaintext_refused() -> String {
    "this port serves HBase's RPC over TLS only: set hbase.client.netty.tls.enabled=true and \
     hbase.rpc.tls.truststore.location to the server's CA (ferrobase: \
     docs/design/native-protocol.md, TLS)"
        .to_string()
}
