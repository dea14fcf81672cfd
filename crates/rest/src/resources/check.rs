//! `?check=` on a row write (`RowResource.checkAndPut`, `checkAndDelete`, `append`,
//! `increment`): the CellSet's one row, its last cell the check (`put`, `delete`) or every cell
//! an operand (`append`, `increment`), run by the shared executor (`ferrobase_gateway::request`)
//! as checked writes, appends and increments, answered as HBase answers them (304 when the
//! check fails).

use super::ok;
use super::rows::{split_column, RowSpec};
use crate::error::RestError;
use crate::http::{Request, Response};
use crate::media::{negotiate, Repr};
use crate::model::{CellModel, CellSetModel, RowModel};
use crate::server::Door;
use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::{
    Check as EngineCheck, CheckedWrite, Delete, Mutation, Put, RowResult, TimeRange,
};
use ferrobase_gateway::request::{Request as DataRequest, Response as DataResponse, Write};

/// The table a check runs on: its door and its name as the path gives it (the caller has
/// looked it up: a missing table is a 404 before anything else).
pub(super) struct Target<'a> {
    pub door: &'a Door,
    pub name: &'a str,
}

/// A checked write of `key` run by the shared executor (`preCheckAndPut`/`preCheckAndDelete`:
/// READ and WRITE on the compared column, then WRITE on every cell of the mutation): whether
/// it applied.
fn check_and_write(
    req: &Request,
    target: &Target<'_>,
    key: &[u8],
    (family, qualifier): Column,
    expected: &[u8],
    mutation: Mutation,
) -> Result<bool, RestError> {
    let request = DataRequest::CheckAndWrite {
        table: target.name.to_string(),
        row: key.to_vec(),
        check: EngineCheck::Value {
            family,
            qualifier,
            op: CompareOp::Equal,
            expected: Some(expected.to_vec()),
            time_range: TimeRange::default(),
        },
        write: CheckedWrite::Mutations(vec![mutation]),
    };
    match super::access::execute(target.door, req, request, RestError::from)? {
        DataResponse::Checked { applied, .. } => Ok(applied),
        other => Err(unexpected(&other)),
    }
}

/// An append's or increment's new cells, run by the shared executor (READ and WRITE on each
/// cell: it reads what it changes).
fn read_modify_write(
    req: &Request,
    target: &Target<'_>,
    write: Write,
) -> Result<RowResult, RestError> {
    let request = DataRequest::Write {
        table: target.name.to_string(),
        write,
    };
    match super::access::execute(target.door, req, request, RestError::from)? {
        DataResponse::Cells(result) => Ok(result),
        other => Err(unexpected(&other)),
    }
}

/// The executor answers each request with its own kind of response.
fn unexpected(answer: &DataResponse) -> RestError {
    RestError::new(500, format!("Internal error\r\nanswered {answer:?}"))
}

/// What `?check=` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    Put,
    Delete,
    Append,
    Increment,
}

impl Check {
    /// `check`'s value (any case), or HBase's 400 `Invalid check value`.
    pub fn parse(s: &str) -> Result<Check, RestError> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "put" => Check::Put,
            "delete" => Check::Delete,
            "append" => Check::Append,
            "increment" => Check::Increment,
            _ => return Err(RestError::new(400, format!("Invalid check value '{s}'"))),
        })
    }
}

fn bad(msg: &str) -> RestError {
    RestError::new(400, format!("Bad request: {msg}"))
}

/// The one row of a check's CellSet and its key (else the spec's).
fn one_row<'a>(
    model: &'a CellSetModel,
    spec: &RowSpec,
) -> Result<(&'a RowModel, Vec<u8>), RestError> {
    let [row] = model.rows.as_slice() else {
        return Err(bad("Number of rows specified is not 1."));
    };
    let key = row.key.clone().unwrap_or_else(|| spec.row.clone());
    Ok((row, key))
}

/// A cell's timestamp, `None` for HBase's `LATEST_TIMESTAMP` (absent or `Long.MAX_VALUE`).
fn ts(c: &CellModel) -> Option<i64> {
    c.timestamp.filter(|&t| t != i64::MAX)
}

/// Runs `check` on `table` with `model`; `return_results`: `?rr=true` (append, increment).
pub(super) fn run(
    req: &Request,
    target: &Target<'_>,
    check: Check,
    model: &CellSetModel,
    spec: &RowSpec,
    return_results: bool,
) -> Result<Response, RestError> {
    match check {
        Check::Put => check_and_put(req, target, model, spec),
        Check::Delete => check_and_delete(req, target, model, spec),
        Check::Append => append(req, target, model, spec, return_results),
        Check::Increment => increment(req, target, model, spec, return_results),
    }
}

fn check_and_put(
    req: &Request,
    target: &Target<'_>,
    model: &CellSetModel,
    spec: &RowSpec,
) -> Result<Response, RestError> {
    let (row, key) = one_row(model, spec)?;
    let Some((check, puts)) = row.cells.split_last().filter(|(_, rest)| !rest.is_empty()) else {
        return Err(bad(
            "Either row key is null or no data found for columns specified.",
        ));
    };
    let check_col = check.column.clone().unwrap_or_default();
    let (family, qualifier) = match split_column(&check_col) {
        (f, Some(q)) if !q.is_empty() => (f.to_vec(), q.to_vec()),
        _ => return Err(bad("Column incorrectly specified.")),
    };
    let mut put = Put::new(key.clone());
    let mut matched = false;
    for c in puts {
        let col = c
            .column
            .as_deref()
            .ok_or_else(|| bad("Column found to be null."))?;
        let (f, q) = match split_column(col) {
            (f, Some(q)) => (f.to_vec(), q.to_vec()),
            (_, None) => return Err(RestError::new(400, "Bad request")),
        };
        matched |= col == check_col.as_slice();
        put = match ts(c) {
            Some(t) => put.add_column_ts(f, q, t, c.value.clone()),
            None => put.add_column(f, q, c.value.clone()),
        };
    }
    if !matched {
        return Err(bad("The column to put and check do not match."));
    }
    let applied = check_and_write(
        req,
        target,
        &key,
        (family, qualifier),
        &check.value,
        Mutation::Put(put),
    )?;
    if applied {
        Ok(Response::empty(200))
    } else {
        Err(RestError::new(304, "Value not Modified"))
    }
}

