//! The read-only models: `VersionModel`, `StorageClusterVersionModel`, `TableListModel`,
//! `NamespacesModel`, `TableInfoModel` (a table's regions) and `StorageClusterStatusModel`.

use super::{b64, json_str};
use crate::media::Repr;
use crate::proto;
use crate::xml;
use prost::Message;

/// `GET /version`: the door's and the server's versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionModel {
    /// HBase REST's protocol version (`0.0.3`).
    pub rest: String,
    /// The runtime (HBase: the JVM; ferrobase: `rustc`'s target).
    pub jvm: String,
    /// The operating system.
    pub os: String,
    /// The HTTP server.
    pub server: String,
    /// The JAX-RS implementation (ferrobase: none, empty as HBase 2.6.1 answers it).
    pub jersey: String,
    /// The cluster's version.
    pub version: String,
    /// The build's revision.
    pub revision: String,
}

impl VersionModel {
    /// The model in `repr`.
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => format!(
                "{{\"Server\":{},\"Jersey\":{},\"Version\":{},\"Revision\":{},\"REST\":{},\"JVM\":{},\"OS\":{}}}",
                json_str(&self.server),
                json_str(&self.jersey),
                json_str(&self.version),
                json_str(&self.revision),
                json_str(&self.rest),
                json_str(&self.jvm),
                json_str(&self.os)
            )
            .into_bytes(),
            Repr::Protobuf => proto::Version {
                rest_version: Some(self.rest.clone()),
                jvm_version: Some(self.jvm.clone()),
                os_version: Some(self.os.clone()),
                server_version: Some(self.server.clone()),
                jersey_version: Some(self.jersey.clone()),
                version: Some(self.version.clone()),
                revision: Some(self.revision.clone()),
            }
            .encode_to_vec(),
            Repr::Text => format!(
                "rest {} [JVM: {}] [OS: {}] [Server: {}] [Jersey: {}] [Version: {}] [Revision: {}]\n",
                self.rest, self.jvm, self.os, self.server, self.jersey, self.version, self.revision
            )
            .into_bytes(),
            _ => {
                let mut w = xml::Writer::document();
                w.open(
                    "Version",
                    &[
                        ("JVM", self.jvm.clone()),
                        ("Jersey", self.jersey.clone()),
                        ("OS", self.os.clone()),
                        ("REST", self.rest.clone()),
                        ("Revision", self.revision.clone()),
                        ("Server", self.server.clone()),
                        ("Version", self.version.clone()),
                    ],
                    true,
                );
                w.finish()
            }
        }
    }
}

/// `GET /version/cluster`: the cluster's version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterVersionModel(pub String);

impl ClusterVersionModel {
    /// The model in `repr` (JSON, XML or text; HBase offers no protobuf).
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => format!("{{\"Version\":{}}}", json_str(&self.0)).into_bytes(),
            Repr::Text => self.0.clone().into_bytes(),
            _ => {
                let mut w = xml::Writer::document();
                w.open("ClusterVersion", &[("Version", self.0.clone())], true);
                w.finish()
            }
        }
    }
}

/// `GET /` and `GET /namespaces/NS/tables`: table names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableListModel(pub Vec<String>);

impl TableListModel {
    /// The model in `repr`.
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => format!(
                "{{\"table\":[{}]}}",
                self.0
                    .iter()
                    .map(|n| format!("{{\"name\":{}}}", json_str(n)))
                    .collect::<Vec<_>>()
                    .join(",")
            )
            .into_bytes(),
            Repr::Protobuf => proto::TableList {
                name: self.0.clone(),
            }
            .encode_to_vec(),
            Repr::Text => self
                .0
                .iter()
                .map(|n| format!("{n}\n"))
                .collect::<String>()
                .into_bytes(),
            _ => {
                let mut w = xml::Writer::document();
                w.open("TableList", &[], self.0.is_empty());
                if !self.0.is_empty() {
                    for n in &self.0 {
                        w.open("table", &[("name", n.clone())], true);
                    }
                    w.close("TableList");
                }
                w.finish()
            }
        }
    }
}

