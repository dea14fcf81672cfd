//! Table and column names as the service spells them: HBase's `family:qualifier` parsing.

use super::ServiceError;
use ferrobase_engine::Table;

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

/// The table named by a Thrift `Text`.
pub(crate) fn table_name(raw: &[u8]) -> Result<String, ServiceError> {
    String::from_utf8(raw.to_vec())
        .map_err(|_| ServiceError::IllegalArgument("table name is not UTF-8".into()))
}

pub(crate) fn open_table(
    engine: &ferrobase_engine::Engine,
    raw: &[u8],
) -> Result<Table, ServiceError> {
    Ok(engine.table(&table_name(raw)?)?)
}
