//! The native RPC server: an accept loop, a thread per connection reading its frames, and a
//! pool of handlers running the calls (HBase's `RpcExecutor`), so the calls an HBase client
//! multiplexes on its one connection run at once and are answered in any order, matched by
//! call id.

use crate::audit::Connected;
use crate::call_queue::{self, Handlers, Pool};
use crate::cellblock::Codec;
use crate::error::{RpcError, CALL_QUEUE_TOO_BIG, DO_NOT_RETRY};
use crate::hadoop_codec::HadoopCodec;
use crate::proto::registry::GetConnectionRegistryResponse;
use crate::proto::rpc::ResponseHeader;
use crate::scanners::Scanners;
use crate::services::{self, Ctx};
use crate::state::{Job, NativeOptions, Shared};
use crate::wire::{self, Preamble, WireError, AUTH_SIMPLE};
use ferrobase_engine::Engine;
use ferrobase_gateway::{CallCounters, CallOutcome, HandedOver};
use ferrobase_security::split::{ServerReader, ServerWriter};
use ferrobase_security::tls::{ServerWire, Wire};
use prost::Message;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A bound native server.
pub struct NativeServer {
    /// The door's own port; `None` when it shares another server's (the Thrift port hands
    /// HBase RPC connections over, [`NativeServer::handoff`]).
    listener: Option<TcpListener>,
    addr: SocketAddr,
    shared: Arc<Shared>,
    handlers: Handlers,
}

/// Serves connections another server accepted and recognised as HBase's RPC (their first
/// bytes `HBas` or `Regist`), on the door's handlers.
#[derive(Clone)]
pub struct Handoff {
    shared: Arc<Shared>,
}

impl Handoff {
    /// The first bytes of an HBase RPC connection: the RPC preamble's magic and the registry
    /// preamble.
    pub const MAGICS: [&'static [u8]; 2] = [crate::wire::RPC_MAGIC, crate::wire::REGISTRY_PREAMBLE];

    /// Serves a connection to its end on the calling thread, counted against the door's
    /// connection limit: plain with nothing of it read yet, or after its TLS handshake with the
    /// bytes read to tell it apart. A plain one on a door with TLS is refused (once its preamble
    /// is read) unless [`NativeOptions::allow_plaintext`].
    pub fn serve(&self, handed: HandedOver) {
        let shared = &self.shared;
        if !shared.admit() {
            return;
        }
        let socket = handed.wire.socket().try_clone();
        let handshake = match &socket {
            Ok(s) => Some(shared.pending.begin(s)),
            Err(_) => None,
        };
        serve_connection(
            shared,
            Accepted::new(handed.wire, handed.head, handed.user),
            handshake,
        );
        shared.release();
    }
}

/// A connection ready for its preamble: the socket, plain or TLS with its handshake done, the
/// bytes another server read from it already, and the user its TLS client certificate names.
pub(crate) struct Accepted {
    wire: ServerWire,
    head: Vec<u8>,
    user: Option<String>,
}

impl Accepted {
    pub(crate) fn new(wire: ServerWire, head: Vec<u8>, user: Option<String>) -> Accepted {
        Accepted { wire, head, user }
    }
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct NativeStopHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
}

impl NativeStopHandle {
    /// No new connections; the accept loop ends.
    pub fn stop(&self) {
        self.shared.stopping.store(true, Ordering::Release);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }

    /// Connections open now (its own port's and those handed over).
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::Acquire)
    }

    /// The calls served since the start, by service, method and outcome.
    pub fn call_counters(&self) -> Arc<CallCounters> {
        self.shared.counters.clone()
    }

    /// Scanners open on this door now.
    pub fn open_scanners(&self) -> usize {
        self.shared.scanners.len()
    }

    /// Scanners this door closed because their lease ran out, since the start.
    pub fn scanner_leases_expired(&self) -> u64 {
        self.shared.scanners.expired()
    }

    /// Scan batches queued or being read ahead of their calls now.
    pub fn reads_ahead_pending(&self) -> usize {
        self.shared.read_ahead.pending()
    }

    /// Bytes `--max-inflight-memory` counts now: the requests in flight and the results their
    /// reads hold, a scan's rows read ahead of their call included.
    pub fn memory_in_flight(&self) -> usize {
        self.shared.inflight.load(Ordering::Acquire)
    }
}

