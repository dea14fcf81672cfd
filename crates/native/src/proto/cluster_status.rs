//! `ClusterStatus.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6): the
//! cluster status of `GetClusterStatus` (live and dead servers, their loads and regions, masters,
//! regions in transition), and `HBaseVersionFileContent` from `FS.proto`.

/// What a `GetClusterStatusRequest` asks for: HBase's enum `Option` (`ClusterMetrics.Option`),
/// renamed so that it does not shadow `std`'s `Option` in this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum ClusterOption {
    HbaseVersion = 0,
    ClusterId = 1,
    LiveServers = 2,
    DeadServers = 3,
    Master = 4,
    BackupMasters = 5,
    MasterCoprocessors = 6,
    RegionsInTransition = 7,
    BalancerOn = 8,
    MasterInfoPort = 9,
    ServersName = 10,
    TableToRegionsCount = 11,
    Tasks = 12,
    UnknownServers = 13,
}

/// `RegionState`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionState {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region_info: Option<super::hbase::RegionInfo>,
    /// Required.
    #[prost(enumeration = "region_state::State", optional, tag = "2")]
    pub state: Option<i32>,
    #[prost(uint64, optional, tag = "3")]
    pub stamp: Option<u64>,
}

/// Nested types of [`RegionState`].
pub mod region_state {
    /// `RegionState.State`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum State {
        Offline = 0,
        PendingOpen = 1,
        Opening = 2,
        Open = 3,
        PendingClose = 4,
        Closing = 5,
        Closed = 6,
        Splitting = 7,
        Split = 8,
        FailedOpen = 9,
        FailedClose = 10,
        Merging = 11,
        Merged = 12,
        SplittingNew = 13,
        MergingNew = 14,
        AbnormallyClosed = 15,
    }
}

/// `RegionInTransition`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionInTransition {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub spec: Option<super::hbase::RegionSpecifier>,
    /// Required.
    #[prost(message, optional, tag = "2")]
    pub region_state: Option<RegionState>,
}

/// `StoreSequenceId`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StoreSequenceId {
    /// Required.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub family_name: Option<Vec<u8>>,
    /// Required.
    #[prost(uint64, optional, tag = "2")]
    pub sequence_id: Option<u64>,
}

/// `RegionStoreSequenceIds`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionStoreSequenceIds {
    /// Required.
    #[prost(uint64, optional, tag = "1")]
    pub last_flushed_sequence_id: Option<u64>,
    #[prost(message, repeated, tag = "2")]
    pub store_sequence_id: Vec<StoreSequenceId>,
}

/// One region's load (`RegionMetrics`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionLoad {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub region_specifier: Option<super::hbase::RegionSpecifier>,
    #[prost(uint32, optional, tag = "2")]
    pub stores: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub storefiles: Option<u32>,
    /// `store_uncompressed_size_MB` in the .proto.
    #[prost(uint32, optional, tag = "4")]
    pub store_uncompressed_size_mb: Option<u32>,
    /// `storefile_size_MB` in the .proto.
    #[prost(uint32, optional, tag = "5")]
    pub storefile_size_mb: Option<u32>,
    /// `mem_store_size_MB` in the .proto.
    #[prost(uint32, optional, tag = "6")]
    pub mem_store_size_mb: Option<u32>,
    /// `storefile_index_size_KB` in the .proto.
    #[prost(uint64, optional, tag = "7")]
    pub storefile_index_size_kb: Option<u64>,
    #[prost(uint64, optional, tag = "8")]
    pub read_requests_count: Option<u64>,
    #[prost(uint64, optional, tag = "9")]
    pub write_requests_count: Option<u64>,
    /// `total_compacting_KVs` in the .proto.
    #[prost(uint64, optional, tag = "10")]
    pub total_compacting_k_vs: Option<u64>,
    /// `current_compacted_KVs` in the .proto.
    #[prost(uint64, optional, tag = "11")]
    pub current_compacted_k_vs: Option<u64>,
    /// `root_index_size_KB` in the .proto.
    #[prost(uint32, optional, tag = "12")]
    pub root_index_size_kb: Option<u32>,
    /// `total_static_index_size_KB` in the .proto.
    #[prost(uint32, optional, tag = "13")]
    pub total_static_index_size_kb: Option<u32>,
    /// `total_static_bloom_size_KB` in the .proto.
    #[prost(uint32, optional, tag = "14")]
    pub total_static_bloom_size_kb: Option<u32>,
    #[prost(uint64, optional, tag = "15")]
    pub complete_sequence_id: Option<u64>,
    #[prost(float, optional, tag = "16")]
    pub data_locality: Option<f32>,
    #[prost(uint64, optional, default = "0", tag = "17")]
    pub last_major_compaction_ts: Option<u64>,
    #[prost(message, repeated, tag = "18")]
    pub store_complete_sequence_id: Vec<StoreSequenceId>,
    #[prost(uint64, optional, tag = "19")]
    pub filtered_read_requests_count: Option<u64>,
    #[prost(int32, optional, default = "0", tag = "21")]
    pub store_ref_count: Option<i32>,
    #[prost(int32, optional, default = "0", tag = "22")]
    pub max_compacted_store_file_ref_count: Option<i32>,
    #[prost(float, optional, tag = "23")]
    pub data_locality_for_ssd: Option<f32>,
    #[prost(uint64, optional, tag = "24")]
    pub blocks_local_weight: Option<u64>,
    #[prost(uint64, optional, tag = "25")]
    pub blocks_local_with_ssd_weight: Option<u64>,
    #[prost(uint64, optional, tag = "26")]
    pub blocks_total_weight: Option<u64>,
    #[prost(enumeration = "region_load::CompactionState", optional, tag = "27")]
    pub compaction_state: Option<i32>,
    /// `region_size_MB` in the .proto.
    #[prost(uint32, optional, tag = "28")]
    pub region_size_mb: Option<u32>,
    #[prost(float, optional, tag = "29")]
    pub current_region_cached_ratio: Option<f32>,
}

