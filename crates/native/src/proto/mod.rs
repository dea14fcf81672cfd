//! HBase's protobuf messages (`hbase-protocol-shaded/src/main/protobuf/`), declared by hand with
//! prost's derive: one module per `.proto` file, each message with HBase's field numbers, types
//! and labels, so no `protoc` runs at build time. Only the messages the native door reads or
//! writes are declared; an unknown field a client sends is skipped, as protobuf's rules say.
#![allow(
    missing_docs,
    reason = "the messages are HBase's; their .proto files document them"
)]

pub mod access_control;
pub mod admin;
pub mod cell;
pub mod client;
pub mod cluster_status;
pub mod comparator;
pub mod error_handling;
pub mod filter;
pub mod hbase;
pub mod master;
pub mod registry;
pub mod rpc;
pub mod too_slow_log;
pub mod tracing;
pub mod zookeeper;