impl NativeServer {
    /// Binds the port. The cluster id is the data directory's (`hbase.id`, created once).
    pub fn bind(engine: Engine, opts: NativeOptions) -> std::io::Result<NativeServer> {
        let listener = ferrobase_security::listener::bind(opts.addr)?;
        let bound = listener.local_addr()?;
        NativeServer::new(engine, opts, Some(listener), bound)
    }

    /// The door without a port of its own: it serves the connections another server hands
    /// it ([`NativeServer::handoff`]) and tells clients that server's `port`.
    pub fn on_shared_port(
        engine: Engine,
        opts: NativeOptions,
        port: u16,
    ) -> std::io::Result<NativeServer> {
        let mut bound = opts.addr;
        bound.set_port(port);
        NativeServer::new(engine, opts, None, bound)
    }

    fn new(
        engine: Engine,
        opts: NativeOptions,
        listener: Option<TcpListener>,
        bound: SocketAddr,
    ) -> std::io::Result<NativeServer> {
        let host = opts.advertise.clone().unwrap_or_else(|| {
            if bound.ip().is_loopback() || bound.ip().is_unspecified() {
                "localhost".to_string()
            } else {
                bound.ip().to_string()
            }
        });
        let cluster_id = crate::cluster_id::load_or_create(engine.dir())?;
        let start_code = crate::state::now_ms();
        let (queues, handlers) =
            call_queue::call_queues(opts.max_queued_calls, opts.max_queued_priority_calls);
        Ok(NativeServer {
            listener,
            addr: bound,
            handlers,
            shared: Arc::new(Shared {
                scanners: Scanners::new(
                    opts.scanner_lease,
                    opts.max_scanners,
                    opts.max_scanners_per_connection,
                ),
                engine,
                host,
                port: bound.port(),
                start_code,
                cluster_id,
                next_procedure: AtomicU64::new(1),
                stopping: AtomicBool::new(false),
                connections: AtomicUsize::new(0),
                inflight: AtomicUsize::new(0),
                queues,
                counters: Arc::new(CallCounters::new(services::SERVED.iter().copied())),
                pending: crate::state::PendingConnections::default(),
                read_ahead: ferrobase_gateway::read_ahead::ReadAhead::new(
                    opts.scan_read_ahead,
                    opts.read_ahead_cores,
                ),
                opts,
            }),
        })
    }

    /// What serves the connections another server recognises as HBase's RPC.
    pub fn handoff(&self) -> Handoff {
        Handoff {
            shared: self.shared.clone(),
        }
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        match &self.listener {
            Some(l) => l.local_addr(),
            None => Ok(self.addr),
        }
    }

    /// The host name clients are told to connect to.
    pub fn advertised_host(&self) -> &str {
        &self.shared.host
    }

    /// The cluster id and server name clients are told, for the ZooKeeper façade
    /// ([`crate::zookeeper`]).
    pub fn discovery(&self) -> crate::zookeeper::Discovery {
        crate::zookeeper::Discovery {
            cluster_id: self.shared.cluster_id.clone(),
            host: self.shared.host.clone(),
            port: self.shared.port,
            start_code: self.shared.start_code,
        }
    }

    /// A handle that stops the server.
    pub fn stop_handle(&self) -> std::io::Result<NativeStopHandle> {
        let mut addr = self.local_addr()?;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        Ok(NativeStopHandle {
            shared: self.shared.clone(),
            addr,
        })
    }

    /// Serves until stopped. The engine is left open (its owner closes it).
    pub fn run(self) -> std::io::Result<()> {
        self.handlers.spawn(
            self.shared.opts.handlers,
            self.shared.opts.priority_handlers,
        )?;
        let sweeper = {
            let shared = self.shared.clone();
            std::thread::spawn(move || {
                while !shared.stopping.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(500));
                    shared.scanners.expire();
                }
            })
        };
        let Some(listener) = &self.listener else {
            // No port of its own: connections arrive by handoff until the stop.
            while !self.shared.stopping.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = sweeper.join();
            return Ok(());
        };
        for stream in listener.incoming() {
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
            if !shared.admit() {
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("ferrobase-rpc-conn".into())
                .spawn(move || {
                    serve_socket(&shared, stream);
                    shared.release();
                });
            if spawned.is_err() {
                self.shared.release();
            }
        }
        let _ = sweeper.join();
        Ok(())
    }
}

fn lock(writer: &Mutex<ServerWriter>) -> std::sync::MutexGuard<'_, ServerWriter> {
    writer.lock().unwrap_or_else(|p| p.into_inner())
}

