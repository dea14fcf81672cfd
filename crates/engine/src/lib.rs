//! ferrobase's storage engine: HBase's data model and semantics on a durable LSM.
//!
//! Tables are split into regions; each region holds one store per column family; each store is
//! a memstore plus immutable block files. Writes go to the write-ahead log first. See
//! `docs/design/hbase-compatibility.md` for the semantics and `docs/format/` for every file
//! format.

pub mod block_cache;
pub mod block_file;
pub mod bloom;
pub mod byte_reader;
pub mod cell;
pub mod clock;
pub mod compression;
pub mod error;
pub mod memstore;
pub mod metrics;
pub mod mvcc;
pub mod schema;
pub mod wal;

pub use cell::{Cell, CellType};
pub use error::{Error, Result};
