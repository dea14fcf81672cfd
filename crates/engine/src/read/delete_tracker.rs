//! Remembers the delete markers seen in a row and says which puts they mask (HBase's
//! `ScanDeleteTracker`). Shared by the read matcher and the compaction matcher.

use crate::cell::CellType;

/// How a put is masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Masked {
    /// By a DeleteFamily or DeleteColumn marker: every older version of the column is masked
    /// too.
    ColumnAndOlder,
    /// By a Delete or DeleteFamilyVersion marker at exactly this timestamp.
    ThisVersion,
}

/// Markers of the current row (family-wide) and column.
#[derive(Debug, Default)]
pub struct DeleteTracker {
    family_delete_ts: Option<i64>,
    family_version_deletes: Vec<i64>,
    column_delete_ts: Option<i64>,
    version_deletes: Vec<i64>,
}

impl DeleteTracker {
    /// Forgets everything (a new row).
    pub fn reset_row(&mut self) {
        self.family_delete_ts = None;
        self.family_version_deletes.clear();
        self.reset_column();
    }

    /// Forgets the column-level markers (a new column).
    pub fn reset_column(&mut self) {
        self.column_delete_ts = None;
        self.version_deletes.clear();
    }

    /// Records a marker of type `t` at `ts`.
    pub fn add(&mut self, t: CellType, ts: i64) {
        let max = |d: Option<i64>| Some(d.map_or(ts, |d| d.max(ts)));
        match t {
            CellType::DeleteFamily => self.family_delete_ts = max(self.family_delete_ts),
            CellType::DeleteFamilyVersion => self.family_version_deletes.push(ts),
            CellType::DeleteColumn => self.column_delete_ts = max(self.column_delete_ts),
            CellType::Delete => self.version_deletes.push(ts),
            _ => {}
        }
    }

    /// Whether a put of the current column at `ts` is masked.
    pub fn masked(&self, ts: i64) -> Option<Masked> {
        if self.family_delete_ts.is_some_and(|d| ts <= d)
            || self.column_delete_ts.is_some_and(|d| ts <= d)
        {
            Some(Masked::ColumnAndOlder)
        } else if self.family_version_deletes.contains(&ts) || self.version_deletes.contains(&ts) {
            Some(Masked::ThisVersion)
        } else {
            None
        }
    }
}
