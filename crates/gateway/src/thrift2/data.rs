//! The data methods of `THBaseService`: get/getMultiple/exists/existsAll, put/putMultiple,
//! deleteSingle/deleteMultiple, checkAndPut/checkAndDelete/checkAndMutate, increment, append,
//! mutateRow and the scanner calls, as HBase's `ThriftHBaseServiceHandler` runs them.

use super::convert;
use super::{client_error, Thrift2Handler};
use crate::handler::names::table_name;
use crate::handler::{denied, CallResult, ServiceError};
use crate::request::{Executor, Failure, Partial, Request, Response, Write};
use crate::thrift::thrift2::{TAppend, TDelete, TGet, TIncrement, TPut, TRowMutations, TScan};
use crate::thrift::{TType, TValue, ThriftValue};
use ferrobase_engine::{CheckedWrite, Get, Mutation, RowResult};

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

/// A response of another kind than the request's (the executor answers each request with
/// its own kind).
fn unexpected(method: &str) -> ServiceError {
    ServiceError::Internal(format!(
        "{method}: the executor answered another kind of response"
    ))
}

/// HBase's message for a scanner id it does not hold.
fn invalid_scanner() -> ServiceError {
    ServiceError::IllegalArgument("Invalid scanner Id".into())
}

impl Thrift2Handler {
    /// `request` run by the shared executor for `user`: authorized first with ACLs on (a
    /// partly granted read narrowed), then run.
    fn executor<'a>(&'a self, user: &'a str) -> Executor<'a> {
        Executor::new(self.engine_ref(), self.access.as_ref(), user)
    }

    fn execute(&self, user: &str, request: Request) -> Result<Response, ServiceError> {
        self.executor(user).execute(request).map_err(|f| match f {
            Failure::Denied(d) => denied(d),
            Failure::Engine(e) => client_error(e),
        })
    }

    /// `exists` (`one`: a bool) and `existsAll` (a list of bools).
    pub(super) fn exists(&self, user: &str, table: &[u8], gets: &[TGet], one: bool) -> CallResult {
        let request = Request::Exists {
            table: table_name(table)?,
            gets: self.gets(gets)?,
        };
        let Response::Exists(out) = self.execute(user, request)? else {
            return Err(unexpected("exists"));
        };
        Ok(Some(if one {
            TValue::Bool(out.first().copied().unwrap_or(false))
        } else {
            TValue::List(TType::Bool, out.into_iter().map(TValue::Bool).collect())
        }))
    }

    fn gets(&self, gets: &[TGet]) -> Result<Vec<Get>, ServiceError> {
        gets.iter()
            .map(|g| convert::get(g, self.filters.as_ref()))
            .collect()
    }

    /// `get` (`one`: a `TResult`) and `getMultiple` (a list, one per get, in order).
    pub(super) fn get(&self, user: &str, table: &[u8], gets: &[TGet], one: bool) -> CallResult {
        let request = Request::Get {
            table: table_name(table)?,
            gets: self.gets(gets)?,
            partial: Partial::Narrow,
        };
        let Response::Rows(rows) = self.execute(user, request)? else {
            return Err(unexpected("get"));
        };
        Ok(Some(match rows.first() {
            Some(r) if one => convert::result(r).to_value(),
            _ => results(&rows),
        }))
    }

    /// Puts and deletes written through the executor.
    fn write(
        &self,
        user: &str,
        table: &[u8],
        mutations: Vec<Mutation>,
    ) -> Result<(), ServiceError> {
        let table = table_name(table)?;
        self.execute(
            user,
            Request::Write {
                table,
                write: Write::Mutations(mutations),
            },
        )
        .map(drop)
    }

    /// `put` and `putMultiple`.
    pub(super) fn put(&self, user: &str, table: &[u8], puts: &[TPut]) -> CallResult {
        let puts = puts
            .iter()
            .map(|p| convert::put(p).map(Mutation::Put))
            .collect::<Result<Vec<_>, _>>()?;
        self.write(user, table, puts)?;
        Ok(None)
    }

    /// `deleteSingle` (void) and `deleteMultiple` (the deletes that failed: none, a failure is
    /// an error).
    pub(super) fn delete(
        &self,
        user: &str,
        table: &[u8],
        deletes: &[TDelete],
        one: bool,
    ) -> CallResult {
        let deletes = deletes
            .iter()
            .map(|d| convert::delete(d).map(Mutation::Delete))
            .collect::<Result<Vec<_>, _>>()?;
        self.write(user, table, deletes)?;
        Ok((!one).then(|| Vec::<TDelete>::new().to_value()))
    }