fn check_and_delete(
    req: &Request,
    target: &Target<'_>,
    model: &CellSetModel,
    spec: &RowSpec,
) -> Result<Response, RestError> {
    let (row, key) = one_row(model, spec)?;
    let Some((check, deletes)) = row.cells.split_last() else {
        return Err(bad("Column not specified for check."));
    };
    let check_col = match &check.column {
        Some(c) => c.clone(),
        None => spec
            .columns
            .first()
            .cloned()
            .ok_or_else(|| bad("Column not specified for check."))?,
    };
    let mut delete = Delete::new(key.clone());
    for c in deletes {
        let col = c
            .column
            .as_deref()
            .ok_or_else(|| bad("Column found to be null."))?;
        delete = match (split_column(col), ts(c)) {
            ((f, None), Some(t)) => delete.add_family_ts(f.to_vec(), t),
            ((f, None), None) => delete.add_family(f.to_vec()),
            ((f, Some(q)), Some(t)) => delete.add_column_ts(f.to_vec(), q.to_vec(), t),
            ((f, Some(q)), None) => delete.add_column(f.to_vec(), q.to_vec()),
        };
    }
    let (family, qualifier) = match split_column(&check_col) {
        (f, Some(q)) => (f.to_vec(), q.to_vec()),
        (_, None) => return Err(bad("Column to check incorrectly specified.")),
    };
    if deletes.is_empty() {
        delete = delete.add_columns(family.clone(), qualifier.clone());
    }
    let applied = check_and_write(
        req,
        target,
        &key,
        (family, qualifier),
        &check.value,
        Mutation::Delete(delete),
    )?;
    if applied {
        Ok(Response::empty(200))
    } else {
        Err(RestError::new(304, " Delete check failed."))
    }
}

/// A `(family, qualifier)` pair.
type Column = (Vec<u8>, Vec<u8>);

/// The columns of an append's or increment's cells (each its own, else the spec's in turn).
fn operand_columns(row: &RowModel, spec: &RowSpec) -> Result<Vec<Column>, RestError> {
    let mut from_spec = spec.columns.iter();
    row.cells
        .iter()
        .map(|c| {
            let col = match &c.column {
                Some(col) => col.clone(),
                None => from_spec
                    .next()
                    .cloned()
                    .ok_or_else(|| bad("Column found to be null."))?,
            };
            match split_column(&col) {
                (f, Some(q)) => Ok((f.to_vec(), q.to_vec())),
                (_, None) => Err(bad("Column incorrectly specified.")),
            }
        })
        .collect()
}

fn append(
    req: &Request,
    target: &Target<'_>,
    model: &CellSetModel,
    spec: &RowSpec,
    return_results: bool,
) -> Result<Response, RestError> {
    let (row, key) = one_row(model, spec)?;
    let cols = operand_columns(row, spec)?;
    let columns = cols
        .into_iter()
        .zip(&row.cells)
        .map(|((f, q), c)| (f, q, c.value.clone()))
        .collect();
    let result = read_modify_write(
        req,
        target,
        Write::Append {
            row: key,
            columns,
            ttl_ms: None,
        },
    )?;
    if !return_results {
        return Ok(Response::empty(200));
    }
    if result.is_empty() {
        return Err(RestError::new(304, "Append return empty."));
    }
    let repr = negotiate(req, &[Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let m = CellSetModel {
        rows: vec![RowModel::of_result(&result)],
    };
    Ok(ok(req, repr, m.encode(repr)))
}

fn increment(
    req: &Request,
    target: &Target<'_>,
    model: &CellSetModel,
    spec: &RowSpec,
    return_results: bool,
) -> Result<Response, RestError> {
    let (row, key) = one_row(model, spec)?;
    let cols = operand_columns(row, spec)?;
    let mut operands = Vec::with_capacity(cols.len());
    for ((f, q), c) in cols.into_iter().zip(&row.cells) {
        let text = String::from_utf8_lossy(&c.value);
        let amount: i64 = text.trim().parse().map_err(|_| {
            RestError::bad_request(format!(
                "java.lang.NumberFormatException: For input string: \"{text}\""
            ))
        })?;
        operands.push((f, q, amount));
    }
    let result = read_modify_write(
        req,
        target,
        Write::Increment {
            row: key,
            columns: operands,
            ttl_ms: None,
        },
    )?;
    if !return_results {
        return Ok(Response::empty(200));
    }
    if result.is_empty() {
        return Err(RestError::new(304, "Increment return empty."));
    }
    // HBase 2.6.1 answers the request's row here, not the result's (RowResource.increment adds
    // `rowModel`, the CellSet it was sent).
    let repr = negotiate(req, &[Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let echoed = RowModel {
        key: row.key.clone(),
        cells: row
            .cells
            .iter()
            .map(|c| CellModel {
                column: c.column.clone(),
                timestamp: Some(c.timestamp.unwrap_or(i64::MAX)),
                value: c.value.clone(),
            })
            .collect(),
    };
    Ok(ok(
        req,
        repr,
        CellSetModel { rows: vec![echoed] }.encode(repr),
    ))
}