/// Writes one response frame under the connection's writer lock, its cell block compressed
/// with the connection's `compressor`.
fn respond(
    out: &Mutex<ServerWriter>,
    call_id: u32,
    result: Result<services::Reply, RpcError>,
    compressor: Option<HadoopCodec>,
    host: &str,
    port: u16,
) -> bool {
    let (header, body, cells) = match result {
        Ok(mut reply) => {
            if let Some(c) = compressor.filter(|_| !reply.cells.is_empty()) {
                reply.cells = c.compress(&reply.cells);
            }
            let meta = (!reply.cells.is_empty()).then_some(crate::proto::rpc::CellBlockMeta {
                length: Some(reply.cells.len() as u32),
            });
            (
                ResponseHeader {
                    call_id: Some(call_id),
                    exception: None,
                    cell_block_meta: meta,
                },
                Some(reply.body),
                reply.cells,
            )
        }
        Err(e) => (
            ResponseHeader {
                call_id: Some(call_id),
                exception: Some(e.to_response(host, port)),
                cell_block_meta: None,
            },
            None,
            Vec::new(),
        ),
    };
    wire::write_response(&mut *lock(out), &header, body.as_deref(), &cells).is_ok()
}

/// A connection-level failure answered as HBase's `FatalConnectionException` (call id -1),
/// then the connection closes.
fn fatal(stream: &mut impl Write, shared: &Shared, message: String) {
    fatal_as(
        stream,
        shared,
        "org.apache.hadoop.hbase.ipc.FatalConnectionException",
        message,
    );
}

/// A connection-level failure answered as `class` (a `FatalConnectionException` subclass).
fn fatal_as(stream: &mut impl Write, shared: &Shared, class: &str, message: String) {
    let header = ResponseHeader {
        call_id: Some(u32::MAX),
        exception: Some(RpcError::fatal(class, message).to_response(&shared.host, shared.port)),
        cell_block_meta: None,
    };
    let _ = wire::write_response(stream, &header, None, &[]);
}

/// A connection's bytes: those another server read to tell the protocol apart, then the
/// socket's (decrypted, with TLS).
type Incoming = std::io::Chain<std::io::Cursor<Vec<u8>>, ServerReader>;

/// Serves a connection accepted on the door's own port (TLS first, when the door has it).
fn serve_socket(shared: &Arc<Shared>, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let handshake = shared.pending.begin(&stream);
    let accepted = match &shared.opts.tls {
        None => Some(Accepted::new(Wire::Plain(stream), Vec::new(), None)),
        Some(tls) => crate::tls::accept(shared, tls, stream),
    };
    if let Some(accepted) = accepted {
        serve_connection(shared, accepted, Some(handshake));
    }
}

/// Refuses a connection after its preamble (and header) were read: a fatal error frame, then
/// the connection closes once the client has had a second to read it.
fn refuse(writer: &mut ServerWriter, reader: &mut impl Read, shared: &Shared, message: String) {
    fatal(writer, shared, message);
    let socket = writer.socket();
    let _ = socket.shutdown(std::net::Shutdown::Write);
    let _ = socket.set_read_timeout(Some(Duration::from_secs(1)));
    let _ = std::io::copy(&mut reader.take(1 << 16), &mut std::io::sink());
}

