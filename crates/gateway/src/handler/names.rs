//! Table and column names as the service spells them (HBase's `family:qualifier` parsing), and the
//! operation a `ferrobaseAdmin` call names.

use super::ServiceError;
use crate::thrift::hbase::service::FerrobaseAdminArgs;
use crate::thrift::hbase::AdminOp;
use ferrobase_engine::{Error, Table, TableName};

/// Splits `fam:qual` at the first colon, as HBase's `CellUtil.parseColumn`: `fam` alone means the
/// whole family (`None`), `fam:` the empty qualifier.
pub(crate) fn parse_column(column: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match column.iter().position(|&b| b == b':') {
        Some(i) => (column[..i].to_vec(), Some(column[i + 1..].to_vec())),
        None => (column.to_vec(), None),
    }
}

/// `fam:qual` for a result cell.
pub(crate) fn column_name(family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut c = Vec::with_capacity(family.len() + 1 + qualifier.len());
    c.extend_from_slice(family);
    c.push(b':');
    c.extend_from_slice(qualifier);
    c
}

/// The table named by a Thrift `Text`. A name HBase's `TableName.valueOf` refuses (not
/// UTF-8, empty, characters outside `[A-Za-z0-9_.-]`, a leading `.` or `-`) is its
/// undeclared `IllegalArgumentException`, which HBase's Thrift processor answers with a
/// `TApplicationException` INTERNAL_ERROR, whatever the method.
pub(crate) fn table_name(raw: &[u8]) -> Result<String, ServiceError> {
    let name = table_text(raw)?;
    TableName::parse(&name).map_err(|e| match e {
        Error::IllegalArgument(m) => {
            ServiceError::Internal(format!("java.lang.IllegalArgumentException: {m}"))
        }
        other => ServiceError::from(other),
    })?;
    Ok(name)
}

/// The text of a table argument, unvalidated (the ACL checks see it before the method does).
pub(crate) fn table_text(raw: &[u8]) -> Result<String, ServiceError> {
    String::from_utf8(raw.to_vec()).map_err(|_| {
        ServiceError::Internal(format!(
            "java.lang.IllegalArgumentException: illegal table name {:?}: not UTF-8",
            String::from_utf8_lossy(raw)
        ))
    })
}

pub(crate) fn open_table(
    engine: &ferrobase_engine::Engine,
    raw: &[u8],
) -> Result<Table, ServiceError> {
    Ok(engine.table(&table_name(raw)?)?)
}

/// [`open_table`] for `mutateRow(s)(Ts)` and `checkAndPut`, whose HBase handlers catch the
/// `IllegalArgumentException` of a bad table name and answer it as the declared
/// `IllegalArgument` (the other methods let it through as a `TApplicationException`).
pub(crate) fn open_table_to_mutate(
    engine: &ferrobase_engine::Engine,
    raw: &[u8],
) -> Result<Table, ServiceError> {
    open_table(engine, raw).map_err(|e| match e {
        ServiceError::Internal(m) => ServiceError::IllegalArgument(m),
        other => other,
    })
}

/// The operation a `ferrobaseAdmin` call names. A name no [`AdminOp`] has is refused here, before
/// any check or handler runs, with the message ferrobase has always given for it.
pub(crate) fn admin_op(a: &FerrobaseAdminArgs) -> Result<AdminOp, ServiceError> {
    AdminOp::parse(&a.operation).ok_or_else(|| {
        ServiceError::IllegalArgument(format!("unknown ferrobaseAdmin op {:?}", a.operation))
    })
}
