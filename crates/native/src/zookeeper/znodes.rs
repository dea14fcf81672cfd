//! The znodes the façade serves: HBase's under `/hbase`, laid out and encoded as an HBase 2.6
//! master writes them, naming the native door as master, meta location and only region
//! server, plus ZooKeeper's own `/zookeeper` nodes. Built once at start; nothing changes
//! while the server runs, so a watch never has anything to fire for.
//!
//! Every HBase znode's data is written through HBase's `RecoverableZooKeeper`, which puts
//! `ZKMetadata` before it: `0xFF`, a 4-byte big-endian length, then the writer's identifier
//! (`master:PORT`, `regionserver:PORT`) and an 8-byte random salt (the length counts both);
//! then comes `PBUF` (`ProtobufUtil.prependPBMagic`) and the protobuf message.

use super::protocol::Stat;
use super::Discovery;
use crate::proto::hbase::{RegionServerInfo, ServerName, VersionInfo};
use crate::proto::zookeeper::{ClusterId, ClusterUp, Master, MetaRegionServer};
use ferrobase_engine::clock::UtcTime;
use prost::Message;
use std::collections::BTreeMap;

/// HBase's default base znode (`zookeeper.znode.parent`).
pub const BASE: &str = "/hbase";

/// The one zxid of the tree: every node was created by it and nothing changed since.
pub const ZXID: i64 = 1;

/// `MetaRegionServer.state`: `RegionState.State.OPEN`.
const OPEN: i32 = 3;

/// One znode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Znode {
    /// Its data (possibly empty).
    pub data: Vec<u8>,
    /// Its children's names, in the order served.
    pub children: Vec<String>,
    /// The session owning it, for the nodes HBase makes ephemeral (the active master, a
    /// region server), else 0.
    pub ephemeral_owner: i64,
}

/// The served tree, by absolute path.
#[derive(Debug, Clone)]
pub struct Tree {
    nodes: BTreeMap<String, Znode>,
    /// Creation time of every node, milliseconds since the epoch (the server's start).
    ctime: i64,
}

impl Tree {
    /// The tree for `d`. `owner` is the session id shown as the owner of the ephemeral nodes;
    /// `salt` makes the 8 salt bytes of each node's metadata prefix (as HBase's random ones).
    pub fn new(d: &Discovery, owner: i64, mut salt: impl FnMut(&str) -> [u8; 8]) -> Tree {
        let me = ServerName {
            host_name: Some(d.host.clone()),
            port: Some(u32::from(d.port)),
            start_code: Some(d.start_code),
        };
        let master_id = format!("master:{}", d.port);
        let rs_id = format!("regionserver:{}", d.port);
        let mut hbase = |path: &str, writer: &str, message: Vec<u8>| {
            let mut data = metadata(writer, salt(path));
            data.extend_from_slice(b"PBUF");
            data.extend_from_slice(&message);
            data
        };
        let rs_name = format!("{},{},{}", d.host, d.port, d.start_code);
        let hbaseid = hbase(
            "/hbase/hbaseid",
            &master_id,
            ClusterId {
                cluster_id: Some(d.cluster_id.clone()),
            }
            .encode_to_vec(),
        );
        let master = hbase(
            "/hbase/master",
            &master_id,
            Master {
                master: Some(me.clone()),
                rpc_version: Some(0),
                // No web UI: HBase writes -1 for a disabled info server.
                info_port: Some(u32::MAX),
            }
            .encode_to_vec(),
        );
        let meta = hbase(
            "/hbase/meta-region-server",
            &master_id,
            MetaRegionServer {
                server: Some(me),
                rpc_version: Some(0),
                state: Some(OPEN),
            }
            .encode_to_vec(),
        );
        let running = hbase(
            "/hbase/running",
            &master_id,
            ClusterUp {
                start_date: Some(java_date(d.start_code)),
            }
            .encode_to_vec(),
        );
        let rs = hbase(
            &format!("/hbase/rs/{rs_name}"),
            &rs_id,
            RegionServerInfo {
                info_port: Some(-1),
                version_info: Some(version_info()),
            }
            .encode_to_vec(),
        );
        let dir = |children: &[&str]| Znode {
            data: Vec::new(),
            children: children.iter().map(|c| c.to_string()).collect(),
            ephemeral_owner: 0,
        };
        let file = |data: Vec<u8>, ephemeral_owner: i64| Znode {
            data,
            children: Vec::new(),
            ephemeral_owner,
        };
        let mut nodes = BTreeMap::new();
        nodes.insert("/".into(), dir(&["zookeeper", "hbase"]));
        nodes.insert("/zookeeper".into(), dir(&["config", "quota"]));
        nodes.insert("/zookeeper/config".into(), dir(&[]));
        nodes.insert("/zookeeper/quota".into(), dir(&[]));
        nodes.insert(
            BASE.into(),
            dir(&[
                "meta-region-server",
                "rs",
                "backup-masters",
                "running",
                "master",
                "hbaseid",
            ]),
        );
        nodes.insert("/hbase/meta-region-server".into(), file(meta, 0));
        nodes.insert("/hbase/rs".into(), dir(&[&rs_name]));
        nodes.insert(format!("/hbase/rs/{rs_name}"), file(rs, owner));
        nodes.insert("/hbase/backup-masters".into(), dir(&[]));
        nodes.insert("/hbase/running".into(), file(running, 0));
        nodes.insert("/hbase/master".into(), file(master, owner));
        nodes.insert("/hbase/hbaseid".into(), file(hbaseid, 0));
        Tree {
            nodes,
            ctime: i64::try_from(d.start_code).unwrap_or(0),
        }
    }