    /// `checkAndPut`, `checkAndDelete` and `checkAndMutate`: whether the mutations applied.
    pub(super) fn check_and(
        &self,
        user: &str,
        table: &[u8],
        check: Check<'_>,
        then: Then<'_>,
    ) -> CallResult {
        let table = table_name(table)?;
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
        let request = Request::CheckAndWrite {
            table,
            row: check.row.to_vec(),
            check: ferrobase_engine::Check::Value {
                family: check.family.to_vec(),
                qualifier: check.qualifier.to_vec(),
                op,
                expected: check.value.map(<[u8]>::to_vec),
                time_range: ferrobase_engine::TimeRange::default(),
            },
            write: CheckedWrite::Mutations(mutations),
        };
        let Response::Checked { applied, .. } = self.execute(user, request)? else {
            return Err(unexpected("checkAndMutate"));
        };
        Ok(Some(TValue::Bool(applied)))
    }

    /// `increment`: the new cells (none with `returnResults` false).
    pub(super) fn increment(&self, user: &str, table: &[u8], inc: &TIncrement) -> CallResult {
        if inc.cell_visibility.is_some() || inc.attributes.as_ref().is_some_and(|a| !a.is_empty()) {
            return Err(super::not_supported(
                "TIncrement's attributes and cellVisibility",
            ));
        }
        let request = Request::Write {
            table: table_name(table)?,
            write: Write::Increment {
                row: inc.row.clone(),
                columns: inc
                    .columns
                    .iter()
                    .map(|c| (c.family.clone(), c.qualifier.clone(), c.amount))
                    .collect(),
                ttl_ms: None,
            },
        };
        self.new_cells(user, request, inc.return_results)
    }

    /// An increment's or append's answer: its new cells (none with `returnResults` false).
    fn new_cells(&self, user: &str, request: Request, return_results: Option<bool>) -> CallResult {
        let Response::Cells(r) = self.execute(user, request)? else {
            return Err(unexpected("increment"));
        };
        let r = if return_results == Some(false) {
            RowResult::of_cells(Vec::new())
        } else {
            r
        };
        Ok(Some(convert::result(&r).to_value()))
    }

    /// `append`: the new cells (none with `returnResults` false).
    pub(super) fn append(&self, user: &str, table: &[u8], ap: &TAppend) -> CallResult {
        if ap.cell_visibility.is_some() || ap.attributes.as_ref().is_some_and(|a| !a.is_empty()) {
            return Err(super::not_supported(
                "TAppend's attributes and cellVisibility",
            ));
        }
        let request = Request::Write {
            table: table_name(table)?,
            write: Write::Append {
                row: ap.row.clone(),
                columns: ap
                    .columns
                    .iter()
                    .map(|c| (c.family.to_vec(), c.qualifier.to_vec(), c.value.to_vec()))
                    .collect(),
                ttl_ms: None,
            },
        };
        self.new_cells(user, request, ap.return_results)
    }

    /// `mutateRow`: the puts and deletes of one row, atomically.
    pub(super) fn mutate_row(&self, user: &str, table: &[u8], rm: &TRowMutations) -> CallResult {
        let mutations = convert::row_mutations(rm)?;
        self.write(user, table, mutations)?;
        Ok(None)
    }

    /// `openScanner`: a scanner id; the scan's failures found by the region server (an
    /// unknown table or family) come at the first `getScannerRows`, as Thrift1's.
    pub(super) fn open_scanner(&self, user: &str, table: &[u8], ts: &TScan) -> CallResult {
        let scan = convert::scan(ts, self.filters.as_ref())?;
        self.inner.open_scanner_reporting(
            &self.executor(user),
            table,
            scan,
            Partial::Narrow,
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
    pub(super) fn scanner_results(
        &self,
        user: &str,
        table: &[u8],
        ts: &TScan,
        n: i32,
    ) -> CallResult {
        let request = Request::Scan {
            table: table_name(table)?,
            scan: convert::scan(ts, self.filters.as_ref())?,
            partial: Partial::Narrow,
        };
        let Response::Scanner(mut scanner) = self.execute(user, request)? else {
            return Err(unexpected("getScannerResults"));
        };
        let rows = scanner
            .next_batch_within(n.max(0) as usize, self.inner.max_result_bytes)
            .map_err(client_error)?;
        Ok(Some(results(&rows)))
    }
}
