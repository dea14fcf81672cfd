//! What the native door's connections, handlers and services share: the engine, the settings,
//! the server's name and cluster id, the open scanners, and the server's own counters. Its own
//! module, so the services depend on it and not on the server that runs them.

use crate::scanners::Scanners;
use ferrobase_engine::Engine;
use ferrobase_gateway::CallCounters;
use ferrobase_security::tls::TlsServer;
use std::collections::VecDeque;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Settings of the native door.
#[derive(Debug, Clone)]
pub struct NativeOptions {
    /// Address to listen on (port 0 picks a free one).
    pub addr: SocketAddr,
    /// The host name clients are told to connect to (in `hbase:meta` and the registry):
    /// default the bound address, `localhost` for a loopback one.
    pub advertise: Option<String>,
    /// Largest request frame in bytes (default 64 MiB, as the Thrift door's `--max-message`).
    pub max_message: usize,
    /// Bytes of request frames held at once across all connections (default 1 GiB); past it
    /// a call is answered `CallQueueTooBigException` and may be retried.
    pub max_inflight_memory: usize,
    /// Connections served at once (default 1000).
    pub max_connections: usize,
    /// Calls run at once (default 30, `hbase.regionserver.handler.count`).
    pub handlers: usize,
    /// Calls waiting for a handler (default 300); one more is answered busy.
    pub max_queued_calls: usize,
    /// Handlers of the priority pool (default 10): they run only the calls HBase gives a
    /// priority above `QOS_THRESHOLD` (meta lookups, system tables, `AdminService`'s
    /// administrative calls, a scanner's close) and the master's calls (`MasterService`,
    /// `ClientMetaService`), so a flood of user calls never keeps those waiting
    /// (`docs/design/native-protocol.md`, "Call priorities"; HBase's
    /// `hbase.regionserver.metahandler.count`).
    pub priority_handlers: usize,
    /// Priority calls waiting for a priority handler (default 100, HBase's 10 per handler);
    /// one more is answered `CallQueueTooBigException`.
    pub max_queued_priority_calls: usize,
    /// Longest a call's reads may run (default 60 s, HBase's `hbase.rpc.timeout`); `None`:
    /// unlimited (`ferrobase_engine::call_budget`).
    pub read_budget: Option<Duration>,
    /// An abandoned scanner is closed after this long unused (default 60 s).
    pub scanner_lease: Duration,
    /// Scanners open at once across the server (default 10,000).
    pub max_scanners: usize,
    /// Rows one `Multi` may carry, and cells one mutation (default 200,000; 0: no limit): past
    /// it the call is refused before anything is applied, as HBase does with
    /// `hbase.rpc.rows.size.threshold.reject` (`--max-mutations-per-call`).
    pub max_mutations_per_call: usize,
    /// Scanners one connection may hold open (default 1000, as the Thrift door's
    /// `--max-scanners-per-connection`); one more is refused with a `DoNotRetryIOException`
    /// naming the limit, and the connection goes on.
    pub max_scanners_per_connection: usize,
    /// The largest row a get or a whole-row scan returns, in bytes of cells (default 1 GiB,
    /// HBase's `hbase.table.max.rowsize`); a larger row is `RowTooBigException`. Set it to the
    /// engine's `max_row_size`, which gets already obey.
    pub max_row_size: usize,
    /// Bytes of cells one scan call returns at most, whatever the client asks (default 100
    /// MiB, `hbase.server.scanner.max.result.size`).
    pub max_result_bytes: usize,
    /// How long a client may take to send its preamble and connection header (default 10 s),
    /// and, with TLS, to begin and finish its handshake before that (as long again, however
    /// slowly it sends).
    pub handshake_timeout: Duration,
    /// ACLs (`None`: off, every call runs): the checker the Thrift door shares, and how a
    /// connection's user is known (`docs/design/security.md`, "The native door").
    pub access: Option<crate::access::NativeAccess>,
    /// TLS on the door (default none: plaintext, HBase's default). With it, a connection must
    /// begin with a TLS handshake (HBase's `hbase.server.netty.tls.enabled`); with a client CA,
    /// only clients with a certificate the CA signed complete it, and the certificate's subject
    /// CN is the connection's user.
    pub tls: Option<TlsServer>,
    /// With [`tls`](Self::tls), also serve clients that send HBase's preamble in plaintext on
    /// the port (default false: they are refused with a `FatalConnectionException` saying the
    /// port takes TLS). True is HBase's default, `hbase.server.netty.tls.supportplaintext`.
    pub allow_plaintext: bool,
    /// Told of each connection once its header is read (default none), with what HBase's
    /// audit log writes of it (`Connection from ..., ugi=..., service=...`) and the TLS
    /// certificate's user.
    pub audit: Option<crate::audit::AuditLog>,
    /// Where calls slower than its threshold are logged and kept (default none).
    pub slow_log: Option<Arc<ferrobase_gateway::slow_log::SlowLog>>,
    /// Read a long scan's next batch on a worker thread while its last is answered (default
    /// true; `ferrobase serve --no-scan-read-ahead`): from a scanner's second full batch in a
    /// row, while a core is free ([`ferrobase_gateway::read_ahead::ReadAhead::wanted`]).
    pub scan_read_ahead: bool,
    /// The cores read-ahead counts on (default `None`: those this process may use).
    pub read_ahead_cores: Option<usize>,
}

