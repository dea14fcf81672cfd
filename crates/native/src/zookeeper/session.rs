//! One request answered from the tree: the reply frame, and whether the connection closes
//! after it. No I/O here, so every answer is testable from bytes.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::jute::{Reader, Writer};
use super::protocol::{err, ReplyHeader, Request, RequestHeader};
use super::znodes::{Tree, ZXID};

/// The reply to one request frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The reply frame (length included).
    pub frame: Vec<u8>,
    /// The session ends: close the connection after sending the frame.
    pub close: bool,
}

/// Answers one request frame (after the connect request), from a client at `peer`.
pub fn answer(tree: &Tree, frame: &[u8], peer: &str) -> Answer {
    let mut r = Reader::new(frame);
    let (Ok(xid), Ok(op)) = (r.int("xid"), r.int("type")) else {
        // Not even a header: ZooKeeper drops such a connection.
        return Answer {
            frame: Vec::new(),
            close: true,
        };
    };
    let header = RequestHeader { xid, op };
    let body = frame.get(8..).unwrap_or_default();
    match Request::decode(op, body) {
        Ok(request) => reply(tree, header, &request, peer),
        Err(_) => error(header, err::MARSHALLING_ERROR),
    }
}

fn error(h: RequestHeader, code: i32) -> Answer {
    let mut w = Writer::new();
    ReplyHeader {
        xid: h.xid,
        zxid: ZXID,
        err: code,
    }
    .write(&mut w);
    Answer {
        frame: w.into_frame(),
        close: false,
    }
}

/// ZooKeeper's `PathUtils.validatePath`, for the paths ferrobase reads: absolute, no empty,
/// `.` or `..` component, no trailing slash but the root's, no NUL.
fn valid_path(path: &str) -> bool {
    path == "/"
        || (path.starts_with('/')
            && !path.ends_with('/')
            && !path.contains('\0')
            && path
                .split('/')
                .skip(1)
                .all(|c| !c.is_empty() && c != "." && c != ".."))
}

