//! ferrobase's storage engine: HBase's data model and semantics on a durable LSM.
//!
//! Tables are split into regions; each region holds one store per column family; each store is
//! a memstore plus immutable block files. Writes go to the write-ahead log first. See
//! `docs/design/hbase-compatibility.md` for the semantics and `docs/format/` for every file
//! format.

#[cfg(feature = "mimalloc")]
pub mod allocator;
pub mod block_cache;
pub mod block_file;
pub mod bloom;
pub mod byte_reader;
pub mod cell;
pub mod checksum;
pub mod client;
pub mod clock;
pub mod compaction_policy;
pub mod compression;
pub mod engine;
pub mod error;
pub mod filter;
pub mod manifest;
pub mod memstore;
pub mod metrics;
pub mod mvcc;
pub mod read;
pub mod region;
pub mod region_jobs;
pub mod schema;
pub mod store;
pub mod wal;

/// The shared byte buffer of cells and results (from the `bytes` crate).
pub use bytes::Bytes;
pub use cell::{Cell, CellType, LATEST_TIMESTAMP};
pub use client::{
    Admin, Delete, Get, Mutation, Put, ResultScanner, RowResult, Scan, SplitAlgorithm, Table,
};
pub use compression::Compression;
pub use engine::{CompactionOptions, Engine, EngineOptions};
pub use error::{Error, Result};
pub use metrics::Metrics;
pub use read::TimeRange;
pub use schema::{
    BloomType, ColumnFamilyDescriptor, DataBlockEncoding, Durability, KeepDeletedCells,
    TableDescriptor, TableName,
};
