//! The HTTP port of `ferrobase serve` (`--http-port`, HBase's 16010 as the documented choice):
//! `/metrics` in Prometheus' text format, `/` (the console: server-rendered HTML, no script,
//! nothing fetched from elsewhere), `/slowlog`, `/heatmap/TABLE` and `/logLevel`
//! (`docs/design/operations.md`). Nothing here changes the engine; `POST /logLevel` changes the
//! log filter.
//!
//! The server is the REST door's HTTP/1.1 (`ferrobase_rest::http`: blocking, a thread per
//! connection, its limits on heads, bodies and time), over TLS when the server has TLS (the
//! same `--tls-cert`/`--tls-key`). With ACLs or logins on, every request names its user (HTTP
//! Basic against the `--auth-file` passwords, over TLS only, or the client certificate's CN
//! with `--tls-client-ca`) and each page needs the grant its data does ([`Need`];
//! `docs/design/operations.md`, "Security"): unauthenticated is 401 with a Basic challenge,
//! forbidden 403. The engine knows nothing of HTTP; this module reads the engine's public
//! counters and the doors' stop handles.

mod config;
mod console;
mod door_metrics;
mod engine_metrics;
mod heatmap;
mod html;
mod jobs;
mod log_level;
mod metrics;
mod process;
pub(crate) mod slowlog;

use anyhow::{Context, Result};
use ferrobase_engine::Engine;
use ferrobase_gateway::access::{AccessChecker, Action};
use ferrobase_gateway::sasl::{LoginThrottle, PasswordFile};
use ferrobase_gateway::tls::{ServerWire, TlsServer, Wire};
use ferrobase_gateway::StopHandle;
use ferrobase_native::NativeStopHandle;
use ferrobase_rest::http::{Conn, ConnLimits, ReadError, Request, Response};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the pages show: the engine, the doors' live figures and the server's facts.
pub struct Ops {
    /// The served engine (read through its public API only).
    pub engine: Engine,
    /// The data directory as given on the command line.
    pub data: PathBuf,
    /// When the server started.
    pub started: Instant,
    /// Every listening port: (what it serves, address).
    pub ports: Vec<(String, SocketAddr)>,
    /// The Thrift door's connections, calls and counters.
    pub thrift: StopHandle,
    /// The Thrift2 door's, when `--thrift2-port` is on.
    pub thrift2: Option<StopHandle>,
    /// The native RPC door's, when `--rpc-port` is on.
    pub native: Option<NativeStopHandle>,
    /// The REST door's, when `--rest-port` is on.
    pub rest: Option<ferrobase_rest::RestStopHandle>,
    /// Every door's slow calls (`--slow-ms`).
    pub slow_log: std::sync::Arc<ferrobase_gateway::slow_log::SlowLog>,
    /// The log filter, changed at `/logLevel`.
    pub log: crate::logging::LogControl,
}

impl Ops {
    /// Calls answered by every door since the start (refusals included).
    pub fn calls_answered(&self) -> u64 {
        let doors = [
            Some(self.thrift.call_counters()),
            self.thrift2.as_ref().map(|t| t.call_counters()),
        ];
        let native = self.native.as_ref().map(|n| n.call_counters());
        doors
            .into_iter()
            .chain([native])
            .flatten()
            .map(|c| c.snapshot().iter().map(|s| s.3).sum::<u64>())
            .sum()
    }
}

/// Who may use the HTTP port: TLS, and with ACLs or logins on, how a request names its user and
/// what it may see.
#[derive(Default)]
pub struct HttpSecurity {
    /// Serve HTTPS (the server's certificate; with a client CA, client certificates too).
    pub tls: Option<TlsServer>,
    /// HTTP Basic logins checked against these passwords (taken over TLS only).
    pub passwords: Option<Arc<PasswordFile>>,
    /// The grants each page is checked against (`None`: every authenticated user sees every
    /// page; with neither this nor passwords, nobody is asked who they are).
    pub access: Option<Arc<AccessChecker>>,
}

/// A bound HTTP port, not yet serving.
pub struct HttpServer {
    listener: TcpListener,
    addr: SocketAddr,
    security: HttpSecurity,
}

/// Connections served at once; a connection past them is closed at once.
const MAX_CONNECTIONS: usize = 64;
/// The whole TLS handshake's deadline.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the port shares between its connections.
struct Shared {
    ops: Ops,
    security: HttpSecurity,
    throttle: LoginThrottle,
    connections: AtomicUsize,
}

