//! The Thrift gateway under load: put, get, 100-row scan and 100-row batch put through the Rust
//! client from 1, 16 and 64 connections, and, when `redis-server` and `redis-benchmark` are on
//! the PATH, Redis GET/SET on the same loopback as the request/response anchor.

use super::driver::{drive, Budget, Measured};
use super::{print_table, Rng, Row};
use anyhow::Result;
use ferrobase_client::Connection;
use ferrobase_engine::*;
use ferrobase_gateway::{Server, ServerOptions, StopHandle};
use ferrobase_testkit::Zipf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Rows of the seeded table, `seed00000000` on.
pub const SEED_ROWS: u64 = 100_000;

/// A call through the Thrift gateway.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// One single-row put of a new row.
    Put,
    /// One get of a seeded row.
    Get,
    /// A scan of 100 seeded rows from a random start (one `scannerOpen`, one
    /// `scannerGetList`, one `scannerClose`).
    Scan100,
    /// One `mutateRows` of 100 new rows.
    Batch100,
    /// YCSB A: a get or (half the time) a one-cell update of a seeded row chosen zipfian.
    YcsbA,
}

impl Call {
    /// Its name in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Call::Put => "put",
            Call::Get => "get",
            Call::Scan100 => "scan100",
            Call::Batch100 => "batch100",
            Call::YcsbA => "ycsb_a",
        }
    }
}

/// One connection's calls.
pub struct ThriftWorker<'a> {
    table: ferrobase_client::Table,
    conn: usize,
    value: Vec<u8>,
    zipf: Zipf,
    rng: Rng,
    /// Calls refused by the server's call queue (counted, then retried after a pause).
    refused: &'a AtomicU64,
}

impl<'a> ThriftWorker<'a> {
    /// Connection number `conn` to `addr`, writing values of `value_len` bytes; `zipf` chooses
    /// YCSB's rows.
    pub fn open(
        addr: &str,
        conn: usize,
        value_len: usize,
        zipf: &Zipf,
        refused: &'a AtomicU64,
    ) -> Result<ThriftWorker<'a>> {
        let c = Connection::open(&format!("thrift://{addr}"))?;
        Ok(ThriftWorker {
            table: c.table("bench"),
            conn,
            value: vec![b'v'; value_len],
            zipf: zipf.fork(conn as u64 * 2 + 1),
            rng: Rng(conn as u64 * 7 + 3),
            refused,
        })
    }

    /// Call number `i` of kind `call`; returns the rows it read or wrote. A call the server's
    /// call queue refuses (HBase's `CallQueueTooBigException`) is counted and retried after
    /// 10 ms, as HBase's client retries it after a pause; its time includes the retries.
    pub fn call(&mut self, call: Call, i: u64) -> Result<usize> {
        loop {
            match self.try_call(call, i) {
                Err(e) if e.to_string().contains("Call queue is full") => {
                    self.refused.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => return other,
            }
        }
    }

    fn try_call(&mut self, call: Call, i: u64) -> Result<usize> {
        let (c, t) = (self.conn as u64, &self.table);
        let key = format!("user{c:04}-{i:08}");
        let seeded = |k: u64| format!("seed{k:08}");
        Ok(match call {
            Call::Put => {
                t.put(Put::new(key).add_column("cf", "q", self.value.clone()))?;
                1
            }
            Call::Get => {
                t.get(Get::new(seeded((i * 7919 + c * 104_729) % SEED_ROWS)), None)?;
                1
            }
            Call::Scan100 => {
                let k = seeded((i * 7919 + c * 104_729) % (SEED_ROWS - 1000));
                let mut s =
                    t.scanner(Scan::new().with_start_row(k).limit(100).caching(100), None)?;
                s.next_batch(100)?.len()
            }
            Call::Batch100 => {
                let puts = (0..100)
                    .map(|j| {
                        Put::new(format!("{key}-{j:03}")).add_column("cf", "q", self.value.clone())
                    })
                    .collect();
                t.put_all(puts)?;
                100
            }
            Call::YcsbA => {
                let row = seeded(self.zipf.next_key());
                if self.rng.next().is_multiple_of(2) {
                    t.get(Get::new(row), None)?;
                } else {
                    t.put(Put::new(row).add_column("cf", "q", self.value.clone()))?;
                }
                1
            }
        })
    }
}

