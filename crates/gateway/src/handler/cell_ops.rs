//! `ferrobaseAdmin`'s cell operations, what HBase's Thrift1 API cannot carry: `delete` writes
//! exactly the markers asked for (a version's `Delete` and `DeleteFamilyVersion` included, which
//! Thrift1's `deleteAll*` cannot express), and `scan_open`/`scan_next` read with RAW, VERSIONS
//! and a lower time bound, answering typed cells ([`TFerrobaseRow`]), delete markers included.
//! The wire format is in docs/design/hbase-compatibility.md, "The ferrobaseAdmin extension".

use super::convert::ColumnOrder;
use super::names::{open_table_to_mutate, parse_column};
use super::{CallResult, Handler, ServiceError};
use crate::request::{Executor, Partial, Request, Response};
use crate::thrift::hbase::service::FerrobaseAdminArgs;
use crate::thrift::hbase::{TFerrobaseCell, TFerrobaseGet, TFerrobaseRow};
use crate::thrift::TValue;
use crate::thrift::ThriftValue;
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::{Delete, Get, Mutation, RowResult, Scan, TimeRange, LATEST_TIMESTAMP};

/// The value of attribute `key` (the last, if repeated).
pub(crate) fn attribute<'a>(a: &'a FerrobaseAdminArgs, key: &str) -> Option<&'a [u8]> {
    a.attributes
        .iter()
        .rev()
        .find(|(k, _)| k == key.as_bytes())
        .map(|(_, v)| v.as_slice())
}

/// Attribute `key` as a decimal `i64`, if present.
fn number(a: &FerrobaseAdminArgs, key: &str) -> Result<Option<i64>, ServiceError> {
    attribute(a, key)
        .map(|v| {
            std::str::from_utf8(v)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
                .ok_or_else(|| {
                    ServiceError::IllegalArgument(format!(
                        "ferrobaseAdmin {}: attribute {key} {:?} is not a decimal integer",
                        a.operation,
                        String::from_utf8_lossy(v)
                    ))
                })
        })
        .transpose()
}

/// Attribute `key` as a flag: `true` or `false` (absent: `default`).
fn flag(a: &FerrobaseAdminArgs, key: &str, default: bool) -> Result<bool, ServiceError> {
    match attribute(a, key) {
        None => Ok(default),
        Some(b"true") => Ok(true),
        Some(b"false") => Ok(false),
        Some(v) => Err(ServiceError::IllegalArgument(format!(
            "ferrobaseAdmin {}: attribute {key} {:?} is neither true nor false",
            a.operation,
            String::from_utf8_lossy(v)
        ))),
    }
}

/// The columns of a `delete` or `scan_open`: attributes `COLUMN.0`, `COLUMN.1`, ... (`family`
/// or `family:qualifier`), up to the first index absent. For the access checks too.
pub(crate) fn indexed(a: &FerrobaseAdminArgs, key: &str) -> Vec<Vec<u8>> {
    (0..)
        .map_while(|i| attribute(a, &format!("{key}.{i}")).map(<[u8]>::to_vec))
        .collect()
}

/// The scanner id in `key` (decimal).
fn scanner_id(a: &FerrobaseAdminArgs) -> Result<i32, ServiceError> {
    std::str::from_utf8(&a.key)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            ServiceError::IllegalArgument(format!(
                "ferrobaseAdmin scan_next: key {:?} is not a scanner id",
                String::from_utf8_lossy(&a.key)
            ))
        })
}

/// The scanner id a `scan_next` or `scan_cost` names, for the owner check; `None` when `a` is another op or
/// names none.
pub(crate) fn scan_next_id(a: &FerrobaseAdminArgs) -> Option<i32> {
    use crate::thrift::hbase::AdminOp;
    matches!(
        super::names::admin_op(a).ok(),
        Some(AdminOp::ScanNext | AdminOp::ScanCost)
    )
    .then(|| scanner_id(a).ok())
    .flatten()
}

