//! The REST door's server: options, the accept loop, a thread per connection (capped), the
//! handler slots requests run in (capped, waited for at most a bounded time), and the stop
//! handle.

use crate::http::{Conn, ConnLimits, ReadError, Request, Response};
use crate::scanners::Scanners;
use ferrobase_engine::Engine;
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
            idle_timeout: Duration::from_secs(60),
            max_scanners: 10_000,
            scanner_lease: Duration::from_secs(3600),
            max_result_bytes: 100 * 1024 * 1024,
            cluster_version: "2.6.1".into(),
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
    /// Requests answered (for `/status/cluster`).
    pub requests: AtomicU64,
    /// When the door started, ms since the epoch (the server's start code).
    pub started_ms: i64,
    slots: Slots,
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
        let listener = TcpListener::bind(opts.addr)?;
        let addr = listener.local_addr()?;
        let door = Arc::new(Door {
            engine,
            scanners: Scanners::new(opts.max_scanners, opts.scanner_lease),
            addr,
            requests: AtomicU64::new(0),
            started_ms: now_ms(),
            slots: Slots {
                free: Mutex::new(opts.handlers.max(1)),
                cv: Condvar::new(),
            },
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
    let mut conn = Conn::new(stream, limits(door));
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
    let mut conn = Conn::new(stream, limits(door));
    loop {
        let request = match conn.read_request() {
            Ok(r) => r,
            Err(ReadError::Closed) | Err(ReadError::Io(_)) => return,
            Err(ReadError::Refuse(mut response)) => {
                let _ = conn.write_response(&mut response, false, true, door.opts.request_timeout);
                return;
            }
        };
        let close = wants_close(&request) || door.stop.load(Ordering::Acquire);
        let head = request.method.eq_ignore_ascii_case("HEAD");
        let written = if door.slots.acquire(door.opts.handler_wait) {
            // The slot is held while a streamed answer is made and written (its engine reads).
            let mut r = crate::resources::handle(door, &request);
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
            conn.write_response(&mut r, head, close, door.opts.request_timeout)
        };
        door.requests.fetch_add(1, Ordering::Relaxed);
        if written.is_err() || close {
            return;
        }
    }
}

fn wants_close(r: &Request) -> bool {
    match r.header("Connection") {
        Some(v) if v.eq_ignore_ascii_case("close") => true,
        Some(v) if v.eq_ignore_ascii_case("keep-alive") => false,
        _ => r.http10,
    }
}
