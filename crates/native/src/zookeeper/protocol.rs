//! ZooKeeper's client protocol, the records of `zookeeper.jute` a reading client sends and
//! receives (`ConnectRequest`/`ConnectResponse`, `RequestHeader`/`ReplyHeader`, `Stat` and
//! the read requests), with the op codes of `ZooDefs.OpCode` and the error codes of
//! `KeeperException.Code`. Decoding never panics: a short or malformed record is a
//! [`JuteError`].

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::jute::{JuteError, Reader, Writer};

/// `ZooDefs.OpCode`: the request types.
pub mod op {
    #![allow(missing_docs, reason = "the names are ZooKeeper's own")]
    pub const NOTIFICATION: i32 = 0;
    pub const CREATE: i32 = 1;
    pub const DELETE: i32 = 2;
    pub const EXISTS: i32 = 3;
    pub const GET_DATA: i32 = 4;
    pub const SET_DATA: i32 = 5;
    pub const GET_ACL: i32 = 6;
    pub const SET_ACL: i32 = 7;
    pub const GET_CHILDREN: i32 = 8;
    pub const SYNC: i32 = 9;
    pub const PING: i32 = 11;
    pub const GET_CHILDREN2: i32 = 12;
    pub const CHECK: i32 = 13;
    pub const MULTI: i32 = 14;
    pub const CREATE2: i32 = 15;
    pub const RECONFIG: i32 = 16;
    pub const CHECK_WATCHES: i32 = 17;
    pub const REMOVE_WATCHES: i32 = 18;
    pub const CREATE_CONTAINER: i32 = 19;
    pub const DELETE_CONTAINER: i32 = 20;
    pub const CREATE_TTL: i32 = 21;
    pub const MULTI_READ: i32 = 22;
    pub const AUTH: i32 = 100;
    pub const SET_WATCHES: i32 = 101;
    pub const SASL: i32 = 102;
    pub const GET_EPHEMERALS: i32 = 103;
    pub const GET_ALL_CHILDREN_NUMBER: i32 = 104;
    pub const SET_WATCHES2: i32 = 105;
    pub const ADD_WATCH: i32 = 106;
    pub const WHO_AM_I: i32 = 107;
    pub const CREATE_SESSION: i32 = -10;
    pub const CLOSE_SESSION: i32 = -11;
}

/// `KeeperException.Code`: the reply header's `err`.
pub mod err {
    #![allow(missing_docs, reason = "the names are ZooKeeper's own")]
    pub const OK: i32 = 0;
    pub const MARSHALLING_ERROR: i32 = -5;
    pub const UNIMPLEMENTED: i32 = -6;
    pub const BAD_ARGUMENTS: i32 = -8;
    pub const NO_NODE: i32 = -101;
    pub const NOT_READONLY: i32 = -119;
}

/// The xid of pings and their replies.
pub const PING_XID: i32 = -2;

/// The first frame a client sends: `ConnectRequest`, then (ZooKeeper 3.3+) `readOnly`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRequest {
    /// 0 in every released client.
    pub protocol_version: i32,
    /// The last zxid the client saw (0 for a new client).
    pub last_zxid_seen: i64,
    /// The session timeout the client asks for, in milliseconds.
    pub time_out: i32,
    /// 0 for a new session; otherwise the session it resumes.
    pub session_id: i64,
    /// The resumed session's password (16 zero bytes for a new one).
    pub passwd: Vec<u8>,
    /// The client accepts a read-only server (`canBeReadOnly`); absent from old clients.
    pub read_only: bool,
}

impl ConnectRequest {
    /// Decodes the record (the frame's content, without its length).
    pub fn decode(frame: &[u8]) -> Result<ConnectRequest, JuteError> {
        let mut r = Reader::new(frame);
        let protocol_version = r.int("protocolVersion")?;
        let last_zxid_seen = r.long("lastZxidSeen")?;
        let time_out = r.int("timeOut")?;
        let session_id = r.long("sessionId")?;
        let passwd = r.buffer("passwd")?.unwrap_or_default().to_vec();
        // Clients before 3.3 end the record here, as ZooKeeper's server allows.
        let read_only = r.remaining() > 0 && r.boolean("readOnly")?;
        Ok(ConnectRequest {
            protocol_version,
            last_zxid_seen,
            time_out,
            session_id,
            passwd,
            read_only,
        })
    }
}

/// The server's answer to [`ConnectRequest`]. A timeout of 0 tells the client its session
/// expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectResponse {
    /// 0.
    pub protocol_version: i32,
    /// The negotiated session timeout in milliseconds (0: expired).
    pub time_out: i32,
    /// The session.
    pub session_id: i64,
    /// The session's password (16 bytes).
    pub passwd: Vec<u8>,
    /// The server is read-only (the client then looks for a read-write one now and then).
    pub read_only: bool,
}

impl ConnectResponse {
    /// The response as a frame.
    pub fn to_frame(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.int(self.protocol_version)
            .int(self.time_out)
            .long(self.session_id)
            .buffer(Some(&self.passwd))
            .boolean(self.read_only);
        w.into_frame()
    }
}