/// Serves one connection to its end. `handshake` registers it as still in its handshake until
/// its connection header is read (a newcomer at the connection limit may close it until then).
fn serve_connection(
    shared: &Arc<Shared>,
    accepted: Accepted,
    mut handshake: Option<crate::state::Handshaking<'_>>,
) {
    let Accepted { wire, head, user } = accepted;
    let encrypted = matches!(wire, Wire::Tls(_));
    let peer = wire.socket().peer_addr().ok();
    let Ok((reader, mut writer)) = wire.split() else {
        return;
    };
    // What another server read to tell the protocol apart comes first.
    let mut stream: Incoming = std::io::Cursor::new(head).chain(reader);
    // A handle for the timeouts until the header is read.
    let Ok(sock) = stream.get_ref().1.socket().try_clone() else {
        return;
    };
    // One deadline for the preamble and the connection header, however slowly they come.
    let deadline = Instant::now() + shared.opts.handshake_timeout;
    let preamble = match wire::read_preamble(&mut ReadBy::new(&mut stream, &sock, deadline)) {
        Ok(p) => p,
        Err(WireError::Malformed(why)) => return fatal(&mut writer, shared, why),
        Err(_) => return,
    };
    if !encrypted && shared.opts.tls.is_some() && !shared.opts.allow_plaintext {
        if let Some(peer) = peer {
            tracing::warn!(
                %peer,
                "native RPC: plaintext connection from {peer} refused (the door serves TLS; \
                 --rpc-allow-plaintext serves both)"
            );
        }
        // Its connection header, if any, is read first so that the refusal is what it reads.
        if matches!(preamble, Preamble::Rpc { .. }) {
            let _ = wire::read_frame(&mut stream, shared.opts.max_message);
        }
        return refuse(
            &mut writer,
            &mut stream,
            shared,
            crate::tls::plaintext_refused(),
        );
    }
    let auth = match preamble {
        Preamble::Registry => {
            // HBase 2.6's ConnectionRegistryService: one frame with the cluster id (call id
            // -1), then the connection closes.
            let reply = GetConnectionRegistryResponse {
                cluster_id: Some(shared.cluster_id.clone()),
            };
            let header = ResponseHeader {
                call_id: Some(u32::MAX),
                ..ResponseHeader::default()
            };
            let _ = wire::write_response(&mut writer, &header, Some(&reply.encode_to_vec()), &[]);
            return;
        }
        Preamble::Rpc { auth } => auth,
    };
    if auth != AUTH_SIMPLE {
        return fatal(
            &mut writer,
            shared,
            format!(
                "authentication method {auth} is not served here: ferrobase's native door \
                 takes SIMPLE (80) only"
            ),
        );
    }
    let header = match wire::read_frame(
        &mut ReadBy::new(&mut stream, &sock, deadline),
        shared.opts.max_message,
    ) {
        Ok(Some(frame)) => match wire::connection_header(&frame) {
            Ok(h) => h,
            Err(e) => return fatal(&mut writer, shared, e.to_string()),
        },
        Ok(None) => return,
        Err(WireError::Io(_)) => return,
        Err(e) => return fatal(&mut writer, shared, e.to_string()),
    };
    let codec = match Codec::from_class(header.cell_block_codec_class.as_deref()) {
        Ok(c) => c,
        Err(why) => return fatal(&mut writer, shared, why),
    };
    // As HBase, the compressor counts only with a codec (without one there are no cell blocks).
    let compressor = match header
        .cell_block_compressor_class
        .as_deref()
        .filter(|c| !c.is_empty() && codec != Codec::None)
    {
        None => None,
        Some(c) => match HadoopCodec::from_class_name(c) {
            Some(h) => Some(h),
            None => {
                return fatal_as(
                    &mut writer,
                    shared,
                    "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException",
                    format!(
                        "cell block compression {c} is not supported: ferrobase takes \
                         org.apache.hadoop.io.compress.DefaultCodec, GzipCodec, SnappyCodec and \
                         Lz4Codec (hbase.client.rpc.compressor)"
                    ),
                )
            }
        },
    };
    let service = header.service_name.clone().unwrap_or_default();
    let header_user = header
        .user_info
        .as_ref()
        .and_then(|u| u.effective_user.clone())
        .unwrap_or_default();
    let _ = sock.set_read_timeout(None);
    drop(sock);
    if let Some(h) = handshake.as_mut() {
        h.done();
    }
    let writer = Arc::new(Mutex::new(writer));
    let ctx = Arc::new(Ctx {
        shared: shared.clone(),
        codec,
        service,
        user: header_user,
        certificate_user: user,
        connection: shared.scanners.connection_id(),
        client_gone: Arc::default(),
        read_pool: Arc::new(ReadPool(shared.clone())),
    });
    if let Some(audit) = &shared.opts.audit {
        audit.record(&Connected {
            peer,
            tls: encrypted,
            certificate_user: ctx.certificate_user.as_deref(),
            header_user: &ctx.user,
            service: &ctx.service,
        });
    }
    // The connection's scanners close with it, however the loop below ends.
    struct CloseScanners<'a>(&'a Shared, u64);
    impl Drop for CloseScanners<'_> {
        fn drop(&mut self) {
            self.0.scanners.close_connection(self.1);
        }
    }
    let _close_scanners = CloseScanners(shared, ctx.connection);
    // The calls still running for the connection stop their reads once the loop ends: the
    // client has gone (or sent what cannot be answered), nobody reads their answers.
    struct ClientGone(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for ClientGone {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::Release);
        }
    }
    let _client_gone = ClientGone(ctx.client_gone.clone());
    loop {
        let frame = match wire::read_frame(&mut stream, shared.opts.max_message) {
            Ok(Some(f)) => f,
            Ok(None) | Err(WireError::Io(_)) => return,
            Err(e) => return fatal(&mut *lock(&writer), shared, e.to_string()),
        };
        let mut request = match wire::split_request(&frame) {
            Ok(r) => r,
            Err(e) => return fatal(&mut *lock(&writer), shared, e.to_string()),
        };
        drop(frame);
        let call_id = request.header.call_id.unwrap_or(0);
        let slot = shared.counters.slot(
            &ctx.service,
            request.header.method_name.as_deref().unwrap_or_default(),
        );
        let host = shared.host.clone();
        let port = shared.port;
        // A compressed cell block is decompressed here, as HBase's reader does, into at most
        // what a frame may hold: the decompressed block counts against the frame limit and the
        // in-flight memory as an uncompressed one would.
        if let Some(c) = compressor.filter(|_| !request.cells.is_empty()) {
            let limit = shared.opts.max_message.saturating_sub(request.param.len());
            match c.decompress(&request.cells, limit) {
                Ok(cells) => request.cells = cells,
                Err(e) => {
                    ferrobase_engine::error_class::note(ferrobase_engine::ErrorClass::BadRequest);
                    shared.counters.record_at(slot, CallOutcome::Exception);
                    let refused = RpcError::fatal(
                        DO_NOT_RETRY,
                        format!(
                            "{host},{port} is unable to read the call's cell block: {e} (with the \
                             request, at most {} bytes: --max-message)",
                            shared.opts.max_message
                        ),
                    );
                    if !respond(&writer, call_id, Err(refused), None, &host, port) {
                        return;
                    }
                    continue;
                }
            }
        }
        let size = request.param.len() + request.cells.len();
        let pool = call_queue::pool(
            &ctx.service,
            call_queue::priority(&ctx.service, &request.header, || {
                names_system_table(&request.param)
            }),
        );
        if !shared.try_take_inflight(size) {
            shared.counters.record_at(slot, CallOutcome::Busy);
            let busy = RpcError::retry(
                CALL_QUEUE_TOO_BIG,
                format!(
                    "Call queue is full on {host},{port}: requests in flight hold more than \
                     {} bytes (--max-inflight-memory)",
                    shared.opts.max_inflight_memory
                ),
            );
            if !respond(&writer, call_id, Err(busy), None, &host, port) {
                return;
            }
            continue;
        }
        let job_ctx = ctx.clone();
        let job_writer = writer.clone();
        // A call's duration runs from its last byte read to its result, its wait in the call
        // queue included (as the client sees it).
        let started = std::time::Instant::now();
        let job: Job = Box::new(move || {
            // Counted as busy on a core until answered (scan read-ahead counts on free ones).
            let _in_progress = ferrobase_gateway::read_ahead::CallInProgress::enter();
            let method = request.header.method_name.clone().unwrap_or_default();
            // The call's reads: a time budget, and the results they build taken from the pool
            // requests use, given back once the answer is written (the guard lives to the end).
            // The client's own timeout for the call (its `hbase.rpc.timeout`), when shorter:
            // past it the client has given up, so the work would be wasted.
            let budget = match (
                job_ctx.shared.opts.read_budget,
                request.header.timeout.filter(|&ms| ms > 0),
            ) {
                (Some(b), Some(ms)) => Some(b.min(Duration::from_millis(u64::from(ms)))),
                (b, _) => b,
            };
            let _budget = ferrobase_engine::call_budget::CallBudget::start(budget)
                .with_memory(Some(job_ctx.read_pool.clone()))
                .with_cancel(Some(job_ctx.client_gone.clone()));
            // What the call's reads cost, for the slow log's explain line.
            let recording = job_ctx
                .shared
                .opts
                .slow_log
                .as_ref()
                .map(|_| ferrobase_engine::CostRecording::start());
            // The class of the call's failure, noted while it runs (cleared of an earlier call's).
            ferrobase_engine::error_class::take();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                services::call(&job_ctx, &method, &request.param, &request.cells)
            }))
            .unwrap_or_else(|_| {
                Err(RpcError::retry(
                    "java.io.IOException",
                    format!("internal error running {method}"),
                ))
            });
            let cost = recording.map(|r| r.finish()).unwrap_or_default();
            job_ctx.shared.give_back_inflight(size);
            let outcome = match &result {
                Ok(_) => CallOutcome::Ok,
                Err(e) => {
                    ferrobase_engine::error_class::note_default(e.class());
                    CallOutcome::Exception
                }
            };
            let elapsed = started.elapsed();
            job_ctx.shared.counters.finish(slot, outcome, elapsed);
            if let Some(log) = &job_ctx.shared.opts.slow_log {
                if log.is_slow(elapsed) {
                    log.record(ferrobase_gateway::slow_log::SlowCall {
                        at_ms: ferrobase_gateway::slow_log::now_ms(),
                        door: "native",
                        method: format!("{}.{method}", job_ctx.service),
                        table: table_named(&request.param),
                        user: job_ctx.user.clone(),
                        duration: elapsed,
                        description: format!(
                            "{} bytes of request, {} of cells ({})",
                            request.param.len(),
                            request.cells.len(),
                            outcome.label()
                        ),
                        explain: ferrobase_gateway::slow_log::explain_line(&cost),
                    });
                }
            }
            drop(request);
            if !respond(&job_writer, call_id, result, compressor, &host, port) {
                let _ = lock(&job_writer)
                    .socket()
                    .shutdown(std::net::Shutdown::Both);
            }
        });
        if shared.queues.try_send(pool, job).is_err() {
            shared.give_back_inflight(size);
            shared.counters.record_at(slot, CallOutcome::Busy);
            let (max, flag) = match pool {
                Pool::Normal => (shared.opts.max_queued_calls, "--max-queued-calls"),
                Pool::Priority => (
                    shared.opts.max_queued_priority_calls,
                    "the priority queue's limit",
                ),
            };
            let busy = RpcError::retry(
                CALL_QUEUE_TOO_BIG,
                format!(
                    "Call queue is full on {},{}, too many items queued ? (max {max} queued \
                     calls, {flag})",
                    shared.host, shared.port
                ),
            );
            if !respond(&writer, call_id, Err(busy), None, &shared.host, shared.port) {
                return;
            }
        }
    }
}

