//! Article 2's file search: a file table keyed `userID(6) + createTime(8) + fileID(6)` so that
//! "user U's files created between two dates" is one range scan, with the name and category
//! conditions pushed to the server as `SingleColumnValueFilter`s and paging by `PageFilter` and
//! a resume key ([`query`]); "one date, any user" by `FuzzyRowFilter` over the same keys, or
//! a `RowFilter` regular expression through Apache HBase's Thrift1 gateway, whose filter
//! language lacks `FuzzyRowFilter` ([`query::DateQuery`]); and a secondary index table keyed `date + user + file` kept
//! consistent with the data on every write and delete ([`index`]).
//!
//! Tables:
//!
//! | table | row key | cells |
//! |-------|---------|-------|
//! | `files` | `user:u32dec6, date:dec8, file:u32dec6` | `info:name`, `info:category` |
//! | `files_by_date` | `date:dec8, user:u32dec6, file:u32dec6` | `i:name`, `i:category` (copies) |
//!
//! See `docs/apps/file-search.md`.

pub mod example;
pub mod index;
pub mod query;

use crate::error::{AppError, Result};
use crate::table_setup::{ensure_tables, TableSpec};
use ferrobase_client::{Connection, Table};
use ferrobase_engine::{Delete, Get, Put, RowResult};
use ferrobase_rowkey::{Schema, Value};

/// The data table.
pub const FILES_TABLE: &str = "files";
/// The data table's family.
pub const FAMILY: &str = "info";
/// The data table's key schema: article 2's `userID(6) + createTime(8) + fileID(6)`.
pub const FILES_KEY: &str = "user:u32dec6, date:dec8, file:u32dec6";

/// One file: article 2's five attributes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct FileRecord {
    /// The owner's user id (article 2: 1 = 浙江卫视, 2 = 好声音剧组, 3 = XX微博, 4 = 赞助商).
    pub user: u32,
    /// The creation date as `yyyymmdd`.
    pub date: u32,
    /// The globally unique file id.
    pub file: u32,
    /// The file name.
    pub name: String,
    /// The category.
    pub category: String,
}

impl FileRecord {
    /// The record's `key=value` text: `user=000001 date=20120902 file=000001 name=... category=...`.
    pub fn to_line(&self) -> String {
        format!(
            "user={:06} date={:08} file={:06} name={} category={}",
            self.user, self.date, self.file, self.name, self.category
        )
    }
}

/// The file table of article 2 on one connection, with its index table maintained on every
/// write and delete.
#[derive(Debug, Clone)]
pub struct FileSearch {
    files: Table,
    index: Table,
    key: Schema,
    index_key: Schema,
    /// Whether the database takes `FuzzyRowFilter` (ferrobase does, Apache HBase's Thrift1
    /// gateway does not): "one date, any user" then seeks between matches rather than testing
    /// every row with a `RowFilter`.
    fuzzy_rows: bool,
}

impl FileSearch {
    /// Opens the application on `conn`, creating `files` and `files_by_date` if absent.
    pub fn open(conn: &Connection) -> Result<FileSearch> {
        ensure_tables(
            conn,
            &[
                TableSpec::new(FILES_TABLE, &[FAMILY]).rowkey(FILES_KEY),
                TableSpec::new(index::INDEX_TABLE, &[index::INDEX_FAMILY]).rowkey(index::INDEX_KEY),
            ],
        )?;
        Ok(FileSearch {
            files: conn.table(FILES_TABLE),
            index: conn.table(index::INDEX_TABLE),
            key: FILES_KEY.parse()?,
            index_key: index::INDEX_KEY.parse()?,
            fuzzy_rows: conn.filter_language_extensions()?,
        })
    }

    /// The data table's key schema.
    pub fn key_schema(&self) -> &Schema {
        &self.key
    }

    /// The data row key of a file.
    pub fn key(&self, user: u32, date: u32, file: u32) -> Result<Vec<u8>> {
        check_date(date)?;
        Ok(self.key.encode(&[
            Value::U64(user.into()),
            Value::U64(date.into()),
            Value::U64(file.into()),
        ])?)
    }

    /// Writes a file: its data row, then its index row. A crash between the two leaves a data
    /// row without its index row, which [`FileSearch::rebuild_index`] adds.
    pub fn put(&self, f: &FileRecord) -> Result<()> {
        self.write_data_row(f)?;
        self.write_index_row(f)
    }

    /// Writes only the data row of `f`: the first half of [`FileSearch::put`], the state a
    /// crash between the data and the index write leaves.
    pub fn write_data_row(&self, f: &FileRecord) -> Result<()> {
        let row = self.key(f.user, f.date, f.file)?;
        self.files.put(
            Put::new(row)
                .add_column(FAMILY, "name", f.name.as_bytes())
                .add_column(FAMILY, "category", f.category.as_bytes()),
        )?;
        Ok(())
    }

    /// Deletes a file: its data row, then its index row. A crash between the two leaves an
    /// index row without data, which index reads skip and remove and
    /// [`FileSearch::rebuild_index`] deletes.
    pub fn delete(&self, user: u32, date: u32, file: u32) -> Result<()> {
        self.files
            .delete(Delete::new(self.key(user, date, file)?))?;
        self.delete_index_row(user, date, file)
    }

    /// Reads one file; `None` when absent.
    pub fn get(&self, user: u32, date: u32, file: u32) -> Result<Option<FileRecord>> {
        let r = self.files.get(
            Get::new(self.key(user, date, file)?).add_family(FAMILY),
            None,
        )?;
        if r.is_empty() {
            return Ok(None);
        }
        self.record(&r).map(Some)
    }

    /// Loads article 2's ten example files (through [`FileSearch::put`]).
    pub fn load_example(&self) -> Result<usize> {
        let files = example::files();
        for f in &files {
            self.put(f)?;
        }
        Ok(files.len())
    }

    /// Decodes a data row of `files`.
    fn record(&self, r: &RowResult) -> Result<FileRecord> {
        let fields = self.key.decode(r.row())?;
        let text = |q: &str| -> Result<String> {
            let v = r.value(FAMILY.as_bytes(), q.as_bytes()).ok_or_else(|| {
                AppError::corrupt(FILES_TABLE, r.row(), format!("no {FAMILY}:{q}"))
            })?;
            String::from_utf8(v.to_vec())
                .map_err(|_| AppError::corrupt(FILES_TABLE, r.row(), format!("{q} is not UTF-8")))
        };
        Ok(FileRecord {
            user: as_u32(&fields[0]),
            date: as_u32(&fields[1]),
            file: as_u32(&fields[2]),
            name: text("name")?,
            category: text("category")?,
        })
    }
}

/// A decoded `u32decN`/`dec8` field (the schemas bound them to `u32`).
fn as_u32(v: &Value) -> u32 {
    match v {
        Value::U64(n) => *n as u32,
        _ => 0,
    }
}

/// Checks a `yyyymmdd` date: eight digits, month 1..12, day 1..31.
pub fn check_date(date: u32) -> Result<()> {
    let (y, m, d) = (date / 10000, date / 100 % 100, date % 100);
    if !(1000..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(AppError::invalid(
            "date",
            format!("{date} is not a yyyymmdd date"),
        ));
    }
    Ok(())
}
