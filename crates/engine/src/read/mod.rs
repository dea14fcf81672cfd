//! The read path: merged cursors over memstores and files, the query matcher, and per-store
//! scanners. Region- and table-level scanning builds on these.

mod compaction_matcher;
mod delete_tracker;
mod merge_cursor;
mod new_version_tracker;
mod query_matcher;
mod store_scanner;
mod time_range;

pub use compaction_matcher::CompactionMatcher;
pub use merge_cursor::{MergeCursor, Source};
pub use query_matcher::{MatchCode, MatchSpec, QueryMatcher};
pub use store_scanner::{PieceBudget, RowEnd, StoreScanner};
pub use time_range::TimeRange;
