//! Mutations, deletes, increments, appends and check-and-put.

use super::convert::tcells;
use super::names::{open_table, open_table_to_mutate, parse_column};
use super::{CallResult, Handler, ServiceError};
use crate::thrift::hbase::service::{AtomicIncrementArgs, CheckAndPutArgs};
use crate::thrift::hbase::{self, BatchMutation, TAppend, TIncrement};
use crate::thrift::TValue;
use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::{Delete, Durability, Mutation, Put, LATEST_TIMESTAMP};

/// Builds the Delete and Put of one row from Thrift `Mutation`s, as HBase's handler: a column
/// delete removes every version ≤ ts, a family delete the whole family ≤ ts; the delete is
/// applied before the put.
fn row_mutations(
    row: &[u8],
    mutations: &[hbase::Mutation],
    ts: i64,
) -> Result<Vec<Mutation>, ServiceError> {
    let mut put = Put::with_timestamp(row, ts);
    let mut delete = Delete::with_timestamp(row, ts);
    let mut has_delete = false;
    for m in mutations {
        let durability = if m.write_to_wal {
            Durability::UseDefault
        } else {
            Durability::SkipWal
        };
        let (family, qualifier) = parse_column(&m.column);
        if m.is_delete {
            has_delete = true;
            delete = match qualifier {
                None => delete.add_family_ts(family, ts),
                Some(q) => delete.add_columns_ts(family, q, ts),
            };
            delete.durability = durability;
        } else {
            put = put.add_column_ts(family, qualifier.unwrap_or_default(), ts, m.value.clone());
            put.durability = durability;
        }
    }
    let mut out = Vec::new();
    if has_delete {
        out.push(Mutation::Delete(delete));
    }
    if !put.cells.is_empty() {
        out.push(Mutation::Put(put));
    }
    Ok(out)
}

impl Handler {
    /// mutateRow / mutateRowTs (`ts` [`LATEST_TIMESTAMP`] for the current time).
    pub(crate) fn mutate_row(
        &self,
        table: &[u8],
        row: &[u8],
        mutations: &[hbase::Mutation],
        ts: i64,
    ) -> CallResult {
        let t = open_table_to_mutate(&self.engine, table)?;
        let muts = row_mutations(row, mutations, ts)?;
        if !muts.is_empty() {
            t.mutate(muts)?;
        }
        Ok(None)
    }

    /// mutateRows / mutateRowsTs (`ts` [`LATEST_TIMESTAMP`] for the current time).
    pub(crate) fn mutate_rows(
        &self,
        table: &[u8],
        batches: &[BatchMutation],
        ts: i64,
    ) -> CallResult {
        let t = open_table_to_mutate(&self.engine, table)?;
        let mut all = Vec::new();
        for b in batches {
            all.extend(row_mutations(&b.row, &b.mutations, ts)?);
        }
        if !all.is_empty() {
            t.mutate(all)?;
        }
        Ok(None)
    }

    pub(crate) fn atomic_increment(&self, a: &AtomicIncrementArgs) -> CallResult {
        let t = open_table(&self.engine, &a.table_name)?;
        let (f, q) = parse_column(&a.column);
        let q = q.unwrap_or_default();
        let v = t.increment(&a.row, &[(&f, &q, a.value)])?;
        Ok(Some(TValue::I64(v[0])))
    }

    /// deleteAll / deleteAllTs (`ts` [`LATEST_TIMESTAMP`] for every version).
    pub(crate) fn delete_all(
        &self,
        table: &[u8],
        row: &[u8],
        column: &[u8],
        ts: i64,
    ) -> CallResult {
        let t = open_table(&self.engine, table)?;
        let row = row.to_vec();
        let d = match parse_column(column) {
            (f, None) => Delete::new(row).add_family_ts(f, ts),
            (f, Some(q)) => Delete::new(row).add_columns_ts(f, q, ts),
        };
        t.delete(d)?;
        Ok(None)
    }

    /// deleteAllRow / deleteAllRowTs (`ts`: the cells at or below it; `None`: all).
    pub(crate) fn delete_all_row(&self, table: &[u8], row: &[u8], ts: Option<i64>) -> CallResult {
        let t = open_table(&self.engine, table)?;
        let row = row.to_vec();
        let d = match ts {
            Some(ts) => Delete::with_timestamp(row, ts),
            None => Delete::new(row),
        };
        t.delete(d)?;
        Ok(None)
    }

    /// increment / incrementRows.
    pub(crate) fn increment(&self, increments: &[TIncrement]) -> CallResult {
        for i in increments {
            let t = open_table(&self.engine, &i.table)?;
            let (f, q) = parse_column(&i.column);
            let q = q.unwrap_or_default();
            t.increment(&i.row, &[(&f, &q, i.amount)])?;
        }
        Ok(None)
    }

    /// `append(TAppend)`: appends each value to its column; returns the new cells.
    pub(crate) fn append(&self, ap: &TAppend) -> CallResult {
        let t = open_table(&self.engine, &ap.table)?;
        if ap.columns.len() != ap.values.len() {
            return Err(ServiceError::Io(
                "append needs as many values as columns".into(),
            ));
        }
        let parsed: Vec<(Vec<u8>, Vec<u8>)> = ap
            .columns
            .iter()
            .map(|c| {
                let (f, q) = parse_column(c);
                (f, q.unwrap_or_default())
            })
            .collect();
        let spec: Vec<(&[u8], &[u8], &[u8])> = parsed
            .iter()
            .zip(ap.values.iter())
            .map(|((f, q), v)| (&f[..], &q[..], &v[..]))
            .collect();
        let r = t.append(&ap.row, &spec)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// `checkAndPut`: applies `mput` if `column` holds `value` (or, with no value, is absent).
    pub(crate) fn check_and_put(&self, a: &CheckAndPutArgs) -> CallResult {
        let t = open_table_to_mutate(&self.engine, &a.table_name)?;
        let (f, q) = parse_column(&a.column);
        let q = q.unwrap_or_default();
        let muts = row_mutations(&a.row, std::slice::from_ref(&a.mput), LATEST_TIMESTAMP)?;
        let applied =
            t.check_and_mutate(&a.row, &f, &q, CompareOp::Equal, a.value.as_deref(), muts)?;
        Ok(Some(TValue::Bool(applied)))
    }
}
