//! A gateway with ACLs on over mutual TLS (`admin` its superuser) that can be restarted on the
//! same data directory, as `ferrobase serve` is restarted.

use crate::client::Client;
use crate::support::test_certs::TestPki;
use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::access::AccessOptions;
use ferrobase_gateway::tls::{TlsClient, TlsServer};
use ferrobase_gateway::{Server, ServerOptions, StopHandle};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The superuser.
pub(crate) const ADMIN: &str = "admin";

/// The engine's options: no compaction in the background. The superuser's read is RAW, every
/// version and delete marker, so a compaction (which drops versions past a family's maximum and
/// markers with what they hide) between two reads would show as cells removed by nobody; the
/// writes run twice flush at each snapshot, which starts compactions often.
fn engine_options() -> EngineOptions {
    let mut o = EngineOptions::default();
    o.compaction.auto = false;
    o.compaction.major_interval = None;
    o
}

/// A restartable gateway on a temporary data directory.
pub(crate) struct Gateway {
    addr: SocketAddr,
    stop: StopHandle,
    serving: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    pki: TestPki,
    data: tempfile::TempDir,
    _certs: tempfile::TempDir,
}

impl Gateway {
    /// Serves a fresh engine on a free port.
    pub(crate) fn start() -> Gateway {
        let data = tempfile::tempdir().unwrap();
        let certs = tempfile::tempdir().unwrap();
        let pki = TestPki::new(certs.path());
        let engine = Engine::open(data.path(), engine_options()).unwrap();
        let (addr, stop, serving) = serve(engine, &pki);
        Gateway {
            addr,
            stop,
            serving: Some(serving),
            pki,
            data,
            _certs: certs,
        }
    }

    /// Stops the server (its clients must be dropped first), then serves the same directory
    /// again: the engine is reopened and the grants are read back from `hbase:acl`.
    pub(crate) fn restart(&mut self) {
        self.shut();
        // The stopped server must have closed and dropped its engine, releasing the
        // directory's lock.
        let deadline = Instant::now() + Duration::from_secs(5);
        let engine = loop {
            match Engine::open(self.data.path(), engine_options()) {
                Ok(e) => break e,
                Err(e) if Instant::now() < deadline => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => panic!("the stopped server still holds the data directory: {e}"),
            }
        };
        let (addr, stop, serving) = serve(engine, &self.pki);
        self.addr = addr;
        self.stop = stop;
        self.serving = Some(serving);
    }

    fn shut(&mut self) {
        self.stop.stop();
        if let Some(s) = self.serving.take() {
            s.join().unwrap().unwrap();
        }
    }

    /// A connection as `user` (a client certificate with that CN).
    pub(crate) fn client(&self, user: &str) -> Client {
        let (cert, key) = self.pki.client(user);
        let tls = TlsClient::from_pem_files(&self.pki.path("ca.pem"), Some((&cert, &key))).unwrap();
        Client::connect(self.addr, &tls)
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.shut();
    }
}

fn serve(
    engine: Engine,
    pki: &TestPki,
) -> (
    SocketAddr,
    StopHandle,
    std::thread::JoinHandle<std::io::Result<()>>,
) {
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
            superusers: vec![ADMIN.into()],
            ..AccessOptions::default()
        }),
        ..ServerOptions::default()
    };
    let server = Server::bind(engine, opts).unwrap();
    let addr = server.local_addr().unwrap();
    let stop = server.stop_handle().unwrap();
    (addr, stop, std::thread::spawn(move || server.run()))
}