/// The `Delete` a `delete` operation writes, built from its attributes alone: what it runs and
/// what its access check looks at (each marker's family and qualifier), so the two cannot differ.
pub(crate) fn extension_delete_of(a: &FerrobaseAdminArgs) -> Result<Delete, ServiceError> {
    let ts = number(a, "TIMESTAMP")?.unwrap_or(LATEST_TIMESTAMP);
    let mut d = Delete::with_timestamp(a.key.clone(), ts);
    for (i, column) in indexed(a, "COLUMN").into_iter().enumerate() {
        let ts = number(a, &format!("TIMESTAMP.{i}"))?.unwrap_or(ts);
        let (family, qualifier) = parse_column(&column);
        let qualifier = qualifier.unwrap_or_default();
        d = match attribute(a, &format!("TYPE.{i}")).unwrap_or_default() {
            b"Delete" => d.add_column_ts(family, qualifier, ts),
            b"DeleteColumn" => d.add_columns_ts(family, qualifier, ts),
            b"DeleteFamily" => d.add_family_ts(family, ts),
            b"DeleteFamilyVersion" => d.add_family_version(family, ts),
            other => {
                return Err(ServiceError::IllegalArgument(format!(
                    "ferrobaseAdmin delete: TYPE.{i} {:?} is not Delete, DeleteColumn, \
                         DeleteFamily or DeleteFamilyVersion",
                    String::from_utf8_lossy(other)
                )))
            }
        };
    }
    Ok(d)
}

/// A row as `scan_next` answers it.
fn typed_row(r: &RowResult) -> TFerrobaseRow {
    TFerrobaseRow {
        row: r.row().to_vec(),
        cells: r
            .cells
            .iter()
            .map(|c| TFerrobaseCell {
                family: c.family().to_vec(),
                qualifier: c.qualifier().to_vec(),
                timestamp: c.timestamp(),
                cell_type: c.cell_type().code() as i8,
                value: c.value().to_vec(),
            })
            .collect(),
    }
}

/// The scan `scan_open`'s attributes describe (a `get` reads its row with the same ones).
fn scan_of(a: &FerrobaseAdminArgs) -> Result<Scan, ServiceError> {
    let mut scan = Scan::new().reversed(flag(a, "REVERSED", false)?);
    scan.start_row = attribute(a, "STARTROW").unwrap_or_default().to_vec();
    scan.stop_row = attribute(a, "STOPROW").unwrap_or_default().to_vec();
    scan.start_inclusive = flag(a, "START_INCLUSIVE", true)?;
    scan.stop_inclusive = flag(a, "STOP_INCLUSIVE", false)?;
    for c in indexed(a, "COLUMN") {
        scan = match parse_column(&c) {
            (f, None) => scan.add_family(f),
            (f, Some(q)) => scan.add_column(f, q),
        };
    }
    let min = number(a, "MIN_TIMESTAMP")?.unwrap_or(0);
    let max = number(a, "MAX_TIMESTAMP")?.unwrap_or(i64::MAX);
    scan = scan.time_range(TimeRange::new(min, max)?);
    if let Some(v) = number(a, "VERSIONS")? {
        let v = u32::try_from(v).ok().filter(|&v| v > 0).ok_or_else(|| {
            ServiceError::IllegalArgument(format!(
                "ferrobaseAdmin scan_open: VERSIONS {v} is not a positive number"
            ))
        })?;
        scan = scan.max_versions(v);
    }
    scan = scan.raw(flag(a, "RAW", false)?);
    if let Some(f) = attribute(a, "FILTER") {
        let filter = parse_filter(f).map_err(|e| ServiceError::IllegalArgument(e.to_string()))?;
        scan = scan.filter(filter);
    }
    if let Some(b) = number(a, "BATCH")?.filter(|&b| b > 0) {
        scan = scan.batch(usize::try_from(b).unwrap_or(usize::MAX));
    }
    Ok(scan.explain(flag(a, "EXPLAIN", false)?))
}

