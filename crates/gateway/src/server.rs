//! The network server: an accept loop handing each connection to its own thread for its I/O,
//! while the calls run at once are bounded by the [`CallQueue`] (HBase's handlers and call
//! queue); graceful shutdown that stops accepting, lets in-flight calls finish and then closes
//! the engine.

use crate::access::{AccessChecker, AccessOptions, AclStore};
use crate::call_counters::{CallCounters, CallOutcome};
use crate::call_queue::{CallQueue, CallQueueOptions};
use crate::handler::{Handler, HandlerOptions, Outcome};
use crate::handoff::{opening, tls_opening, HandedOver, Opening, Patience, ProtocolHandoff};
use crate::sasl::{accept_plain_from, LoginThrottle, PasswordFile};
use crate::scanner_quota::ScannerQuota;
use crate::service::Service;
use crate::slow_log::{printable, SlowCall, SlowLog};
use crate::thrift::hbase::{application_exception_kind, Exception, IOError, TApplicationException};
use crate::thrift::{
    Call, Connection, InflightMemory, Limits, MessageHeader, MessageType, Overrun, TStruct, TValue,
    ThriftError, ThriftStruct, ThriftValue,
};
use crate::tls::{TlsServer, Wire};
use ferrobase_engine::Engine;
use ferrobase_security::deadline::Deadline;
use std::collections::VecDeque;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// The service name of the Thrift door's calls in [`CallCounters`].
pub const THRIFT_SERVICE: &str = "Hbase";

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
    /// Calls run at once, calls waiting for a handler, and how long one may wait (defaults 30,
    /// 300 and 60 s, after HBase's `hbase.regionserver.handler.count`,
    /// `hbase.ipc.server.max.callqueue.length` and `hbase.rpc.timeout`). A call refused is
    /// answered with HBase's `CallQueueTooBigException` text as an `IOError` (`canRetry`).
    pub calls: CallQueueOptions,
    /// A message, once its first byte has arrived, must arrive whole within this time, and a
    /// reply must be taken by the client within it (default 60 s, HBase's
    /// `hbase.thrift.server.socket.read.timeout`); past it the connection is closed.
    pub frame_timeout: Duration,
    /// Scanners one connection may hold open (default 1000); one more is refused with an
    /// `IOError` naming the limit, and the connection goes on.
    pub max_scanners_per_connection: usize,
    /// How long a connection may take over its TLS and SASL handshakes together, however
    /// slowly it sends (default 10 s); past it the connection closes.
    pub handshake_timeout: Duration,
    /// Another protocol served on the same port (default none): a connection without SASL
    /// whose first bytes are one of its magics is handed to it, plain (unread) or after the TLS
    /// handshake with the bytes read to tell ([`HandedOver`]).
    pub handoff: Option<ProtocolHandoff>,
    /// Where calls slower than its threshold are logged and kept (default none).
    pub slow_log: Option<Arc<SlowLog>>,
}

/// How long a client may take over its TLS and SASL handshakes together (the default of
/// [`ServerOptions::handshake_timeout`]).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection's thread gives its empty allocator pages back and has the process's free memory
/// returned to the OS at once
/// ([`release_thread_cache_and_purge`](ferrobase_engine::allocator::release_thread_cache_and_purge))
/// after a call that decoded or answered at least this many bytes (a reply encoded in the
/// buffer the connection keeps, up to [`KEEP_REPLY_BUFFER`](crate::thrift::KEEP_REPLY_BUFFER),
/// and a call decoded in no more than what that buffer leaves of it, not counted: the next call
/// reuses that memory; the connection drops it, and purges, when it goes idle; a 1,000-row
/// `mutateRows` purged after every call spent a fifth of the server's CPU in the purge and the
/// page faults after it):
/// mimalloc keeps blocks above 10 KiB in pages of 512 KiB and 4 MiB per thread, which a
/// connection would otherwise hold for as long as it stays open (1,000 connections of a soak
/// held 3.1 GiB; `docs/reliability.md`).
const RELEASE_AFTER_BYTES: usize = 32 << 10;