/// `GET /namespaces`: namespace names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespacesModel(pub Vec<String>);

impl NamespacesModel {
    /// The model in `repr`.
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => format!(
                "{{\"Namespace\":[{}]}}",
                self.0
                    .iter()
                    .map(|n| json_str(n))
                    .collect::<Vec<_>>()
                    .join(",")
            )
            .into_bytes(),
            Repr::Protobuf => proto::Namespaces {
                namespace: self.0.clone(),
            }
            .encode_to_vec(),
            Repr::Text => self
                .0
                .iter()
                .map(|n| format!("{n}\n"))
                .collect::<String>()
                .into_bytes(),
            _ => {
                let mut w = xml::Writer::document();
                w.open("Namespaces", &[], self.0.is_empty());
                if !self.0.is_empty() {
                    for n in &self.0 {
                        w.open("Namespace", &[], false);
                        w.text(n);
                        w.close("Namespace");
                    }
                    w.close("Namespaces");
                }
                w.finish()
            }
        }
    }
}

/// One region of `GET /TABLE/regions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRegionModel {
    /// The region's name, `table,start,id.ENCODED.`.
    pub name: String,
    /// The region id.
    pub id: i64,
    /// Its first row (empty: the table's start).
    pub start_key: Vec<u8>,
    /// Its end row, exclusive (empty: the table's end).
    pub end_key: Vec<u8>,
    /// `host:port` of the server holding it.
    pub location: String,
}

/// `GET /TABLE/regions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfoModel {
    /// The table's name.
    pub name: String,
    /// Its regions, in key order.
    pub regions: Vec<TableRegionModel>,
}

impl TableInfoModel {
    /// The model in `repr`.
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => format!(
                "{{\"name\":{},\"Region\":[{}]}}",
                json_str(&self.name),
                self.regions
                    .iter()
                    .map(|r| format!(
                        "{{\"id\":{},\"startKey\":{},\"endKey\":{},\"location\":{},\"name\":{}}}",
                        r.id,
                        json_str(&b64(&r.start_key)),
                        json_str(&b64(&r.end_key)),
                        json_str(&r.location),
                        json_str(&r.name)
                    ))
                    .collect::<Vec<_>>()
                    .join(",")
            )
            .into_bytes(),
            Repr::Protobuf => proto::TableInfo {
                name: Some(self.name.clone()),
                regions: self
                    .regions
                    .iter()
                    .map(|r| proto::TableInfoRegion {
                        name: Some(r.name.clone()),
                        start_key: Some(r.start_key.clone()),
                        end_key: Some(r.end_key.clone()),
                        id: Some(r.id),
                        location: Some(r.location.clone()),
                    })
                    .collect(),
            }
            .encode_to_vec(),
            Repr::Text => self
                .regions
                .iter()
                .map(|r| {
                    format!(
                        "{} [\n  id={}\n  startKey='{}'\n  endKey='{}'\n  location='{}'\n]\n\n",
                        r.name,
                        r.id,
                        String::from_utf8_lossy(&r.start_key),
                        String::from_utf8_lossy(&r.end_key),
                        r.location
                    )
                })
                .collect::<String>()
                .into_bytes(),
            _ => {
                let mut w = xml::Writer::document();
                w.open(
                    "TableInfo",
                    &[("name", self.name.clone())],
                    self.regions.is_empty(),
                );
                if !self.regions.is_empty() {
                    for r in &self.regions {
                        w.open(
                            "Region",
                            &[
                                ("endKey", b64(&r.end_key)),
                                ("id", r.id.to_string()),
                                ("location", r.location.clone()),
                                ("name", r.name.clone()),
                                ("startKey", b64(&r.start_key)),
                            ],
                            true,
                        );
                    }
                    w.close("TableInfo");
                }
                w.finish()
            }
        }
    }
}

