//! The secondary index table `files_by_date`: one row per file keyed `date + user + file`,
//! holding copies of the name and category, so "files created between two dates, any user"
//! is a range scan with the same `SingleColumnValueFilter`s pushed down.
//!
//! Consistency protocol (two tables, no cross-row transactions):
//! - a write puts the data row, then the index row; a crash between them leaves a data row
//!   without an index row (*missing*);
//! - a delete removes the data row, then the index row; a crash between them leaves an index
//!   row without data (*dangling*);
//! - an update of name or category rewrites both; a crash between leaves an index row whose
//!   copies differ from the data (*stale*).
//!
//! Index reads ([`FileSearch::find_by_index`]) check every hit against its data row: dangling
//! hits are dropped and their index rows deleted, stale hits are judged on the data and their
//! index rows rewritten. Missing index rows cannot be seen from the index; they are found by
//! [`FileSearch::verify_index`] and added by [`FileSearch::rebuild_index`], which repairs all
//! three kinds by comparing full scans of both tables.

use super::{FileRecord, FileSearch, FAMILY};
use crate::error::Result;
use crate::scan_plan::ScanPlan;
use ferrobase_engine::{Delete, Get, Put};
use ferrobase_rowkey::Value;
use std::collections::BTreeMap;
use std::ops::Bound;

/// The index table.
pub const INDEX_TABLE: &str = "files_by_date";
/// The index table's family.
pub const INDEX_FAMILY: &str = "i";
/// The index table's key schema.
pub const INDEX_KEY: &str = "date:dec8, user:u32dec6, file:u32dec6";

/// What [`FileSearch::verify_index`] found (and [`FileSearch::rebuild_index`] repaired).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexReport {
    /// Data rows read.
    pub data_rows: usize,
    /// Index rows read.
    pub index_rows: usize,
    /// Files with a data row but no index row.
    pub missing: Vec<FileRecord>,
    /// Index rows without a data row, as `(user, date, file)`.
    pub dangling: Vec<(u32, u32, u32)>,
    /// Files whose index row's name or category differs from the data.
    pub stale: Vec<FileRecord>,
}

impl IndexReport {
    /// True when index and data agree.
    pub fn is_consistent(&self) -> bool {
        self.missing.is_empty() && self.dangling.is_empty() && self.stale.is_empty()
    }

    /// One line: `data rows D, index rows I, missing M, dangling N, stale S`.
    pub fn summary(&self) -> String {
        format!(
            "data rows {}, index rows {}, missing {}, dangling {}, stale {}",
            self.data_rows,
            self.index_rows,
            self.missing.len(),
            self.dangling.len(),
            self.stale.len()
        )
    }
}

/// `(user, date, file)`: a file's identity.
type FileId = (u32, u32, u32);

/// An index row's copies of the name and category.
type IndexCopies = (Option<Vec<u8>>, Option<Vec<u8>>);

impl FileSearch {
    /// The index row key of a file.
    pub fn index_key(&self, user: u32, date: u32, file: u32) -> Result<Vec<u8>> {
        super::check_date(date)?;
        Ok(self.index_key.encode(&[
            Value::U64(date.into()),
            Value::U64(user.into()),
            Value::U64(file.into()),
        ])?)
    }

    /// The index row of `f`: its key and the copies of name and category, as
    /// [`FileSearch::put`] writes it (for bulk loads that batch their own puts).
    pub fn index_put(&self, f: &FileRecord) -> Result<Put> {
        let row = self.index_key(f.user, f.date, f.file)?;
        Ok(Put::new(row)
            .add_column(INDEX_FAMILY, "name", f.name.as_bytes())
            .add_column(INDEX_FAMILY, "category", f.category.as_bytes()))
    }

    /// Writes the index row of `f` (the second half of [`FileSearch::put`]).
    pub(crate) fn write_index_row(&self, f: &FileRecord) -> Result<()> {
        self.index.put(self.index_put(f)?)?;
        Ok(())
    }

    pub(crate) fn delete_index_row(&self, user: u32, date: u32, file: u32) -> Result<()> {
        self.index
            .delete(Delete::new(self.index_key(user, date, file)?))?;
        Ok(())
    }