impl Default for NativeOptions {
    fn default() -> Self {
        NativeOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 16020)),
            advertise: None,
            max_message: 64 << 20,
            max_inflight_memory: 1 << 30,
            max_connections: 1000,
            handlers: 30,
            max_queued_calls: 300,
            priority_handlers: 10,
            max_queued_priority_calls: 100,
            read_budget: Some(Duration::from_secs(60)),
            scanner_lease: Duration::from_secs(60),
            max_scanners: 10_000,
            max_scanners_per_connection: 1000,
            max_mutations_per_call: 200_000,
            max_row_size: 1 << 30,
            max_result_bytes: 100 << 20,
            handshake_timeout: Duration::from_secs(10),
            access: None,
            tls: None,
            allow_plaintext: false,
            audit: None,
            slow_log: None,
            scan_read_ahead: true,
            read_ahead_cores: None,
        }
    }
}

/// A call to run on a handler.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// What every connection and handler shares.
pub(crate) struct Shared {
    pub(crate) engine: Engine,
    pub(crate) opts: NativeOptions,
    /// The advertised host and the bound port.
    pub(crate) host: String,
    pub(crate) port: u16,
    /// Milliseconds since the epoch at start: the server name's start code.
    pub(crate) start_code: u64,
    pub(crate) cluster_id: String,
    pub(crate) scanners: Scanners,
    pub(crate) next_procedure: AtomicU64,
    pub(crate) stopping: AtomicBool,
    pub(crate) connections: AtomicUsize,
    pub(crate) inflight: AtomicUsize,
    /// The normal and the priority call queues.
    pub(crate) queues: crate::call_queue::CallQueues,
    /// Calls by service, method and outcome (`/metrics`).
    pub(crate) counters: Arc<CallCounters>,
    /// Connections still in their handshake (TLS, preamble, connection header).
    pub(crate) pending: PendingConnections,
    /// The workers that read scans ahead of their calls.
    pub(crate) read_ahead: ferrobase_gateway::read_ahead::ReadAhead,
}

/// The connections that have not finished their handshake (TLS, the preamble and the connection
/// header), oldest first. At `--max-connections` a newcomer takes the slot of the oldest of them,
/// which is closed, as the Thrift port does: connections that never finish a handshake cannot
/// hold the door against clients that would.
#[derive(Default)]
pub(crate) struct PendingConnections {
    queue: Mutex<VecDeque<(u64, TcpStream)>>,
    next: AtomicU64,
}

impl PendingConnections {
    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, TcpStream)>> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a connection beginning its handshake; the guard forgets it when the handshake
    /// ends ([`Handshaking::done`]) or the connection does.
    pub(crate) fn begin(&self, socket: &TcpStream) -> Handshaking<'_> {
        let id = socket.try_clone().ok().map(|handle| {
            let id = self.next.fetch_add(1, AtomicOrdering::AcqRel);
            self.queue().push_back((id, handle));
            id
        });
        Handshaking { pending: self, id }
    }

    /// Closes the oldest connection still in its handshake; false when there is none.
    pub(crate) fn evict_oldest(&self) -> bool {
        let Some((_, oldest)) = self.queue().pop_front() else {
            return false;
        };
        let _ = oldest.shutdown(std::net::Shutdown::Both);
        true
    }

    fn forget(&self, id: u64) {
        let mut queue = self.queue();
        if let Some(i) = queue.iter().position(|(p, _)| *p == id) {
            queue.remove(i);
        }
    }
}

/// A connection in its handshake, registered in [`PendingConnections`] until dropped or done.
pub(crate) struct Handshaking<'a> {
    pending: &'a PendingConnections,
    id: Option<u64>,
}

impl Handshaking<'_> {
    /// The handshake is over: the connection no longer gives its slot to a newcomer.
    pub(crate) fn done(&mut self) {
        if let Some(id) = self.id.take() {
            self.pending.forget(id);
        }
    }
}

impl Drop for Handshaking<'_> {
    fn drop(&mut self) {
        self.done();
    }
}

impl Shared {
    /// Takes a connection slot: under `--max-connections`, or the slot of the oldest connection
    /// still in its handshake (closed). False when every slot holds an established connection;
    /// a slot taken is given back by [`Shared::release`].
    pub(crate) fn admit(&self) -> bool {
        if self.connections.fetch_add(1, AtomicOrdering::AcqRel) >= self.opts.max_connections
            && !self.pending.evict_oldest()
        {
            self.connections.fetch_sub(1, AtomicOrdering::AcqRel);
            return false;
        }
        true
    }

    /// Takes `bytes` of the in-flight memory (`--max-inflight-memory`): what requests' frames and
    /// the results their reads build hold together. False, taking nothing, past the limit.
    pub(crate) fn try_take_inflight(&self, bytes: usize) -> bool {
        let limit = self.opts.max_inflight_memory;
        self.inflight
            .fetch_update(AtomicOrdering::AcqRel, AtomicOrdering::Acquire, |u| {
                u.checked_add(bytes).filter(|&t| t <= limit)
            })
            .is_ok()
    }

    /// Gives back `bytes` [`Shared::try_take_inflight`] took.
    pub(crate) fn give_back_inflight(&self, bytes: usize) {
        self.inflight.fetch_sub(bytes, AtomicOrdering::AcqRel);
    }

    /// Gives back a slot [`Shared::admit`] took.
    pub(crate) fn release(&self) {
        self.connections.fetch_sub(1, AtomicOrdering::AcqRel);
    }

    /// `host,port,startcode`.
    pub(crate) fn server_name(&self) -> crate::proto::hbase::ServerName {
        crate::proto::hbase::ServerName {
            host_name: Some(self.host.clone()),
            port: Some(u32::from(self.port)),
            start_code: Some(self.start_code),
        }
    }
}

/// Milliseconds since the Unix epoch (0 before it): server start codes, procedure times, the
/// timestamps the door answers with.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
