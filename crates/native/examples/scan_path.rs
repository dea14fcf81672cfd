//! The server's work for a full scan at the native door, in one process and without a socket:
//! a table of rows of one 100-byte cell, loaded twice so every row has an older version (the
//! Java load generator's repeated loads), scanned in batches of 1,000 rows under a heartbeat
//! deadline as the door's scan calls run, each batch encoded as a `KeyValueCodec` cell block.
//!
//! `cargo run --release -p ferrobase-native --features ferrobase-engine/mimalloc --example
//! scan_path -- [ROWS] [REPS] [LAYOUT]` (the server's allocator) prints nanoseconds a row per
//! flush and per repetition of the scan. LAYOUT is where the two versions are: `files` (two
//! flushed files, the default), `memstore` (the newer version still in the memstore),
//! `unflushed` (both in the memstore) or `compacted` (one file holding one version a row).
//! Under `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='scan_path::scan_all*'`
//! it gives the instructions a row costs, a figure the machine's load does not move
//! (`docs/performance.md`).

use ferrobase_engine::call_budget::{CallBudget, Heartbeat};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Put, Scan, TableDescriptor, TableName,
};
use ferrobase_native::cellblock::{encode_cell, encoded_len, Codec};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().map_or(200_000, |a| a.parse().expect("ROWS"));
    let reps: usize = args.next().map_or(3, |a| a.parse().expect("REPS"));
    let layout = args.next().unwrap_or_else(|| "files".into());
    let dir = tempfile::tempdir().expect("a temporary directory");
    let engine = Engine::open(dir.path(), EngineOptions::default()).expect("open");
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("scan").expect("name"))
                .with_family(ColumnFamilyDescriptor::new("f")),
        )
        .expect("create");
    let table = engine.table("scan").expect("table");
    for version in 0..2 {
        for start in (0..rows).step_by(1_000) {
            let puts = (start..(start + 1_000).min(rows))
                .map(|i| {
                    let value = format!("{version}:{i:0>98}");
                    // Keys in scattered order, each its own (an odd multiplier is a bijection).
                    let key = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    Put::new(format!("user{key:020}")).add_column("f", "field0", value)
                })
                .collect();
            table.put_all(puts).expect("put");
        }
        if layout == "unflushed" || (version == 1 && layout == "memstore") {
            continue;
        }
        let started = Instant::now();
        engine.admin().flush("scan").expect("flush");
        println!(
            "flush of version {version}: {:.0} ns a row",
            started.elapsed().as_nanos() as f64 / rows as f64
        );
    }
    if layout == "compacted" {
        engine.admin().major_compact("scan").expect("compact");
    }
    for rep in 0..reps {
        let started = Instant::now();
        let (seen, bytes) = scan_all(&table);
        let ns = started.elapsed().as_nanos() as f64 / seen.max(1) as f64;
        println!("rep {rep}: {seen} rows, {bytes} bytes of cell blocks, {ns:.0} ns a row");
    }
}

/// Scans the table as the native door's calls do; answers the rows and cell-block bytes.
#[inline(never)]
fn scan_all(table: &ferrobase_engine::Table) -> (usize, usize) {
    let mut scanner = table.scanner(&Scan::new()).expect("scanner");
    let (mut rows, mut bytes) = (0, 0);
    let mut block = Vec::new();
    loop {
        let _budget = CallBudget::start(Some(Duration::from_secs(60)));
        let _heartbeat = Heartbeat::start(Some(Instant::now() + Duration::from_secs(30)));
        let batch = scanner
            .next_batch_or_heartbeat(1_000, 2 << 20)
            .expect("batch");
        if batch.rows.is_empty() {
            return (rows, bytes);
        }
        block.clear();
        let len: usize = batch
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .map(|c| encoded_len(c, Codec::KeyValue))
            .sum();
        block.reserve(len);
        for row in &batch.rows {
            for cell in &row.cells {
                encode_cell(&mut block, cell, Codec::KeyValue);
            }
        }
        rows += batch.rows.len();
        bytes += block.len();
    }
}
