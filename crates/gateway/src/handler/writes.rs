//! Mutations, deletes, increments, appends and check-and-put.

use super::convert::tcells;
use super::names::{open_table, open_table_to_mutate, parse_column, table_name};
use super::{CallResult, Handler, ServiceError};
use crate::request::{Executor, Request, Response, Write};
use crate::thrift::hbase::service::{AtomicIncrementArgs, CheckAndPutArgs, FerrobaseAdminArgs};
use crate::thrift::hbase::{self, Attributes, BatchMutation, TAppend, TIncrement};
use crate::thrift::TValue;
use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::{
    Bytes, CellType, Check, CheckedWrite, Delete, Durability, Mutation, MutationCell, Put,
    RowResult, TimeRange, LATEST_TIMESTAMP,
};

/// The operation attribute HBase's `Mutation.setTTL` sets: the TTL of the mutation's cells in
/// milliseconds, an 8-byte big-endian long (`Mutation.OP_ATTRIBUTE_TTL`).
pub(crate) const TTL_ATTRIBUTE: &[u8] = b"_ttl";

/// The cell TTL a mutation's `attributes` ask for (HBase's `Mutation.getTTL`: `Bytes.toLong` of
/// the `_ttl` attribute, the last one when repeated, as a Java map keeps it). A value shorter
/// than 8 bytes is an `IOError` with `Bytes.toLong`'s message, as HBase answers (its region
/// server fails the put); longer ones are read by their first 8 bytes, as HBase does.
/// `Long.MAX_VALUE` means "no TTL" there too.
pub(crate) fn attribute_ttl(attributes: &Attributes) -> Result<Option<i64>, ServiceError> {
    let Some((_, v)) = attributes.iter().rev().find(|(k, _)| k == TTL_ATTRIBUTE) else {
        return Ok(None);
    };
    let Some(bytes) = v.first_chunk::<8>() else {
        return Err(ServiceError::Io(format!(
            "offset (0) + length (8) exceed the capacity of the array: {} (attribute _ttl)",
            v.len()
        )));
    };
    let ttl = i64::from_be_bytes(*bytes);
    Ok((ttl != i64::MAX).then_some(ttl))
}

/// Builds the Delete and Put of one row from Thrift `Mutation`s, as HBase's handler: a column
/// delete removes every version ≤ ts, a family delete the whole family ≤ ts (and discards the
/// family's column deletes before it); the delete is applied before the put; both carry the
/// attributes' cell TTL (`_ttl`), as HBase copies the attributes onto each.
///
/// A put to a family-only column is what HBase's handlers do with it: `mutateRow(Ts)` skips it
/// (with a warning in HBase's log), `mutateRows(Ts)` (`refuse_family_puts`) refuses the whole
/// call with an undeclared `IllegalArgumentException` before writing anything (INTERNAL_ERROR).
///
/// The row's mutations are pushed onto `out` (the delete, if any, first); `ttl_ms` is the
/// attributes' cell TTL ([`attribute_ttl`]), read once per call.
fn row_mutations(
    out: &mut Vec<Mutation>,
    row: Bytes,
    mutations: Vec<hbase::Mutation>,
    ts: i64,
    ttl_ms: Option<i64>,
    refuse_family_puts: bool,
) -> Result<(), ServiceError> {
    // The put's row, columns and values are the call's buffers, moved (a directly decoded
    // `mutateRows` holds slices of one buffer): no copies and no extra handles here; the
    // memstore copies what it keeps.
    let mut put = Put {
        row: Bytes::new(),
        cells: Vec::with_capacity(mutations.len()),
        timestamp: ts,
        durability: Durability::UseDefault,
        ttl_ms,
    };
    // Built at the row's first delete: most rows have none.
    let mut delete: Option<Delete> = None;
    for m in mutations {
        let durability = if m.write_to_wal {
            Durability::UseDefault
        } else {
            Durability::SkipWal
        };
        if m.is_delete {
            let (family, qualifier) = parse_column(&m.column);
            let mut d = delete.take().unwrap_or_else(|| {
                let mut d = Delete::with_timestamp(&row[..], ts);
                d.ttl_ms = ttl_ms;
                d
            });
            d = match qualifier {
                None => d.add_family_ts(family, ts),
                Some(q) => d.add_columns_ts(family, q, ts),
            };
            d.durability = durability;
            delete = Some(d);
        } else {
            // `fam:qual` split at the first colon, as `parse_column` (HBase's
            // `CellUtil.parseColumn`): the family keeps the column's buffer, cut short.
            match m.column.iter().position(|&b| b == b':') {
                Some(i) => {
                    let mut family = m.column;
                    let qualifier = family.split_off(i + 1);
                    family.truncate(i);
                    put.cells.push(MutationCell {
                        family,
                        qualifier,
                        timestamp: ts,
                        cell_type: CellType::Put,
                        value: m.value,
                    })
                }
                None if refuse_family_puts => {
                    return Err(ServiceError::Internal(
                        "java.lang.IllegalArgumentException: Invalid famAndQf provided.".into(),
                    ))
                }
                None => {}
            }
            put.durability = durability;
        }
    }
    if let Some(d) = delete {
        out.push(Mutation::Delete(d));
    }
    if !put.cells.is_empty() {
        put.row = row;
        out.push(Mutation::Put(put));
    }
    Ok(())
}

