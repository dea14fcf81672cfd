//! The seed articles' example systems as a library on [`ferrobase_client`]: each runs on an
//! embedded engine (`file:DIR`) or through any HBase Thrift gateway (`thrift://HOST:PORT`),
//! creates its tables on first use, and builds its keys with [`ferrobase_rowkey`].
//!
//! - [`behaviour_log`]: article 1's time-related records, tall-narrow and wide-row.
//! - [`file_search`]: article 2's multi-condition file query, `FuzzyRowFilter` for "one date,
//!   any user", and a secondary index table kept consistent on every write and delete.
//! - [`microblog`]: article 4's follow, post and inbox tables with a crash-safe, exactly-once
//!   fan-out worker.
//! - [`game_log`]: article 3's `account_actiontype_time` log and its shell scan.
//! - [`textbook`]: article 5's taxonomy, shop and item, purchase records, users and fans.
//!
//! `ferrobase app NAME ...` is the command-line front end; `docs/apps/` describes each
//! application's schema, keys, scans and a sample session.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod behaviour_log;
pub mod bytes_text;
pub mod clock;
mod error;
pub mod file_search;
pub mod filter_text;
pub mod game_log;
pub mod microblog;
pub mod scan_plan;
pub mod table_setup;
pub mod textbook;

pub use error::{AppError, Result};
