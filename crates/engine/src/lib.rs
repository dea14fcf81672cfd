//! ferrobase's storage engine: HBase's data model and semantics on a durable LSM.
//!
//! Tables are split into regions; each region holds one store per column family; each store is
//! a memstore plus immutable block files. Writes go to the write-ahead log first. See
//! `docs/design/hbase-compatibility.md` for the semantics and `docs/format/` for every file
//! format.
//!
//! # Example
//!
//! The seed articles' inbox: one row per user, every message id kept as a version of `cf:id`.
//!
//! ```
//! use ferrobase_engine::*;
//!
//! # fn main() -> Result<()> {
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path();
//! let engine = Engine::open(path, EngineOptions::default())?;
//! let mut cf = ColumnFamilyDescriptor::new("cf");
//! cf.max_versions = 1000;
//! let inbox = TableDescriptor::new(TableName::parse("inbox")?).with_family(cf);
//! engine.admin().create_table(inbox)?;
//! let t = engine.table("inbox")?;
//! t.put(Put::with_timestamp("u1", 1).add_column("cf", "id", "post-41"))?;
//! t.put(Put::with_timestamp("u1", 2).add_column("cf", "id", "post-42"))?;
//! let newest = t.get(&Get::new("u1"))?;
//! assert_eq!(newest.value(b"cf", b"id"), Some(&b"post-42"[..]));
//! assert_eq!(t.get(&Get::new("u1").max_versions(10))?.cells.len(), 2);
//! for row in t.scanner(&Scan::new().with_row_prefix("u"))? {
//!     assert_eq!(row?.row(), b"u1");
//! }
//! # Ok(())
//! # }
//! ```

pub mod allocator;
mod api;
mod block_cache;
mod block_file;
mod bloom;
#[doc(hidden)]
pub mod bulk;
mod byte_reader;
pub mod call_budget;
mod cell;
mod checksum;
pub mod clock;
mod compaction_policy;
mod compound_bloom;
mod compression;
mod engine;
mod file_handles;
pub use file_handles::{capacity_for_limit, soft_nofile_limit, FileHandles};
mod error;
pub mod error_class;
pub mod filter;
pub mod fs;
#[doc(hidden)]
pub mod fuzzing;
mod health;
pub mod heat_map;
pub mod hook;
pub mod inspect;
pub mod job_log;
mod lock;
mod manifest;
mod manifest_log;
mod memstore;
mod metrics;
mod mvcc;
mod poison;
mod read;
mod region;
mod region_jobs;
pub mod schema;
mod split_policy;
mod store;
pub mod table_attributes;
mod wal;

pub use api::{
    Admin, Check, CheckedWrite, ColumnSelection, Delete, Get, Mutation, MutationCell, Put,
    ReadSpec, RegionInfo, ResultScanner, RowResult, Scan, ScanBatch, SplitAlgorithm, Table,
};
/// The shared byte buffer of cells and results (from the `bytes` crate).
pub use bytes::Bytes;
pub use cell::{
    interned_family, try_interned_family, Cell, CellType, LATEST_TIMESTAMP, MAX_INTERNED_FAMILIES,
    MAX_ROW_LENGTH,
};
pub use compression::Compression;
pub use engine::{
    check_snapshot_name, snapshot_dir_files, CompactionOptions, Engine, EngineOptions,
    ManifestStats, MemoryLimits, SizeTiers, SnapshotInfo, WalRecovery, BLOCK_CACHE_SHARE,
    DEFAULT_MAX_CELL_SIZE, DEFAULT_MEMORY_BUDGET, DEFAULT_MEMSTORE_CHUNK_BYTES,
    MEMSTORE_LOWER_LIMIT, MEMSTORE_SHARE,
};
pub use error::{Error, Result, StallCause};
pub use error_class::{ErrorClass, ErrorCounts};
pub use health::Health;
pub use job_log::{BackgroundJobs, JobKind, JobReason, JobRecord, JobState};
pub use metrics::{FamilyReads, FamilyReadsRegistry, Metrics, WAL_GROUP_BOUNDS};
pub use poison::panic_message;
pub use read::{CostRecording, ReadCost, TimeRange};
pub use schema::{
    BloomType, ColumnFamilyDescriptor, DataBlockEncoding, Durability, KeepDeletedCells,
    TableDescriptor, TableName,
};
pub use table_attributes::TableAttributes;