/// ... and at least this often while it makes calls at all, without the purge
/// ([`release_thread_cache`](ferrobase_engine::allocator::release_thread_cache)), for the blocks
/// other threads free into its pages (memstore chunks its puts filled, freed by the flusher),
/// which mimalloc reclaims only when the owning thread allocates that size again or collects.
/// Purging here too cost a fifth of the server's CPU per call at 1,000 connections.
const RELEASE_EVERY: Duration = Duration::from_secs(1);

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
            calls: CallQueueOptions::default(),
            frame_timeout: Duration::from_secs(60),
            max_scanners_per_connection: 1000,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            handoff: None,
            slow_log: None,
        }
    }
}

struct Shared {
    /// The service whose calls the connections carry.
    service: Box<dyn Service>,
    stopping: AtomicBool,
    active_calls: AtomicUsize,
    connections: AtomicUsize,
    limits: Limits,
    idle_timeout: Option<Duration>,
    inflight: Arc<InflightMemory>,
    /// The same pool, as the engine's reads take from it.
    read_pool: Arc<dyn ferrobase_engine::call_budget::MemoryPool>,
    max_connections: usize,
    refused_connections: AtomicUsize,
    tls: Option<TlsServer>,
    passwords: Option<Arc<PasswordFile>>,
    calls: CallQueue,
    frame_timeout: Duration,
    max_scanners_per_connection: usize,
    handoff: Option<ProtocolHandoff>,
    handshake_timeout: Duration,
    slow_log: Option<Arc<SlowLog>>,
    /// Connections not yet established (handshakes unfinished, or no call begun yet), oldest
    /// first, each with a handle to close it: at the connection limit a new connection takes
    /// the slot of the oldest of them, so silent or trickling clients cannot hold every slot.
    pending: Mutex<VecDeque<(u64, TcpStream, bool)>>,
    next_connection: AtomicU64,
    /// Failed password logins by address (a back-off per address, so one address's guesses
    /// cannot take the CPU other logins need).
    login_throttle: LoginThrottle,
    /// `host:port` as bound, named in busy errors.
    name: String,
    /// Calls by method and outcome (`/metrics`).
    counters: Arc<CallCounters>,
}

/// A bound server. `run` serves until `stop` is called from another thread (or a signal
/// handler sets the flag returned by `stop_flag`).
pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// Stops a running server from another thread. It does not keep the server's state alive:
/// once the server has stopped, its engine is dropped (its directory free to open again)
/// however long a handle is kept, and the handle's counts read zero.
#[derive(Clone)]
pub struct StopHandle {
    shared: Weak<Shared>,
    counters: Arc<CallCounters>,
    addr: SocketAddr,
}

impl StopHandle {
    /// Asks the server to stop: no new connections; in-flight calls finish. Nothing to do
    /// once it has stopped.
    pub fn stop(&self) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        shared.stopping.store(true, Ordering::Release);
        drop(shared);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }

    fn count(&self, f: impl FnOnce(&Shared) -> usize) -> usize {
        self.shared.upgrade().map_or(0, |s| f(&s))
    }

    /// Calls running on a handler now.
    pub fn running_calls(&self) -> usize {
        self.count(|s| s.calls.running())
    }

    /// Calls waiting for a handler now.
    pub fn queued_calls(&self) -> usize {
        self.count(|s| s.calls.queued())
    }

    /// Connections open now.
    pub fn connections(&self) -> usize {
        self.count(|s| s.connections.load(Ordering::Acquire))
    }

    /// Connections closed at once because `max_connections` were open, since the start.
    pub fn refused_connections(&self) -> usize {
        self.count(|s| s.refused_connections.load(Ordering::Relaxed))
    }

    /// Scanners open on this door now (0 once it has stopped).
    pub fn open_scanners(&self) -> usize {
        self.count(|s| s.service.scanners().len())
    }

    /// Scanners this door closed because their lease ran out, since the start.
    pub fn scanner_leases_expired(&self) -> u64 {
        self.shared
            .upgrade()
            .map_or(0, |s| s.service.scanners().expired())
    }

    /// The calls served since the start, by method (service `Hbase` or `THBaseService`) and
    /// outcome.
    pub fn call_counters(&self) -> Arc<CallCounters> {
        self.counters.clone()
    }
}

impl Server {
    /// Binds the listening socket (and, with ACLs, opens the ACL store, creating
    /// `hbase:acl` on first use).
    pub fn bind(engine: Engine, opts: ServerOptions) -> std::io::Result<Server> {
        let mut handler =
            Handler::new(engine, opts.handler.clone()).with_slow_log(opts.slow_log.clone());
        if let Some(access) = &opts.access {
            let store = match &access.store {
                Some(store) => store.clone(),
                None => Arc::new(AclStore::open(handler.engine()).map_err(std::io::Error::other)?),
            };
            handler =
                handler.with_access(AccessChecker::new(store, access.superusers.iter().cloned()));
        }
        Server::bind_service(opts, |port| Box::new(handler.with_port(port)))
    }

