//! The HTTP port of `ferrobase serve` (`--http-port`, HBase's 16010 as the documented choice):
//! `/metrics` in Prometheus' text format, `/` (the console: server-rendered HTML, no script,
//! nothing fetched from elsewhere), `/slowlog`, `/heatmap/TABLE` and `/logLevel`
//! (`docs/design/operations.md`). Nothing here changes the engine; `POST /logLevel` changes the
//! log filter.
//!
//! The server is `tiny_http`: blocking, a thread per connection, no async runtime, the same
//! shape as the Thrift and native doors, and small (no `tokio`/`hyper` in the binary for two
//! read-only pages). The engine knows nothing of HTTP; this module reads the engine's public
//! counters and the doors' stop handles.

mod console;
mod engine_metrics;
mod heatmap;
mod html;
mod log_level;
mod metrics;
mod process;
pub(crate) mod slowlog;

use anyhow::{anyhow, Context, Result};
use ferrobase_engine::Engine;
use ferrobase_gateway::StopHandle;
use ferrobase_native::NativeStopHandle;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Instant;

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

/// A bound HTTP port, not yet serving.
pub struct HttpServer {
    server: tiny_http::Server,
    addr: SocketAddr,
}

impl HttpServer {
    /// Binds `addr` (port 0 picks a free one).
    pub fn bind(addr: SocketAddr) -> Result<HttpServer> {
        let server = tiny_http::Server::http(addr).map_err(|e| anyhow!("{e}"))?;
        let addr = server
            .server_addr()
            .to_ip()
            .context("the HTTP port has no IP address")?;
        Ok(HttpServer { server, addr })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves requests on a thread of its own until the process ends.
    pub fn spawn(self, ops: Ops) -> Result<()> {
        std::thread::Builder::new()
            .name("ferrobase-http".into())
            .spawn(move || {
                for mut request in self.server.incoming_requests() {
                    let response = answer(&ops, &mut request);
                    let _ = request.respond(response);
                }
            })?;
        Ok(())
    }
}

type Response = tiny_http::Response<std::io::Cursor<Vec<u8>>>;

/// Bytes of a request body read, at most (the log level form's).
const MAX_BODY: u64 = 4 << 10;

const HTML: &str = "text/html; charset=utf-8";
const PLAIN: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";

/// The answer to a request: GET (or HEAD) of a page, POST of `/logLevel`, else 404 or 405.
fn answer(ops: &Ops, request: &mut tiny_http::Request) -> Response {
    use tiny_http::Method::{Get, Head, Post};
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let json = html::param(query, "format").as_deref() == Some("json");
    match (request.method(), path) {
        (Post, "/logLevel") => {
            let mut body = String::new();
            let _ = std::io::Read::read_to_string(
                &mut std::io::Read::take(request.as_reader(), MAX_BODY),
                &mut body,
            );
            let (status, page) = log_level::change(ops, query, &body);
            return text(status, HTML, page);
        }
        (Get | Head, _) => {}
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
        "/slowlog" if json => text(200, JSON, slowlog::render_json(ops)),
        "/slowlog" => text(200, HTML, slowlog::render_html(ops)),
        "/logLevel" => text(200, HTML, log_level::render(ops, None)),
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
            "not found: /, /metrics, /slowlog, /heatmap/TABLE and /logLevel are served\n".into(),
        ),
    }
}

fn text(status: u16, content_type: &str, body: String) -> Response {
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], content_type.as_bytes())
        .expect("a static header is valid");
    tiny_http::Response::from_string(body)
        .with_status_code(status)
        .with_header(header)
}
