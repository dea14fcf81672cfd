//! The network server: an accept loop handing each connection to its own thread, so no client
//! waits for another; graceful shutdown that stops accepting, lets in-flight calls finish and
//! then closes the engine.

use crate::access::{AccessChecker, AccessOptions, AclStore};
use crate::handler::{Handler, HandlerOptions, Outcome};
use crate::sasl::{accept_plain, PasswordFile};
use crate::thrift::{
    Call, Connection, InflightMemory, Limits, MessageHeader, MessageType, Overrun, TStruct, TValue,
    ThriftError,
};
use crate::tls::{TlsServer, Wire};
use ferrobase_engine::Engine;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Address to listen on (default `127.0.0.1:9090`; port 0 picks a free port).
    pub addr: SocketAddr,
    /// Message size and nesting limits.
    pub limits: Limits,
    /// Service settings (scanner lease).
    pub handler: HandlerOptions,
    /// Close a connection idle this long; `None` (default) keeps idle connections open.
    pub idle_timeout: Option<Duration>,
    /// Memory that decoded requests may hold across all connections together, in bytes
    /// (default 1 GiB). A request that would pass it is answered "server busy" (HBase's
    /// `CallQueueTooBigException`) and may be retried.
    pub max_inflight_memory: usize,
    /// Connections served at once (default 1000, HBase's `hbase.thrift.maxWorkerThreads`);
    /// one more is closed as soon as it is accepted.
    pub max_connections: usize,
    /// TLS on the port (default none: plain Thrift). With a client CA, mutual TLS: the client
    /// certificate's subject CN is the connection's user.
    pub tls: Option<TlsServer>,
    /// ACL checks on every call (default none: every call runs), with grants kept in the
    /// engine's `hbase:acl` table. A connection's user is its mutual-TLS certificate's subject
    /// CN, or [`ANONYMOUS`](crate::access::ANONYMOUS).
    pub access: Option<AccessOptions>,
    /// Password authentication (default none): every connection, plain or TLS, starts with
    /// Thrift's SASL negotiation with the PLAIN mechanism, and its user is the one named there.
    pub passwords: Option<Arc<PasswordFile>>,
}

/// How long a client may take over its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 9090)),
            limits: Limits::default(),
            handler: HandlerOptions::default(),
            idle_timeout: None,
            max_inflight_memory: 1 << 30,
            max_connections: 1000,
            tls: None,
            access: None,
            passwords: None,
        }
    }
}

struct Shared {
    handler: Handler,
    stopping: AtomicBool,
    active_calls: AtomicUsize,
    connections: AtomicUsize,
    limits: Limits,
    idle_timeout: Option<Duration>,
    inflight: Arc<InflightMemory>,
    max_connections: usize,
    refused_connections: AtomicUsize,
    tls: Option<TlsServer>,
    passwords: Option<Arc<PasswordFile>>,
}

/// A bound server. `run` serves until `stop` is called from another thread (or a signal
/// handler sets the flag returned by `stop_flag`).
pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct StopHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
}

impl StopHandle {
    /// Asks the server to stop: no new connections; in-flight calls finish.
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Release);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

impl Server {
    /// Binds the listening socket (and, with ACLs, opens the ACL store, creating
    /// `hbase:acl` on first use).
    pub fn bind(engine: Engine, opts: ServerOptions) -> std::io::Result<Server> {
        let mut handler = Handler::new(engine, opts.handler);
        if let Some(access) = &opts.access {
            let store = AclStore::open(handler.engine()).map_err(std::io::Error::other)?;
            handler = handler.with_access(AccessChecker::new(
                Arc::new(store),
                access.superusers.iter().cloned(),
            ));
        }
        let listener = TcpListener::bind(opts.addr)?;
        Ok(Server {
            listener,
            shared: Arc::new(Shared {
                handler,
                stopping: AtomicBool::new(false),
                active_calls: AtomicUsize::new(0),
                connections: AtomicUsize::new(0),
                limits: opts.limits,
                idle_timeout: opts.idle_timeout,
                inflight: Arc::new(InflightMemory::new(opts.max_inflight_memory)),
                max_connections: opts.max_connections,
                refused_connections: AtomicUsize::new(0),
                tls: opts.tls,
                passwords: opts.passwords,
            }),
        })
    }

    /// The bound address (useful with port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle that stops the server.
    pub fn stop_handle(&self) -> std::io::Result<StopHandle> {
        let mut addr = self.local_addr()?;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        Ok(StopHandle {
            shared: self.shared.clone(),
            addr,
        })
    }

    /// Serves until stopped, then waits (up to 30 s) for in-flight calls and closes the
    /// engine.
    pub fn run(self) -> std::io::Result<()> {
        let sweeper = {
            let shared = self.shared.clone();
            std::thread::spawn(move || {
                while !shared.stopping.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(500));
                    shared.handler.scanners.expire();
                }
            })
        };
        for stream in self.listener.incoming() {
            if self.shared.stopping.load(Ordering::Acquire) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let shared = self.shared.clone();
            if shared.connections.fetch_add(1, Ordering::AcqRel) >= shared.max_connections {
                shared.connections.fetch_sub(1, Ordering::AcqRel);
                if shared
                    .refused_connections
                    .fetch_add(1, Ordering::AcqRel)
                    .is_multiple_of(1000)
                {
                    eprintln!(
                        "ferrobase: refusing connections past the limit of {} \
                         (--max-connections)",
                        shared.max_connections
                    );
                }
                drop(stream);
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("ferrobase-conn".into())
                .spawn(move || {
                    serve_connection(&shared, stream);
                    shared.connections.fetch_sub(1, Ordering::AcqRel);
                });
            if spawned.is_err() {
                self.shared.connections.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.shared.active_calls.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if sweeper.join().is_err() {
            eprintln!("ferrobase: the scanner lease sweeper panicked; scanners stopped expiring");
        }
        self.shared.handler.engine().close();
        Ok(())
    }
}

/// Waits for the next call's first byte, checking for shutdown and idleness meanwhile.
fn wait_for_call(shared: &Shared, conn: &mut Connection, stream: &TcpStream) -> bool {
    let started = Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_millis(250)));
    let ready = loop {
        match conn.fill() {
            Ok(true) => break true,
            Ok(false) => break false, // closed
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if shared.stopping.load(Ordering::Acquire) {
                    break false;
                }
                if shared.idle_timeout.is_some_and(|t| started.elapsed() >= t) {
                    break false;
                }
            }
            Err(_) => break false,
        }
    };
    let _ = stream.set_read_timeout(None);
    ready
}