    /// Binds a server of HBase's Thrift2 `THBaseService` over `engine`, which another server
    /// (Thrift1's, [`Server::bind`]) owns and closes: this one leaves it open when it stops.
    /// The same transports, protocols, limits, TLS and SASL as Thrift1's, and with `access` the
    /// same ACL checks (pass Thrift1's store in [`AccessOptions::store`]: each door caches the
    /// grants).
    pub fn bind_thrift2(engine: Engine, opts: ServerOptions) -> std::io::Result<Server> {
        let mut handler = crate::thrift2::Thrift2Handler::new(engine, opts.handler.clone());
        if let Some(access) = &opts.access {
            let store = match &access.store {
                Some(store) => store.clone(),
                None => Arc::new(AclStore::open(handler.engine()).map_err(std::io::Error::other)?),
            };
            handler =
                handler.with_access(AccessChecker::new(store, access.superusers.iter().cloned()));
        }
        Server::bind_service(opts, |port| Box::new(handler.with_port(port)))
    }

    /// Binds the listening socket for the service `make` builds (given the bound port).
    fn bind_service(
        opts: ServerOptions,
        make: impl FnOnce(u16) -> Box<dyn Service>,
    ) -> std::io::Result<Server> {
        let listener = ferrobase_security::listener::bind(opts.addr)?;
        let service = make(listener.local_addr()?.port());
        let name = listener.local_addr()?.to_string();
        let counters = Arc::new(CallCounters::new(
            service.methods().iter().map(|m| (service.name(), *m)),
        ));
        let inflight = Arc::new(InflightMemory::new(opts.max_inflight_memory));
        Ok(Server {
            listener,
            shared: Arc::new(Shared {
                service,
                stopping: AtomicBool::new(false),
                active_calls: AtomicUsize::new(0),
                connections: AtomicUsize::new(0),
                limits: opts.limits,
                idle_timeout: opts.idle_timeout,
                inflight: inflight.clone(),
                read_pool: Arc::new(ReadPool(inflight)),
                max_connections: opts.max_connections,
                refused_connections: AtomicUsize::new(0),
                tls: opts.tls,
                passwords: opts.passwords,
                calls: CallQueue::new(opts.calls),
                frame_timeout: opts.frame_timeout,
                max_scanners_per_connection: opts.max_scanners_per_connection,
                handoff: opts.handoff,
                handshake_timeout: opts.handshake_timeout,
                slow_log: opts.slow_log,
                pending: Mutex::new(VecDeque::new()),
                next_connection: AtomicU64::new(0),
                login_throttle: LoginThrottle::new(),
                name,
                counters,
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
            shared: Arc::downgrade(&self.shared),
            counters: self.shared.counters.clone(),
            addr,
        })
    }

    /// Serves until stopped, then waits (up to 30 s together) for in-flight calls and for the
    /// connections' threads to end, and closes the engine: when it returns with every
    /// connection ended, the engine is dropped and its data directory free to open again.
    pub fn run(self) -> std::io::Result<()> {
        let sweeper = {
            let shared = self.shared.clone();
            std::thread::spawn(move || {
                while !shared.stopping.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(500));
                    shared.service.scanners().expire();
                }
            })
        };
        for stream in self.listener.incoming() {
            if self.shared.stopping.load(Ordering::Acquire) {
                break;
            }
            let stream = match stream {
                Ok(s) => s,
                Err(e) => {
                    accept_failed(&e);
                    continue;
                }
            };
            let shared = self.shared.clone();
            if shared.connections.fetch_add(1, Ordering::AcqRel) >= shared.max_connections
                && !shared.evict_oldest_pending()
            {
                shared.connections.fetch_sub(1, Ordering::AcqRel);
                if shared
                    .refused_connections
                    .fetch_add(1, Ordering::AcqRel)
                    .is_multiple_of(1000)
                {
                    tracing::warn!(
                        limit = shared.max_connections,
                        "refusing connections past the limit of {} (--max-connections)",
                        shared.max_connections
                    );
                }
                drop(stream);
                continue;
            }
            let id = shared.next_connection.fetch_add(1, Ordering::AcqRel);
            if let Ok(handle) = stream.try_clone() {
                shared.pending().push_back((id, handle, false));
            }
            let spawned = std::thread::Builder::new()
                .name("ferrobase-conn".into())
                .spawn(move || {
                    let mut pending = Pending(Some((&shared, id)));
                    serve_connection(&shared, stream, &mut pending);
                    drop(pending);
                    shared.connections.fetch_sub(1, Ordering::AcqRel);
                });
            if spawned.is_err() {
                self.shared.forget_pending(id);
                self.shared.connections.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.shared.active_calls.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if sweeper.join().is_err() {
            tracing::error!("the scanner lease sweeper panicked; scanners stopped expiring");
        }
        if self.shared.service.owns_engine() {
            self.shared.service.engine().close();
        }
        // Idle connections see `stopping` within a quarter second and end; each holds the
        // service (and so the engine) until it does.
        while Arc::strong_count(&self.shared) > 1 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }
}

/// Waits for the next call's first byte, checking for shutdown and idleness meanwhile. A
/// connection quiet for a quarter second gives its allocator cache back
/// once (`cache_used`: it made calls since it last did) and has the memory free in the
/// allocator's arenas returned to the OS, unless another thread did so within the last second
/// ([`purge_freed_memory`](ferrobase_engine::allocator::purge_freed_memory)): without it, pages
/// freed by threads that then go quiet wait for the 5 s purge delay and for some thread to
/// collect. A connection that kept a reply buffer of [`RELEASE_AFTER_BYTES`] or more drops it
/// and purges at once, as it would have after that large call.
fn wait_for_call(
    shared: &Shared,
    conn: &mut Connection,
    cache_used: &mut bool,
    first: bool,
) -> bool {
    let started = Instant::now();
    let _ = conn
        .socket()
        .set_read_timeout(Some(Duration::from_millis(250)));
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
                if std::mem::take(cache_used) {
                    ferrobase_engine::allocator::release_thread_cache();
                    if conn.release_buffers() >= RELEASE_AFTER_BYTES {
                        // Its large replies' pages, kept while it was busy: as after a
                        // large call (RELEASE_AFTER_BYTES), purged now.
                        ferrobase_engine::allocator::release_thread_cache_and_purge();
                    } else {
                        ferrobase_engine::allocator::purge_freed_memory();
                    }
                }
                if shared.idle_timeout.is_some_and(|t| started.elapsed() >= t) {
                    break false;
                }
                // A connection's first call must begin within the frame timeout (HBase's
                // Thrift server closes a connection idle that long): a client that connects
                // and stays silent does not hold its slot.
                if first && started.elapsed() >= shared.frame_timeout {
                    break false;
                }
            }
            Err(_) => break false,
        }
    };
    let _ = conn.socket().set_read_timeout(None);
    ready
}