/// The column a `ferrobaseAdmin` `increment` or `append` writes: its `COLUMN` attribute (the
/// first, if repeated); for the operation and its access check alike.
pub(crate) fn row_op_column(a: &FerrobaseAdminArgs) -> Option<&[u8]> {
    a.attributes
        .iter()
        .find(|(k, _)| k == b"COLUMN")
        .map(|(_, v)| v.as_slice())
}

impl Handler {
    /// `request` run by the shared executor for `user`: authorized first with ACLs on, then
    /// run. Each method below decodes its arguments into the request in the order HBase's
    /// handler refuses them, and encodes the answer.
    fn execute(&self, user: &str, request: Request) -> Result<Response, ServiceError> {
        Ok(Executor::new(&self.engine, self.access(), user).execute(request)?)
    }

    /// Puts and deletes of `table` (a name the caller has looked up), through the executor
    /// (an empty list is authorized too, and writes nothing).
    pub(crate) fn write(
        &self,
        user: &str,
        table: &[u8],
        mutations: Vec<Mutation>,
    ) -> Result<(), ServiceError> {
        let request = Request::Write {
            table: table_name(table)?,
            write: Write::Mutations(mutations),
        };
        self.execute(user, request).map(drop)
    }

    /// An increment's or append's new cells, through the executor.
    fn new_cells(&self, user: &str, table: &[u8], write: Write) -> Result<RowResult, ServiceError> {
        let request = Request::Write {
            table: table_name(table)?,
            write,
        };
        match self.execute(user, request)? {
            Response::Cells(r) => Ok(r),
            other => Err(ServiceError::Internal(format!(
                "an increment or append was answered {other:?}"
            ))),
        }
    }

    /// mutateRow / mutateRowTs (`ts` [`LATEST_TIMESTAMP`] for the current time; `attributes`
    /// may give the put's cells a TTL).
    pub(crate) fn mutate_row(
        &self,
        user: &str,
        table: &[u8],
        row: Vec<u8>,
        mutations: Vec<hbase::Mutation>,
        ts: i64,
        attributes: &Attributes,
    ) -> CallResult {
        open_table_to_mutate(&self.engine, table)?;
        let mut muts = Vec::new();
        row_mutations(
            &mut muts,
            Bytes::from(row),
            mutations,
            ts,
            attribute_ttl(attributes)?,
            false,
        )?;
        self.write(user, table, muts)?;
        Ok(None)
    }

    /// mutateRows / mutateRowsTs (`ts` [`LATEST_TIMESTAMP`] for the current time; `attributes`
    /// apply to every row's put, as HBase's handler sets them on each).
    pub(crate) fn mutate_rows(
        &self,
        user: &str,
        table: &[u8],
        batches: Vec<BatchMutation>,
        ts: i64,
        attributes: &Attributes,
    ) -> CallResult {
        // HBase builds every row's mutations before it looks the table up.
        let mut all = Vec::with_capacity(batches.len());
        if !batches.is_empty() {
            let ttl_ms = attribute_ttl(attributes)?;
            for b in batches {
                row_mutations(&mut all, b.row, b.mutations, ts, ttl_ms, true)?;
            }
        }
        open_table_to_mutate(&self.engine, table)?;
        self.write(user, table, all)?;
        Ok(None)
    }

