//! The Thrift gateway under load: put, get, 100-row scan and 100-row batch put through the Rust
//! client from 1, 16 and 64 connections, and, when `redis-server` and `redis-benchmark` are on
//! the PATH, Redis GET/SET on the same loopback as the request/response anchor.

use super::{print_table, Row};
use anyhow::Result;
use ferrobase_client::Connection;
use ferrobase_engine::*;
use ferrobase_gateway::{Server, ServerOptions};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn run_workload(addr: &str, conns: usize, ops_per_conn: usize, kind: &str) -> Result<Row> {
    let start = Instant::now();
    let handles: Vec<_> = (0..conns)
        .map(|c| {
            let addr = addr.to_string();
            let kind = kind.to_string();
            std::thread::spawn(move || -> Result<Vec<Duration>> {
                let conn = Connection::open(&format!("thrift://{addr}"))?;
                let t = conn.table("bench");
                let mut lat = Vec::with_capacity(ops_per_conn);
                let value = vec![b'v'; 100];
                for i in 0..ops_per_conn {
                    let key = format!("user{:04}-{:08}", c, i);
                    let t0 = Instant::now();
                    match kind.as_str() {
                        "put" => t.put(Put::new(key).add_column("cf", "q", value.clone()))?,
                        "get" => {
                            let k = format!("seed{:08}", (i * 7919 + c * 104_729) % 100_000);
                            t.get(Get::new(k), None)?;
                        }
                        "scan100" => {
                            let k = format!("seed{:08}", (i * 7919 + c * 104_729) % 99_000);
                            let mut s = t.scanner(
                                Scan::new().with_start_row(k).limit(100).caching(100),
                                None,
                            )?;
                            s.next_batch(100)?;
                        }
                        _ => {
                            let puts = (0..100)
                                .map(|j| {
                                    Put::new(format!("{key}-{j:03}")).add_column(
                                        "cf",
                                        "q",
                                        value.clone(),
                                    )
                                })
                                .collect();
                            t.put_all(puts)?;
                        }
                    }
                    lat.push(t0.elapsed());
                }
                Ok(lat)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for h in handles {
        latencies.extend(
            h.join()
                .map_err(|_| anyhow::anyhow!("load thread panicked"))??,
        );
    }
    Ok(Row {
        workload: format!("{kind} x {conns} connection(s)"),
        ops: conns * ops_per_conn,
        elapsed: start.elapsed(),
        latencies,
        note: if kind == "batch100" {
            "100 rows a call".into()
        } else {
            String::new()
        },
    })
}

/// `redis-benchmark` GET and SET requests per second at `conns` connections, if Redis is here.
fn redis_anchor(conns: usize) -> Option<(f64, f64)> {
    let port = 26379 + (std::process::id() % 1000) as u16;
    let mut server = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    std::thread::sleep(Duration::from_millis(300));
    let out = Command::new("redis-benchmark")
        .args([
            "-p",
            &port.to_string(),
            "-t",
            "get,set",
            "-n",
            "100000",
            "-c",
            &conns.to_string(),
            "-q",
            "-d",
            "100",
        ])
        .output();
    let _ = server.kill();
    let _ = server.wait();
    // Progress lines end in '\r'; the final figures follow the last one.
    let text = String::from_utf8_lossy(&out.ok()?.stdout).replace('\r', "\n");
    let rate = |name: &str| -> Option<f64> {
        text.lines()
            .map(str::trim)
            .find(|l| l.starts_with(name) && l.contains("requests per second"))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some((rate("GET:")?, rate("SET:")?))
}

/// `ferrobase bench gateway`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Operations per connection and workload.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    ops: usize,
}

pub fn main(args: Args) -> Result<()> {
    let ops = args.ops;
    let tmp = tempfile::tempdir_in(".")?;
    let engine = Engine::open(tmp.path(), EngineOptions::default())?;
    engine.admin().create_table(
        TableDescriptor::new(TableName::parse("bench")?)
            .with_family(ColumnFamilyDescriptor::new("cf")),
    )?;
    let t = engine.table("bench")?;
    for chunk in 0..100 {
        t.put_all(
            (0..1000)
                .map(|i| {
                    Put::new(format!("seed{:08}", chunk * 1000 + i)).add_column(
                        "cf",
                        "q",
                        vec![b's'; 100],
                    )
                })
                .collect(),
        )?;
    }
    let server = Server::bind(
        engine,
        ServerOptions {
            addr: "127.0.0.1:0".parse()?,
            ..ServerOptions::default()
        },
    )?;
    let addr = server.local_addr()?.to_string();
    let stop = server.stop_handle()?;
    let th = std::thread::spawn(move || server.run());
    println!("ferrobase gateway benchmark: Rust client over Thrift (buffered, binary) on loopback, {ops} ops per connection (64 connections: {}), SYNC_WAL", ops / 4);
    let mut rows = Vec::new();
    let mut put16 = 0.0;
    let mut get16 = 0.0;
    for conns in [1usize, 16, 64] {
        let n = if conns == 64 { ops / 4 } else { ops };
        for kind in ["put", "get", "scan100", "batch100"] {
            let n = if kind == "scan100" || kind == "batch100" {
                n / 10
            } else {
                n
            };
            let r = run_workload(&addr, conns, n.max(1), kind)?;
            let rate = r.ops as f64 / r.elapsed.as_secs_f64();
            if conns == 16 && kind == "put" {
                put16 = rate;
            }
            if conns == 16 && kind == "get" {
                get16 = rate;
            }
            rows.push(r);
        }
    }
    print_table(&mut rows);
    match redis_anchor(16) {
        Some((get, set)) => println!(
            "\nRedis anchor (redis-benchmark, 16 connections, 100-byte values): GET {get:.0}/s, SET {set:.0}/s; \
             ferrobase/Redis: get {:.2}x, put {:.2}x",
            get16 / get,
            put16 / set
        ),
        None => println!("\nRedis anchor skipped: redis-server or redis-benchmark missing or failed (apt-get install redis-server)"),
    }
    stop.stop();
    th.join()
        .map_err(|_| anyhow::anyhow!("server thread panicked"))??;
    Ok(())
}
