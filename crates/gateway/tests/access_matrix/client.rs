//! A raw Thrift1 client over (mutual) TLS, a plain-TCP one, and a gateway with ACLs on whose
//! users are the certificates' CNs (`admin` its superuser).

use crate::support::calls::call_message;
use crate::support::test_certs::TestPki;
use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::access::AccessOptions;
use ferrobase_gateway::thrift::{
    Binary, Budget, Codec, Limits, MessageType, TStruct, TType, TValue,
};
use ferrobase_gateway::tls::{ClientWire, TlsClient, TlsServer};
use ferrobase_gateway::{Server, ServerOptions, StopHandle};
use std::collections::BTreeSet;
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpStream};

/// A raw Thrift1 client over (mutual) TLS: the calls exactly as any client sends them.
pub(crate) struct Client {
    io: BufReader<ClientWire>,
    seq: i32,
}

/// A call's answer: the success value, or the IOError/IllegalArgument message.
pub(crate) type Answer = Result<Option<TValue>, String>;

impl Client {
    pub(crate) fn connect(addr: SocketAddr, tls: &TlsClient) -> Client {
        let sock = TcpStream::connect(addr).unwrap();
        let wire = tls.connect("localhost", sock).unwrap();
        Client {
            io: BufReader::new(wire),
            seq: 0,
        }
    }

    pub(crate) fn call(&mut self, name: &str, args: TStruct) -> Answer {
        self.seq += 1;
        let msg = call_message(name, self.seq, &args);
        let w = self.io.get_mut();
        w.write_all(&msg).unwrap();
        w.flush().unwrap();
        let limits = Limits::default();
        let mut b = Budget::new(&mut self.io, &limits);
        let h = Binary.read_header(&mut b).unwrap();
        let body = Binary.read_struct(&mut b).unwrap();
        // An undeclared failure (HBase's INTERNAL_ERROR for an argument it refuses, such as a
        // family-only column in a put): a refusal of its own kind, never a permission.
        if h.kind == MessageType::Exception {
            return Err(match body.get(1) {
                Some(TValue::Binary(m)) => {
                    format!("TApplicationException: {}", String::from_utf8_lossy(m))
                }
                _ => "TApplicationException".to_string(),
            });
        }
        assert_eq!(h.kind, MessageType::Reply, "{name}: {body:?}");
        for id in [1, 2, 3] {
            if let Some(TValue::Struct(e)) = body.get(id) {
                return Err(match e.get(1) {
                    Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                    _ => String::new(),
                });
            }
        }
        Ok(body.get(0).cloned())
    }

    /// `createTable` of `table` with `families`.
    pub(crate) fn create_table(&mut self, table: &str, families: &[&str]) -> Answer {
        let families = families.iter().map(|f| family(f)).collect();
        self.call(
            "createTable",
            args(vec![s(table), TValue::List(TType::Struct, families)]),
        )
    }
}

/// A Thrift string.
pub(crate) fn s(v: &str) -> TValue {
    TValue::string(v)
}

/// An empty attributes map.
pub(crate) fn no_attrs() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, Vec::new())
}

/// A call's arguments: `values` as fields 1, 2, ...
pub(crate) fn args(values: Vec<TValue>) -> TStruct {
    values
        .into_iter()
        .enumerate()
        .fold(TStruct::new(), |t, (i, v)| t.with(i as i16 + 1, v))
}

/// A ColumnDescriptor of family `name`.
pub(crate) fn family(name: &str) -> TValue {
    TValue::Struct(TStruct::new().with(1, s(&format!("{name}:"))))
}

/// A put Mutation of `column`.
pub(crate) fn put(column: &str, value: &str) -> TValue {
    TValue::Struct(TStruct::new().with(2, s(column)).with(3, s(value)))
}

/// The columns of TRowResults.
pub(crate) fn columns_of(v: &Option<TValue>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(TValue::List(_, rows)) = v {
        for r in rows {
            if let TValue::Struct(r) = r {
                if let Some(TValue::Map(_, _, cols)) = r.get(2) {
                    for (k, _) in cols {
                        if let TValue::Binary(k) = k {
                            out.insert(String::from_utf8_lossy(k).into_owned());
                        }
                    }
                }
            }
        }
    }
    out
}

/// A gateway with ACLs on over mutual TLS, `admin` its superuser, on a temporary engine.
pub(crate) struct Gateway {
    addr: SocketAddr,
    stop: StopHandle,
    serving: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    pki: TestPki,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(s) = self.serving.take() {
            s.join().unwrap().unwrap();
        }
    }
}

impl Gateway {
    /// Serves a fresh engine on a free port until dropped.
    pub(crate) fn start() -> Gateway {
        let data = tempfile::tempdir().unwrap();
        let certs = tempfile::tempdir().unwrap();
        let pki = TestPki::new(certs.path());
        let engine = Engine::open(data.path(), EngineOptions::default()).unwrap();
        let opts = ServerOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            tls: Some(
                TlsServer::from_pem_files(
                    &pki.path("server.pem"),
                    &pki.path("server.key"),
                    Some(&pki.path("ca.pem")),
                )
                .unwrap(),
            ),
            access: Some(AccessOptions {
                superusers: vec!["admin".into()],
                ..AccessOptions::default()
            }),
            ..ServerOptions::default()
        };
        let server = Server::bind(engine, opts).unwrap();
        let addr = server.local_addr().unwrap();
        let stop = server.stop_handle().unwrap();
        let serving = Some(std::thread::spawn(move || server.run()));
        Gateway {
            addr,
            stop,
            serving,
            pki,
            _dirs: (data, certs),
        }
    }

    /// A connection as `user` (a client certificate with that CN).
    pub(crate) fn client(&self, user: &str) -> Client {
        let (cert, key) = self.pki.client(user);
        let tls = TlsClient::from_pem_files(&self.pki.path("ca.pem"), Some((&cert, &key))).unwrap();
        Client::connect(self.addr, &tls)
    }
}

/// `ferrobaseAdmin` `op` on `target` with `key` and text attributes.
pub(crate) fn admin_op(
    c: &mut Client,
    op: &str,
    target: &str,
    key: &str,
    attrs: &[(&str, &str)],
) -> Answer {
    let attrs = attrs.iter().map(|(k, v)| (s(k), s(v))).collect();
    c.call(
        "ferrobaseAdmin",
        args(vec![
            s(op),
            s(target),
            s(key),
            TValue::Map(TType::Binary, TType::Binary, attrs),
        ]),
    )
}

/// What a refusal's IOError message begins with.
pub(crate) const DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException: ";

/// A plain-TCP client (the gateway's tests speak Thrift over any stream).
pub(crate) fn plain_call(sock: &mut BufReader<TcpStream>, name: &str, args: TStruct) -> Answer {
    let msg = call_message(name, 1, &args);
    sock.get_mut().write_all(&msg).unwrap();
    let limits = Limits::default();
    let mut b = Budget::new(sock, &limits);
    Binary.read_header(&mut b).unwrap();
    let body = Binary.read_struct(&mut b).unwrap();
    match body.get(1) {
        Some(TValue::Struct(e)) => Err(match e.get(1) {
            Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
            _ => String::new(),
        }),
        _ => Ok(body.get(0).cloned()),
    }
}