    pub(crate) fn atomic_increment(&self, user: &str, a: &AtomicIncrementArgs) -> CallResult {
        open_table(&self.engine, &a.table_name)?;
        let (f, q) = parse_column(&a.column);
        let write = Write::Increment {
            row: a.row.clone(),
            columns: vec![(f, q.unwrap_or_default(), a.value)],
            ttl_ms: None,
        };
        let r = self.new_cells(user, &a.table_name, write)?;
        Ok(Some(TValue::I64(first_long(&r))))
    }

    /// deleteAll / deleteAllTs (`ts` [`LATEST_TIMESTAMP`] for every version); `_ttl` in
    /// `attributes` gives the marker its TTL.
    pub(crate) fn delete_all(
        &self,
        user: &str,
        table: &[u8],
        row: &[u8],
        column: &[u8],
        ts: i64,
        attributes: &Attributes,
    ) -> CallResult {
        open_table(&self.engine, table)?;
        check_delete_ts(ts)?;
        let row = row.to_vec();
        let mut d = match parse_column(column) {
            (f, None) => Delete::new(row).add_family_ts(f, ts),
            (f, Some(q)) => Delete::new(row).add_columns_ts(f, q, ts),
        };
        d.ttl_ms = attribute_ttl(attributes)?;
        self.write(user, table, vec![Mutation::Delete(d)])?;
        Ok(None)
    }

    /// deleteAllRow / deleteAllRowTs (`ts`: the cells at or below it; `None`: all); `_ttl` in
    /// `attributes` gives the markers their TTL.
    pub(crate) fn delete_all_row(
        &self,
        user: &str,
        table: &[u8],
        row: &[u8],
        ts: Option<i64>,
        attributes: &Attributes,
    ) -> CallResult {
        open_table(&self.engine, table)?;
        if let Some(ts) = ts {
            check_delete_ts(ts)?;
        }
        let row = row.to_vec();
        let mut d = match ts {
            Some(ts) => Delete::with_timestamp(row, ts),
            None => Delete::new(row),
        };
        d.ttl_ms = attribute_ttl(attributes)?;
        self.write(user, table, vec![Mutation::Delete(d)])?;
        Ok(None)
    }

    /// increment / incrementRows, one after the other as HBase's handler loops over them
    /// (each authorized and applied before the next is looked at). As HBase's handler: an
    /// empty row or table is its undeclared `TException`, a family-only column a
    /// `NullPointerException` (`incrementFromThrift` answers null), both INTERNAL_ERRORs.
    pub(crate) fn increment(&self, user: &str, increments: &[TIncrement]) -> CallResult {
        for i in increments {
            if i.row.is_empty() || i.table.is_empty() {
                return Err(ServiceError::Internal(
                    "Must supply a table and a row key; can't increment".into(),
                ));
            }
            open_table(&self.engine, &i.table)?;
            let (f, q) = match parse_column(&i.column) {
                (f, Some(q)) => (f, q),
                (_, None) => {
                    return Err(ServiceError::Internal(
                        "java.lang.NullPointerException: no increment for a family-only column"
                            .into(),
                    ))
                }
            };
            let write = Write::Increment {
                row: i.row.clone(),
                columns: vec![(f, q, i.amount)],
                ttl_ms: None,
            };
            self.new_cells(user, &i.table, write)?;
        }
        Ok(None)
    }