/// Nested types of [`RegionLoad`].
pub mod region_load {
    /// `RegionLoad.CompactionState`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum CompactionState {
        None = 0,
        Minor = 1,
        Major = 2,
        MajorAndMinor = 3,
    }
}

/// `UserLoad`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct UserLoad {
    /// Required; `userName` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub user_name: Option<String>,
    /// `clientMetrics` in the .proto.
    #[prost(message, repeated, tag = "2")]
    pub client_metrics: Vec<ClientMetrics>,
}

/// `ClientMetrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ClientMetrics {
    /// Required; `hostName` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub host_name: Option<String>,
    #[prost(uint64, optional, tag = "2")]
    pub read_requests_count: Option<u64>,
    #[prost(uint64, optional, tag = "3")]
    pub write_requests_count: Option<u64>,
    #[prost(uint64, optional, tag = "4")]
    pub filtered_requests_count: Option<u64>,
}

/// `ReplicationLoadSink`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReplicationLoadSink {
    /// Required; `ageOfLastAppliedOp` in the .proto.
    #[prost(uint64, optional, tag = "1")]
    pub age_of_last_applied_op: Option<u64>,
    /// Required; `timeStampsOfLastAppliedOp` in the .proto.
    #[prost(uint64, optional, tag = "2")]
    pub time_stamps_of_last_applied_op: Option<u64>,
    /// `timestampStarted` in the .proto.
    #[prost(uint64, optional, tag = "3")]
    pub timestamp_started: Option<u64>,
    /// `totalOpsProcessed` in the .proto.
    #[prost(uint64, optional, tag = "4")]
    pub total_ops_processed: Option<u64>,
}

/// `ReplicationLoadSource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReplicationLoadSource {
    /// Required; `peerID` in the .proto.
    #[prost(string, optional, tag = "1")]
    pub peer_id: Option<String>,
    /// Required; `ageOfLastShippedOp` in the .proto.
    #[prost(uint64, optional, tag = "2")]
    pub age_of_last_shipped_op: Option<u64>,
    /// Required; `sizeOfLogQueue` in the .proto.
    #[prost(uint32, optional, tag = "3")]
    pub size_of_log_queue: Option<u32>,
    /// Required; `timeStampOfLastShippedOp` in the .proto.
    #[prost(uint64, optional, tag = "4")]
    pub time_stamp_of_last_shipped_op: Option<u64>,
    /// Required; `replicationLag` in the .proto.
    #[prost(uint64, optional, tag = "5")]
    pub replication_lag: Option<u64>,
    /// `timeStampOfNextToReplicate` in the .proto.
    #[prost(uint64, optional, tag = "6")]
    pub time_stamp_of_next_to_replicate: Option<u64>,
    /// `queueId` in the .proto.
    #[prost(string, optional, tag = "7")]
    pub queue_id: Option<String>,
    #[prost(bool, optional, tag = "8")]
    pub recovered: Option<bool>,
    #[prost(bool, optional, tag = "9")]
    pub running: Option<bool>,
    /// `editsSinceRestart` in the .proto.
    #[prost(bool, optional, tag = "10")]
    pub edits_since_restart: Option<bool>,
    /// `editsRead` in the .proto.
    #[prost(uint64, optional, tag = "11")]
    pub edits_read: Option<u64>,
    /// `oPsShipped` in the .proto.
    #[prost(uint64, optional, tag = "12")]
    pub o_ps_shipped: Option<u64>,
}

/// `ServerTask`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServerTask {
    /// Required.
    #[prost(string, optional, tag = "1")]
    pub description: Option<String>,
    /// Required.
    #[prost(string, optional, tag = "2")]
    pub status: Option<String>,
    /// Required.
    #[prost(enumeration = "server_task::State", optional, tag = "3")]
    pub state: Option<i32>,
    /// `startTime` in the .proto.
    #[prost(uint64, optional, tag = "4")]
    pub start_time: Option<u64>,
    /// `completionTime` in the .proto.
    #[prost(uint64, optional, tag = "5")]
    pub completion_time: Option<u64>,
}

