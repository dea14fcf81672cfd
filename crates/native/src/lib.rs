//! HBase's native RPC protocol, the protobuf RPC that `org.apache.hbase:hbase-client` speaks,
//! served from a ferrobase engine (`docs/design/native-protocol.md`): the connection registry
//! of HBase 2.6+ clients, `ClientMetaService`, `MasterService` for everyday `Admin` calls and
//! `ClientService` for reads and writes, on one port, so a Java program configured with
//! `RpcConnectionRegistry` and this server as its bootstrap node runs unchanged.
#![forbid(unsafe_code)]

mod access;
pub mod audit;
mod call_queue;
pub mod cellblock;
mod cluster_id;
pub mod descriptors;
pub mod error;
pub mod filters;
pub mod hadoop_codec;
pub mod proto;
mod regions;
mod scanners;
mod server;
mod services;
mod state;
mod tls;
pub mod wire;
pub mod zookeeper;

pub use access::{Identity, NativeAccess};
pub use audit::{AuditLog, Connected};
pub use server::{Handoff, NativeServer, NativeStopHandle};
pub use state::NativeOptions;