/// A connection counted as not yet established until it begins its first call (or ends).
struct Pending<'a>(Option<(&'a Shared, u64)>);

impl Pending<'_> {
    /// The connection has begun a call (or another protocol took it): no newcomer may take
    /// its slot any more.
    fn established(&mut self) {
        if let Some((shared, id)) = self.0.take() {
            shared.forget_pending(id);
        }
    }

    /// The connection has finished its TLS handshake: it is evicted after those that have not.
    fn encrypted(&self) {
        if let Some((shared, id)) = self.0 {
            if let Some(entry) = shared.pending().iter_mut().find(|(p, _, _)| *p == id) {
                entry.2 = true;
            }
        }
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.established();
    }
}

impl Shared {
    /// The connections that have not begun a call, oldest first: (id, a handle of the socket,
    /// whether it has finished its TLS handshake).
    fn pending(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, TcpStream, bool)>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn forget_pending(&self, id: u64) {
        let mut pending = self.pending();
        if let Some(i) = pending.iter().position(|(p, _, _)| *p == id) {
            pending.remove(i);
        }
    }

    /// Closes the oldest connection that has not begun a call, freeing its slot for a
    /// newcomer: the oldest that has not finished a TLS handshake either when there is one (a
    /// flood of silent connections does not cut a client in the middle of its login); false
    /// when every connection is established.
    fn evict_oldest_pending(&self) -> bool {
        let mut pending = self.pending();
        let i = pending.iter().position(|(_, _, tls)| !tls).unwrap_or(0);
        let Some((_, oldest, _)) = pending.remove(i) else {
            return false;
        };
        let _ = oldest.shutdown(std::net::Shutdown::Both);
        true
    }
}