fn reply(tree: &Tree, h: RequestHeader, request: &Request<'_>, peer: &str) -> Answer {
    let path = match request {
        Request::Exists { path }
        | Request::GetData { path }
        | Request::GetChildren { path, .. }
        | Request::GetAcl { path }
        | Request::Sync { path }
        | Request::GetAllChildrenNumber { path } => Some(*path),
        _ => None,
    };
    if path.is_some_and(|p| !valid_path(p)) {
        return error(h, err::BAD_ARGUMENTS);
    }
    let node = path.and_then(|p| tree.get(p));
    let mut w = Writer::new();
    ReplyHeader {
        xid: h.xid,
        zxid: ZXID,
        err: err::OK,
    }
    .write(&mut w);
    let mut close = false;
    match request {
        Request::Exists { .. } => match node {
            Some(n) => tree.stat(n).write(&mut w),
            None => return error(h, err::NO_NODE),
        },
        Request::GetData { .. } => match node {
            Some(n) => {
                w.buffer(Some(&n.data));
                tree.stat(n).write(&mut w);
            }
            None => return error(h, err::NO_NODE),
        },
        Request::GetChildren { with_stat, .. } => match node {
            Some(n) => {
                w.strings(&n.children);
                if *with_stat {
                    tree.stat(n).write(&mut w);
                }
            }
            None => return error(h, err::NO_NODE),
        },
        Request::GetAcl { .. } => match node {
            Some(n) => {
                // One ACL: READ (1) for world:anyone.
                w.int(1).int(1).ustring("world").ustring("anyone");
                tree.stat(n).write(&mut w);
            }
            None => return error(h, err::NO_NODE),
        },
        Request::Sync { path } => {
            w.ustring(path);
        }
        Request::GetAllChildrenNumber { path } => match node {
            Some(_) => {
                w.int(i32::try_from(tree.descendants(path)).unwrap_or(i32::MAX));
            }
            None => return error(h, err::NO_NODE),
        },
        Request::GetEphemerals => {
            w.strings::<&str>(&[]);
        }
        Request::WhoAmI => {
            // vector<ClientInfo{authScheme, user}>: the client's address, as ZooKeeper's
            // "ip" provider names an unauthenticated client.
            w.int(1).ustring("ip").ustring(peer);
        }
        Request::Ping | Request::Accepted => {}
        Request::CloseSession => close = true,
        Request::Write => return error(h, err::NOT_READONLY),
        Request::Unimplemented => return error(h, err::UNIMPLEMENTED),
    }
    Answer {
        frame: w.into_frame(),
        close,
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{op, PING_XID};
    use super::super::Discovery;
    use super::*;

    fn tree() -> Tree {
        let d = Discovery {
            cluster_id: "aa73463a-6e3c-44f0-9758-04a38acc3cda".into(),
            host: "localhost".into(),
            port: 16020,
            start_code: 1_700_000_000_000,
        };
        Tree::new(&d, 0x77, |_| [0; 8])
    }

    fn request(xid: i32, op: i32, path: Option<&str>, watch: bool) -> Vec<u8> {
        let mut w = Writer::new();
        w.int(xid).int(op);
        if let Some(p) = path {
            w.ustring(p).boolean(watch);
        }
        w.into_bytes()
    }

    /// (xid, zxid, err) and the body.
    fn parse(a: &Answer) -> (i32, i64, i32, Vec<u8>) {
        let f = &a.frame;
        assert_eq!(
            u32::from_be_bytes(f[..4].try_into().unwrap()) as usize,
            f.len() - 4
        );
        let mut r = Reader::new(&f[4..]);
        (
            r.int("xid").unwrap(),
            r.long("zxid").unwrap(),
            r.int("err").unwrap(),
            f[20..].to_vec(),
        )
    }

    #[test]
    fn get_data_answers_the_bytes_and_stat() {
        let t = tree();
        let a = answer(
            &t,
            &request(1, op::GET_DATA, Some("/hbase/hbaseid"), false),
            "127.0.0.1:5",
        );
        let (xid, zxid, e, body) = parse(&a);
        assert_eq!((xid, zxid, e, a.close), (1, ZXID, 0, false));
        let mut r = Reader::new(&body);
        let data = r.buffer("data").unwrap().unwrap();
        assert_eq!(data, t.get("/hbase/hbaseid").unwrap().data.as_slice());
        assert_eq!(r.remaining(), 68);
    }

    #[test]
    fn children_with_and_without_stat() {
        let t = tree();
        let (_, _, e, body) = parse(&answer(
            &t,
            &request(3, op::GET_CHILDREN, Some("/hbase"), true),
            "",
        ));
        assert_eq!(e, 0);
        let names = Reader::new(&body).strings("children").unwrap();
        assert!(names.contains(&"meta-region-server") && names.contains(&"hbaseid"));
        let (_, _, _, body2) = parse(&answer(
            &t,
            &request(4, op::GET_CHILDREN2, Some("/hbase"), false),
            "",
        ));
        assert_eq!(body2.len(), body.len() + 68);
    }

    #[test]
    fn missing_nodes_bad_paths_writes_and_unknown_ops() {
        let t = tree();
        let code = |frame: Vec<u8>| parse(&answer(&t, &frame, "")).2;
        assert_eq!(
            code(request(5, op::EXISTS, Some("/hbase/table"), true)),
            err::NO_NODE
        );
        assert_eq!(
            code(request(5, op::GET_DATA, Some("/hbase/"), false)),
            err::BAD_ARGUMENTS
        );
        assert_eq!(
            code(request(5, op::GET_DATA, Some("hbase"), false)),
            err::BAD_ARGUMENTS
        );
        assert_eq!(
            code(request(6, op::CREATE, Some("/hbase/x"), false)),
            err::NOT_READONLY
        );
        assert_eq!(
            code(request(7, op::DELETE, Some("/hbase/master"), false)),
            err::NOT_READONLY
        );
        assert_eq!(code(request(8, op::SASL, None, false)), err::UNIMPLEMENTED);
        // A getData cut inside its path: MARSHALLINGERROR, the connection kept.
        let mut cut = request(9, op::GET_DATA, Some("/hbase/master"), false);
        cut.truncate(12);
        let a = answer(&t, &cut, "");
        assert_eq!((parse(&a).2, a.close), (err::MARSHALLING_ERROR, false));
        // No header at all: the connection closes.
        assert!(answer(&t, &[0, 0, 0], "").close);
    }

    #[test]
    fn pings_and_close() {
        let t = tree();
        let a = answer(&t, &request(PING_XID, op::PING, None, false), "");
        assert_eq!(a.frame.len(), 20);
        assert_eq!(parse(&a).0, PING_XID);
        let a = answer(&t, &request(5, op::CLOSE_SESSION, None, false), "");
        assert!(a.close);
        assert_eq!(parse(&a).2, 0);
    }

    #[test]
    fn sync_acl_counts_and_who_am_i() {
        let t = tree();
        let mut w = Writer::new();
        w.int(2).int(op::SYNC).ustring("/hbase");
        let (_, _, e, body) = parse(&answer(&t, &w.into_bytes(), ""));
        assert_eq!(
            (e, Reader::new(&body).ustring("path").unwrap()),
            (0, Some("/hbase"))
        );
        let mut w = Writer::new();
        w.int(3).int(op::GET_ACL).ustring("/hbase/master");
        let (_, _, e, body) = parse(&answer(&t, &w.into_bytes(), ""));
        assert_eq!((e, body.len()), (0, 4 + 4 + 9 + 10 + 68));
        let mut w = Writer::new();
        w.int(4).int(op::GET_ALL_CHILDREN_NUMBER).ustring("/hbase");
        let (_, _, _, body) = parse(&answer(&t, &w.into_bytes(), ""));
        assert_eq!(Reader::new(&body).int("n").unwrap(), 7);
        let (_, _, _, body) = parse(&answer(
            &t,
            &request(5, op::WHO_AM_I, None, false),
            "10.0.0.1:9",
        ));
        let mut r = Reader::new(&body);
        assert_eq!(r.int("n").unwrap(), 1);
        assert_eq!(r.ustring("scheme").unwrap(), Some("ip"));
        assert_eq!(r.ustring("user").unwrap(), Some("10.0.0.1:9"));
    }

    /// Captured frames, cut and with bytes flipped at random (a fixed xorshift seed), and
    /// random bytes: every answer is a reply or a close, never a panic.
    #[test]
    fn mangled_frames_never_panic() {
        use super::super::protocol::ConnectRequest;
        let t = tree();
        let mut seeds = vec![
            request(1, op::GET_DATA, Some("/hbase/hbaseid"), false),
            request(3, op::GET_CHILDREN, Some("/hbase"), true),
            request(PING_XID, op::PING, None, false),
        ];
        let mut w = Writer::new();
        w.int(-8)
            .int(op::SET_WATCHES)
            .long(56)
            .strings(&["/hbase/master"])
            .strings(&["/a"])
            .strings::<&str>(&[]);
        seeds.push(w.into_bytes());
        let mut w = Writer::new();
        w.int(0)
            .long(0)
            .int(20_000)
            .long(0)
            .buffer(Some(&[0; 16]))
            .boolean(false);
        seeds.push(w.into_bytes());
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..20_000 {
            let mut f = seeds[round % seeds.len()].clone();
            for _ in 0..next() % 4 {
                let i = (next() as usize) % f.len().max(1);
                if let Some(b) = f.get_mut(i) {
                    *b = next() as u8;
                }
            }
            f.truncate((next() as usize) % (f.len() + 2));
            if round % 7 == 0 {
                f = (0..next() % 40).map(|_| next() as u8).collect();
            }
            let a = answer(&t, &f, "");
            assert!(a.close || a.frame.len() >= 20);
            let _ = ConnectRequest::decode(&f);
        }
    }
}
