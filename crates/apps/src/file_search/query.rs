//! Article 2's queries on the `files` table.
//!
//! - [`FileQuery`]: one user's files created between two dates whose name and category start
//!   with given text: a range scan on `user + date`, four `SingleColumnValueFilter`s (the lower
//!   and upper bound of each prefix, as the article builds them) and `PageFilter` with a resume
//!   key for paging.
//! - [`DateQuery`]: the same conditions for one date (or a date pattern with `?` digits) and any
//!   user — the question a reader of the article asks — by `FuzzyRowFilter` on the date's
//!   bytes in the middle of the key: a scan of the whole table that skips between matches.
//!   Through Apache HBase's Thrift1 gateway, whose filter language has no `FuzzyRowFilter`,
//!   the same rows by `RowFilter(=, 'regexstring:^[0-9]{6}DATE[0-9]{6}$')`, which tests every
//!   row of the table.
//!
//! The article scans `setStartRow(00000120120901)`, `setStopRow(00000120120914)`: an exclusive
//! stop row, which misses file 7 created on `20120914` though the article's answer lists it.
//! Here the upper date is inclusive — the stop row is the successor of `user + to`
//! (`00000120120915` for `to = 20120914`) — as `ferrobase-rowkey`'s `field_ranges` computes it.

use super::{check_date, FileRecord, FileSearch, FAMILY};
use crate::error::{AppError, Result};
use crate::filter_text::{and, prefix_bounds};
use crate::scan_plan::ScanPlan;
use ferrobase_rowkey::Value;
use std::ops::Bound;

/// The width of the user and file fields of the key, in digits.
const ID_DIGITS: usize = 6;

/// Name and category prefixes and paging, shared by both queries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conditions {
    /// Files whose name starts with this text (article: `中国好声音`).
    pub name_prefix: Option<String>,
    /// Files whose category starts with this text (article: `综艺`).
    pub category_prefix: Option<String>,
    /// At most this many files per page (`PageFilter`); `None` for all.
    pub page_size: Option<usize>,
    /// Resume after this data row key (the previous page's [`Page::resume`]).
    pub after: Option<Vec<u8>>,
}

impl Conditions {
    /// The filters of the conditions: prefix bounds on name and category, then `PageFilter`.
    fn filters(&self, family: &str) -> Vec<Vec<u8>> {
        let mut filters = Vec::new();
        if let Some(p) = &self.name_prefix {
            filters.extend(prefix_bounds(family, "name", p.as_bytes()));
        }
        if let Some(p) = &self.category_prefix {
            filters.extend(prefix_bounds(family, "category", p.as_bytes()));
        }
        if let Some(n) = self.page_size {
            filters.push(format!("PageFilter({n})").into_bytes());
        }
        filters
    }

    /// Applies the resume key and the page size to `plan`.
    fn page(&self, mut plan: ScanPlan) -> ScanPlan {
        if let Some(after) = &self.after {
            if *after >= plan.start {
                plan.start = after.clone();
                plan.start_exclusive = true;
            }
        }
        plan.limit = self.page_size;
        plan
    }
}

/// User `user`'s files created from `from` to `to` (both `yyyymmdd`, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileQuery {
    /// The owner.
    pub user: u32,
    /// The first creation date, inclusive.
    pub from: u32,
    /// The last creation date, inclusive.
    pub to: u32,
    /// Name, category and paging.
    pub conditions: Conditions,
}

/// Files created on dates matching a pattern, any user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateQuery {
    /// Eight characters, each a digit or `?` (any digit): `20120914`, `201209??`.
    pub date: String,
    /// Name, category and paging.
    pub conditions: Conditions,
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The files, in key order.
    pub files: Vec<FileRecord>,
    /// When the page is full: the last row key, to pass as [`Conditions::after`] for the next
    /// page (which may be empty).
    pub resume: Option<Vec<u8>>,
}

impl FileSearch {
    /// The scan [`FileSearch::find`] issues for `q`.
    pub fn plan_find(&self, q: &FileQuery) -> Result<ScanPlan> {
        check_date(q.from)?;
        check_date(q.to)?;
        let ranges = self.key.field_ranges(
            &[Value::U64(q.user.into())],
            Bound::Included(Value::U64(q.from.into())),
            Bound::Included(Value::U64(q.to.into())),
        )?;
        let range = ranges
            .into_iter()
            .next()
            .ok_or_else(|| AppError::invalid("query", "no key range"))?;
        let mut plan = ScanPlan::range(range.start, range.stop);
        plan.filter = and(q.conditions.filters(FAMILY));
        Ok(q.conditions.page(plan))
    }

    /// Article 2's multi-condition query, one page.
    pub fn find(&self, q: &FileQuery) -> Result<Page> {
        let plan = self.plan_find(q)?;
        self.run_page(&plan, q.conditions.page_size)
    }

    /// The scan [`FileSearch::find_on_date`] issues for `q`.
    pub fn plan_find_on_date(&self, q: &DateQuery) -> Result<ScanPlan> {
        let pattern = q.date.as_bytes();
        if pattern.len() != 8 || !pattern.iter().all(|c| c.is_ascii_digit() || *c == b'?') {
            return Err(AppError::invalid(
                "date pattern",
                format!("{:?} is not 8 digits or '?'", q.date),
            ));
        }
        let row_filter = if self.fuzzy_rows {
            // Fuzzy positions hold '0' (the least digit) so the filter's seeks never skip a row.
            let mut key = vec![b'0'; ID_DIGITS];
            let mut mask = vec![b'1'; ID_DIGITS];
            for &c in pattern {
                key.push(if c == b'?' { b'0' } else { c });
                mask.push(if c == b'?' { b'1' } else { b'0' });
            }
            key.extend(std::iter::repeat_n(b'0', ID_DIGITS));
            mask.extend(std::iter::repeat_n(b'1', ID_DIGITS));
            let mut fuzzy = b"FuzzyRowFilter(".to_vec();
            fuzzy.extend(crate::filter_text::quote(&key));
            fuzzy.extend(b", ");
            fuzzy.extend(crate::filter_text::quote(&mask));
            fuzzy.push(b')');
            fuzzy
        } else {
            // HBase's filter language has no FuzzyRowFilter: the same rows by a regular
            // expression on the key, tested on every row (no seeks).
            let date: String = pattern
                .iter()
                .map(|&c| match c {
                    b'?' => "[0-9]".to_string(),
                    c => char::from(c).to_string(),
                })
                .collect();
            format!("RowFilter(=, 'regexstring:^[0-9]{{{ID_DIGITS}}}{date}[0-9]{{{ID_DIGITS}}}$')")
                .into_bytes()
        };
        let mut filters = vec![row_filter];
        filters.extend(q.conditions.filters(FAMILY));
        let mut plan = ScanPlan::range(Vec::new(), Vec::new());
        plan.filter = and(filters);
        Ok(q.conditions.page(plan))
    }

    /// Files created on matching dates, any user: one page, in key (user) order.
    pub fn find_on_date(&self, q: &DateQuery) -> Result<Page> {
        let plan = self.plan_find_on_date(q)?;
        self.run_page(&plan, q.conditions.page_size)
    }

    fn run_page(&self, plan: &ScanPlan, page_size: Option<usize>) -> Result<Page> {
        let rows = plan.run(&self.files)?;
        let files = rows
            .iter()
            .map(|r| self.record(r))
            .collect::<Result<Vec<_>>>()?;
        let resume = match (page_size, rows.last()) {
            (Some(n), Some(last)) if rows.len() >= n => Some(last.row().to_vec()),
            _ => None,
        };
        Ok(Page { files, resume })
    }
}