fn serve_connection(shared: &Shared, stream: TcpStream, pending: &mut Pending<'_>) {
    let _ = stream.set_nodelay(true);
    // The other protocol (HBase's native RPC) is told apart by its first bytes, plain or
    // decrypted; not with password logins, whose SASL exchange comes first.
    let handoff = shared
        .handoff
        .as_ref()
        .filter(|_| shared.passwords.is_none());
    let patience = Patience {
        limit: shared.frame_timeout,
        idle_timeout: shared.idle_timeout,
        stopping: &shared.stopping,
    };
    if let Some(handoff) = handoff {
        match opening(handoff, &stream, &patience) {
            Opening::Other => {
                // The other protocol keeps its own accounts from here (and, on a TLS port,
                // decides whether a plaintext client is served).
                pending.established();
                return (handoff.serve)(HandedOver {
                    wire: Wire::Plain(stream),
                    head: Vec::new(),
                    user: None,
                });
            }
            Opening::Gone => return,
            Opening::Thrift => {}
        }
    }
    let handshake_deadline = Instant::now() + shared.handshake_timeout;
    let (mut wire, mut user) = match &shared.tls {
        None => (Wire::Plain(stream), None),
        Some(tls) => {
            let peer = stream.peer_addr().ok();
            match tls.accept(stream, shared.handshake_timeout) {
                Ok(accepted) => {
                    pending.encrypted();
                    accepted
                }
                Err(e) => {
                    if !shared.stopping.load(Ordering::Acquire) {
                        if let Some(peer) = peer {
                            tracing::warn!(%peer, "TLS handshake with {peer} refused: {e}");
                        }
                    }
                    return;
                }
            }
        }
    };
    // Behind TLS, the first decrypted bytes tell the protocols apart.
    let mut head = Vec::new();
    if let Some(handoff) = handoff.filter(|_| shared.tls.is_some()) {
        match tls_opening(handoff, &mut wire, &mut head, &patience) {
            Opening::Other => {
                pending.established();
                return (handoff.serve)(HandedOver { wire, head, user });
            }
            Opening::Gone => return,
            Opening::Thrift => {}
        }
    }
    // The SASL exchange within what is left of the handshakes' one deadline (its socket handle
    // is a duplicate held only for the exchange: one per connection at all times would be
    // 2,000 descriptors at 1,000 connections).
    if let Some(passwords) = &shared.passwords {
        let peer = wire.socket().peer_addr();
        let Ok(handle) = wire.socket().try_clone() else {
            return;
        };
        let mut bounded = Deadline::new(&mut wire, handle, handshake_deadline);
        let from = peer.as_ref().ok().map(|p| (&shared.login_throttle, p.ip()));
        let outcome = accept_plain_from(&mut bounded, passwords, from);
        if bounded.finish().is_err() {
            return;
        }
        match outcome {
            Ok(name) => user = Some(name),
            Err(e) => {
                if !shared.stopping.load(Ordering::Acquire) {
                    if let Ok(peer) = peer {
                        tracing::warn!(%peer, "authentication of {peer} refused: {e}");
                    }
                }
                return;
            }
        }
    }
    let mut conn =
        Connection::over_with_head(wire, head, shared.limits).with_pool(shared.inflight.clone());
    let mut scanners = ScannerQuota::new(shared.max_scanners_per_connection);
    let mut cache_used = false;
    let mut released = Instant::now();
    let mut first = true;
    loop {
        if !wait_for_call(shared, &mut conn, &mut cache_used, first) {
            return;
        }
        first = false;
        pending.established();
        // From its first byte, the call must arrive whole within the frame timeout.
        if conn
            .set_deadline(Some(Instant::now() + shared.frame_timeout))
            .is_err()
        {
            return;
        }
        shared.active_calls.fetch_add(1, Ordering::AcqRel);
        let in_progress = crate::read_ahead::CallInProgress::enter();
        let keep_going = one_call(shared, &mut conn, user.as_deref(), &mut scanners);
        drop(in_progress);
        shared.active_calls.fetch_sub(1, Ordering::AcqRel);
        if !keep_going || conn.set_deadline(None).is_err() {
            return;
        }
        // Bound what this thread's allocator cache keeps (see RELEASE_AFTER_BYTES).
        if conn.take_largest() >= RELEASE_AFTER_BYTES {
            ferrobase_engine::allocator::release_thread_cache_and_purge();
            released = Instant::now();
        } else if released.elapsed() >= RELEASE_EVERY {
            ferrobase_engine::allocator::release_thread_cache();
            released = Instant::now();
        }
        cache_used = true;
    }
}

