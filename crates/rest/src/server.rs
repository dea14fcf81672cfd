//! The REST door's server: options, the accept loop, a thread per connection (capped), the
//! handler slots requests run in (capped, waited for at most a bounded time), and the stop
//! handle.

use crate::http::{Conn, ConnLimits, ReadError, Request, Response};
use crate::scanners::Scanners;
use ferrobase_engine::{Engine, ErrorClass, ErrorCounts};
use ferrobase_gateway::access::{AccessChecker, AccessOptions, AclStore};
use ferrobase_gateway::sasl::{LoginThrottle, PasswordFile};
use ferrobase_gateway::tls::{ServerWire, TlsServer, Wire};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The REST door's settings. Defaults follow HBase REST's where it has one.
#[derive(Debug, Clone)]
pub struct RestOptions {
    /// Address to listen on (port 0: any free port). HBase's default port is 8080.
    pub addr: SocketAddr,
    /// Bytes a request body may have (default 64 MiB, the Thrift door's `--max-message`).
    pub max_body: usize,
    /// Bytes of a request head (default 64 KiB, HBase REST's `DEFAULT_HTTP_MAX_HEADER_SIZE`).
    pub max_head: usize,
    /// Connections served at once (default 100, HBase REST's `hbase.rest.threads.max`);
    /// past it a connection is answered 503 and closed.
    pub max_connections: usize,
    /// Requests run at once (default 30, the other doors' `--handlers`).
    pub handlers: usize,
    /// Time a request waits for a handler before it is answered 503 (default 60 s).
    pub handler_wait: Duration,
    /// Time a request may take to arrive whole, and its answer to be taken (default 60 s).
    pub request_timeout: Duration,
    /// Time a persistent connection may wait for its next request (default 60 s, Jetty's).
    pub idle_timeout: Duration,
    /// Scanners open at once (default 10,000, HBase REST's `hbase.rest.scannercache.size`).
    pub max_scanners: usize,
    /// Time an unused scanner lives (default 1 h, `hbase.rest.scannercache.expire.time`).
    pub scanner_lease: Duration,
    /// Bytes of results one stateless scan or scanner `GET` builds before answering (default
    /// 100 MiB, the other doors' `--max-result-bytes`).
    pub max_result_bytes: usize,
    /// The cluster version answered by `/version/cluster` (HBase's, which ferrobase speaks).
    pub cluster_version: String,
    /// HTTPS (default none: plain HTTP). With a client CA, mutual TLS: the client
    /// certificate's subject CN is the user of each request on the connection.
    pub tls: Option<TlsServer>,
    /// HTTP Basic logins checked against these passwords (default none), taken over TLS only:
    /// with them, every request must log in (or, under mutual TLS, carry a certificate).
    pub passwords: Option<Arc<PasswordFile>>,
    /// ACL checks on every request (default none: every request runs), with the grants of
    /// `hbase:acl` (pass the other doors' store in [`AccessOptions::store`]). With ACLs on, a
    /// request without a user (no certificate, no login) is answered 401.
    pub access: Option<AccessOptions>,
    /// Time a client may take over its TLS handshake (default 10 s).
    pub handshake_timeout: Duration,
    /// Time the engine reads of one request may run, its streamed answer included (default
    /// 60 s, the other doors' `--max-read-time`; `None`: unlimited). A request whose client
    /// closes its connection stops its reads at once.
    pub read_budget: Option<Duration>,
    /// Bytes of results the requests in flight may build together (default 1 GiB, the other
    /// doors' `--max-inflight-memory`, a pool of the REST door's own): a read that would pass
    /// it is 503, to be retried.
    pub max_inflight_memory: usize,
}