fn serve_connection(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let (mut wire, mut user) = match &shared.tls {
        None => (Wire::Plain(stream), None),
        Some(tls) => {
            let peer = stream.peer_addr().ok();
            match tls.accept(stream, HANDSHAKE_TIMEOUT) {
                Ok(accepted) => accepted,
                Err(e) => {
                    if !shared.stopping.load(Ordering::Acquire) {
                        if let Some(peer) = peer {
                            eprintln!("ferrobase: TLS handshake with {peer} refused: {e}");
                        }
                    }
                    return;
                }
            }
        }
    };
    let Ok(probe) = wire.socket().try_clone() else {
        return;
    };
    if let Some(passwords) = &shared.passwords {
        let _ = probe.set_read_timeout(Some(HANDSHAKE_TIMEOUT));
        match accept_plain(&mut wire, passwords) {
            Ok(name) => user = Some(name),
            Err(e) => {
                if !shared.stopping.load(Ordering::Acquire) {
                    if let Ok(peer) = probe.peer_addr() {
                        eprintln!("ferrobase: authentication of {peer} refused: {e}");
                    }
                }
                return;
            }
        }
        let _ = probe.set_read_timeout(None);
    }
    let mut conn = Connection::over(wire, shared.limits).with_pool(shared.inflight.clone());
    loop {
        if !wait_for_call(shared, &mut conn, &probe) {
            return;
        }
        shared.active_calls.fetch_add(1, Ordering::AcqRel);
        let keep_going = one_call(shared, &mut conn, user.as_deref());
        shared.active_calls.fetch_sub(1, Ordering::AcqRel);
        if !keep_going {
            return;
        }
    }
}

/// Reads, runs and answers one call. False when the connection must close.
fn one_call(shared: &Shared, conn: &mut Connection, user: Option<&str>) -> bool {
    let Call {
        header,
        args,
        memory,
    } = match conn.read_call(crate::idl::arguments) {
        Ok(c) => c,
        Err(ThriftError::Eof) | Err(ThriftError::Io(_)) => return false,
        Err(ThriftError::Refused { header, over }) => {
            // The message was read to its end: answer it and go on with the connection.
            if header.kind == MessageType::Oneway {
                return true;
            }
            let (kind, body) = refusal(&header.name, over);
            let reply = MessageHeader {
                name: header.name,
                kind,
                seq_id: header.seq_id,
            };
            return conn.write(&reply, &body).is_ok();
        }
        Err(ThriftError::Malformed(why)) => {
            // Answer with a protocol error where we can, then close: the stream position
            // is unknown.
            let h = MessageHeader {
                name: String::new(),
                kind: MessageType::Exception,
                seq_id: 0,
            };
            let _ = conn.write(&h, &app_exception(&why, 7));
            return false;
        }
    };
    if header.kind != MessageType::Call && header.kind != MessageType::Oneway {
        return false;
    }
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        shared.handler.call_owned(user, &header.name, args)
    }));
    if header.kind == MessageType::Oneway {
        return true;
    }
    let (kind, body) = match outcome {
        Ok(Outcome::Result(s)) => (MessageType::Reply, s),
        Ok(Outcome::UnknownMethod) => (
            MessageType::Exception,
            app_exception(&format!("Invalid method name: '{}'", header.name), 1),
        ),
        Ok(Outcome::InternalError(why)) => (
            MessageType::Exception,
            app_exception(
                &format!("Internal error processing {}: {why}", header.name),
                6,
            ),
        ),
        Err(_) => (MessageType::Exception, app_exception("internal error", 6)),
    };
    let reply = MessageHeader {
        name: header.name,
        kind,
        seq_id: header.seq_id,
    };
    let written = conn.write(&reply, &body).is_ok();
    drop(memory);
    written
}

/// The answer to a call refused for memory: the method's declared `IOError` (every method of
/// the service that takes arguments declares one), or an application exception.
fn refusal(method: &str, over: Overrun) -> (MessageType, TStruct) {
    let message = over.to_string();
    match crate::idl::arguments(method) {
        Some(args) if !args.is_empty() => {
            let io_error = TStruct::new()
                .with(1, TValue::string(message))
                .with(2, TValue::Bool(matches!(over, Overrun::Server(_))));
            (
                MessageType::Reply,
                TStruct::new().with(1, TValue::Struct(io_error)),
            )
        }
        _ => (MessageType::Exception, app_exception(&message, 6)),
    }
}

/// `TApplicationException { 1: message, 2: type }`.
fn app_exception(message: &str, kind: i32) -> TStruct {
    TStruct::new()
        .with(1, TValue::string(message))
        .with(2, TValue::I32(kind))
}