/// Writes a reply, which the client must take within the frame timeout.
fn answer(shared: &Shared, conn: &mut Connection, reply: &MessageHeader, body: &TStruct) -> bool {
    conn.set_deadline(Some(Instant::now() + shared.frame_timeout))
        .is_ok()
        && conn.write(reply, body).is_ok()
}

/// Reads, runs and answers one call: reading and answering on the connection's thread, the
/// running on a handler of the call queue (released before the answer is written, so a client
/// slow to read holds no handler). False when the connection must close.
fn one_call(
    shared: &Shared,
    conn: &mut Connection,
    user: Option<&str>,
    scanners: &mut ScannerQuota,
) -> bool {
    let service = shared.service.as_ref();
    let Call {
        header,
        args,
        memory,
    } = match conn.read_call(|m| service.arguments(m)) {
        Ok(c) => c,
        Err(ThriftError::Eof) | Err(ThriftError::Io(_)) => return false,
        Err(ThriftError::Refused { header, over }) => {
            let busy = matches!(over, Overrun::Server(_));
            shared.counters.record(
                service.name(),
                &header.name,
                if busy {
                    CallOutcome::Busy
                } else {
                    CallOutcome::Refused
                },
            );
            // The message was read to its end: answer it and go on with the connection.
            if header.kind == MessageType::Oneway {
                return true;
            }
            let (kind, body) = refusal(service, &header.name, over.to_string(), busy);
            let reply = MessageHeader {
                name: header.name,
                kind,
                seq_id: header.seq_id,
            };
            return answer(shared, conn, &reply, &body);
        }
        Err(ThriftError::Malformed(why)) => {
            // Answer with a protocol error where we can, then close: the stream position
            // is unknown.
            let h = MessageHeader {
                name: String::new(),
                kind: MessageType::Exception,
                seq_id: 0,
            };
            let _ = conn.write(
                &h,
                &app_exception(&why, application_exception_kind::PROTOCOL_ERROR),
            );
            return false;
        }
    };
    if header.kind != MessageType::Call && header.kind != MessageType::Oneway {
        return false;
    }
    // A call's duration runs from its last byte read to its result: the handler's wait in the
    // call queue included, as the client sees it.
    let started = Instant::now();
    // What the slow log would say of the call, read before the arguments move into it.
    let subject = shared.slow_log.as_ref().map(|_| describe(&args));
    let refused = |message: String, can_retry: bool| {
        let (kind, body) = refusal(service, &header.name, message, can_retry);
        let reply = MessageHeader {
            name: header.name.clone(),
            kind,
            seq_id: header.seq_id,
        };
        (reply, body)
    };
    let opening = service.opens_scanner(&header.name, &args);
    if opening {
        if let Err(message) = scanners.check(service.scanners()) {
            shared
                .counters
                .record(service.name(), &header.name, CallOutcome::Refused);
            if header.kind == MessageType::Oneway {
                return true;
            }
            let (reply, body) = refused(message, false);
            return answer(shared, conn, &reply, &body);
        }
    }
    // The id a close names, read before the arguments move into the call.
    let closing = service.closes_scanner(&header.name, &args);
    // A close only frees: refusing it as busy would leave the scanner (its read point,
    // memstore snapshot and blocks) open until its lease expires, so it runs without a handler.
    let slot = match closing
        .is_none()
        .then(|| shared.calls.acquire())
        .transpose()
    {
        Ok(slot) => slot,
        Err(busy) => {
            shared
                .counters
                .record(service.name(), &header.name, CallOutcome::Busy);
            if header.kind == MessageType::Oneway {
                return true;
            }
            let message = busy.message(&shared.name, shared.calls.options().handlers);
            let (reply, body) = refused(message, true);
            return answer(shared, conn, &reply, &body);
        }
    };
    // The call's reads: a time budget, and the results they build taken from the pool that
    // decoded requests use, given back once the answer is written (the guard lives to the end).
    // A client that leaves stops the call's reads at once (looked at by its reads, through
    // a duplicate of the socket held for the call).
    let probe = crate::client_probe::SocketProbe::of(conn.socket())
        .map(|p| Arc::new(p) as Arc<dyn ferrobase_engine::call_budget::Cancel>);
    let _budget =
        ferrobase_engine::call_budget::CallBudget::start(shared.calls.options().read_budget)
            .with_memory(Some(shared.read_pool.clone()))
            .with_cancel(probe);
    // What the call's reads cost, for the slow log's explain line (recorded only with a log).
    let recording = shared
        .slow_log
        .as_ref()
        .map(|_| ferrobase_engine::CostRecording::start());
    // The class of the call's failure, noted while it runs (cleared of an earlier call's).
    ferrobase_engine::error_class::take();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        service.call_owned(user, &header.name, args)
    }));
    if let Ok(Outcome::UnknownMethod) = &outcome {
        ferrobase_engine::error_class::note(ferrobase_engine::ErrorClass::BadRequest);
    }
    let cost = recording.map(|r| r.finish()).unwrap_or_default();
    drop(slot);
    if let Ok(Outcome::Result(result)) = &outcome {
        track_scanner(scanners, opening, closing, result);
    }
    let elapsed = started.elapsed();
    let call_outcome = match &outcome {
        // A result struct holds field 0 (the success) or one declared exception.
        Ok(Outcome::Result(r)) if r.fields.iter().any(|(id, _)| *id != 0) => CallOutcome::Exception,
        Ok(Outcome::Result(_)) => CallOutcome::Ok,
        Ok(Outcome::UnknownMethod) | Ok(Outcome::InternalError(_)) | Err(_) => CallOutcome::Failed,
    };
    shared.counters.finish(
        shared.counters.slot(service.name(), &header.name),
        call_outcome,
        elapsed,
    );
    if let (Some(log), Some((table, what))) = (&shared.slow_log, subject) {
        if log.is_slow(elapsed) {
            log.record(SlowCall {
                at_ms: crate::slow_log::now_ms(),
                door: if service.name() == crate::thrift2::THRIFT2_SERVICE {
                    "thrift2"
                } else {
                    "thrift"
                },
                method: format!("{}.{}", service.name(), header.name),
                table,
                user: user.unwrap_or_default().to_string(),
                duration: elapsed,
                description: format!("{what} ({})", call_outcome.label()),
                explain: crate::slow_log::explain_line(&cost),
            });
        }
    }
    if header.kind == MessageType::Oneway {
        return true;
    }
    let (kind, body) = match outcome {
        Ok(Outcome::Result(s)) => (MessageType::Reply, s),
        Ok(Outcome::UnknownMethod) => (
            MessageType::Exception,
            app_exception(
                &format!("Invalid method name: '{}'", header.name),
                application_exception_kind::UNKNOWN_METHOD,
            ),
        ),
        Ok(Outcome::InternalError(why)) => (
            MessageType::Exception,
            app_exception(
                &format!("Internal error processing {}: {why}", header.name),
                application_exception_kind::INTERNAL_ERROR,
            ),
        ),
        Err(_) => (
            MessageType::Exception,
            app_exception("internal error", application_exception_kind::INTERNAL_ERROR),
        ),
    };
    let reply = MessageHeader {
        name: header.name,
        kind,
        seq_id: header.seq_id,
    };
    // The decoded arguments (consumed by the call) are given back to the memory budget before
    // the reply waits on the client.
    drop(memory);
    answer(shared, conn, &reply, &body)
}

