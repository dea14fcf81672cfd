//! The native RPC server: an accept loop, a thread per connection reading its frames, and a
//! pool of handlers running the calls (HBase's `RpcExecutor`), so the calls an HBase client
//! multiplexes on its one connection run at once and are answered in any order, matched by
//! call id.

use crate::cellblock::Codec;
use crate::error::{RpcError, CALL_QUEUE_TOO_BIG};
use crate::proto::registry::GetConnectionRegistryResponse;
use crate::proto::rpc::ResponseHeader;
use crate::scanners::Scanners;
use crate::services::{self, Ctx};
use crate::state::{Job, NativeOptions, Shared};
use crate::wire::{self, Preamble, WireError, AUTH_SIMPLE};
use ferrobase_engine::Engine;
use ferrobase_gateway::{CallCounters, CallOutcome};
use prost::Message;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A bound native server.
pub struct NativeServer {
    /// The door's own port; `None` when it shares another server's (the Thrift port hands
    /// HBase RPC connections over, [`NativeServer::handoff`]).
    listener: Option<TcpListener>,
    addr: SocketAddr,
    shared: Arc<Shared>,
    jobs: Arc<Mutex<Receiver<Job>>>,
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

    /// Serves `stream` to its end on the calling thread (nothing of it read yet), counted
    /// against the door's connection limit.
    pub fn serve(&self, stream: TcpStream) {
        let shared = &self.shared;
        if shared.connections.fetch_add(1, Ordering::AcqRel) >= shared.opts.max_connections {
            shared.connections.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        serve_connection(shared, stream);
        shared.connections.fetch_sub(1, Ordering::AcqRel);
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
}

impl NativeServer {
    /// Binds the port. The cluster id is the data directory's (`hbase.id`, created once).
    pub fn bind(engine: Engine, opts: NativeOptions) -> std::io::Result<NativeServer> {
        let listener = TcpListener::bind(opts.addr)?;
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
        let (tx, rx) = sync_channel::<Job>(opts.max_queued_calls.max(1));
        Ok(NativeServer {
            listener,
            addr: bound,
            jobs: Arc::new(Mutex::new(rx)),
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
                jobs: tx,
                counters: Arc::new(CallCounters::new(services::SERVED.iter().copied())),
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
        for _ in 0..self.shared.opts.handlers.max(1) {
            let jobs = self.jobs.clone();
            std::thread::Builder::new()
                .name("ferrobase-rpc-handler".into())
                .spawn(move || loop {
                    let job = {
                        let rx = jobs.lock().unwrap_or_else(|p| p.into_inner());
                        rx.recv()
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                })?;
        }
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
            let Ok(stream) = stream else { continue };
            let shared = self.shared.clone();
            if shared.connections.fetch_add(1, Ordering::AcqRel) >= shared.opts.max_connections {
                shared.connections.fetch_sub(1, Ordering::AcqRel);
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("ferrobase-rpc-conn".into())
                .spawn(move || {
                    serve_connection(&shared, stream);
                    shared.connections.fetch_sub(1, Ordering::AcqRel);
                });
            if spawned.is_err() {
                self.shared.connections.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let _ = sweeper.join();
        Ok(())
    }
}

/// Writes one response frame under the connection's writer lock.
fn respond(
    out: &Mutex<TcpStream>,
    call_id: u32,
    result: Result<services::Reply, RpcError>,
    host: &str,
    port: u16,
) -> bool {
    let (header, body, cells) = match result {
        Ok(reply) => {
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
    let mut w = out.lock().unwrap_or_else(|p| p.into_inner());
    wire::write_response(&mut *w, &header, body.as_deref(), &cells).is_ok()
}

/// A connection-level failure answered as HBase's `FatalConnectionException` (call id -1),
/// then the connection closes.
fn fatal(stream: &mut TcpStream, shared: &Shared, message: String) {
    let header = ResponseHeader {
        call_id: Some(u32::MAX),
        exception: Some(
            RpcError::fatal(
                "org.apache.hadoop.hbase.ipc.FatalConnectionException",
                message,
            )
            .to_response(&shared.host, shared.port),
        ),
        cell_block_meta: None,
    };
    let _ = wire::write_response(stream, &header, None, &[]);
}

fn serve_connection(shared: &Arc<Shared>, mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let deadline = Instant::now() + shared.opts.handshake_timeout;
    let _ = stream.set_read_timeout(Some(shared.opts.handshake_timeout));
    let preamble = match wire::read_preamble(&mut stream) {
        Ok(p) => p,
        Err(WireError::Malformed(why)) => return fatal(&mut stream, shared, why),
        Err(_) => return,
    };
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
            let _ = wire::write_response(&mut stream, &header, Some(&reply.encode_to_vec()), &[]);
            return;
        }
        Preamble::Rpc { auth } => auth,
    };
    if auth != AUTH_SIMPLE {
        return fatal(
            &mut stream,
            shared,
            format!(
                "authentication method {auth} is not served here: ferrobase's native door \
                 takes SIMPLE (80) only"
            ),
        );
    }
    let remaining = deadline.saturating_duration_since(Instant::now());
    let _ = stream.set_read_timeout(Some(remaining.max(Duration::from_millis(1))));
    let header = match wire::read_frame(&mut stream, shared.opts.max_message) {
        Ok(Some(frame)) => match wire::connection_header(&frame) {
            Ok(h) => h,
            Err(e) => return fatal(&mut stream, shared, e.to_string()),
        },
        Ok(None) => return,
        Err(WireError::Io(_)) => return,
        Err(e) => return fatal(&mut stream, shared, e.to_string()),
    };
    let codec = match Codec::from_class(header.cell_block_codec_class.as_deref()) {
        Ok(c) => c,
        Err(why) => return fatal(&mut stream, shared, why),
    };
    if let Some(c) = header
        .cell_block_compressor_class
        .as_deref()
        .filter(|c| !c.is_empty())
    {
        return fatal(
            &mut stream,
            shared,
            format!("cell block compression {c} is not supported (leave hbase.client.rpc.compressor unset)"),
        );
    }
    let service = header.service_name.clone().unwrap_or_default();
    let user = header
        .user_info
        .as_ref()
        .and_then(|u| u.effective_user.clone())
        .unwrap_or_default();
    let _ = stream.set_read_timeout(None);
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let writer = Arc::new(Mutex::new(writer));
    let ctx = Arc::new(Ctx {
        shared: shared.clone(),
        codec,
        service,
        user,
        connection: shared.scanners.connection_id(),
    });
    // The connection's scanners close with it, however the loop below ends.
    struct CloseScanners<'a>(&'a Shared, u64);
    impl Drop for CloseScanners<'_> {
        fn drop(&mut self) {
            self.0.scanners.close_connection(self.1);
        }
    }
    let _close_scanners = CloseScanners(shared, ctx.connection);
    loop {
        let frame = match wire::read_frame(&mut stream, shared.opts.max_message) {
            Ok(Some(f)) => f,
            Ok(None) | Err(WireError::Io(_)) => return,
            Err(e) => return fatal(&mut stream, shared, e.to_string()),
        };
        let request = match wire::split_request(&frame) {
            Ok(r) => r,
            Err(e) => return fatal(&mut stream, shared, e.to_string()),
        };
        drop(frame);
        let call_id = request.header.call_id.unwrap_or(0);
        let slot = shared.counters.slot(
            &ctx.service,
            request.header.method_name.as_deref().unwrap_or_default(),
        );
        let size = request.param.len() + request.cells.len();
        let host = shared.host.clone();
        let port = shared.port;
        if shared.inflight.fetch_add(size, Ordering::AcqRel) + size
            > shared.opts.max_inflight_memory
        {
            shared.inflight.fetch_sub(size, Ordering::AcqRel);
            shared.counters.record_at(slot, CallOutcome::Busy);
            let busy = RpcError::retry(
                CALL_QUEUE_TOO_BIG,
                format!(
                    "Call queue is full on {host},{port}: requests in flight hold more than \
                     {} bytes (--max-inflight-memory)",
                    shared.opts.max_inflight_memory
                ),
            );
            if !respond(&writer, call_id, Err(busy), &host, port) {
                return;
            }
            continue;
        }
        let job_ctx = ctx.clone();
        let job_writer = writer.clone();
        let job: Job = Box::new(move || {
            let method = request.header.method_name.clone().unwrap_or_default();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                services::call(&job_ctx, &method, &request.param, &request.cells)
            }))
            .unwrap_or_else(|_| {
                Err(RpcError::retry(
                    "java.io.IOException",
                    format!("internal error running {method}"),
                ))
            });
            job_ctx.shared.inflight.fetch_sub(size, Ordering::AcqRel);
            let outcome = if result.is_ok() {
                CallOutcome::Ok
            } else {
                CallOutcome::Exception
            };
            job_ctx.shared.counters.record_at(slot, outcome);
            drop(request);
            if !respond(&job_writer, call_id, result, &host, port) {
                let w = job_writer.lock().unwrap_or_else(|p| p.into_inner());
                let _ = w.shutdown(std::net::Shutdown::Both);
            }
        });
        match shared.jobs.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                shared.inflight.fetch_sub(size, Ordering::AcqRel);
                shared.counters.record_at(slot, CallOutcome::Busy);
                let busy = RpcError::retry(
                    CALL_QUEUE_TOO_BIG,
                    format!(
                        "Call queue is full on {},{}, too many items queued ? (max {} \
                         queued calls, --max-queued-calls)",
                        shared.host, shared.port, shared.opts.max_queued_calls
                    ),
                );
                if !respond(&writer, call_id, Err(busy), &shared.host, shared.port) {
                    return;
                }
            }
        }
    }
}