impl Default for RestOptions {
    fn default() -> Self {
        RestOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            max_body: 64 * 1024 * 1024,
            max_head: 64 * 1024,
            max_connections: 100,
            handlers: 30,
            handler_wait: Duration::from_secs(60),
            request_timeout: Duration::from_secs(60),
            read_budget: Some(Duration::from_secs(60)),
            max_inflight_memory: 1 << 30,
            idle_timeout: Duration::from_secs(60),
            max_scanners: 10_000,
            scanner_lease: Duration::from_secs(3600),
            max_result_bytes: 100 * 1024 * 1024,
            cluster_version: "2.6.1".into(),
            tls: None,
            passwords: None,
            access: None,
            handshake_timeout: Duration::from_secs(10),
        }
    }
}

/// A counting semaphore: the handler slots.
struct Slots {
    free: Mutex<usize>,
    cv: Condvar,
}

impl Slots {
    fn acquire(&self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            free = self
                .cv
                .wait_timeout(free, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        *free -= 1;
        true
    }

    fn release(&self) {
        *self.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.cv.notify_one();
    }
}

/// What every connection thread shares.
pub(crate) struct Door {
    pub engine: Engine,
    pub opts: RestOptions,
    /// The bound address (for `Location` headers and region locations).
    pub addr: SocketAddr,
    pub scanners: Scanners,
    /// The ACL checks, with ACLs on.
    pub access: Option<AccessChecker>,
    /// Failed Basic logins by address (a back-off per address).
    login_throttle: LoginThrottle,
    /// Requests answered (for `/status/cluster`).
    pub requests: AtomicU64,
    /// Requests answered with an error status, by class (the server's metrics).
    errors: ErrorCounts,
    /// When the door started, ms since the epoch (the server's start code).
    pub started_ms: i64,
    slots: Slots,
    /// The results the requests in flight build, taken as they are built.
    read_pool: Arc<dyn ferrobase_engine::call_budget::MemoryPool>,
    connections: AtomicUsize,
    stop: AtomicBool,
}

/// A bound REST door, not yet serving.
pub struct RestServer {
    listener: TcpListener,
    door: Arc<Door>,
}

/// Stops a running [`RestServer`] from another thread.
#[derive(Clone)]
pub struct RestStopHandle {
    door: Arc<Door>,
}

impl RestStopHandle {
    /// Requests answered with an error status since the start, by class (every class).
    pub fn errors(&self) -> Vec<(ErrorClass, u64)> {
        self.door.errors.snapshot()
    }

    /// Scanners open on this door now (those past their lease included until swept).
    pub fn open_scanners(&self) -> usize {
        self.door.scanners.len()
    }

    /// Scanners this door dropped because their lease ran out, since the start.
    pub fn scanner_leases_expired(&self) -> u64 {
        self.door.scanners.expired()
    }

    /// Stops accepting; connections end after their current request.
    pub fn stop(&self) {
        self.door.stop.store(true, Ordering::Release);
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.door.addr, Duration::from_secs(1));
    }
}