    /// The index scan [`FileSearch::find_by_index`] issues: dates `from..=to` of any user,
    /// with the name and category prefix filters on the index's copies.
    pub fn plan_find_by_index(
        &self,
        from: u32,
        to: u32,
        conditions: &super::query::Conditions,
    ) -> Result<ScanPlan> {
        super::check_date(from)?;
        super::check_date(to)?;
        let range = self
            .index_key
            .field_ranges(
                &[],
                Bound::Included(Value::U64(from.into())),
                Bound::Included(Value::U64(to.into())),
            )?
            .remove(0);
        let mut filters = Vec::new();
        if let Some(p) = &conditions.name_prefix {
            filters.extend(crate::filter_text::prefix_bounds(
                INDEX_FAMILY,
                "name",
                p.as_bytes(),
            ));
        }
        if let Some(p) = &conditions.category_prefix {
            filters.extend(crate::filter_text::prefix_bounds(
                INDEX_FAMILY,
                "category",
                p.as_bytes(),
            ));
        }
        let mut plan = ScanPlan::range(range.start, range.stop);
        plan.filter = crate::filter_text::and(filters);
        Ok(plan)
    }

    /// Files created from `from` to `to` (inclusive), any user, whose name and category start
    /// with the given prefixes, through the index: in `date, user, file` order. Every hit is
    /// checked against its data row (dangling and stale index rows are repaired on the way).
    /// Paging fields of `conditions` are ignored.
    pub fn find_by_index(
        &self,
        from: u32,
        to: u32,
        conditions: &super::query::Conditions,
    ) -> Result<Vec<FileRecord>> {
        let plan = self.plan_find_by_index(from, to, conditions)?;
        let mut out = Vec::new();
        for hit in plan.run(&self.index)? {
            let fields = self.index_key.decode(hit.row())?;
            let (date, user, file) = (
                super::as_u32(&fields[0]),
                super::as_u32(&fields[1]),
                super::as_u32(&fields[2]),
            );
            match self.get(user, date, file)? {
                None => self.delete_index_row(user, date, file)?,
                Some(f) => {
                    let same = hit.value(INDEX_FAMILY.as_bytes(), b"name")
                        == Some(f.name.as_bytes())
                        && hit.value(INDEX_FAMILY.as_bytes(), b"category")
                            == Some(f.category.as_bytes());
                    if !same {
                        self.write_index_row(&f)?;
                    }
                    if matches(&f, conditions) {
                        out.push(f);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Compares full scans of the data and the index table.
    pub fn verify_index(&self) -> Result<IndexReport> {
        let data: BTreeMap<FileId, FileRecord> = ScanPlan::default()
            .run(&self.files)?
            .iter()
            .map(|r| self.record(r).map(|f| ((f.user, f.date, f.file), f)))
            .collect::<Result<_>>()?;
        let mut index: BTreeMap<FileId, IndexCopies> = BTreeMap::new();
        for r in ScanPlan::default().run(&self.index)? {
            let fields = self.index_key.decode(r.row())?;
            let id = (
                super::as_u32(&fields[1]),
                super::as_u32(&fields[0]),
                super::as_u32(&fields[2]),
            );
            let name = r
                .value(INDEX_FAMILY.as_bytes(), b"name")
                .map(<[u8]>::to_vec);
            let category = r
                .value(INDEX_FAMILY.as_bytes(), b"category")
                .map(<[u8]>::to_vec);
            index.insert(id, (name, category));
        }
        let mut report = IndexReport {
            data_rows: data.len(),
            index_rows: index.len(),
            ..IndexReport::default()
        };
        for (id, f) in &data {
            match index.get(id) {
                None => report.missing.push(f.clone()),
                Some((name, category)) => {
                    if name.as_deref() != Some(f.name.as_bytes())
                        || category.as_deref() != Some(f.category.as_bytes())
                    {
                        report.stale.push(f.clone());
                    }
                }
            }
        }
        report.dangling = index
            .keys()
            .filter(|id| !data.contains_key(id))
            .copied()
            .collect();
        Ok(report)
    }

    /// Repairs the index from the data: adds missing rows, rewrites stale ones, deletes
    /// dangling ones. Returns what it found. Idempotent; safe to rerun after a crash.
    pub fn rebuild_index(&self) -> Result<IndexReport> {
        let report = self.verify_index()?;
        for f in report.missing.iter().chain(&report.stale) {
            self.write_index_row(f)?;
        }
        for &(user, date, file) in &report.dangling {
            // A data row written since the verify scan keeps its index row.
            if self
                .files
                .get(
                    Get::new(self.key(user, date, file)?).add_family(FAMILY),
                    None,
                )?
                .is_empty()
            {
                self.delete_index_row(user, date, file)?;
            }
        }
        Ok(report)
    }
}

/// Whether `f` satisfies the name and category prefixes of `c`.
fn matches(f: &FileRecord, c: &super::query::Conditions) -> bool {
    c.name_prefix
        .as_ref()
        .is_none_or(|p| f.name.starts_with(p.as_str()))
        && c.category_prefix
            .as_ref()
            .is_none_or(|p| f.category.starts_with(p.as_str()))
}