impl HttpServer {
    /// Binds `addr` (port 0 picks a free one).
    pub fn bind(addr: SocketAddr, security: HttpSecurity) -> Result<HttpServer> {
        let listener = ferrobase_gateway::listener::bind(addr)?;
        let addr = listener
            .local_addr()
            .context("the HTTP port has no address")?;
        Ok(HttpServer {
            listener,
            addr,
            security,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves requests on a thread of its own (and one per connection) until the process ends.
    pub fn spawn(self, ops: Ops) -> Result<()> {
        let shared = Arc::new(Shared {
            ops,
            security: self.security,
            throttle: LoginThrottle::new(),
            connections: AtomicUsize::new(0),
        });
        let listener = self.listener;
        std::thread::Builder::new()
            .name("ferrobase-http".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { continue };
                    if shared.connections.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
                        shared.connections.fetch_sub(1, Ordering::AcqRel);
                        continue;
                    }
                    let shared = shared.clone();
                    let spawned = std::thread::Builder::new()
                        .name("ferrobase-http-conn".into())
                        .spawn(move || {
                            serve_connection(&shared, stream);
                            shared.connections.fetch_sub(1, Ordering::AcqRel);
                        });
                    if spawned.is_err() {
                        tracing::warn!("the HTTP port could not start a connection's thread");
                    }
                }
            })?;
        Ok(())
    }
}

fn serve_connection(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let peer = stream.peer_addr().ok().map(|a| a.ip());
    let (wire, cn): (ServerWire, Option<String>) = match &shared.security.tls {
        None => (Wire::Plain(stream), None),
        Some(tls) => match tls.accept(stream, HANDSHAKE_TIMEOUT) {
            Ok(accepted) => accepted,
            Err(_) => return,
        },
    };
    let limits = ConnLimits {
        max_head: 16 << 10,
        max_body: MAX_BODY,
        request_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(30),
    };
    let mut conn = Conn::new(wire, limits);
    // The Basic credentials this connection last proved (header value, user): a browser sends
    // them with every request, and the password is hashed once.
    let mut proven: Option<(String, String)> = None;
    loop {
        let request = match conn.read_request() {
            Ok(r) => r,
            Err(ReadError::Closed) | Err(ReadError::Io(_)) => return,
            Err(ReadError::Refuse(mut response)) => {
                let _ = conn.write_response(&mut response, false, true, WRITE_TIMEOUT);
                return;
            }
        };
        let close = wants_close(&request);
        let head = request.method.eq_ignore_ascii_case("HEAD");
        let mut response = match authorize(shared, &request, cn.as_deref(), peer, &mut proven) {
            Ok(()) => answer(&shared.ops, &request),
            Err(refused) => refused,
        };
        if conn
            .write_response(&mut response, head, close, WRITE_TIMEOUT)
            .is_err()
            || close
        {
            return;
        }
    }
}

/// The longest a response may take to write.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

fn wants_close(r: &Request) -> bool {
    match r.header("Connection") {
        Some(v) if v.eq_ignore_ascii_case("close") => true,
        Some(v) if v.eq_ignore_ascii_case("keep-alive") => false,
        _ => r.http10,
    }
}

/// What a page needs of its user with ACLs on (`docs/design/operations.md`, "Security").
#[derive(Debug, Clone, PartialEq, Eq)]
enum Need {
    /// Any authenticated user: `/metrics`, as HBase serves its instrumentation (`/jmx`,
    /// `/prometheus`) to every authenticated user unless
    /// `hadoop.security.instrumentation.requires.admin` is set; and a page that does not exist.
    User,
    /// Global ADMIN: the server-wide pages (the summary and its table list, the slow-operation
    /// log, the log levels and their change, as HBase's `/logLevel` is an admin servlet).
    GlobalAdmin,
    /// READ on the whole table: its page (families, regions and their boundary keys) and its
    /// heat map (key ranges and their keys).
    TableRead(String),
}

/// The need of a request for `path`.
fn need(path: &str) -> Need {
    let table = |prefix: &str| {
        let raw = path.strip_prefix(prefix).unwrap_or_default();
        let name = html::param(&format!("t={raw}"), "t").unwrap_or_default();
        ferrobase_gateway::access::canonical_table(&name).unwrap_or(name)
    };
    match path {
        "/" | "/slowlog" | "/logLevel" | "/jobs" | "/config" => Need::GlobalAdmin,
        p if p.starts_with("/table/") => Need::TableRead(table("/table/")),
        p if p.starts_with("/heatmap/") => Need::TableRead(table("/heatmap/")),
        _ => Need::User,
    }
}

/// 401 with a Basic challenge (what browsers and curl answer with credentials).
fn unauthorized(why: &str) -> Response {
    text(401, PLAIN, format!("Unauthorized\n{why}\n"))
        .with_header("WWW-Authenticate", "Basic realm=\"ferrobase\"")
}

