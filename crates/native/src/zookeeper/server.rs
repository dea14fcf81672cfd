//! The ZooKeeper façade's server: an accept loop and a thread per connection, each connection
//! one session (connect request, then requests answered in order, as ZooKeeper answers them).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::protocol::{ConnectRequest, ConnectResponse};
use super::session;
use super::znodes::Tree;
use super::Discovery;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Settings of the ZooKeeper façade.
#[derive(Debug, Clone)]
pub struct ZkOptions {
    /// Address to listen on (port 0 picks a free one; 2181 is ZooKeeper's).
    pub addr: SocketAddr,
    /// Connections (sessions) served at once (default 100); past it a connection is closed.
    pub max_connections: usize,
    /// Largest request frame in bytes (default 1 MiB, ZooKeeper's `jute.maxbuffer`); a
    /// longer one closes the connection.
    pub max_frame: usize,
    /// How long a client may take to send its connect request (default 10 s).
    pub handshake_timeout: Duration,
    /// The session timeouts granted: a client's asked timeout is clamped into this range
    /// (default 4 s to 40 s, ZooKeeper's with its default tick of 2 s). A connection silent
    /// for its session timeout is closed, its session expired.
    pub session_timeout: (Duration, Duration),
}

impl Default for ZkOptions {
    fn default() -> Self {
        ZkOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 2181)),
            max_connections: 100,
            max_frame: 1 << 20,
            handshake_timeout: Duration::from_secs(10),
            session_timeout: (Duration::from_secs(4), Duration::from_secs(40)),
        }
    }
}

struct Shared {
    tree: Tree,
    opts: ZkOptions,
    /// Keys the session passwords: a session id with its password resumes on a new
    /// connection (sessions hold no state here), any other is told it expired.
    secret: std::collections::hash_map::RandomState,
    next_session: AtomicI64,
    stopping: AtomicBool,
    connections: AtomicUsize,
}

impl Shared {
    fn password(&self, session_id: i64) -> Vec<u8> {
        let a = self.secret.hash_one((session_id, 0u8)).to_be_bytes();
        let b = self.secret.hash_one((session_id, 1u8)).to_be_bytes();
        [a, b].concat()
    }
}

/// A bound ZooKeeper façade.
pub struct ZkServer {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// Stops a running [`ZkServer`] from another thread.
#[derive(Clone)]
pub struct ZkStopHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
}

impl ZkStopHandle {
    /// No new connections; the accept loop ends. Open sessions end with their clients.
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Release);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