/// Milliseconds since the epoch (scanner ids, the door's start code).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl RestServer {
    /// Binds `opts.addr` over `engine` (shared with the other doors).
    pub fn bind(engine: Engine, opts: RestOptions) -> io::Result<RestServer> {
        let access = match &opts.access {
            None => None,
            Some(a) => {
                let store = match &a.store {
                    Some(store) => store.clone(),
                    None => Arc::new(AclStore::open(&engine).map_err(io::Error::other)?),
                };
                Some(AccessChecker::new(store, a.superusers.iter().cloned()))
            }
        };
        let listener = ferrobase_gateway::listener::bind(opts.addr)?;
        let addr = listener.local_addr()?;
        let door = Arc::new(Door {
            access,
            login_throttle: LoginThrottle::new(),
            engine,
            scanners: Scanners::new(opts.max_scanners, opts.scanner_lease),
            addr,
            requests: AtomicU64::new(0),
            errors: ErrorCounts::default(),
            started_ms: now_ms(),
            slots: Slots {
                free: Mutex::new(opts.handlers.max(1)),
                cv: Condvar::new(),
            },
            read_pool: Arc::new(ferrobase_gateway::server::ReadPool::new(
                opts.max_inflight_memory,
            )),
            connections: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            opts,
        });
        Ok(RestServer { listener, door })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle that stops [`RestServer::run`].
    pub fn stop_handle(&self) -> RestStopHandle {
        RestStopHandle {
            door: self.door.clone(),
        }
    }

    /// Serves until stopped: accepts connections, each on a thread of its own.
    pub fn run(self) -> io::Result<()> {
        for stream in self.listener.incoming() {
            if self.door.stop.load(Ordering::Acquire) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let door = self.door.clone();
            if door.connections.fetch_add(1, Ordering::AcqRel) >= door.opts.max_connections {
                door.connections.fetch_sub(1, Ordering::AcqRel);
                refuse_busy(stream, &door);
                continue;
            }
            let spawned = std::thread::Builder::new()
                .name("ferrobase-rest-conn".into())
                .spawn({
                    let door = door.clone();
                    move || {
                        serve_connection(stream, &door);
                        door.connections.fetch_sub(1, Ordering::AcqRel);
                    }
                });
            if spawned.is_err() {
                door.connections.fetch_sub(1, Ordering::AcqRel);
            }
        }
        Ok(())
    }
}

fn limits(door: &Door) -> ConnLimits {
    ConnLimits {
        max_head: door.opts.max_head,
        max_body: door.opts.max_body,
        request_timeout: door.opts.request_timeout,
        idle_timeout: door.opts.idle_timeout,
    }
}

fn refuse_busy(stream: TcpStream, door: &Door) {
    door.errors.record(ErrorClass::Busy);
    if door.opts.tls.is_some() {
        // No handshake for a connection that is not served: it is closed.
        return;
    }
    let mut conn = Conn::new(Wire::Plain(stream), limits(door));
    let mut r = Response::new(
        503,
        "text/plain",
        format!(
            "Unavailable\r\nserver busy: {} connections already open (--rest-max-connections)\r\n",
            door.opts.max_connections
        ),
    );
    let _ = conn.write_response(&mut r, false, true, Duration::from_secs(1));
}