    /// `append(TAppend)`: appends each value to its column; returns the new cells in column
    /// order (HBase's `Result.rawCells`), whatever the request's. As HBase's
    /// `ThriftUtilities.appendFromThrift`, columns and values of different counts, or a
    /// family-only column, are undeclared exceptions (INTERNAL_ERROR), before the table is
    /// looked up; an append of no columns is one too (HBase's client refuses it).
    pub(crate) fn append(&self, user: &str, ap: &TAppend) -> CallResult {
        if ap.row.is_empty() || ap.table.is_empty() {
            return Err(ServiceError::Internal(
                "Must supply a table and a row key; can't append".into(),
            ));
        }
        if ap.columns.len() != ap.values.len() {
            return Err(ServiceError::Internal(
                "Sizes of columns and values in tappend object are not matching".into(),
            ));
        }
        let parsed = ap
            .columns
            .iter()
            .map(|c| match parse_column(c) {
                (f, Some(q)) => Ok((f, q)),
                (_, None) => Err(family_only(c)),
            })
            .collect::<Result<Vec<(Vec<u8>, Vec<u8>)>, ServiceError>>()?;
        open_table(&self.engine, &ap.table)?;
        if parsed.is_empty() {
            return Err(ServiceError::Internal(
                "Invalid arguments to append, no columns specified".into(),
            ));
        }
        let write = Write::Append {
            row: ap.row.clone(),
            columns: parsed
                .into_iter()
                .zip(ap.values.iter())
                .map(|((f, q), v)| (f, q, v.clone()))
                .collect(),
            ttl_ms: None,
        };
        let r = self.new_cells(user, &ap.table, write)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// `ferrobaseAdmin` ops `increment` and `append`: HBase's `Increment`/`Append` with a cell
    /// TTL (`setTTL`), which Thrift1's `increment`/`append` cannot carry. `key` is the row; the
    /// attributes are `COLUMN` (`family:qualifier`), `AMOUNT` (a decimal long, `increment`) or
    /// `VALUE` (the bytes to append, `append`), and `TTL` (milliseconds, decimal; absent: none).
    /// Answers the new value: an `i64` for `increment`, the new cells for `append`.
    pub(crate) fn row_op_with_ttl(&self, user: &str, a: &FerrobaseAdminArgs) -> CallResult {
        let op = a.operation.as_str();
        let attr = |name: &str| {
            a.attributes
                .iter()
                .find(|(k, _)| k == name.as_bytes())
                .map(|(_, v)| v.as_slice())
        };
        let missing = |name: &str| ServiceError::IllegalArgument(format!("{op} needs {name}"));
        let decimal = |name: &str| -> Result<Option<i64>, ServiceError> {
            attr(name)
                .map(|v| {
                    std::str::from_utf8(v)
                        .ok()
                        .and_then(|v| v.parse::<i64>().ok())
                        .ok_or_else(|| {
                            ServiceError::IllegalArgument(format!(
                                "{op}: {name} {:?} is not a decimal long",
                                String::from_utf8_lossy(v)
                            ))
                        })
                })
                .transpose()
        };
        open_table_to_mutate(&self.engine, &a.table_name)?;
        let (f, q) = parse_column(row_op_column(a).ok_or_else(|| missing("COLUMN"))?);
        let q = q.unwrap_or_default();
        let ttl_ms = decimal("TTL")?;
        let row = a.key.clone();
        if super::names::admin_op(a)? == crate::thrift::hbase::AdminOp::Increment {
            let amount = decimal("AMOUNT")?.ok_or_else(|| missing("AMOUNT"))?;
            let write = Write::Increment {
                row,
                columns: vec![(f, q, amount)],
                ttl_ms,
            };
            let r = self.new_cells(user, &a.table_name, write)?;
            return Ok(Some(TValue::I64(first_long(&r))));
        }
        let value = attr("VALUE").ok_or_else(|| missing("VALUE"))?;
        let write = Write::Append {
            row,
            columns: vec![(f, q, value.to_vec())],
            ttl_ms,
        };
        let r = self.new_cells(user, &a.table_name, write)?;
        Ok(Some(tcells(r.cells.iter())))
    }

    /// `checkAndPut`: applies `mput` if `column` holds `value` (or, with no value, is absent;
    /// an empty value: absent or empty). As HBase's handler, `mput` is always a put (its
    /// `isDelete` is not read), and a family-only column, put or checked, is an undeclared
    /// `ArrayIndexOutOfBoundsException` there (INTERNAL_ERROR): the put's before the table is
    /// looked up, the check's after.
    pub(crate) fn check_and_put(&self, user: &str, a: &CheckAndPutArgs) -> CallResult {
        let (pf, pq) = match parse_column(&a.mput.column) {
            (f, Some(q)) => (f, q),
            (_, None) => return Err(family_only(&a.mput.column)),
        };
        let durability = if a.mput.write_to_wal {
            Durability::UseDefault
        } else {
            Durability::SkipWal
        };
        let mut put = Put::with_timestamp(a.row.clone(), LATEST_TIMESTAMP).add_column_ts(
            pf,
            pq,
            LATEST_TIMESTAMP,
            a.mput.value.clone(),
        );
        put.durability = durability;
        put.ttl_ms = attribute_ttl(&a.attributes)?;
        open_table_to_mutate(&self.engine, &a.table_name)?;
        let (family, qualifier) = match parse_column(&a.column) {
            (f, Some(q)) => (f, q),
            (_, None) => return Err(family_only(&a.column)),
        };
        let request = Request::CheckAndWrite {
            table: table_name(&a.table_name)?,
            row: a.row.clone(),
            check: Check::Value {
                family,
                qualifier,
                op: CompareOp::Equal,
                expected: a.value.clone(),
                time_range: TimeRange::default(),
            },
            write: CheckedWrite::Mutations(vec![Mutation::Put(put)]),
        };
        match self.execute(user, request)? {
            Response::Checked { applied, .. } => Ok(Some(TValue::Bool(applied))),
            other => Err(ServiceError::Internal(format!(
                "checkAndPut was answered {other:?}"
            ))),
        }
    }
}

/// The first cell's value as a long (an increment's new value; 0 when there is none).
fn first_long(r: &RowResult) -> i64 {
    r.cells
        .first()
        .and_then(|c| c.value().try_into().ok())
        .map(i64::from_be_bytes)
        .unwrap_or_default()
}

/// HBase's `Delete` refuses a negative timestamp with an `IllegalArgumentException` that
/// deleteAllTs and deleteAllRowTs do not declare: an INTERNAL_ERROR.
fn check_delete_ts(ts: i64) -> Result<(), ServiceError> {
    if ts < 0 {
        return Err(ServiceError::Internal(format!(
            "java.lang.IllegalArgumentException: Timestamp cannot be negative. ts={ts}"
        )));
    }
    Ok(())
}

/// The undeclared exception of HBase's handlers that index a family-only column's missing
/// qualifier (`famAndQf[1]`): an INTERNAL_ERROR.
fn family_only(column: &[u8]) -> ServiceError {
    ServiceError::Internal(format!(
        "java.lang.ArrayIndexOutOfBoundsException: column {:?} names no qualifier",
        String::from_utf8_lossy(column)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&[u8], &[u8])]) -> Attributes {
        pairs
            .iter()
            .map(|(k, v)| (k.to_vec(), v.to_vec()))
            .collect()
    }

