//! Read-modify-write operations on one row (HBase's Increment, Append, CheckAndMutate): the row
//! is locked, read at a read point that includes every earlier such operation, and written
//! back atomically before the lock is released.

use super::Inner;
use crate::api::{Get, Mutation, RowResult};
use crate::error::{Error, Result};
use crate::schema::TableName;

impl Inner {
    /// Locks `row`, reads it with `get`, and applies the mutations `decide` returns (if any).
    /// Returns what `decide` returned alongside.
    pub(crate) fn read_modify_write<T>(
        &self,
        table: &TableName,
        get: &Get,
        mut decide: impl FnMut(&RowResult) -> Result<(Vec<Mutation>, T)>,
    ) -> Result<T> {
        let _op = self.enter()?;
        loop {
            let entry = self.enabled_table(table)?;
            for f in get.columns.keys() {
                if entry.descriptor.family(f).is_none() {
                    return Err(Error::NoSuchColumnFamily {
                        table: table.to_string(),
                        family: String::from_utf8_lossy(f).into_owned(),
                    });
                }
            }
            let region = entry.region_for(&get.row);
            let _row = region.lock_rows(&[&get.row[..]]);
            if region.is_closed() {
                continue;
            }
            let current = self.get_in_region(&region, get, self.mvcc.read_point())?;
            let (muts, out) = decide(&current)?;
            if muts.is_empty() {
                return Ok(out);
            }
            for m in &muts {
                if m.row() != get.row {
                    return Err(Error::IllegalArgument(
                        "a checked or atomic mutation must stay on its row".into(),
                    ));
                }
                self.validate(&entry.descriptor, m)?;
            }
            match self.apply_locked(&entry.descriptor, &region, muts)? {
                None => return Ok(out),
                Some(_) => continue, // the region split under us: read again
            }
        }
    }
}
