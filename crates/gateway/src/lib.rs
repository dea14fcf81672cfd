//! ferrobase's Thrift gateway: HBase's Thrift1 `Hbase` service served from an embedded engine,
//! wire-compatible with Apache HBase's Thrift server so clients such as happybase work
//! unchanged.
//!
//! # Example
//!
//! What `ferrobase serve --port 0` does: serve an engine on a free port until stopped.
//!
//! ```
//! use ferrobase_engine::{Engine, EngineOptions};
//! use ferrobase_gateway::{Server, ServerOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! let engine = Engine::open(dir.path(), EngineOptions::default())?;
//! let opts = ServerOptions { addr: "127.0.0.1:0".parse()?, ..ServerOptions::default() };
//! let server = Server::bind(engine, opts)?;
//! let addr = server.local_addr()?; // clients such as happybase connect here
//! assert_ne!(addr.port(), 0);
//! let stop = server.stop_handle()?;
//! let serving = std::thread::spawn(move || server.run());
//! stop.stop(); // in-flight calls finish, then the engine closes
//! serving.join().unwrap()?;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

pub mod access;
pub mod call_counters;
pub mod call_queue;
pub mod catalog;
pub mod client_probe;
pub mod handler;
pub mod handoff;
pub mod hbase_values;
pub mod idl;
pub mod read_ahead;
pub mod request;
mod scanner_quota;
pub mod server;
pub mod service;
pub mod slow_log;
pub mod thrift;
pub mod thrift2;

pub use call_counters::{CallCounters, CallOutcome, CallSlot};
/// TLS and SASL PLAIN on the Thrift port, shared with the client (`ferrobase-security`).
pub use ferrobase_security::{listener, sasl, tls};
pub use handoff::{HandedOver, ProtocolHandoff};
pub use server::{Server, ServerOptions, StopHandle};
