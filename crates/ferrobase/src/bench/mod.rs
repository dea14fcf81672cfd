//! Benchmark programs: they print tables and assert nothing about time.
//!
//! - `ferrobase bench engine`: the engine on the seed articles' workloads;
//! - `ferrobase bench filters`: filtered scans, rows examined against rows returned;
//! - `ferrobase bench gateway`: the Thrift gateway under 1, 16 and 64 connections;
//! - `ferrobase bench group-commit`: 1, 4 and 16 writers at SYNC_WAL and FSYNC_WAL;
//! - `ferrobase bench threads`: 1 to 16 threads on the engine and 16 to 1,000 connections on
//!   the gateway, for gets, scans, YCSB A and loads;
//! - `ferrobase bench regions`: restart time and memory at 100, 1,000 and 10,000 regions;
//! - `ferrobase bench server-vs-hbase`: `ferrobase serve` beside Apache HBase's Thrift1 gateway
//!   through the Rust client, the seed queries included.

mod driver;
mod engine;
mod filters;
mod gateway;
mod group_commit;
mod regions;
mod server_vs_hbase;
mod threads;

use anyhow::Result;
use std::time::Duration;

/// One line of a results table.
pub struct Row {
    pub workload: String,
    pub ops: usize,
    pub elapsed: Duration,
    pub latencies: Vec<Duration>,
    pub note: String,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

pub fn print_table(rows: &mut [Row]) {
    println!(
        "| {:<44} | {:>9} | {:>12} | {:>10} | {:>10} | {:<28} |",
        "workload", "ops", "ops/s", "p50 µs", "p99 µs", "note"
    );
    println!(
        "|{:-<46}|{:->11}|{:->14}|{:->12}|{:->12}|{:-<30}|",
        "", "", "", "", "", ""
    );
    for r in rows.iter_mut() {
        r.latencies.sort_unstable();
        let per_s = r.ops as f64 / r.elapsed.as_secs_f64().max(1e-9);
        let (p50, p99) = if r.latencies.is_empty() {
            ("-".to_string(), "-".to_string())
        } else {
            (
                format!("{:.1}", percentile(&r.latencies, 0.5).as_secs_f64() * 1e6),
                format!("{:.1}", percentile(&r.latencies, 0.99).as_secs_f64() * 1e6),
            )
        };
        println!(
            "| {:<44} | {:>9} | {:>12.0} | {:>10} | {:>10} | {:<28} |",
            r.workload, r.ops, per_s, p50, p99, r.note
        );
    }
}

/// Deterministic xorshift stream so every run stores the same data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `ferrobase bench ...`.
#[derive(clap::Subcommand, Debug)]
pub enum BenchArgs {
    /// The engine on the seed articles' workloads.
    Engine(engine::Args),
    /// Filtered scans: rows examined against rows returned.
    Filters(filters::Args),
    /// The Thrift gateway under 1, 16 and 64 connections (beside redis-server when installed).
    Gateway(gateway::Args),
    /// 1, 4 and 16 writers at SYNC_WAL and FSYNC_WAL.
    GroupCommit(group_commit::Args),
    /// Restart time and memory at 100, 1,000 and 10,000 regions.
    Regions(regions::Args),
    /// Throughput and p99 at 1-16 threads on the engine and 16-1,000 connections on the gateway.
    Threads(threads::Args),
    /// `ferrobase serve` beside Apache HBase's Thrift1 gateway through the Rust client.
    ServerVsHbase(server_vs_hbase::Options),
}

pub fn main(args: BenchArgs) -> Result<()> {
    match args {
        BenchArgs::Engine(a) => engine::main(a),
        BenchArgs::Filters(a) => filters::main(a),
        BenchArgs::Gateway(a) => gateway::main(a),
        BenchArgs::GroupCommit(a) => group_commit::main(a),
        BenchArgs::Regions(a) => regions::main(a),
        BenchArgs::Threads(a) => threads::main(a),
        BenchArgs::ServerVsHbase(a) => server_vs_hbase::main(a),
    }
}
