//! ferrobase's data tools: HBase's `Export`/`Import` files (Hadoop SequenceFiles of row keys and
//! `Result`s), written from a table and applied to one, so data moves both ways between
//! ferrobase and an HBase cluster with HBase's own tools on the other side
//! (docs/format/sequencefile.md); and `ferrobase copy`, a table from one store to another, as HBase's
//! `CopyTable` copies one.
#![forbid(unsafe_code)]

pub mod copy;
mod error;
pub mod export;
pub mod import;
pub mod import_tsv;
pub mod result_codec;
pub mod sequence_file;
mod stop;

pub use copy::{prepare_copy, CopyOptions, CopyPlan, CopySummary, Side};
pub use error::{Error, Result};
pub use export::{export_table, ExportOptions, ExportSummary};
pub use import::{import_dir, import_dir_until, verify_dir, ImportSummary};
pub use stop::StopFlag;
