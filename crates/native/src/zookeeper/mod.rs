//! A read-only ZooKeeper-protocol endpoint for discovery (`ferrobase serve --zk-port`): HBase
//! 2.x clients find a cluster through ZooKeeper by default (`hbase.zookeeper.quorum`,
//! `ZKConnectionRegistry`), and so do other native clients (PyPI's `hbase-driver` with kazoo).
//! This is a discovery façade, not a coordination service: it speaks ZooKeeper's client
//! protocol (sessions, pings, `exists`, `getData`, `getChildren`, `sync`, watches accepted and
//! never fired) over a fixed tree, the znodes an HBase 2.6 master writes under `/hbase`
//! (cluster id, active master, meta location, the one region server), each naming the native
//! RPC door; every write is refused with ZooKeeper's `NOTREADONLY` and the session goes on.
//! `docs/design/zookeeper-discovery.md` has the protocol and the bytes of every znode.

pub mod jute;
pub mod protocol;
mod server;
pub mod session;
pub mod znodes;

pub use server::{ZkOptions, ZkServer, ZkStopHandle};

/// What clients must find: the native door's cluster id and server name (`host,port,start
/// code`), as [`NativeServer::discovery`](crate::NativeServer::discovery) gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// The cluster id (a UUID).
    pub cluster_id: String,
    /// The advertised host of the native door.
    pub host: String,
    /// The native door's port.
    pub port: u16,
    /// The server's start code (milliseconds since the epoch at start).
    pub start_code: u64,
}
