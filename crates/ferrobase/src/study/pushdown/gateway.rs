//! The study's two paths to the engine: its API in this process, and `ferrobase serve`'s Thrift1
//! gateway over loopback (the same engine, served in this process, reached by `ferrobase-client`).

use anyhow::Result;
use ferrobase_apps::file_search::FileSearch;
use ferrobase_engine::Engine;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Via {
    /// The engine's API in this process.
    Embedded,
    /// `ferrobase serve`'s Thrift1 gateway over loopback, through `ferrobase-client`.
    Thrift,
}

impl Via {
    pub(super) fn label(self) -> &'static str {
        match self {
            Via::Embedded => "embedded",
            Via::Thrift => "Thrift (ferrobase serve)",
        }
    }
}

/// The Thrift path: a gateway serving the study's engine, and a client connection to it.
pub(super) struct Gateway {
    pub(super) stop: ferrobase_gateway::StopHandle,
    pub(super) thread: std::thread::JoinHandle<std::io::Result<()>>,
    pub(super) conn: ferrobase_client::Connection,
    pub(super) app: FileSearch,
}

impl Gateway {
    pub(super) fn start(engine: &Engine) -> Result<Gateway> {
        let opts = ferrobase_gateway::ServerOptions {
            addr: (std::net::Ipv4Addr::LOCALHOST, 0).into(),
            ..Default::default()
        };
        let server = ferrobase_gateway::Server::bind(engine.clone(), opts)?;
        let addr = server.local_addr()?;
        let stop = server.stop_handle()?;
        let thread = std::thread::spawn(move || server.run());
        let conn = ferrobase_client::Connection::open(&format!("thrift://{addr}"))?;
        let app = FileSearch::open(&conn)?;
        Ok(Gateway {
            stop,
            thread,
            conn,
            app,
        })
    }

    /// Stops the server (which closes the engine).
    pub(super) fn stop(self) -> Result<()> {
        drop(self.app);
        drop(self.conn);
        self.stop.stop();
        self.thread
            .join()
            .map_err(|_| anyhow::anyhow!("the study's gateway thread panicked"))??;
        Ok(())
    }
}

/// Rows fetched per `scannerGetList` on the Thrift path (happybase's default `batch_size`).
pub(super) const THRIFT_BATCH: usize = 1000;