    /// The node at `path`.
    pub fn get(&self, path: &str) -> Option<&Znode> {
        self.nodes.get(path)
    }

    /// The node's `Stat`: created and last changed by [`ZXID`] at the server's start, version
    /// 0, its children's version their number (each creation counted, as ZooKeeper does).
    pub fn stat(&self, node: &Znode) -> Stat {
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        Stat {
            czxid: ZXID,
            mzxid: ZXID,
            ctime: self.ctime,
            mtime: self.ctime,
            version: 0,
            cversion: count(node.children.len()),
            aversion: 0,
            ephemeral_owner: node.ephemeral_owner,
            data_length: count(node.data.len()),
            num_children: count(node.children.len()),
            pzxid: ZXID,
        }
    }

    /// Nodes below `path` at any depth (`getAllChildrenNumber`).
    pub fn descendants(&self, path: &str) -> usize {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        self.nodes
            .keys()
            .filter(|k| k.as_str() != "/" && k.starts_with(&prefix))
            .count()
    }
}

/// `ZKMetadata.appendMetaData`'s prefix: `0xFF`, the length of id and salt, the id, the salt.
fn metadata(id: &str, salt: [u8; 8]) -> Vec<u8> {
    let mut out = vec![0xff];
    let len = u32::try_from(id.len() + salt.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(&salt);
    out
}

/// The `VersionInfo` of a region server's znode: the HBase version whose protocol the native
/// door speaks, and ferrobase's own in `revision`.
fn version_info() -> VersionInfo {
    VersionInfo {
        version: Some("2.6.1".into()),
        url: Some("ferrobase".into()),
        revision: Some(format!("ferrobase {}", env!("CARGO_PKG_VERSION"))),
        user: Some("ferrobase".into()),
        date: Some(String::new()),
        src_checksum: Some(String::new()),
        version_major: Some(2),
        version_minor: Some(6),
    }
}

/// Java's `Date.toString()` in UTC (`Sun Nov 29 07:30:09 UTC 2026`), what HBase writes in
/// `/hbase/running`.
fn java_date(millis: u64) -> String {
    let t = UtcTime::from_millis(i64::try_from(millis).unwrap_or(i64::MAX));
    const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let weekday = WEEKDAYS.get(t.weekday as usize).unwrap_or(&"Thu");
    let month_name = MONTHS
        .get((t.month as usize).saturating_sub(1))
        .unwrap_or(&"Jan");
    format!(
        "{weekday} {month_name} {:02} {:02}:{:02}:{:02} UTC {}",
        t.day, t.hour, t.minute, t.second, t.year
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovery() -> Discovery {
        Discovery {
            cluster_id: "aa73463a-6e3c-44f0-9758-04a38acc3cda".into(),
            host: "127.0.0.1".into(),
            port: 42409,
            start_code: 1_795_937_407_777,
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Apache HBase 2.6.1's `/hbase/hbaseid`, read from its ZooKeeper: with the same id, salt
    /// and cluster id the bytes are the same.
    #[test]
    fn hbaseid_is_hbases_bytes() {
        let salt = hex("b5dd5afe9b882b98");
        let tree = Tree::new(&discovery(), 7, |_| salt.clone().try_into().unwrap());
        assert_eq!(
            tree.get("/hbase/hbaseid").unwrap().data,
            hex(concat!(
                "ff00000014",
                "6d61737465723a3432343039", // master:42409
                "b5dd5afe9b882b98",
                "504255460a24",
                "61613733343633612d366533632d343466302d393735382d303461333861636333636461"
            ))
        );
    }

    /// HBase's `/hbase/master` and `/hbase/meta-region-server` (Master and MetaRegionServer
    /// after the prefix), as read from Apache HBase 2.6.1 with the server name changed to
    /// the one asked for here.
    #[test]
    fn master_and_meta_are_hbases_messages() {
        let tree = Tree::new(&discovery(), 7, |_| [0; 8]);
        let prefix = hex("ff000000146d61737465723a34323430390000000000000000");
        // ServerName {127.0.0.1, 42409, 1795937407777}.
        let sn = "0a160a093132372e302e302e3110a9cb0218a1a6d8b1a234";
        let master = tree.get("/hbase/master").unwrap();
        assert_eq!(
            master.data,
            [
                prefix.clone(),
                b"PBUF".to_vec(),
                hex(&format!("{sn}100018ffffffff0f"))
            ]
            .concat()
        );
        assert_eq!(master.ephemeral_owner, 7);
        let meta = tree.get("/hbase/meta-region-server").unwrap();
        assert_eq!(
            meta.data,
            [prefix, b"PBUF".to_vec(), hex(&format!("{sn}10001803"))].concat()
        );
        assert_eq!(meta.ephemeral_owner, 0);
    }

    #[test]
    fn the_tree_lists_one_region_server_and_counts_right() {
        let tree = Tree::new(&discovery(), 7, |_| [0; 8]);
        let rs = tree.get("/hbase/rs").unwrap();
        assert_eq!(rs.children, vec!["127.0.0.1,42409,1795937407777"]);
        let child = tree.get("/hbase/rs/127.0.0.1,42409,1795937407777").unwrap();
        assert!(child
            .data
            .starts_with(b"\xff\x00\x00\x00\x1aregionserver:42409"));
        let stat = tree.stat(tree.get(BASE).unwrap());
        assert_eq!((stat.num_children, stat.data_length), (6, 0));
        for name in &tree.get(BASE).unwrap().children {
            assert!(tree.get(&format!("{BASE}/{name}")).is_some(), "{name}");
        }
        assert_eq!(tree.descendants("/hbase/rs"), 1);
        assert_eq!(tree.descendants("/"), 11);
    }

    #[test]
    fn dates_read_as_javas() {
        // HBase 2.6.1's /hbase/running said "Sun Nov 29 07:30:09 UTC 2026" for this start.
        assert_eq!(java_date(1_795_937_409_000), "Sun Nov 29 07:30:09 UTC 2026");
        assert_eq!(java_date(0), "Thu Jan 01 00:00:00 UTC 1970");
        assert_eq!(java_date(951_782_400_000), "Tue Feb 29 00:00:00 UTC 2000");
    }
}