/// `conns` connections to `addr`, each making calls of kind `call` within `budget`; every
/// connection is open before the clock starts. Returns the measure and the refused calls.
pub fn run_connections(
    addr: &str,
    conns: usize,
    budget: Budget,
    call: Call,
    value_len: usize,
    zipf: &Zipf,
) -> Result<(Measured, u64)> {
    let refused = AtomicU64::new(0);
    let m = drive(conns, budget, |c| {
        let mut w = ThriftWorker::open(addr, c, value_len, zipf, &refused)?;
        Ok(move |i| w.call(call, i))
    })?;
    Ok((m, refused.into_inner()))
}

/// A gateway on loopback over its own engine in `dir`, its table `bench` (family `cf`) seeded
/// with [`SEED_ROWS`] rows of `value_len` bytes.
pub struct Running {
    pub addr: String,
    stop: StopHandle,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    /// Seeds the engine and starts the gateway with `options` (its address replaced by a free
    /// loopback port).
    pub fn start(
        dir: &std::path::Path,
        value_len: usize,
        options: ServerOptions,
    ) -> Result<Running> {
        let engine = Engine::open(dir, EngineOptions::default())?;
        engine.admin().create_table(
            TableDescriptor::new(TableName::parse("bench")?)
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )?;
        let t = engine.table("bench")?;
        for chunk in 0..SEED_ROWS / 1000 {
            t.put_all(
                (0..1000)
                    .map(|i| {
                        Put::new(format!("seed{:08}", chunk * 1000 + i)).add_column(
                            "cf",
                            "q",
                            vec![b's'; value_len],
                        )
                    })
                    .collect(),
            )?;
        }
        let server = Server::bind(
            engine,
            ServerOptions {
                addr: "127.0.0.1:0".parse()?,
                ..options
            },
        )?;
        let addr = server.local_addr()?.to_string();
        let stop = server.stop_handle()?;
        let thread = Some(std::thread::spawn(move || server.run()));
        Ok(Running { addr, stop, thread })
    }

    /// Stops the gateway and waits for it.
    pub fn stop(mut self) -> Result<()> {
        self.stop.stop();
        if let Some(t) = self.thread.take() {
            t.join()
                .map_err(|_| anyhow::anyhow!("server thread panicked"))??;
        }
        Ok(())
    }
}

fn run_workload(addr: &str, conns: usize, calls_per_conn: usize, call: Call) -> Result<Row> {
    let zipf = Zipf::new(SEED_ROWS, 1);
    let (m, refused) =
        run_connections(addr, conns, Budget::Calls(calls_per_conn), call, 100, &zipf)?;
    let mut note = if call == Call::Batch100 {
        "100 rows a call".to_string()
    } else {
        String::new()
    };
    if refused > 0 {
        note.push_str(&format!(" {refused} refused, retried"));
    }
    Ok(Row {
        workload: format!("{} x {conns} connection(s)", call.name()),
        ops: conns * calls_per_conn,
        elapsed: m.elapsed,
        latencies: m.latencies,
        note,
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
    let server = Running::start(tmp.path(), 100, ServerOptions::default())?;
    let addr = server.addr.clone();
    println!("ferrobase gateway benchmark: Rust client over Thrift (buffered, binary) on loopback, {ops} ops per connection (64 connections: {}), SYNC_WAL", ops / 4);
    let mut rows = Vec::new();
    let mut put16 = 0.0;
    let mut get16 = 0.0;
    for conns in [1usize, 16, 64] {
        let n = if conns == 64 { ops / 4 } else { ops };
        for call in [Call::Put, Call::Get, Call::Scan100, Call::Batch100] {
            let n = if matches!(call, Call::Scan100 | Call::Batch100) {
                n / 10
            } else {
                n
            };
            let r = run_workload(&addr, conns, n.max(1), call)?;
            let rate = r.ops as f64 / r.elapsed.as_secs_f64();
            if conns == 16 && call == Call::Put {
                put16 = rate;
            }
            if conns == 16 && call == Call::Get {
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
    server.stop()
}