impl Handler {
    /// `delete` (key = the row): one atomic delete of the row whose markers are attributes
    /// `TYPE.i` (`Delete`, `DeleteColumn`, `DeleteFamily`, `DeleteFamilyVersion`), `COLUMN.i`
    /// (`family` or `family:qualifier`) and `TIMESTAMP.i` (default: attribute `TIMESTAMP`,
    /// default the latest), written as the engine writes an embedded `Delete` with them; none:
    /// the whole row up to `TIMESTAMP`.
    pub(crate) fn extension_delete(&self, user: &str, a: &FerrobaseAdminArgs) -> CallResult {
        open_table_to_mutate(&self.engine, &a.table_name)?;
        let delete = extension_delete_of(a)?;
        self.write(user, &a.table_name, vec![Mutation::Delete(delete)])?;
        Ok(None)
    }

    /// `scan_open`: opens a scanner (answered with its id, closed by Thrift1's `scannerClose`)
    /// of `STARTROW`, `STOPROW` (`START_INCLUSIVE`, default true; `STOP_INCLUSIVE`, default
    /// false), `REVERSED`, columns `COLUMN.i`, `MIN_TIMESTAMP` and `MAX_TIMESTAMP` (exclusive),
    /// `VERSIONS`, `RAW`, `FILTER` (filter language) and `BATCH`.
    /// A partly granted one is refused, not narrowed: its typed rows are not filtered.
    pub(crate) fn extension_scan_open(&self, user: &str, a: &FerrobaseAdminArgs) -> CallResult {
        let scan = scan_of(a)?;
        let executor = Executor::new(&self.engine, self.access(), user);
        self.open_scanner_reporting(
            &executor,
            &a.table_name,
            scan,
            Partial::Refuse,
            ColumnOrder::Map,
            ServiceError::from,
        )
    }

    /// `scan_cost` (key = the scanner id): what a scanner opened with `EXPLAIN` has cost so
    /// far, as an explain line (`name=value ...`); an empty string for a scanner opened
    /// without it.
    pub(crate) fn extension_scan_cost(&self, a: &FerrobaseAdminArgs) -> CallResult {
        let id = scanner_id(a)?;
        let line = self
            .scanner_cost(id)?
            .map(|c| c.to_string())
            .unwrap_or_default();
        Ok(Some(TValue::string(line)))
    }

    /// `get` (table; key = the row): one row read with `scan_open`'s `COLUMN.i`,
    /// `MIN_TIMESTAMP`, `MAX_TIMESTAMP`, `VERSIONS`, `RAW` and `FILTER` attributes, answered as
    /// a `TFerrobaseGet` (the row's typed cells, none when absent) with, when `EXPLAIN` is
    /// true, the read's cost as an explain line.
    pub(crate) fn extension_get(&self, user: &str, a: &FerrobaseAdminArgs) -> CallResult {
        let scan = scan_of(a)?;
        let get = Get {
            row: a.key.clone(),
            spec: scan.spec,
        };
        let table = super::names::table_name(&a.table_name)?;
        let executor = Executor::new(&self.engine, self.access(), user);
        // A typed get: a partly granted read is refused (its typed cells are not narrowed).
        let (row, cost) = if scan.explain {
            match executor.execute(Request::Explain { table, get })? {
                Response::Explained(row, cost) => (row, Some(cost.to_string())),
                other => return Err(ServiceError::Internal(format!("a get answered {other:?}"))),
            }
        } else {
            let request = Request::Get {
                table,
                gets: vec![get],
                partial: Partial::Refuse,
            };
            match executor.execute(request)? {
                Response::Rows(mut rows) => (rows.pop().unwrap_or_default(), None),
                other => return Err(ServiceError::Internal(format!("a get answered {other:?}"))),
            }
        };
        let rows = if row.is_empty() {
            Vec::new()
        } else {
            vec![typed_row(&row)]
        };
        Ok(Some(TFerrobaseGet { rows, cost }.to_value()))
    }