fn serve_connection(stream: TcpStream, door: &Door) {
    let _ = stream.set_nodelay(true);
    let peer = stream.peer_addr().ok().map(|a| a.ip());
    let (wire, cn): (ServerWire, Option<String>) = match &door.opts.tls {
        None => (Wire::Plain(stream), None),
        Some(tls) => match tls.accept(stream, door.opts.handshake_timeout) {
            Ok(accepted) => accepted,
            // Not TLS, a certificate refused, or too slow: nothing to answer.
            Err(_) => return,
        },
    };
    let mut conn = Conn::new(wire, limits(door));
    // The Basic credentials this connection last proved (header value, user), so that a
    // persistent connection pays for the password hashing once.
    let mut proven: Option<(String, String)> = None;
    loop {
        let mut request = match conn.read_request() {
            Ok(r) => r,
            Err(ReadError::Closed) | Err(ReadError::Io(_)) => return,
            Err(ReadError::Refuse(mut response)) => {
                let _ = conn.write_response(&mut response, false, true, door.opts.request_timeout);
                return;
            }
        };
        let close = wants_close(&request) || door.stop.load(Ordering::Acquire);
        let head = request.method.eq_ignore_ascii_case("HEAD");
        if door.access.is_some() || door.opts.passwords.is_some() {
            match identify(door, &request, cn.as_deref(), peer, &mut proven) {
                Ok(user) => request.user = Some(user),
                Err(mut refused) => {
                    door.requests.fetch_add(1, Ordering::Relaxed);
                    door.errors.record(ErrorClass::AccessDenied);
                    if conn
                        .write_response(&mut refused, head, close, door.opts.request_timeout)
                        .is_err()
                        || close
                    {
                        return;
                    }
                    continue;
                }
            }
        }
        let written = if door.slots.acquire(door.opts.handler_wait) {
            // The slot is held while a streamed answer is made and written (its engine reads),
            // and so is the reads' budget: a read past it ends the answer (an error before
            // the status line, a cut stream after it), as does the client's leaving.
            let probe = ferrobase_gateway::client_probe::SocketProbe::of(conn.socket())
                .map(|p| Arc::new(p) as Arc<dyn ferrobase_engine::call_budget::Cancel>);
            let started = std::time::Instant::now();
            let _budget = ferrobase_engine::call_budget::CallBudget::start(door.opts.read_budget)
                .with_cancel(probe)
                .with_memory(Some(door.read_pool.clone()));
            // The class of a failure, noted while the request runs (cleared of an earlier one's).
            ferrobase_engine::error_class::take();
            let mut r = crate::resources::handle(door, &request);
            count_error(door, r.status);
            // A streamed answer holds one piece at a time, not what it built before: its
            // pieces are not taken from the pool (the rest of the time budget still holds).
            let _streaming = r.stream.is_some().then(|| {
                let left = door
                    .opts
                    .read_budget
                    .map(|b| b.saturating_sub(started.elapsed()));
                ferrobase_engine::call_budget::CallBudget::start(left).with_memory(None)
            });
            let written = conn.write_response(&mut r, head, close, door.opts.request_timeout);
            door.slots.release();
            written
        } else {
            let mut r = Response::new(
                503,
                "text/plain",
                format!(
                    "Unavailable\r\nserver busy: all {} handlers stayed busy for {:?} \
                     (--handlers); retry later\r\n",
                    door.opts.handlers, door.opts.handler_wait
                ),
            );
            door.errors.record(ErrorClass::Busy);
            conn.write_response(&mut r, head, close, door.opts.request_timeout)
        };
        door.requests.fetch_add(1, Ordering::Relaxed);
        if written.is_err() || close {
            return;
        }
    }
}

/// Counts an answer of `status` 400 or more by its class: the one an engine error or a door
/// check noted while it ran, else the status's.
fn count_error(door: &Door, status: u16) {
    let noted = ferrobase_engine::error_class::take();
    if status < 400 {
        return;
    }
    let class = noted.unwrap_or(match status {
        401 | 403 => ErrorClass::AccessDenied,
        404 => ErrorClass::NotFound,
        400 | 405 | 406 | 411 | 415 => ErrorClass::BadRequest,
        413 => ErrorClass::TooLarge,
        503 => ErrorClass::Busy,
        500 => ErrorClass::Internal,
        _ => ErrorClass::Other,
    });
    door.errors.record(class);
}

/// 401 with a Basic challenge (what HTTP clients answer with credentials).
fn unauthorized(why: &str) -> Response {
    Response::new(401, "text/plain", format!("Unauthorized\r\n{why}\r\n"))
        .with_header("WWW-Authenticate", "Basic realm=\"ferrobase\"")
}

/// The user of a request with ACLs or logins on: its HTTP Basic login (checked against the password
/// file, over TLS only), else the connection's client certificate CN; none is 401.
fn identify(
    door: &Door,
    req: &Request,
    cn: Option<&str>,
    peer: Option<std::net::IpAddr>,
    proven: &mut Option<(String, String)>,
) -> Result<String, Response> {
    let logins = crate::login::Logins {
        passwords: door.opts.passwords.as_deref(),
        tls: door.opts.tls.is_some(),
        throttle: &door.login_throttle,
        unauthorized,
    };
    crate::login::identify(&logins, req, cn, peer, proven)
}

fn wants_close(r: &Request) -> bool {
    match r.header("Connection") {
        Some(v) if v.eq_ignore_ascii_case("close") => true,
        Some(v) if v.eq_ignore_ascii_case("keep-alive") => false,
        _ => r.http10,
    }
}