/// One region's load in `GET /status/cluster`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RegionLoadModel {
    /// The region's name.
    pub name: Vec<u8>,
    /// Stores (families).
    pub stores: i32,
    /// Store files.
    pub storefiles: i32,
    /// Store file bytes, in MiB.
    pub storefile_size_mb: i32,
    /// Memstore bytes, in MiB.
    pub memstore_size_mb: i32,
}

/// One live server in `GET /status/cluster`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeModel {
    /// `host:port`.
    pub name: String,
    /// The server's start code (ms since the epoch).
    pub start_code: i64,
    /// Requests served.
    pub requests: i64,
    /// Heap used, MiB (ferrobase: resident memory).
    pub heap_size_mb: i32,
    /// Heap limit, MiB.
    pub max_heap_size_mb: i32,
    /// Its regions.
    pub regions: Vec<RegionLoadModel>,
}

/// `GET /status/cluster`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterStatusModel {
    /// Live servers (ferrobase: itself).
    pub live: Vec<NodeModel>,
    /// Regions in all.
    pub regions: i32,
    /// Requests in all.
    pub requests: i64,
    /// Regions per server.
    pub average_load: f64,
}

impl ClusterStatusModel {
    /// `StorageClusterStatusModel.toString`.
    fn to_text(&self) -> String {
        let mut s = format!(
            "{} live servers, 0 dead servers, {:.4} average load\n\n",
            self.live.len(),
            self.average_load
        );
        if !self.live.is_empty() {
            s.push_str(&format!("{} live servers\n", self.live.len()));
            for n in &self.live {
                s.push_str(&format!(
                    "    {} {}\n        requests={}, regions={}\n        heapSizeMB={}\n        maxHeapSizeMB={}\n\n",
                    n.name,
                    n.start_code,
                    n.requests,
                    n.regions.len(),
                    n.heap_size_mb,
                    n.max_heap_size_mb
                ));
                for r in &n.regions {
                    s.push_str(&format!(
                        "        {}\n            stores={}\n            storefiless={}\n            storefileSizeMB={}\n            memstoreSizeMB={}\n            storefileIndexSizeKB=0\n            readRequestsCount=0\n            writeRequestsCount=0\n            rootIndexSizeKB=0\n            totalStaticIndexSizeKB=0\n            totalStaticBloomSizeKB=0\n            totalCompactingKVs=0\n            currentCompactedKVs=0\n",
                        String::from_utf8_lossy(&r.name),
                        r.stores,
                        r.storefiles,
                        r.storefile_size_mb,
                        r.memstore_size_mb
                    ));
                }
                s.push('\n');
            }
        }
        s
    }

