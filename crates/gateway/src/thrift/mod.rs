//! The gateway's Thrift layer: the codec and HBase's IDL from `ferrobase-thrift`, re-exported,
//! and the server-side transports ([`Connection`]: buffered or framed, plain or TLS).

mod deadline;
mod transport;

pub use deadline::DeadlineWire;
pub use ferrobase_thrift::*;
pub use transport::{Call, Connection, Protocol, Transport, KEEP_REPLY_BUFFER};
