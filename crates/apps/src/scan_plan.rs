//! A scan as the applications issue it, printable in the HBase shell's syntax so the docs and
//! the `--explain` output show exactly what runs.

use crate::bytes_text::escape;
use crate::error::Result;
use ferrobase_client::Table;
use ferrobase_engine::{RowResult, Scan};
use std::fmt;

/// A scan of one table: a key range, columns, a filter-language string and a row limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanPlan {
    /// The first row (inclusive); empty for the table's start.
    pub start: Vec<u8>,
    /// Whether the scan starts strictly after `start` (a resume key).
    pub start_exclusive: bool,
    /// The row to stop before; empty for the table's end.
    pub stop: Vec<u8>,
    /// `family:qualifier` columns, or `family` alone; empty for every column.
    pub columns: Vec<(String, Option<Vec<u8>>)>,
    /// A filter-language string.
    pub filter: Option<Vec<u8>>,
    /// At most this many rows.
    pub limit: Option<usize>,
    /// Versions per column (1 unless set).
    pub versions: Option<u32>,
}

impl ScanPlan {
    /// A scan of `[start, stop)`.
    pub fn range(start: Vec<u8>, stop: Vec<u8>) -> ScanPlan {
        ScanPlan {
            start,
            stop,
            ..ScanPlan::default()
        }
    }

    /// The engine's [`Scan`] and the filter string.
    pub fn to_scan(&self) -> (Scan, Option<&[u8]>) {
        let mut scan = Scan::new();
        scan.start_row = self.start.clone();
        scan.start_inclusive = !self.start_exclusive;
        scan.stop_row = self.stop.clone();
        for (family, qualifier) in &self.columns {
            scan = match qualifier {
                Some(q) => scan.add_column(family.as_bytes(), q.clone()),
                None => scan.add_family(family.as_bytes()),
            };
        }
        if let Some(n) = self.limit {
            scan = scan.limit(n).caching(n.clamp(1, 1000));
        }
        if let Some(v) = self.versions {
            scan = scan.max_versions(v);
        }
        (scan, self.filter.as_deref())
    }

    /// Runs the scan on `table` and returns every row.
    pub fn run(&self, table: &Table) -> Result<Vec<RowResult>> {
        let (scan, filter) = self.to_scan();
        let mut scanner = table.scanner(scan, filter)?;
        let mut rows = Vec::new();
        loop {
            let batch = scanner.next_batch(256)?;
            if batch.is_empty() {
                return Ok(rows);
            }
            rows.extend(batch);
        }
    }

    /// The plan in the HBase shell's syntax: `scan 'TABLE', {STARTROW => ..., ...}`.
    pub fn shell(&self, table: &str) -> String {
        format!("scan '{table}', {self}")
    }
}

impl fmt::Display for ScanPlan {
    /// `{COLUMNS => [...], STARTROW => '...', STOPROW => '...', FILTER => "...", LIMIT => n}`;
    /// an exclusive start prints as the start row followed by `\x00` (the first row after it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if !self.columns.is_empty() {
            let cols: Vec<String> = self
                .columns
                .iter()
                .map(|(fam, q)| match q {
                    Some(q) => format!("'{fam}:{}'", escape(q)),
                    None => format!("'{fam}'"),
                })
                .collect();
            parts.push(format!("COLUMNS => [{}]", cols.join(", ")));
        }
        if !self.start.is_empty() {
            let mut s = escape(&self.start);
            if self.start_exclusive {
                s.push_str("\\x00");
            }
            parts.push(format!("STARTROW => \"{s}\""));
        }
        if !self.stop.is_empty() {
            parts.push(format!("STOPROW => \"{}\"", escape(&self.stop)));
        }
        if let Some(v) = self.versions {
            parts.push(format!("VERSIONS => {v}"));
        }
        if let Some(filter) = &self.filter {
            parts.push(format!("FILTER => \"{}\"", escape(filter)));
        }
        if let Some(n) = self.limit {
            parts.push(format!("LIMIT => {n}"));
        }
        write!(f, "{{{}}}", parts.join(", "))
    }
}