/// The header before every request after the connect request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    /// The client's request number, echoed in the reply (-2 pings, -4 auth, -8 set-watches).
    pub xid: i32,
    /// The op code ([`op`]).
    pub op: i32,
}

/// The header before every reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyHeader {
    /// The request's xid.
    pub xid: i32,
    /// The server's last zxid.
    pub zxid: i64,
    /// 0 or a [`err`] code; a reply with an error has no body.
    pub err: i32,
}

impl ReplyHeader {
    /// Writes the header to `w`.
    pub fn write(&self, w: &mut Writer) {
        w.int(self.xid).long(self.zxid).int(self.err);
    }
}

/// A znode's metadata (`org.apache.zookeeper.data.Stat`, 68 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stat {
    /// The zxid that created the node.
    pub czxid: i64,
    /// The zxid that last changed its data.
    pub mzxid: i64,
    /// Creation time, milliseconds since the epoch.
    pub ctime: i64,
    /// Last change of data, milliseconds since the epoch.
    pub mtime: i64,
    /// Data version.
    pub version: i32,
    /// Children version.
    pub cversion: i32,
    /// ACL version.
    pub aversion: i32,
    /// The owning session of an ephemeral node, else 0.
    pub ephemeral_owner: i64,
    /// Bytes of data.
    pub data_length: i32,
    /// Number of children.
    pub num_children: i32,
    /// The zxid that last changed its children.
    pub pzxid: i64,
}

impl Stat {
    /// Writes the record to `w`.
    pub fn write(&self, w: &mut Writer) {
        w.long(self.czxid)
            .long(self.mzxid)
            .long(self.ctime)
            .long(self.mtime)
            .int(self.version)
            .int(self.cversion)
            .int(self.aversion)
            .long(self.ephemeral_owner)
            .int(self.data_length)
            .int(self.num_children)
            .long(self.pzxid);
    }
}

/// A request, decoded by its op code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    /// `exists` (3); a watch is accepted and never fires.
    Exists {
        /// The znode.
        path: &'a str,
    },
    /// `getData` (4).
    GetData {
        /// The znode.
        path: &'a str,
    },
    /// `getChildren` (8), or `getChildren2` (12) when `with_stat`.
    GetChildren {
        /// The znode.
        path: &'a str,
        /// Reply with the node's `Stat` after the names.
        with_stat: bool,
    },
    /// `getACL` (6).
    GetAcl {
        /// The znode.
        path: &'a str,
    },
    /// `sync` (9): answered with the path at once (one server is always in sync).
    Sync {
        /// The path synced.
        path: &'a str,
    },
    /// `getAllChildrenNumber` (104): descendants of a node.
    GetAllChildrenNumber {
        /// The znode.
        path: &'a str,
    },
    /// `getEphemerals` (103): the session's ephemeral nodes (a client's session owns none).
    GetEphemerals,
    /// `whoAmI` (107).
    WhoAmI,
    /// A ping (11).
    Ping,
    /// `closeSession` (-11): replied to, then the connection closes.
    CloseSession,
    /// Requests about watches (`setWatches`, `setWatches2`, `addWatch`, `checkWatches`,
    /// `removeWatches`) and `auth`: accepted with an empty reply (nothing here changes, so a
    /// watch has nothing to fire for, and the data is readable by anyone).
    Accepted,
    /// A request that would change the tree: refused with `NOTREADONLY`.
    Write,
    /// An op code not served (SASL, `multiRead`, `reconfig`, unknown codes): `UNIMPLEMENTED`.
    Unimplemented,
}