    /// The model in `repr`.
    pub fn encode(&self, repr: Repr) -> Vec<u8> {
        match repr {
            Repr::Json => {
                let nodes: Vec<String> = self
                    .live
                    .iter()
                    .map(|n| {
                        let regions: Vec<String> = n
                            .regions
                            .iter()
                            .map(|r| {
                                format!(
                                    "{{\"name\":{},\"stores\":{},\"storefiles\":{},\"storefileSizeMB\":{},\
                                     \"storefileIndexSizeKB\":0,\"readRequestsCount\":0,\"writeRequestsCount\":0,\
                                     \"rootIndexSizeKB\":0,\"totalStaticIndexSizeKB\":0,\"totalStaticBloomSizeKB\":0,\
                                     \"totalCompactingKVs\":0,\"currentCompactedKVs\":0,\"memStoreSizeMB\":{}}}",
                                    json_str(&b64(&r.name)),
                                    r.stores,
                                    r.storefiles,
                                    r.storefile_size_mb,
                                    r.memstore_size_mb
                                )
                            })
                            .collect();
                        format!(
                            "{{\"name\":{},\"startCode\":{},\"requests\":{},\"heapSizeMB\":{},\"maxHeapSizeMB\":{},\"Region\":[{}]}}",
                            json_str(&n.name),
                            n.start_code,
                            n.requests,
                            n.heap_size_mb,
                            n.max_heap_size_mb,
                            regions.join(",")
                        )
                    })
                    .collect();
                format!(
                    "{{\"LiveNodes\":[{}],\"DeadNodes\":[],\"regions\":{},\"requests\":{},\"averageLoad\":{:?}}}",
                    nodes.join(","),
                    self.regions,
                    self.requests,
                    self.average_load
                )
                .into_bytes()
            }
            Repr::Protobuf => proto::StorageClusterStatus {
                live_nodes: self
                    .live
                    .iter()
                    .map(|n| proto::StatusNode {
                        name: Some(n.name.clone()),
                        start_code: Some(n.start_code),
                        requests: Some(n.requests),
                        heap_size_mb: Some(n.heap_size_mb),
                        max_heap_size_mb: Some(n.max_heap_size_mb),
                        regions: n
                            .regions
                            .iter()
                            .map(|r| proto::StatusRegion {
                                name: Some(r.name.clone()),
                                stores: Some(r.stores),
                                storefiles: Some(r.storefiles),
                                storefile_size_mb: Some(r.storefile_size_mb),
                                mem_store_size_mb: Some(r.memstore_size_mb),
                                storefile_index_size_kb: Some(0),
                                read_requests_count: Some(0),
                                write_requests_count: Some(0),
                                root_index_size_kb: Some(0),
                                total_static_index_size_kb: Some(0),
                                total_static_bloom_size_kb: Some(0),
                                total_compacting_kvs: Some(0),
                                current_compacted_kvs: Some(0),
                            })
                            .collect(),
                    })
                    .collect(),
                dead_nodes: Vec::new(),
                regions: Some(self.regions),
                requests: Some(self.requests),
                average_load: Some(self.average_load),
            }
            .encode_to_vec(),
            Repr::Text => self.to_text().into_bytes(),
            _ => {
                let mut w = xml::Writer::document();
                w.open(
                    "ClusterStatus",
                    &[
                        ("averageLoad", format!("{:?}", self.average_load)),
                        ("regions", self.regions.to_string()),
                        ("requests", self.requests.to_string()),
                    ],
                    false,
                );
                w.open("DeadNodes", &[], true);
                w.open("LiveNodes", &[], false);
                for n in &self.live {
                    w.open(
                        "Node",
                        &[
                            ("heapSizeMB", n.heap_size_mb.to_string()),
                            ("maxHeapSizeMB", n.max_heap_size_mb.to_string()),
                            ("name", n.name.clone()),
                            ("requests", n.requests.to_string()),
                            ("startCode", n.start_code.to_string()),
                        ],
                        false,
                    );
                    for r in &n.regions {
                        w.open(
                            "Region",
                            &[
                                ("currentCompactedKVs", "0".into()),
                                ("memStoreSizeMB", r.memstore_size_mb.to_string()),
                                ("name", b64(&r.name)),
                                ("readRequestsCount", "0".into()),
                                ("rootIndexSizeKB", "0".into()),
                                ("storefileIndexSizeKB", "0".into()),
                                ("storefileSizeMB", r.storefile_size_mb.to_string()),
                                ("storefiles", r.storefiles.to_string()),
                                ("stores", r.stores.to_string()),
                                ("totalCompactingKVs", "0".into()),
                                ("totalStaticBloomSizeKB", "0".into()),
                                ("totalStaticIndexSizeKB", "0".into()),
                                ("writeRequestsCount", "0".into()),
                            ],
                            true,
                        );
                    }
                    w.close("Node");
                }
                w.close("LiveNodes");
                w.close("ClusterStatus");
                w.finish()
            }
        }
    }
}
