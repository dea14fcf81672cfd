//! The setup of the power-cut workload tests (`power_cut_workload.rs`, `power_cut_order.rs`):
//! three tables (one in a namespace) with small thresholds, so short workloads flush, roll WAL
//! segments, compact and split.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::fs::fault::FaultFileSystem;
use ferrobase_engine::*;
use std::sync::Arc;

pub const DIR: &str = "/db";
pub const TABLES: [&str; 3] = ["t0", "t1", "ns:t2"];
pub const ROWS: usize = 6;

pub fn options(fs: &FaultFileSystem) -> EngineOptions {
    EngineOptions {
        memstore_flush_size: 6 * 1024,
        region_split_size: 16 * 1024,
        // Below the flush size, so segments fill and roll between flushes and are recycled
        // (kept zeroed, written over) before the cuts fall on them.
        wal_segment_bytes: 2 * 1024,
        wal_recycled_segments: std::env::var("FERROBASE_RECYCLE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2),
        block_cache_bytes: Some(1 << 20),
        compaction: CompactionOptions {
            min_files: 2,
            major_interval: None,
            ..CompactionOptions::default()
        },
        fs: Arc::new(fs.clone()),
        ..EngineOptions::default()
    }
}

pub fn family(name: &str) -> ColumnFamilyDescriptor {
    let mut f = ColumnFamilyDescriptor::new(name);
    f.block_size = 1024;
    f
}

/// `t0` logs at FSYNC_WAL by its descriptor; the others at the server default (SYNC_WAL).
pub fn schema(t: usize) -> TableDescriptor {
    let mut d = TableDescriptor::new(TableName::parse(TABLES[t]).unwrap())
        .with_family(family("a"))
        .with_family(family("b"));
    if t == 0 {
        d.durability = Durability::FsyncWal;
    }
    d
}

pub fn row_key(r: usize) -> String {
    format!("row{r:02}")
}

pub fn value(id: u64) -> Vec<u8> {
    format!("{id}:{}", "v".repeat((id % 61) as usize)).into_bytes()
}
