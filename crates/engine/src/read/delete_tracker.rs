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
#[derive(Debug)]
pub struct DeleteTracker {
    family_delete_ts: Option<i64>,
    family_version_deletes: Vec<i64>,
    column_delete_ts: Option<i64>,
    version_deletes: Vec<i64>,
    /// No marker recorded since the row began: `masked` answers at once (the common case).
    empty: bool,
}

impl Default for DeleteTracker {
    fn default() -> Self {
        DeleteTracker {
            family_delete_ts: None,
            family_version_deletes: Vec::new(),
            column_delete_ts: None,
            version_deletes: Vec::new(),
            empty: true,
        }
    }
}

impl DeleteTracker {
    /// Forgets everything (a new row).
    pub fn reset_row(&mut self) {
        if self.empty {
            return;
        }
        self.family_delete_ts = None;
        self.family_version_deletes.clear();
        self.column_delete_ts = None;
        self.version_deletes.clear();
        self.empty = true;
    }

    /// Forgets the column-level markers (a new column).
    pub fn reset_column(&mut self) {
        if self.empty {
            return;
        }
        self.column_delete_ts = None;
        self.version_deletes.clear();
    }

    /// Records a marker of type `t` at `ts`.
    pub fn add(&mut self, t: CellType, ts: i64) {
        self.empty = false;
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
    #[inline]
    pub fn masked(&self, ts: i64) -> Option<Masked> {
        if self.empty {
            return None;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_row_forgets_column_and_family_markers() {
        let mut t = DeleteTracker::default();
        assert_eq!(t.masked(5), None);
        t.add(CellType::DeleteColumn, 10);
        t.add(CellType::Delete, 3);
        assert_eq!(t.masked(5), Some(Masked::ColumnAndOlder));
        t.reset_row();
        assert_eq!(t.masked(5), None);
        assert_eq!(t.masked(3), None);
        t.add(CellType::DeleteFamily, 7);
        t.reset_column();
        assert_eq!(
            t.masked(7),
            Some(Masked::ColumnAndOlder),
            "family markers span columns"
        );
        t.reset_row();
        assert_eq!(t.masked(7), None);
    }
}