/// Notes a scanner opened (its id is the result's success field) or closed by a call that
/// succeeded (no exception field set).
fn track_scanner(
    scanners: &mut ScannerQuota,
    opening: bool,
    closing: Option<i32>,
    result: &TStruct,
) {
    if opening {
        match result.get(0) {
            Some(TValue::I32(id)) => scanners.opened(*id),
            // `ferrobaseScannerOpen`'s batch names its scanner only while it stays open.
            Some(TValue::Struct(batch)) => {
                if let Some(TValue::I32(id)) = batch.get(crate::handler::SCAN_BATCH_ID) {
                    scanners.opened(*id);
                }
            }
            _ => {}
        }
    } else if let Some(id) = closing.filter(|_| result.fields.is_empty()) {
        scanners.closed(id);
    }
}

/// The answer to a refused call (for memory, a full call queue, the scanner limit): the
/// method's declared `IOError` (every method of the service that takes arguments declares
/// one), with `canRetry`, or an application exception.
fn refusal(
    service: &dyn Service,
    method: &str,
    message: String,
    can_retry: bool,
) -> (MessageType, TStruct) {
    match service.arguments(method) {
        Some(args) if !args.is_empty() => {
            let io_error = IOError {
                message,
                can_retry: Some(can_retry),
            };
            (
                MessageType::Reply,
                TStruct::new().with(Exception::IOError.id(), io_error.to_value()),
            )
        }
        _ => (
            MessageType::Exception,
            app_exception(&message, application_exception_kind::INTERNAL_ERROR),
        ),
    }
}

