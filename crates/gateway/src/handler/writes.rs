//! Mutations, deletes, increments, appends and check-and-put.

use super::args::{open_table, parse_column, Args};
use super::convert::tcells;
use super::{CallResult, Handler, ServiceError};
use crate::thrift::{TStruct, TValue};
use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::{Delete, Durability, Mutation, Put, LATEST_TIMESTAMP};

/// Builds the Delete and Put of one row from Thrift `Mutation`s (isDelete, column, value,
/// writeToWAL), as HBase's handler: a column delete removes every version ≤ ts, a family
/// delete the whole family ≤ ts; the delete is applied before the put.
fn row_mutations(
    row: &[u8],
    mutations: &[&TStruct],
    ts: i64,
) -> Result<Vec<Mutation>, ServiceError> {
    let mut put = Put::with_timestamp(row, ts);
    let mut delete = Delete::with_timestamp(row, ts);
    let mut has_delete = false;
    for m in mutations {
        let m = Args(m);
        let column = m.bytes(2)?;
        let durability = if m.bool_or(4, true) {
            Durability::UseDefault
        } else {
            Durability::SkipWal
        };
        let (family, qualifier) = parse_column(&column);
        if m.bool_or(1, false) {
            has_delete = true;
            delete = match qualifier {
                None => delete.add_family_ts(family, ts),
                Some(q) => delete.add_columns_ts(family, q, ts),
            };
            delete.durability = durability;
        } else {
            let value = m.opt_bytes(3).unwrap_or_default();
            put = put.add_column_ts(family, qualifier.unwrap_or_default(), ts, value);
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
    pub(crate) fn mutate_row(&self, a: &Args<'_>, with_ts: bool) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let row = a.bytes(2)?;
        let ts = if with_ts { a.i64(4)? } else { LATEST_TIMESTAMP };
        let muts = row_mutations(&row, &a.struct_list(3), ts)?;
        if !muts.is_empty() {
            t.mutate(muts)?;
        }
        Ok(None)
    }

    pub(crate) fn mutate_rows(&self, a: &Args<'_>, with_ts: bool) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let ts = if with_ts { a.i64(3)? } else { LATEST_TIMESTAMP };
        let mut all = Vec::new();
        for batch in a.struct_list(2) {
            let b = Args(batch);
            all.extend(row_mutations(&b.bytes(1)?, &b.struct_list(2), ts)?);
        }
        if !all.is_empty() {
            t.mutate(all)?;
        }
        Ok(None)
    }

    pub(crate) fn atomic_increment(&self, a: &Args<'_>) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let row = a.bytes(2)?;
        let (f, q) = parse_column(&a.bytes(3)?);
        let q = q.unwrap_or_default();
        let v = t.increment(&row, &[(&f, &q, a.i64(4)?)])?;
        Ok(Some(TValue::I64(v[0])))
    }

    pub(crate) fn delete_all(&self, a: &Args<'_>, with_ts: bool) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let row = a.bytes(2)?;
        let ts = if with_ts { a.i64(4)? } else { LATEST_TIMESTAMP };
        let d = match parse_column(&a.bytes(3)?) {
            (f, None) => Delete::new(row).add_family_ts(f, ts),
            (f, Some(q)) => Delete::new(row).add_columns_ts(f, q, ts),
        };
        t.delete(d)?;
        Ok(None)
    }

    pub(crate) fn delete_all_row(&self, a: &Args<'_>, with_ts: bool) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let row = a.bytes(2)?;
        let d = if with_ts {
            Delete::with_timestamp(row, a.i64(3)?)
        } else {
            Delete::new(row)
        };
        t.delete(d)?;
        Ok(None)
    }

    fn apply_increment(&self, inc: &TStruct) -> Result<(), ServiceError> {
        let i = Args(inc);
        let t = open_table(&self.engine, &i.bytes(1)?)?;
        let (f, q) = parse_column(&i.bytes(3)?);
        let q = q.unwrap_or_default();
        t.increment(&i.bytes(2)?, &[(&f, &q, i.i64(4)?)])?;
        Ok(())
    }

    pub(crate) fn increment(&self, a: &Args<'_>) -> CallResult {
        let inc = a
            .strukt(1)
            .ok_or_else(|| ServiceError::IllegalArgument("increment is missing".into()))?;
        self.apply_increment(inc)?;
        Ok(None)
    }

    pub(crate) fn increment_rows(&self, a: &Args<'_>) -> CallResult {
        for inc in a.struct_list(1) {
            self.apply_increment(inc)?;
        }
        Ok(None)
    }

    /// `append(TAppend)`: appends each value to its column; returns the new cells.
    pub(crate) fn append(&self, a: &Args<'_>) -> CallResult {
        let ap = Args(
            a.strukt(1)
                .ok_or_else(|| ServiceError::IllegalArgument("append is missing".into()))?,
        );
        let t = open_table(&self.engine, &ap.bytes(1)?)?;
        let row = ap.bytes(2)?;
        let columns = ap.byte_list(3);
        let values = ap.byte_list(4);
        if columns.len() != values.len() {
            return Err(ServiceError::Io(
                "append needs as many values as columns".into(),
            ));
        }
        let parsed: Vec<(Vec<u8>, Vec<u8>)> = columns
            .iter()
            .map(|c| {
                let (f, q) = parse_column(c);
                (f, q.unwrap_or_default())
            })
            .collect();
        let spec: Vec<(&[u8], &[u8], &[u8])> = parsed
            .iter()
            .zip(values.iter())
            .map(|((f, q), v)| (&f[..], &q[..], &v[..]))
            .collect();
        let r = t.append(&row, &spec)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// `checkAndPut`: applies `mput` if `column` holds `value` (or, with no value, is absent).
    pub(crate) fn check_and_put(&self, a: &Args<'_>) -> CallResult {
        let t = open_table(&self.engine, &a.bytes(1)?)?;
        let row = a.bytes(2)?;
        let (f, q) = parse_column(&a.bytes(3)?);
        let q = q.unwrap_or_default();
        let expected = a.opt_bytes(5);
        let mput = a
            .strukt(6)
            .ok_or_else(|| ServiceError::IllegalArgument("checkAndPut needs a mutation".into()))?;
        let muts = row_mutations(&row, &[mput], LATEST_TIMESTAMP)?;
        let applied =
            t.check_and_mutate(&row, &f, &q, CompareOp::Equal, expected.as_deref(), muts)?;
        Ok(Some(TValue::Bool(applied)))
    }
}
