//! The data methods of `THBaseService`: get/getMultiple/exists/existsAll, put/putMultiple,
//! deleteSingle/deleteMultiple, checkAndPut/checkAndDelete/checkAndMutate, increment, append,
//! mutateRow and the scanner calls, as HBase's `ThriftHBaseServiceHandler` runs them.

use super::convert;
use super::{client_error, Thrift2Handler};
use crate::handler::names::table_name;
use crate::handler::{CallResult, ServiceError};
use crate::thrift::thrift2::{TAppend, TDelete, TGet, TIncrement, TPut, TRowMutations, TScan};
use crate::thrift::{TType, TValue, ThriftValue};
use ferrobase_engine::{Mutation, RowResult, Table};

/// The condition of a check-and-mutate call.
pub(super) struct Check<'a> {
    pub row: &'a [u8],
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    /// A `TCompareOp`.
    pub op: i32,
    /// Absent: the column must be empty.
    pub value: Option<&'a [u8]>,
}

/// What a check-and-mutate call applies when its check holds.
pub(super) enum Then<'a> {
    Put(&'a TPut),
    Delete(&'a TDelete),
    Mutate(&'a TRowMutations),
}

fn results(rows: &[RowResult]) -> TValue {
    rows.iter()
        .map(convert::result)
        .collect::<Vec<_>>()
        .to_value()
}

/// HBase's message for a scanner id it does not hold.
fn invalid_scanner() -> ServiceError {
    ServiceError::IllegalArgument("Invalid scanner Id".into())
}

impl Thrift2Handler {
    /// The table named by a call's `table` argument.
    fn table(&self, raw: &[u8]) -> Result<Table, ServiceError> {
        self.engine_ref()
            .table(&table_name(raw)?)
            .map_err(client_error)
    }

    /// `exists` (`one`: a bool) and `existsAll` (a list of bools).
    pub(super) fn exists(&self, table: &[u8], gets: &[TGet], one: bool) -> CallResult {
        let t = self.table(table)?;
        let mut out = Vec::with_capacity(gets.len());
        for g in gets {
            out.push(
                t.exists(&convert::get(g, self.filters.as_ref())?)
                    .map_err(client_error)?,
            );
        }
        Ok(Some(if one {
            TValue::Bool(out.first().copied().unwrap_or(false))
        } else {
            TValue::List(TType::Bool, out.into_iter().map(TValue::Bool).collect())
        }))
    }

    /// `get` (`one`: a `TResult`) and `getMultiple` (a list, one per get, in order).
    pub(super) fn get(&self, table: &[u8], gets: &[TGet], one: bool) -> CallResult {
        let t = self.table(table)?;
        let gets = gets
            .iter()
            .map(|g| convert::get(g, self.filters.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let rows = t.get_all(&gets).map_err(client_error)?;
        Ok(Some(match rows.first() {
            Some(r) if one => convert::result(r).to_value(),
            _ => results(&rows),
        }))
    }

    /// `put` and `putMultiple`.
    pub(super) fn put(&self, table: &[u8], puts: &[TPut]) -> CallResult {
        let t = self.table(table)?;
        let puts = puts
            .iter()
            .map(convert::put)
            .collect::<Result<Vec<_>, _>>()?;
        if !puts.is_empty() {
            t.put_all(puts).map_err(client_error)?;
        }
        Ok(None)
    }

    /// `deleteSingle` (void) and `deleteMultiple` (the deletes that failed: none, a failure is
    /// an error).
    pub(super) fn delete(&self, table: &[u8], deletes: &[TDelete], one: bool) -> CallResult {
        let t = self.table(table)?;
        let deletes = deletes
            .iter()
            .map(convert::delete)
            .collect::<Result<Vec<_>, _>>()?;
        if !deletes.is_empty() {
            t.delete_all(deletes).map_err(client_error)?;
        }
        Ok((!one).then(|| Vec::<TDelete>::new().to_value()))
    }

    /// `checkAndPut`, `checkAndDelete` and `checkAndMutate`: whether the mutations applied.
    pub(super) fn check_and(&self, table: &[u8], check: Check<'_>, then: Then<'_>) -> CallResult {
        let t = self.table(table)?;
        let op = convert::compare(check.op)?;
        let mutations = match then {
            Then::Put(p) => vec![Mutation::Put(convert::put(p)?)],
            Then::Delete(d) => vec![Mutation::Delete(convert::delete(d)?)],
            Then::Mutate(rm) => convert::row_mutations(rm)?,
        };
        if mutations.iter().any(|m| m.row() != check.row) {
            return Err(ServiceError::Io(
                "org.apache.hadoop.hbase.DoNotRetryIOException: Action's getRow must match".into(),
            ));
        }
        let applied = t
            .check_and_mutate(
                check.row,
                check.family,
                check.qualifier,
                op,
                check.value,
                mutations,
            )
            .map_err(client_error)?;
        Ok(Some(TValue::Bool(applied)))
    }

    /// `increment`: the new cells (none with `returnResults` false).
    pub(super) fn increment(&self, table: &[u8], inc: &TIncrement) -> CallResult {
        if inc.cell_visibility.is_some() || inc.attributes.as_ref().is_some_and(|a| !a.is_empty()) {
            return Err(super::not_supported(
                "TIncrement's attributes and cellVisibility",
            ));
        }
        let t = self.table(table)?;
        let columns: Vec<(&[u8], &[u8], i64)> = inc
            .columns
            .iter()
            .map(|c| (&c.family[..], &c.qualifier[..], c.amount))
            .collect();
        let r = t
            .increment_cells(&inc.row, &columns, None)
            .map_err(client_error)?;
        let r = if inc.return_results == Some(false) {
            RowResult::of_cells(Vec::new())
        } else {
            r
        };
        Ok(Some(convert::result(&r).to_value()))
    }

    /// `append`: the new cells (none with `returnResults` false).
    pub(super) fn append(&self, table: &[u8], ap: &TAppend) -> CallResult {
        if ap.cell_visibility.is_some() || ap.attributes.as_ref().is_some_and(|a| !a.is_empty()) {
            return Err(super::not_supported(
                "TAppend's attributes and cellVisibility",
            ));
        }
        let t = self.table(table)?;
        let columns: Vec<(&[u8], &[u8], &[u8])> = ap
            .columns
            .iter()
            .map(|c| (&c.family[..], &c.qualifier[..], &c.value[..]))
            .collect();
        let r = t.append(&ap.row, &columns).map_err(client_error)?;
        let r = if ap.return_results == Some(false) {
            RowResult::of_cells(Vec::new())
        } else {
            r
        };
        Ok(Some(convert::result(&r).to_value()))
    }

    /// `mutateRow`: the puts and deletes of one row, atomically.
    pub(super) fn mutate_row(&self, table: &[u8], rm: &TRowMutations) -> CallResult {
        let t = self.table(table)?;
        let mutations = convert::row_mutations(rm)?;
        if !mutations.is_empty() {
            t.mutate(mutations).map_err(client_error)?;
        }
        Ok(None)
    }

    /// `openScanner`: a scanner id; the scan's failures found by the region server (an
    /// unknown table or family) come at the first `getScannerRows`, as Thrift1's.
    pub(super) fn open_scanner(&self, table: &[u8], ts: &TScan) -> CallResult {
        let scan = convert::scan(ts, self.filters.as_ref())?;
        self.inner.open_scanner_reporting(
            table,
            scan,
            crate::handler::convert::ColumnOrder::Map,
            client_error,
        )
    }

    /// `getScannerRows`: the next `n` rows at most.
    pub(super) fn scanner_rows(&self, id: i32, n: i32) -> CallResult {
        if !self.inner.scanners.is_open(id) {
            return Err(invalid_scanner());
        }
        let rows = self.inner.scanner_rows(id, n.max(0) as usize)?;
        Ok(Some(results(&rows)))
    }

    /// `closeScanner`: an id not open (closed, expired or never opened) is closed already, as
    /// HBase 2.6's handler answers it.
    pub(super) fn close_scanner(&self, id: i32) -> CallResult {
        let _closed_now = self.inner.scanner_close(id);
        Ok(None)
    }

    /// `getScannerResults`: the first `n` rows of a scan, its scanner closed.
    pub(super) fn scanner_results(&self, table: &[u8], ts: &TScan, n: i32) -> CallResult {
        let t = self.table(table)?;
        let mut scanner = t
            .scanner(&convert::scan(ts, self.filters.as_ref())?)
            .map_err(client_error)?;
        let rows = scanner
            .next_batch_within(n.max(0) as usize, self.inner.max_result_bytes)
            .map_err(client_error)?;
        Ok(Some(results(&rows)))
    }
}
