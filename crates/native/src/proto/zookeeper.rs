//! `ZooKeeper.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6): the
//! content of the znodes an HBase client reads (each after the 4-byte `PBUF` magic, itself after
//! the `0xFF`, id-length and id prefix of `ZKMetadata`), and `ClusterId` from `ClusterId.proto`.
//! `SplitLogTask` is not declared (WAL splitting is the servers' business).

/// The content of `/hbase/meta-region-server` (after the `PBUF` magic).
#[derive(Clone, PartialEq, prost::Message)]
pub struct MetaRegionServer {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub server: Option<super::hbase::ServerName>,
    #[prost(uint32, optional, tag = "2")]
    pub rpc_version: Option<u32>,
    #[prost(
        enumeration = "super::cluster_status::region_state::State",
        optional,
        tag = "3"
    )]
    pub state: Option<i32>,
}

/// The content of `/hbase/master` and the backup masters' znodes (after `PBUF`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Master {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub master: Option<super::hbase::ServerName>,
    #[prost(uint32, optional, tag = "2")]
    pub rpc_version: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub info_port: Option<u32>,
}

/// The content of `/hbase/running`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ClusterUp {
    /// Required.
    #[prost(string, optional, tag = "1")]
    pub start_date: Option<String>,
}

/// A table's state as 1.x kept it in ZooKeeper.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeprecatedTableState {
    /// Required.
    #[prost(
        enumeration = "deprecated_table_state::State",
        optional,
        default = "Enabled",
        tag = "1"
    )]
    pub state: Option<i32>,
}

/// Nested types of [`DeprecatedTableState`].
pub mod deprecated_table_state {
    /// `DeprecatedTableState.State`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum State {
        Enabled = 0,
        Disabled = 1,
        Disabling = 2,
        Enabling = 3,
    }
}

/// The split/merge switch znodes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SwitchState {
    #[prost(bool, optional, tag = "1")]
    pub enabled: Option<bool>,
}

/// The content of `/hbase/hbaseid` after `PBUF` (`ClusterId.proto`; `cluster_id` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ClusterId {
    /// Required.
    #[prost(string, optional, tag = "1")]
    pub cluster_id: Option<String>,
}
