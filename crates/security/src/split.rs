//! A socket, plain or behind TLS, split into a reading half and a writing half that two threads
//! use at once: one thread reads requests while others write replies (HBase's native RPC
//! multiplexes calls on one connection and answers them in any order).
//!
//! A plain socket splits into two handles on it. A TLS session is one state for both
//! directions, so its halves share it under a lock: the reader waits for bytes on the socket
//! *without* the lock (a `peek`), then takes it only to decrypt what has arrived, so a reply is
//! never held up by a reader waiting for the client, and a reader never by a reply but for the
//! time its records take to write.

use crate::tls::Wire;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};

/// A TLS session shared by the two halves.
struct Session<C> {
    conn: Mutex<C>,
    socket: TcpStream,
}

impl<C> Session<C> {
    fn lock(&self) -> MutexGuard<'_, C> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

enum Half<C> {
    Plain(TcpStream),
    Tls(Arc<Session<C>>),
}

/// The reading half of a split [`Wire`]: decrypted bytes for TLS. Reads honour the socket's
/// read timeout (an error of kind `WouldBlock` or `TimedOut` past it).
pub struct WireReader<C>(Half<C>);

/// The writing half of a split [`Wire`]. Each write is encrypted and sent before it returns.
pub struct WireWriter<C>(Half<C>);

/// The reading half of a server-side socket.
pub type ServerReader = WireReader<rustls::ServerConnection>;
/// The writing half of a server-side socket.
pub type ServerWriter = WireWriter<rustls::ServerConnection>;

impl<C, S> Wire<C>
where
    C: DerefMut + Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    /// Splits the socket into a half that reads and a half that writes, usable from two
    /// threads at once. Fails only if a plain socket cannot be duplicated.
    pub fn split(self) -> io::Result<(WireReader<C>, WireWriter<C>)> {
        match self {
            Wire::Plain(s) => {
                let w = s.try_clone()?;
                Ok((WireReader(Half::Plain(s)), WireWriter(Half::Plain(w))))
            }
            Wire::Tls(t) => {
                let (conn, socket) = t.into_parts();
                let session = Arc::new(Session {
                    conn: Mutex::new(conn),
                    socket,
                });
                Ok((
                    WireReader(Half::Tls(session.clone())),
                    WireWriter(Half::Tls(session)),
                ))
            }
        }
    }
}

impl<C> Half<C> {
    fn socket(&self) -> &TcpStream {
        match self {
            Half::Plain(s) => s,
            Half::Tls(t) => &t.socket,
        }
    }
}

impl<C> WireReader<C> {
    /// The socket beneath (for its timeouts, addresses and shutdown).
    pub fn socket(&self) -> &TcpStream {
        self.0.socket()
    }
}

impl<C> WireWriter<C> {
    /// The socket beneath (for its timeouts, addresses and shutdown).
    pub fn socket(&self) -> &TcpStream {
        self.0.socket()
    }
}

/// Sends what the session has to send (records of a write, alerts, key updates).
fn send_pending<C, S>(conn: &mut C, mut socket: &TcpStream) -> io::Result<()>
where
    C: DerefMut + Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    while conn.wants_write() {
        conn.write_tls(&mut socket)?;
    }
    Ok(())
}

impl<C, S> Read for WireReader<C>
where
    C: DerefMut + Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let session = match &mut self.0 {
            Half::Plain(s) => return s.read(buf),
            Half::Tls(t) => t,
        };
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match session.lock().reader().read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // Plaintext, the peer's close_notify (0), or its unclean close.
                other => return other,
            }
            // Nothing decrypted is waiting: wait for the socket without the lock. Only this
            // half reads the socket, so what the peek saw is still there below.
            let mut probe = [0u8; 1];
            let seen = session.socket.peek(&mut probe)?;
            let mut conn = session.lock();
            let mut socket = &session.socket;
            conn.read_tls(&mut socket)?;
            let processed = conn.process_new_packets();
            // An alert for a record refused goes out before the error is returned.
            let sent = send_pending(&mut *conn, &session.socket);
            if let Err(e) = processed {
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
            sent?;
            if seen == 0 {
                // The TCP stream ended: what was decrypted, then the end (clean or not).
                return match conn.reader().read(buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
                    other => other,
                };
            }
        }
    }
}

impl<C, S> Write for WireWriter<C>
where
    C: DerefMut + Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Half::Plain(s) => s.write(buf),
            Half::Tls(t) => {
                let mut conn = t.lock();
                let n = conn.writer().write(buf)?;
                send_pending(&mut *conn, &t.socket)?;
                Ok(n)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            Half::Plain(s) => s.flush(),
            Half::Tls(t) => {
                let mut conn = t.lock();
                conn.writer().flush()?;
                send_pending(&mut *conn, &t.socket)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::tls::{TlsClient, TlsServer};
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    fn pki(dir: &std::path::Path) {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca = ca.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let server = rcgen::CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .signed_by(&key, &ca, &ca_key)
            .unwrap();
        std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
        std::fs::write(dir.join("server.pem"), server.pem()).unwrap();
        std::fs::write(dir.join("server.key"), key.serialize_pem()).unwrap();
    }

    /// Replies written by other threads while the reader waits for the client's next bytes;
    /// the client's close ends the reader.
    #[test]
    fn replies_go_out_while_the_reader_waits() {
        let dir = tempfile::tempdir().unwrap();
        pki(dir.path());
        let server = TlsServer::from_pem_files(
            &dir.path().join("server.pem"),
            &dir.path().join("server.key"),
            None,
        )
        .unwrap();
        let client = TlsClient::from_pem_files(&dir.path().join("ca.pem"), None).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let sock = TcpStream::connect(addr).unwrap();
            let mut wire = client.connect("localhost", sock).unwrap();
            wire.write_all(b"ping").unwrap();
            let mut got = [0u8; 10];
            wire.read_exact(&mut got).unwrap();
            assert_eq!(&got, b"pong1pong2");
        });
        let (sock, _) = listener.accept().unwrap();
        let (wire, _) = server.accept(sock, Duration::from_secs(5)).unwrap();
        let (mut reader, writer) = wire.split().unwrap();
        let mut ping = [0u8; 4];
        reader.read_exact(&mut ping).unwrap();
        assert_eq!(&ping, b"ping");
        let writer = std::sync::Arc::new(std::sync::Mutex::new(writer));
        // The reader now waits for bytes that never come until the client closes, while two
        // other threads answer.
        let reading = std::thread::spawn(move || {
            let mut rest = Vec::new();
            let _ = reader.read_to_end(&mut rest);
            rest
        });
        for reply in [b"pong1", b"pong2"] {
            let w = writer.clone();
            std::thread::spawn(move || w.lock().unwrap().write_all(reply).unwrap())
                .join()
                .unwrap();
        }
        peer.join().unwrap();
        assert!(reading.join().unwrap().is_empty());
    }
}
