//! `ferrobase serve`: the Thrift gateway on an embedded engine.

use anyhow::{bail, Context, Result};
use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::{Server, ServerOptions};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub const USAGE: &str = "ferrobase serve [--data DIR] [--bind ADDR] [--port PORT] [--max-message BYTES] [--max-request-memory BYTES] [--max-inflight-memory BYTES] [--max-connections N] [--max-result-bytes BYTES] [--max-row-size BYTES] [--no-auto-compaction] [--idle-timeout SECS]";

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
            // Compactions only when asked (`majorCompact`, `compact`): no minor compaction after
            // a flush and no periodic major compaction, so a store keeps one file per flush, as
            // HBase does with a high hbase.hstore.compactionThreshold and
            // hbase.hregion.majorcompaction 0 (the differential tests run both sides so).
            "--no-auto-compaction" => {
                engine_opts.compaction.auto = false;
                engine_opts.compaction.major_interval = None;
            }
            "--idle-timeout" => {
                opts.idle_timeout = Some(Duration::from_secs(
                    val()?.parse().context("--idle-timeout takes seconds")?,
                ))
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