/// Whether `request` may be answered: `Err` is the 401 or 403 to send instead.
fn authorize(
    shared: &Shared,
    request: &Request,
    cn: Option<&str>,
    peer: Option<std::net::IpAddr>,
    proven: &mut Option<(String, String)>,
) -> Result<(), Response> {
    let security = &shared.security;
    if security.access.is_none() && security.passwords.is_none() {
        return Ok(());
    }
    let user = identify(shared, request, cn, peer, proven)?;
    let Some(acl) = &security.access else {
        return Ok(());
    };
    let path = request.path.as_str();
    let allowed = acl.is_superuser(&user)
        || match need(path) {
            Need::User => true,
            Need::GlobalAdmin => acl.authorize_global(&user, Action::Admin),
            Need::TableRead(table) => acl.authorize_table(&user, &table, None, None, Action::Read),
        };
    if allowed {
        Ok(())
    } else {
        let what = match need(path) {
            Need::TableRead(t) => format!("READ on table {t}"),
            _ => "global ADMIN".to_string(),
        };
        Err(text(
            403,
            PLAIN,
            format!("Forbidden\n{path} needs {what}, which user {user} does not hold\n"),
        ))
    }
}

/// The user of a request: its HTTP Basic login (over TLS only), else the client certificate's
/// CN; none is 401.
fn identify(
    shared: &Shared,
    request: &Request,
    cn: Option<&str>,
    peer: Option<std::net::IpAddr>,
    proven: &mut Option<(String, String)>,
) -> Result<String, Response> {
    let logins = ferrobase_rest::login::Logins {
        passwords: shared.security.passwords.as_deref(),
        tls: shared.security.tls.is_some(),
        throttle: &shared.throttle,
        unauthorized,
    };
    ferrobase_rest::login::identify(&logins, request, cn, peer, proven)
}

/// Bytes of a request body read, at most (the log level form's).
const MAX_BODY: usize = 4 << 10;

const HTML: &str = "text/html; charset=utf-8";
const PLAIN: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";

/// The answer to a request: GET (or HEAD) of a page, POST of `/logLevel`, else 404 or 405.
fn answer(ops: &Ops, request: &Request) -> Response {
    let (path, query) = (request.path.as_str(), request.query.as_str());
    let json = html::param(query, "format").as_deref() == Some("json");
    let method = request.method.to_ascii_uppercase();
    match (method.as_str(), path) {
        ("POST", "/logLevel") => {
            let body = String::from_utf8_lossy(&request.body);
            let (status, page) = log_level::change(ops, query, &body);
            return text(status, HTML, page);
        }
        ("GET" | "HEAD", _) => {}
        _ => {
            return text(
                405,
                PLAIN,
                "only GET is served here (and POST /logLevel)\n".into(),
            )
        }
    }
    match path {
        "/metrics" => match metrics::render(ops) {
            Ok(body) => text(200, metrics::CONTENT_TYPE, body),
            Err(e) => text(500, PLAIN, format!("{e}\n")),
        },
        "/" => text(200, HTML, console::render(ops)),
        "/jobs" if json => text(200, JSON, jobs::render_json(ops)),
        "/jobs" => text(200, HTML, jobs::render_html(ops)),
        "/slowlog" if json => text(200, JSON, slowlog::render_json(ops)),
        "/slowlog" => text(200, HTML, slowlog::render_html(ops)),
        "/logLevel" => text(200, HTML, log_level::render(ops, None)),
        "/config" => text(200, HTML, config::render()),
        p if p.starts_with("/table/") => {
            let table =
                html::param(&format!("t={}", &p["/table/".len()..]), "t").unwrap_or_default();
            match console::render_table(ops, &table) {
                Some(page) => text(200, HTML, page),
                None => text(404, PLAIN, format!("no table {table}\n")),
            }
        }
        p if p.starts_with("/heatmap/") => {
            let table =
                html::param(&format!("t={}", &p["/heatmap/".len()..]), "t").unwrap_or_default();
            let page = if json {
                heatmap::render_json(ops, &table).map(|b| (JSON, b))
            } else {
                heatmap::render_html(ops, &table, query).map(|b| (HTML, b))
            };
            match page {
                Some((kind, body)) => text(200, kind, body),
                None => text(404, PLAIN, format!("no table {table}\n")),
            }
        }
        _ => text(
            404,
            PLAIN,
            "not found: /, /metrics, /jobs, /slowlog, /heatmap/TABLE and /logLevel are served\n"
                .into(),
        ),
    }
}

fn text(status: u16, content_type: &str, body: String) -> Response {
    Response::new(status, content_type, body)
}
