//! The HTTP port of `ferrobase serve` (`--http-port`, HBase's 16010 as the documented choice):
//! `/metrics` in Prometheus' text format and `/`, a plain server-rendered status page
//! (`docs/design/operations.md`). Read-only: nothing here changes the engine.
//!
//! The server is `tiny_http`: blocking, a thread per connection, no async runtime, the same
//! shape as the Thrift and native doors, and small (no `tokio`/`hyper` in the binary for two
//! read-only pages). The engine knows nothing of HTTP; this module reads the engine's public
//! counters and the doors' stop handles.

mod console;
mod metrics;
mod process;

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
    /// The native RPC door's, when `--rpc-port` is on.
    pub native: Option<NativeStopHandle>,
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
                for request in self.server.incoming_requests() {
                    let response = answer(&ops, request.method(), request.url());
                    let _ = request.respond(response);
                }
            })?;
        Ok(())
    }
}

type Response = tiny_http::Response<std::io::Cursor<Vec<u8>>>;

/// The answer to `method url`: GET (or HEAD) of `/` or `/metrics`, else 404 or 405.
fn answer(ops: &Ops, method: &tiny_http::Method, url: &str) -> Response {
    use tiny_http::Method::{Get, Head};
    let path = url.split('?').next().unwrap_or_default();
    if !matches!(method, Get | Head) {
        return text(
            405,
            "text/plain; charset=utf-8",
            "only GET is served here\n".into(),
        );
    }
    match path {
        "/metrics" => match metrics::render(ops) {
            Ok(body) => text(200, metrics::CONTENT_TYPE, body),
            Err(e) => text(500, "text/plain; charset=utf-8", format!("{e}\n")),
        },
        "/" => text(200, "text/html; charset=utf-8", console::render(ops)),
        _ => text(
            404,
            "text/plain; charset=utf-8",
            "not found: / and /metrics are served\n".into(),
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