impl<'a> Request<'a> {
    /// Decodes the request of op code `op` from `body` (the frame after its header).
    pub fn decode(op: i32, body: &'a [u8]) -> Result<Request<'a>, JuteError> {
        let mut r = Reader::new(body);
        let path = |r: &mut Reader<'a>| r.ustring("path").map(Option::unwrap_or_default);
        Ok(match op {
            op::EXISTS => Request::Exists {
                path: path(&mut r)?,
            },
            op::GET_DATA => Request::GetData {
                path: path(&mut r)?,
            },
            op::GET_CHILDREN | op::GET_CHILDREN2 => Request::GetChildren {
                path: path(&mut r)?,
                with_stat: op == op::GET_CHILDREN2,
            },
            op::GET_ACL => Request::GetAcl {
                path: path(&mut r)?,
            },
            op::SYNC => Request::Sync {
                path: path(&mut r)?,
            },
            op::GET_ALL_CHILDREN_NUMBER => Request::GetAllChildrenNumber {
                path: path(&mut r)?,
            },
            op::GET_EPHEMERALS => Request::GetEphemerals,
            op::WHO_AM_I => Request::WhoAmI,
            op::PING => Request::Ping,
            op::CLOSE_SESSION => Request::CloseSession,
            op::SET_WATCHES => {
                // Read the record so a malformed one is refused, then forget it.
                r.long("relativeZxid")?;
                for field in ["dataWatches", "existWatches", "childWatches"] {
                    r.strings(field)?;
                }
                Request::Accepted
            }
            op::SET_WATCHES2 => {
                r.long("relativeZxid")?;
                for field in [
                    "dataWatches",
                    "existWatches",
                    "childWatches",
                    "persistentWatches",
                    "persistentRecursiveWatches",
                ] {
                    r.strings(field)?;
                }
                Request::Accepted
            }
            op::ADD_WATCH | op::CHECK_WATCHES | op::REMOVE_WATCHES | op::AUTH => Request::Accepted,
            op::CREATE
            | op::CREATE2
            | op::CREATE_CONTAINER
            | op::CREATE_TTL
            | op::DELETE
            | op::DELETE_CONTAINER
            | op::SET_DATA
            | op::SET_ACL
            | op::CHECK
            | op::MULTI => Request::Write,
            _ => Request::Unimplemented,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The connect request of hbase-client 2.6.1's ZooKeeper 3.8 client (ZKConnectionRegistry),
    /// captured on the wire: a new session, 20 s asked, 16 zero password bytes, not read-only.
    #[test]
    fn the_java_clients_connect_request() {
        let frame = hex(concat!(
            "00000000",         // protocolVersion
            "0000000000000000", // lastZxidSeen
            "00004e20",         // timeOut 20000
            "0000000000000000", // sessionId
            "00000010",
            "00000000000000000000000000000000", // passwd
            "00"                                // readOnly
        ));
        let c = ConnectRequest::decode(&frame).unwrap();
        assert_eq!(
            c,
            ConnectRequest {
                protocol_version: 0,
                last_zxid_seen: 0,
                time_out: 20_000,
                session_id: 0,
                passwd: vec![0; 16],
                read_only: false,
            }
        );
    }

    /// kazoo 2.11's (hbase-driver): 10 s asked.
    #[test]
    fn kazoos_connect_request_and_an_old_clients() {
        let frame = hex("00000000000000000000000000002710000000000000000000000010000000000000000000000000000000000000");
        let c = ConnectRequest::decode(&frame).unwrap();
        assert_eq!(
            (c.time_out, c.read_only, c.passwd.len()),
            (10_000, false, 16)
        );
        // Without the readOnly byte, as clients before 3.3 send it.
        let c = ConnectRequest::decode(&frame[..frame.len() - 1]).unwrap();
        assert!(!c.read_only);
        // Cut inside the password: an error, not a panic.
        assert!(ConnectRequest::decode(&frame[..30]).is_err());
    }

    /// Apache ZooKeeper 3.8's answer to the Java client, captured: 20 s granted, session
    /// 0x01000012f0e30006, a 16-byte password, read-write.
    #[test]
    fn a_connect_response_encodes_as_zookeepers() {
        let passwd = hex("a55ab62fe0500ec5e01a07c090e4929a");
        let r = ConnectResponse {
            protocol_version: 0,
            time_out: 20_000,
            session_id: 0x0100_0012_f0e3_0006,
            passwd,
            read_only: false,
        };
        assert_eq!(
            r.to_frame(),
            hex(concat!(
                "00000025",
                "0000000000004e2001000012f0e3000600000010a55ab62fe0500ec5e01a07c090e4929a00"
            ))
        );
    }

    /// The requests hbase-client 2.6.1 sent, captured (after each frame's xid and op code).
    #[test]
    fn the_java_clients_reads() {
        let get = hex("0000000e2f68626173652f6862617365696400");
        assert_eq!(
            Request::decode(op::GET_DATA, &get).unwrap(),
            Request::GetData {
                path: "/hbase/hbaseid"
            }
        );
        let children = hex("000000062f686261736500");
        assert_eq!(
            Request::decode(op::GET_CHILDREN, &children).unwrap(),
            Request::GetChildren {
                path: "/hbase",
                with_stat: false
            }
        );
        assert_eq!(Request::decode(op::PING, &[]).unwrap(), Request::Ping);
        assert_eq!(
            Request::decode(op::CLOSE_SESSION, &[]).unwrap(),
            Request::CloseSession
        );
        // A create, a SASL token and an unknown code decode to refusals, whatever follows.
        assert_eq!(
            Request::decode(op::CREATE, b"junk").unwrap(),
            Request::Write
        );
        assert_eq!(
            Request::decode(op::SASL, &[]).unwrap(),
            Request::Unimplemented
        );
        assert_eq!(Request::decode(9999, &[]).unwrap(), Request::Unimplemented);
        assert!(Request::decode(op::GET_DATA, &get[..5]).is_err());
    }

    #[test]
    fn set_watches_is_read_and_accepted() {
        let mut w = Writer::new();
        w.long(56)
            .strings(&["/hbase/master"])
            .strings(&["/hbase/meta-region-server"])
            .strings::<&str>(&[]);
        let body = w.into_bytes();
        assert_eq!(
            Request::decode(op::SET_WATCHES, &body).unwrap(),
            Request::Accepted
        );
        assert!(Request::decode(op::SET_WATCHES, &body[..body.len() - 2]).is_err());
    }

    #[test]
    fn a_stat_is_68_bytes() {
        let mut w = Writer::new();
        Stat::default().write(&mut w);
        assert_eq!(w.into_bytes().len(), 68);
    }
}