/// Whether the region a request names first is a system table's (`hbase:meta`, namespace
/// `hbase`): HBase runs such calls at `SYSTEMTABLE_QOS` whatever the client said.
fn names_system_table(param: &[u8]) -> bool {
    table_named(param).starts_with("hbase:")
}

/// The table of the region a request names first, for the slow log: field 1 of Get, Mutate,
/// Scan (opening) and most region requests is the region; Multi's is a RegionAction whose
/// field 1 is. Empty when the request names none (a Scan continuing by scanner id).
fn table_named(param: &[u8]) -> String {
    use crate::proto::hbase::RegionSpecifier;
    use prost::Message;
    #[derive(Clone, PartialEq, prost::Message)]
    struct First {
        #[prost(message, optional, tag = "1")]
        region: Option<RegionSpecifier>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    struct FirstAction {
        #[prost(message, optional, tag = "1")]
        action: Option<First>,
    }
    let region = First::decode(param)
        .ok()
        .and_then(|f| f.region)
        .or_else(|| {
            FirstAction::decode(param)
                .ok()
                .and_then(|a| a.action?.region)
        });
    region
        .and_then(|r| r.value)
        .and_then(|name| crate::regions::parse_region_name(&name))
        .map(|(table, _, _)| table)
        .unwrap_or_default()
}

/// The door's in-flight memory (requests' bytes) as the engine's reads take from it.
struct ReadPool(Arc<Shared>);

impl std::fmt::Debug for ReadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadPool")
            .field("limit", &self.0.opts.max_inflight_memory)
            .finish()
    }
}

impl ferrobase_engine::call_budget::MemoryPool for ReadPool {
    fn try_take(&self, bytes: usize) -> bool {
        self.0.try_take_inflight(bytes)
    }

    fn give_back(&self, bytes: usize) {
        self.0.give_back_inflight(bytes);
    }

    fn limit(&self) -> usize {
        self.0.opts.max_inflight_memory
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

/// A reader whose every read waits at most what is left of one deadline (a per-read timeout
/// alone restarts with every byte a trickling client sends); `TimedOut` once nothing is.
/// `sock` is a handle on the reader's socket, for its timeout.
struct ReadBy<'a, R> {
    inner: &'a mut R,
    sock: &'a std::net::TcpStream,
    deadline: Instant,
}

impl<'a, R: Read> ReadBy<'a, R> {
    fn new(inner: &'a mut R, sock: &'a std::net::TcpStream, deadline: Instant) -> Self {
        ReadBy {
            inner,
            sock,
            deadline,
        }
    }
}

impl<R: Read> Read for ReadBy<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the preamble and connection header did not arrive within the handshake deadline",
            ));
        }
        self.sock.set_read_timeout(Some(left))?;
        self.inner.read(buf)
    }
}