    /// `scan_next` (key = the scanner id): up to `ROWS` (default 1) more rows as a
    /// `list<TFerrobaseRow>`, empty at the end; the scanner's lease and result-size limit
    /// apply as to `scannerGetList`.
    pub(crate) fn extension_scan_next(&self, a: &FerrobaseAdminArgs) -> CallResult {
        let id = scanner_id(a)?;
        let n = number(a, "ROWS")?.unwrap_or(1).max(0);
        let rows = self.scanner_rows(id, usize::try_from(n).unwrap_or(usize::MAX))?;
        let rows: Vec<TFerrobaseRow> = rows.iter().map(typed_row).collect();
        Ok(Some(rows.to_value()))
    }

    /// The answer of a `scan_next` as a list value (for tests of the encoding).
    #[cfg(test)]
    fn typed_rows_value(rows: &[RowResult]) -> crate::thrift::TValue {
        rows.iter().map(typed_row).collect::<Vec<_>>().to_value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrobase_engine::{Bytes, Cell, CellType};

    fn args(op: &str, key: &[u8], attrs: &[(&str, &[u8])]) -> FerrobaseAdminArgs {
        FerrobaseAdminArgs {
            operation: op.into(),
            table_name: b"t".to_vec(),
            key: key.to_vec(),
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.as_bytes().to_vec(), v.to_vec()))
                .collect(),
        }
    }

    #[test]
    fn indexed_attributes_stop_at_the_first_missing_index() {
        let a = args(
            "delete",
            b"r",
            &[
                ("COLUMN.0", b"f:a"),
                ("COLUMN.1", b"f"),
                ("COLUMN.3", b"f:z"),
            ],
        );
        assert_eq!(indexed(&a, "COLUMN"), vec![b"f:a".to_vec(), b"f".to_vec()]);
    }

    #[test]
    fn numbers_and_flags_that_do_not_parse_name_the_attribute() {
        let a = args("scan_open", b"", &[("VERSIONS", b"ten"), ("RAW", b"yes")]);
        let e = number(&a, "VERSIONS").unwrap_err();
        assert!(format!("{e:?}").contains("VERSIONS \\\"ten\\\""), "{e:?}");
        let e = flag(&a, "RAW", false).unwrap_err();
        assert!(format!("{e:?}").contains("RAW"), "{e:?}");
        assert_eq!(number(&a, "ROWS").unwrap(), None);
    }

    #[test]
    fn scan_next_needs_a_decimal_scanner_id() {
        assert_eq!(scan_next_id(&args("scan_next", b"42", &[])), Some(42));
        assert_eq!(scan_next_id(&args("scan_next", b"x", &[])), None);
        assert_eq!(scan_next_id(&args("scan_open", b"42", &[])), None);
    }

    #[test]
    fn typed_rows_carry_each_cell_type_code() {
        let row = Bytes::from_static(b"r");
        let cells = vec![
            Cell::new(
                row.clone(),
                b"f".to_vec(),
                b"a".to_vec(),
                5,
                CellType::Delete,
                Bytes::new(),
            ),
            Cell::new(
                row.clone(),
                b"f".to_vec(),
                b"a".to_vec(),
                5,
                CellType::Put,
                Bytes::from_static(b"v"),
            ),
        ];
        let value = Handler::typed_rows_value(&[RowResult::new(row, cells)]);
        let rows = Vec::<TFerrobaseRow>::from_value(value).unwrap();
        assert_eq!(rows[0].row, b"r");
        let types: Vec<i8> = rows[0].cells.iter().map(|c| c.cell_type).collect();
        assert_eq!(types, vec![8, 4]);
        assert_eq!(rows[0].cells[1].value, b"v");
    }

    /// The outcome of `ferrobaseAdmin` `op` for `user`: the success value or the exception's
    /// message.
    fn admin_as(
        h: &Handler,
        user: &str,
        op: &str,
        key: &[u8],
        attrs: &[(&str, &[u8])],
    ) -> Result<Option<crate::thrift::TValue>, String> {
        let a = args(op, key, attrs);
        let s = crate::thrift::TStruct::new()
            .with(1, crate::thrift::TValue::string(a.operation.clone()))
            .with(2, crate::thrift::TValue::Binary(a.table_name.clone()))
            .with(3, crate::thrift::TValue::Binary(a.key.clone()))
            .with(4, a.attributes.to_value());
        match h.call_as(Some(user), "ferrobaseAdmin", &s) {
            super::super::Outcome::Result(r) => match (r.get(0), r.get(1), r.get(2)) {
                (v, None, None) => Ok(v.cloned()),
                (_, Some(e), _) | (_, _, Some(e)) => Err(match e {
                    crate::thrift::TValue::Struct(e) => match e.get(1) {
                        Some(crate::thrift::TValue::Binary(m)) => {
                            String::from_utf8_lossy(m).into_owned()
                        }
                        other => format!("{other:?}"),
                    },
                    other => format!("{other:?}"),
                }),
            },
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn extension_scanners_are_checked_for_read_and_kept_to_their_owner() {
        use crate::access::{AccessChecker, AclStore, Actions, Scope};
        use ferrobase_engine::{
            ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName,
        };
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let desc = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(ColumnFamilyDescriptor::new("f"))
            .with_family(ColumnFamilyDescriptor::new("g"));
        engine.admin().create_table(desc).unwrap();
        let store = AclStore::open(&engine).unwrap();
        store
            .grant("bob", &Scope::table("t"), Actions::parse("R").unwrap())
            .unwrap();
        let family_only = Scope::Table {
            table: "t".into(),
            family: Some(b"f".to_vec()),
            qualifier: None,
        };
        store
            .grant("carol", &family_only, Actions::parse("R").unwrap())
            .unwrap();
        let checker = AccessChecker::new(std::sync::Arc::new(store), ["admin".to_string()]);
        let h = Handler::new(engine, super::super::HandlerOptions::default()).with_access(checker);
        let raw: &[(&str, &[u8])] = &[("RAW", b"true")];
        let Ok(Some(crate::thrift::TValue::I32(id))) = admin_as(&h, "bob", "scan_open", b"", raw)
        else {
            panic!("bob may read t");
        };
        let id = id.to_string();
        assert!(admin_as(&h, "bob", "scan_next", id.as_bytes(), &[]).is_ok());
        let other = admin_as(&h, "admin", "scan_next", id.as_bytes(), &[]).unwrap_err();
        assert!(other.contains("is not the scanner owner"), "{other}");
        let stranger = admin_as(&h, "dave", "scan_open", b"", raw).unwrap_err();
        assert!(stranger.contains("Insufficient permissions"), "{stranger}");
        // Granted one family of two: the whole-table raw scan is refused, not filtered.
        let partial = admin_as(&h, "carol", "scan_open", b"", raw).unwrap_err();
        assert!(partial.contains("Insufficient permissions"), "{partial}");
        let family: &[(&str, &[u8])] = &[("RAW", b"true"), ("COLUMN.0", b"f")];
        let fam = admin_as(&h, "carol", "scan_open", b"", family);
        assert!(fam.is_ok(), "{fam:?}");
        // A delete's markers need WRITE on their columns.
        let delete: &[(&str, &[u8])] = &[
            ("TYPE.0", b"Delete"),
            ("COLUMN.0", b"f:q"),
            ("TIMESTAMP.0", b"5"),
        ];
        let refused = admin_as(&h, "bob", "delete", b"r", delete).unwrap_err();
        assert!(refused.contains("action=WRITE"), "{refused}");
        assert!(admin_as(&h, "admin", "delete", b"r", delete).is_ok());
    }
}
