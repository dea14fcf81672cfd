//! The client-facing API, shaped like HBase's Java client: [`Put`], [`Delete`], [`Get`],
//! [`Scan`], [`RowResult`], and the [`Table`] and [`Admin`] handles of an embedded engine.

mod admin;
mod mutation;
mod query;
mod table;

pub use admin::{Admin, RegionInfo, SplitAlgorithm};
pub use mutation::{Check, CheckedWrite, Delete, Mutation, MutationCell, Put};
pub use query::{ColumnSelection, Get, ReadSpec, RowResult, Scan};
pub use table::{ResultScanner, ScanBatch, Table};