    #[test]
    fn the_ttl_attribute_is_a_big_endian_long_of_milliseconds() {
        assert_eq!(attribute_ttl(&attrs(&[])).unwrap(), None);
        assert_eq!(attribute_ttl(&attrs(&[(b"other", b"x")])).unwrap(), None);
        let ms = 1_500i64.to_be_bytes();
        assert_eq!(
            attribute_ttl(&attrs(&[(b"_ttl", &ms)])).unwrap(),
            Some(1_500)
        );
        // The last of repeated keys; bytes past the eighth are ignored; Long.MAX_VALUE is unset.
        let neg = (-1i64).to_be_bytes();
        assert_eq!(
            attribute_ttl(&attrs(&[(b"_ttl", &ms), (b"_ttl", &neg)])).unwrap(),
            Some(-1)
        );
        let mut long = ms.to_vec();
        long.push(9);
        assert_eq!(
            attribute_ttl(&attrs(&[(b"_ttl", &long)])).unwrap(),
            Some(1_500)
        );
        let max = i64::MAX.to_be_bytes();
        assert_eq!(attribute_ttl(&attrs(&[(b"_ttl", &max)])).unwrap(), None);
        match attribute_ttl(&attrs(&[(b"_ttl", b"\x01\x02\x03")])) {
            Err(ServiceError::Io(m)) => assert!(m.contains("capacity of the array: 3"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}