/// The body of an `Exception` message: a `TApplicationException` of `kind`
/// ([`application_exception_kind`]).
fn app_exception(message: &str, kind: i32) -> TStruct {
    TApplicationException {
        message: message.to_string(),
        kind,
    }
    .to_struct()
}

/// A Thrift call's table and a short description for the slow log, from its arguments: field 1
/// is the table (Thrift1's `tableName`, Thrift2's `table`) or a scanner id, field 2 the row
/// (a binary, or a struct whose field 1 is the row, Thrift2's `TGet`/`TPut`) or a list of them.
fn describe(args: &TStruct) -> (String, String) {
    let field = |id: i16| args.fields.iter().find(|(f, _)| *f == id).map(|(_, v)| v);
    let row_of = |v: &TValue| match v {
        TValue::Binary(row) => Some(printable(row)),
        TValue::Struct(s) => s.fields.iter().find_map(|(id, v)| match (id, v) {
            (1, TValue::Binary(row)) => Some(printable(row)),
            _ => None,
        }),
        _ => None,
    };
    let (table, mut what) = match field(1) {
        Some(TValue::Binary(t)) => (printable(t), String::new()),
        Some(TValue::I32(id)) => (String::new(), format!("scanner {id}")),
        _ => (String::new(), String::new()),
    };
    let rows = match field(2) {
        Some(TValue::List(_, items)) => match items.first().and_then(row_of) {
            Some(first) => Some(format!("{} rows from {first}", items.len())),
            None => Some(format!("{} items", items.len())),
        },
        Some(TValue::Decoded(d)) => match d.summary() {
            (n, Some(first)) => Some(format!("{n} rows from {}", printable(first))),
            (n, None) => Some(format!("{n} items")),
        },
        Some(v) => row_of(v).map(|r| format!("row {r}")),
        None => None,
    };
    if let Some(rows) = rows {
        if !what.is_empty() {
            what.push_str(", ");
        }
        what.push_str(&rows);
    }
    (table, what)
}

/// The requests' memory pool as the engine's reads take from it (also the REST door's, over a
/// pool of its own).
#[derive(Debug)]
pub struct ReadPool(pub Arc<InflightMemory>);

impl ReadPool {
    /// A pool of `limit` bytes of its own.
    pub fn new(limit: usize) -> ReadPool {
        ReadPool(Arc::new(InflightMemory::new(limit)))
    }
}

impl ferrobase_engine::call_budget::MemoryPool for ReadPool {
    fn try_take(&self, bytes: usize) -> bool {
        self.0.try_reserve(bytes)
    }

    fn give_back(&self, bytes: usize) {
        self.0.release(bytes);
    }

    fn limit(&self) -> usize {
        self.0.limit()
    }
}

/// An `accept` that failed. Out of descriptors (`EMFILE`, `ENFILE`), the waiting connection
/// stays queued and `accept` would fail again at once: the loop waits 50 ms for descriptors to
/// be freed instead of spinning, and says why (at most once a second). Connections already
/// open are served on; clients queued past their connect timeout see it fail.
fn accept_failed(e: &std::io::Error) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST_WARNED: AtomicU64 = AtomicU64::new(0);
    let out_of_descriptors = matches!(e.raw_os_error(), Some(23 | 24));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if LAST_WARNED.swap(now, Ordering::Relaxed) != now {
        if out_of_descriptors {
            tracing::warn!(
                "cannot accept connections: out of file descriptors ({e}); raise `ulimit -n` or \
                 lower --max-connections; waiting for connections to close"
            );
        } else {
            tracing::warn!("accepting a connection failed: {e}");
        }
    }
    if out_of_descriptors {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
