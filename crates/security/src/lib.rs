//! What ferrobase's Thrift gateway (`ferrobase-gateway`) and its Rust client
//! (`ferrobase-client`) share for security, so the client needs no part of the server:
//!
//! - [`tls`]: TLS on the Thrift port (rustls), the server's and the client's settings and the
//!   socket plain or encrypted behind one type;
//! - [`split`]: that socket split into a reading and a writing half for two threads at once;
//! - [`sasl`]: Thrift's SASL negotiation with the PLAIN mechanism, both sides, and the password
//!   file the server checks;
//! - [`listener`]: the doors' listening sockets, with the system's largest accept queue;
//! - [`acl`]: HBase's access-control model (actions, scopes, grants) and the `hbase:acl` table
//!   that stores the grants (the checks themselves are the gateway's `access` module).
//!
//! `docs/design/security.md` describes the whole.

#![forbid(unsafe_code)]

pub mod acl;
pub mod deadline;
pub mod listener;
pub mod sasl;
pub mod split;
pub mod tls;
