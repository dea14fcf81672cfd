//! The read path: merged cursors over memstores and files, the query matcher and delete tracker,
//! per-store scanners (`store_scanner.rs`), the region scanner (`region_scanner.rs`) and the table
//! scan over regions (`table_scan.rs`). Every read comes in through one door, `table_read.rs`
//! (a Get is a scan of one row), and sees the engine only through `read_context.rs`.

mod compaction_matcher;
mod delete_tracker;
mod merge_cursor;
mod new_version_tracker;
mod query_matcher;
mod read_context;
mod read_cost;
mod region_scanner;
mod store_scanner;
mod table_read;
mod table_scan;
mod time_range;

pub use compaction_matcher::CompactionMatcher;
pub use merge_cursor::{MergeCursor, Source};
pub use query_matcher::{MatchSpec, QueryMatcher};
pub(crate) use read_context::ReadContext;
pub(crate) use read_cost::record as record_cost;
pub use read_cost::{CostRecording, ReadCost};
pub(crate) use region_scanner::StoreRead;
pub use store_scanner::StoreScanner;
pub(crate) use table_read::{checked_table, get, get_in_region, scan};
pub(crate) use table_scan::TableScan;
pub use time_range::TimeRange;
