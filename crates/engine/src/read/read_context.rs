//! What the read path needs of the engine, and nothing more: the table lookup, the clock, the
//! metrics, the limits and the read points of open scanners. The engine implements it
//! (`engine/mod.rs`); the read path sees the engine through it alone.

use crate::error::Result;
use crate::metrics::Metrics;
use crate::region::TableEntry;
use crate::schema::TableName;
use std::sync::Arc;

/// The engine as a read sees it. Thread-safe: a scan holds it for its whole life.
pub(crate) trait ReadContext: Send + Sync {
    /// Fails with `Closed` or `Poisoned` once the engine is closed or poisoned.
    fn check_open(&self) -> Result<()>;

    /// Table `table`'s live entry (descriptor and regions, shared, not copied); fails with
    /// `TableNotFound` or `TableDisabled`.
    fn enabled_table(&self, table: &TableName) -> Result<Arc<TableEntry>>;

    /// The time a read starts at, in milliseconds since the epoch: TTL expiry is decided
    /// against it.
    fn now_ms(&self) -> i64;

    /// The engine's counters.
    fn metrics(&self) -> &Arc<Metrics>;

    /// The largest row a Get reads whole, in bytes (`EngineOptions::max_row_size`).
    fn max_row_size(&self) -> usize;

    /// The read point a read starting now uses: every write completed before it is visible.
    fn read_point(&self) -> u64;

    /// The read point an opening scan reads at, kept from flushes and compactions until
    /// [`ReadContext::release_read_point`]: the current one, or `wanted` (an earlier scanner's,
    /// HBase's `Scan.mvccReadPoint`) as far as the files still hold what a read there sees.
    fn register_read_point(&self, wanted: Option<u64>) -> u64;

    /// Ends one [`ReadContext::register_read_point`] of `read_point`.
    fn release_read_point(&self, read_point: u64);
}
