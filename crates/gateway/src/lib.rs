//! ferrobase's Thrift gateway: HBase's Thrift1 `Hbase` service served from an embedded engine,
//! wire-compatible with Apache HBase's Thrift server so clients such as happybase work
//! unchanged.

pub mod handler;
pub mod idl;
pub mod server;
pub mod thrift;

pub use server::{Server, ServerOptions, StopHandle};