/// Nested types of [`ServerTask`].
pub mod server_task {
    /// `ServerTask.State`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum State {
        Running = 0,
        Waiting = 1,
        Complete = 2,
        Aborted = 3,
    }
}

/// One region server's load (`ServerMetrics`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServerLoad {
    #[prost(uint64, optional, tag = "1")]
    pub number_of_requests: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub total_number_of_requests: Option<u64>,
    /// `used_heap_MB` in the .proto.
    #[prost(uint32, optional, tag = "3")]
    pub used_heap_mb: Option<u32>,
    /// `max_heap_MB` in the .proto.
    #[prost(uint32, optional, tag = "4")]
    pub max_heap_mb: Option<u32>,
    #[prost(message, repeated, tag = "5")]
    pub region_loads: Vec<RegionLoad>,
    #[prost(message, repeated, tag = "6")]
    pub coprocessors: Vec<super::hbase::Coprocessor>,
    #[prost(uint64, optional, tag = "7")]
    pub report_start_time: Option<u64>,
    #[prost(uint64, optional, tag = "8")]
    pub report_end_time: Option<u64>,
    #[prost(uint32, optional, tag = "9")]
    pub info_server_port: Option<u32>,
    /// `replLoadSource` in the .proto.
    #[prost(message, repeated, tag = "10")]
    pub repl_load_source: Vec<ReplicationLoadSource>,
    /// `replLoadSink` in the .proto.
    #[prost(message, optional, tag = "11")]
    pub repl_load_sink: Option<ReplicationLoadSink>,
    /// `userLoads` in the .proto.
    #[prost(message, repeated, tag = "12")]
    pub user_loads: Vec<UserLoad>,
    /// `regionCachedInfo` in the .proto.
    #[prost(map = "string, uint32", tag = "13")]
    pub region_cached_info: std::collections::HashMap<String, u32>,
    #[prost(message, repeated, tag = "15")]
    pub tasks: Vec<ServerTask>,
}

/// A live server and its load (both required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LiveServerInfo {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub server: Option<super::hbase::ServerName>,
    /// Required.
    #[prost(message, optional, tag = "2")]
    pub server_load: Option<ServerLoad>,
}

/// `RegionStatesCount`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RegionStatesCount {
    /// Required.
    #[prost(uint32, optional, tag = "1")]
    pub open_regions: Option<u32>,
    /// Required.
    #[prost(uint32, optional, tag = "2")]
    pub split_regions: Option<u32>,
    /// Required.
    #[prost(uint32, optional, tag = "3")]
    pub closed_regions: Option<u32>,
    /// Required.
    #[prost(uint32, optional, tag = "4")]
    pub regions_in_transition: Option<u32>,
    /// Required.
    #[prost(uint32, optional, tag = "5")]
    pub total_regions: Option<u32>,
}

/// `TableRegionStatesCount`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TableRegionStatesCount {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<super::hbase::TableName>,
    /// Required.
    #[prost(message, optional, tag = "2")]
    pub region_states_count: Option<RegionStatesCount>,
}

/// The cluster status `Admin.getClusterMetrics` and the shell's `status` read.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ClusterStatus {
    #[prost(message, optional, tag = "1")]
    pub hbase_version: Option<HBaseVersionFileContent>,
    #[prost(message, repeated, tag = "2")]
    pub live_servers: Vec<LiveServerInfo>,
    #[prost(message, repeated, tag = "3")]
    pub dead_servers: Vec<super::hbase::ServerName>,
    #[prost(message, repeated, tag = "4")]
    pub regions_in_transition: Vec<RegionInTransition>,
    #[prost(message, optional, tag = "5")]
    pub cluster_id: Option<super::zookeeper::ClusterId>,
    #[prost(message, repeated, tag = "6")]
    pub master_coprocessors: Vec<super::hbase::Coprocessor>,
    #[prost(message, optional, tag = "7")]
    pub master: Option<super::hbase::ServerName>,
    #[prost(message, repeated, tag = "8")]
    pub backup_masters: Vec<super::hbase::ServerName>,
    #[prost(bool, optional, tag = "9")]
    pub balancer_on: Option<bool>,
    #[prost(int32, optional, default = "-1", tag = "10")]
    pub master_info_port: Option<i32>,
    #[prost(message, repeated, tag = "11")]
    pub servers_name: Vec<super::hbase::ServerName>,
    #[prost(message, repeated, tag = "12")]
    pub table_region_states_count: Vec<TableRegionStatesCount>,
    #[prost(message, repeated, tag = "13")]
    pub master_tasks: Vec<ServerTask>,
    #[prost(message, repeated, tag = "14")]
    pub unknown_servers: Vec<super::hbase::ServerName>,
}

/// The content of `hbase.version` (`FS.proto`; `version` required).
#[derive(Clone, PartialEq, prost::Message)]
pub struct HBaseVersionFileContent {
    /// Required.
    #[prost(string, optional, tag = "1")]
    pub version: Option<String>,
}