impl ZkServer {
    /// Binds the port, serving the znodes of `discovery` (usually
    /// [`NativeServer::discovery`](crate::NativeServer::discovery)).
    pub fn bind(discovery: &Discovery, opts: ZkOptions) -> io::Result<ZkServer> {
        let listener = TcpListener::bind(opts.addr)?;
        let secret = std::collections::hash_map::RandomState::new();
        // ZooKeeper's session ids: the server id (0 here) in the top byte, then the start
        // time in milliseconds shifted, so ids differ across restarts.
        let first = ((i64::try_from(discovery.start_code).unwrap_or(0) << 24) as u64 >> 8) as i64;
        // The ephemeral nodes' owner: the server's own session, the first id.
        let tree = Tree::new(discovery, first, |path| secret.hash_one(path).to_be_bytes());
        Ok(ZkServer {
            listener,
            shared: Arc::new(Shared {
                tree,
                opts,
                secret,
                next_session: AtomicI64::new(first.wrapping_add(1)),
                stopping: AtomicBool::new(false),
                connections: AtomicUsize::new(0),
            }),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle that stops the server.
    pub fn stop_handle(&self) -> io::Result<ZkStopHandle> {
        let mut addr = self.local_addr()?;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        Ok(ZkStopHandle {
            shared: self.shared.clone(),
            addr,
        })
    }

    /// Serves until stopped.
    pub fn run(self) -> io::Result<()> {
        for stream in self.listener.incoming() {
            if self.shared.stopping.load(Ordering::Acquire) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let shared = self.shared.clone();
            if shared.connections.fetch_add(1, Ordering::AcqRel) >= shared.opts.max_connections {
                shared.connections.fetch_sub(1, Ordering::AcqRel);
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("ferrobase-zk-conn".into())
                .spawn(move || {
                    let _ = serve_connection(&shared, stream);
                    shared.connections.fetch_sub(1, Ordering::AcqRel);
                });
            if spawned.is_err() {
                self.shared.connections.fetch_sub(1, Ordering::AcqRel);
            }
        }
        Ok(())
    }
}

/// What the first four bytes of a connection were.
enum Opening {
    /// A frame of this many bytes follows.
    Frame(usize),
    /// One of ZooKeeper's four-letter admin words (`ruok`, `isro`, ...).
    Word([u8; 4]),
}

fn read_opening(stream: &mut TcpStream, limit: usize) -> io::Result<Option<Opening>> {
    let mut len = [0u8; 4];
    if !read_exact_or_eof(stream, &mut len)? {
        return Ok(None);
    }
    if len.iter().all(u8::is_ascii_lowercase) {
        return Ok(Some(Opening::Word(len)));
    }
    frame_len(len, limit).map(|n| Some(Opening::Frame(n)))
}

fn frame_len(len: [u8; 4], limit: usize) -> io::Result<usize> {
    match usize::try_from(i32::from_be_bytes(len)) {
        Ok(n) if n <= limit => Ok(n),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "a ZooKeeper request of {} bytes is past the limit of {limit}",
                i32::from_be_bytes(len)
            ),
        )),
    }
}

/// `Ok(false)` when the peer closed before the first byte.
fn read_exact_or_eof(stream: &mut TcpStream, buf: &mut [u8]) -> io::Result<bool> {
    let mut got = 0;
    while let Some(rest) = buf.get_mut(got..).filter(|r| !r.is_empty()) {
        match stream.read(rest) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn read_body(stream: &mut TcpStream, n: usize) -> io::Result<Vec<u8>> {
    let mut body = vec![0u8; n];
    stream.read_exact(&mut body)?;
    Ok(body)
}

/// The answer to a four-letter word: the two a client sends (`ruok` from health checks,
/// `isro` from a client looking for a read-write server); the rest are not served, in
/// ZooKeeper's words for a command outside its whitelist.
fn four_letter_word(word: [u8; 4]) -> Vec<u8> {
    match &word {
        b"ruok" => b"imok".to_vec(),
        b"isro" => b"ro".to_vec(),
        _ => format!(
            "{} is not executed because it is not in the whitelist.\n",
            String::from_utf8_lossy(&word)
        )
        .into_bytes(),
    }
}

fn serve_connection(shared: &Shared, mut stream: TcpStream) -> io::Result<()> {
    let _ = stream.set_nodelay(true);
    let opts = &shared.opts;
    stream.set_read_timeout(Some(opts.handshake_timeout))?;
    let len = match read_opening(&mut stream, opts.max_frame)? {
        None => return Ok(()),
        Some(Opening::Word(word)) => return stream.write_all(&four_letter_word(word)),
        Some(Opening::Frame(n)) => n,
    };
    let connect = ConnectRequest::decode(&read_body(&mut stream, len)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let resumed = connect.session_id != 0;
    if resumed && connect.passwd != shared.password(connect.session_id) {
        // Not a session of this server: expired, as ZooKeeper answers an unknown one.
        let expired = ConnectResponse {
            protocol_version: 0,
            time_out: 0,
            session_id: 0,
            passwd: vec![0; 16],
            read_only: connect.read_only,
        };
        return stream.write_all(&expired.to_frame());
    }
    let session_id = if resumed {
        connect.session_id
    } else {
        shared.next_session.fetch_add(1, Ordering::AcqRel)
    };
    let (min, max) = opts.session_timeout;
    let asked = Duration::from_millis(u64::try_from(connect.time_out).unwrap_or(0));
    let timeout = asked.clamp(min, max.max(min));
    let response = ConnectResponse {
        protocol_version: 0,
        time_out: i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX),
        session_id,
        passwd: shared.password(session_id),
        // A client that accepts a read-only server is told this is one (and asks `isro` now
        // and then); one that does not is served all the same, its writes refused.
        read_only: connect.read_only,
    };
    stream.write_all(&response.to_frame())?;
    stream.set_read_timeout(Some(timeout))?;
    let peer = stream
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    loop {
        let mut len = [0u8; 4];
        if !read_exact_or_eof(&mut stream, &mut len)? {
            return Ok(());
        }
        let frame = read_body(&mut stream, frame_len(len, opts.max_frame)?)?;
        let answer = session::answer(&shared.tree, &frame, &peer);
        stream.write_all(&answer.frame)?;
        if answer.close {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::jute::{Reader, Writer};
    use super::super::protocol::op;
    use super::*;

    fn start() -> (SocketAddr, ZkStopHandle) {
        let d = Discovery {
            cluster_id: "aa73463a-6e3c-44f0-9758-04a38acc3cda".into(),
            host: "localhost".into(),
            port: 16020,
            start_code: 1_700_000_000_000,
        };
        let opts = ZkOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            ..ZkOptions::default()
        };
        let server = ZkServer::bind(&d, opts).unwrap();
        let addr = server.local_addr().unwrap();
        let stop = server.stop_handle().unwrap();
        std::thread::spawn(move || server.run());
        (addr, stop)
    }

    fn read_frame(s: &mut TcpStream) -> Vec<u8> {
        let mut len = [0u8; 4];
        s.read_exact(&mut len).unwrap();
        let mut b = vec![0u8; u32::from_be_bytes(len) as usize];
        s.read_exact(&mut b).unwrap();
        b
    }

    fn connect(addr: SocketAddr, session: i64, passwd: &[u8]) -> (TcpStream, Vec<u8>) {
        let mut s = TcpStream::connect(addr).unwrap();
        let mut w = Writer::new();
        w.int(0)
            .long(0)
            .int(90_000)
            .long(session)
            .buffer(Some(passwd))
            .boolean(false);
        s.write_all(&w.into_frame()).unwrap();
        let r = read_frame(&mut s);
        (s, r)
    }

    #[test]
    fn a_session_reads_resumes_and_closes() {
        let (addr, stop) = start();
        let (mut s, resp) = connect(addr, 0, &[0; 16]);
        let mut r = Reader::new(&resp);
        assert_eq!(r.int("v").unwrap(), 0);
        assert_eq!(r.int("timeout").unwrap(), 40_000, "90 s asked, clamped");
        let session = r.long("session").unwrap();
        let passwd = r.buffer("passwd").unwrap().unwrap().to_vec();
        assert!(!r.boolean("ro").unwrap());
        let mut w = Writer::new();
        w.int(1)
            .int(op::GET_DATA)
            .ustring("/hbase/master")
            .boolean(true);
        s.write_all(&w.into_frame()).unwrap();
        let reply = read_frame(&mut s);
        assert_eq!(&reply[..4], &[0, 0, 0, 1]);
        assert_eq!(&reply[12..16], &[0, 0, 0, 0]);
        // A write is refused and the session goes on.
        let mut w = Writer::new();
        w.int(2).int(op::CREATE).ustring("/x");
        s.write_all(&w.into_frame()).unwrap();
        assert_eq!(read_frame(&mut s)[12..16], (-119i32).to_be_bytes());
        drop(s);
        // The same session resumes on a new connection with its password ...
        let (_s2, resp) = connect(addr, session, &passwd);
        assert_eq!(Reader::new(&resp[8..]).long("s").unwrap(), session);
        // ... and a wrong password finds it expired.
        let (_s3, resp) = connect(addr, session, &[1; 16]);
        assert_eq!(Reader::new(&resp[4..]).int("timeout").unwrap(), 0);
        stop.stop();
    }

    #[test]
    fn four_letter_words_and_oversized_frames() {
        let (addr, stop) = start();
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"ruok").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert_eq!(out, "imok");
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&[0x7f, 0, 0, 0]).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        assert!(out.is_empty(), "closed without an answer");
        stop.stop();
    }
}
