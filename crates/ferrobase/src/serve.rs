//! `ferrobase serve`: the Thrift gateway on an embedded engine.

use anyhow::{bail, Context, Result};
use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::{Server, ServerOptions};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub const USAGE: &str = "ferrobase serve [--data DIR] [--bind ADDR] [--port PORT] [--max-message BYTES] [--max-request-memory BYTES] [--max-inflight-memory BYTES] [--max-connections N] [--max-result-bytes BYTES] [--max-row-size BYTES] [--idle-timeout SECS] [--scanner-lease SECS] [--durability SYNC_WAL|FSYNC_WAL|ASYNC_WAL] [--min-free-space BYTES]";

pub fn main(args: &[String]) -> Result<()> {
    let mut data = std::path::PathBuf::from("./ferrobase-data");
    let mut bind: IpAddr = [127, 0, 0, 1].into();
    let mut port: u16 = 9090;
    let mut opts = ServerOptions::default();
    let mut engine_opts = EngineOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--data" => data = val()?.into(),
            "--bind" => bind = val()?.parse().context("--bind takes an IP address")?,
            "--port" => port = val()?.parse().context("--port takes a number")?,
            "--max-message" => {
                opts.limits.max_message = val()?.parse().context("--max-message takes bytes")?
            }
            "--max-request-memory" => {
                opts.limits.max_decoded =
                    val()?.parse().context("--max-request-memory takes bytes")?
            }
            "--max-inflight-memory" => {
                opts.max_inflight_memory = val()?
                    .parse()
                    .context("--max-inflight-memory takes bytes")?
            }
            "--max-connections" => {
                opts.max_connections = val()?.parse().context("--max-connections takes a number")?
            }
            "--max-result-bytes" => {
                opts.handler.max_result_bytes =
                    val()?.parse().context("--max-result-bytes takes bytes")?
            }
            "--max-row-size" => {
                engine_opts.max_row_size = val()?.parse().context("--max-row-size takes bytes")?
            }
            // The level of mutations whose request and table say USE_DEFAULT: FSYNC_WAL makes
            // every such write survive a power cut (docs/design/durability.md).
            "--durability" => {
                // SKIP_WAL is left to tables that ask for it: as a server default it would
                // lose every unflushed write at a process kill.
                use ferrobase_engine::Durability::{AsyncWal, FsyncWal, SyncWal};
                let level = ferrobase_engine::Durability::parse(val()?).ok();
                let Some(level @ (SyncWal | FsyncWal | AsyncWal)) = level else {
                    bail!("--durability takes SYNC_WAL, FSYNC_WAL or ASYNC_WAL");
                };
                engine_opts.default_durability = level;
            }
            // Writes are refused (retryably) while free space is below this; 0 turns it off.
            "--min-free-space" => {
                engine_opts.min_free_space =
                    Some(val()?.parse().context("--min-free-space takes bytes")?)
            }
            "--idle-timeout" => {
                opts.idle_timeout = Some(Duration::from_secs(
                    val()?.parse().context("--idle-timeout takes seconds")?,
                ))
            }
            "--scanner-lease" => {
                let secs: f64 = val()?.parse().context("--scanner-lease takes seconds")?;
                opts.handler.scanner_lease = Duration::try_from_secs_f64(secs)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .context("--scanner-lease takes a positive number of seconds")?;
            }
            other => bail!("unknown option {other}\nusage: {USAGE}"),
        }
    }
    opts.addr = SocketAddr::new(bind, port);
    let engine = Engine::open(&data, engine_opts)
        .with_context(|| format!("opening data directory {}", data.display()))?;
    let server = Server::bind(engine, opts).with_context(|| format!("binding {bind}:{port}"))?;
    let addr = server.local_addr()?;
    let stop = server.stop_handle()?;
    let signalled = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, signalled.clone())?;
    }
    std::thread::spawn(move || {
        while !signalled.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("ferrobase: shutting down");
        stop.stop();
    });
    // Scripts and tests read this line to learn the port.
    println!(
        "ferrobase serving the HBase Thrift API on {addr} (data in {})",
        data.display()
    );
    server.run()?;
    eprintln!("ferrobase: stopped cleanly");
    Ok(())
}
