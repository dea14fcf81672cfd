//! The whole store as the superuser reads it: every table (system tables included) with its
//! state, descriptor and every cell (RAW, every version, delete markers, timestamps), and the
//! grants `hbase:acl` holds.

use crate::client::{admin_op, args, no_attrs, s, Answer, Client};
use crate::model::Grants;
use ferrobase_gateway::access::acl_table::decode_cell;
use ferrobase_gateway::thrift::hbase::TFerrobaseRow;
use ferrobase_gateway::thrift::{TStruct, TValue, ThriftValue};
use std::collections::{BTreeMap, BTreeSet};

/// One cell: row, family, qualifier, timestamp, type code, value.
pub(crate) type Cell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, i8, Vec<u8>);

/// A table as the superuser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableState {
    pub(crate) enabled: bool,
    /// The families and attributes (`getColumnDescriptors`, `table_attributes`).
    pub(crate) descriptor: String,
    /// The families' names.
    pub(crate) families: BTreeSet<Vec<u8>>,
    pub(crate) cells: BTreeSet<Cell>,
}

/// Everything a user's call could change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Store {
    pub(crate) tables: BTreeMap<String, TableState>,
    /// Each user's grants, as `hbase:acl` holds them (what a restart reads back).
    pub(crate) grants: BTreeMap<String, Grants>,
}

impl Store {
    /// `user`'s grants.
    pub(crate) fn grants_of(&self, user: &str) -> Grants {
        self.grants.get(user).cloned().unwrap_or_default()
    }
}

/// Reads the whole store as the superuser. `candidates`: tables to look for besides those
/// `getTableNames` lists (system tables are never listed). A disabled table is enabled again
/// after its state is recorded, so the next call finds every table on-line.
pub(crate) fn read(admin: &mut Client, candidates: &[&str]) -> Store {
    let mut names: BTreeSet<String> = candidates.iter().map(|c| c.to_string()).collect();
    if let Ok(Some(TValue::List(_, listed))) = admin.call("getTableNames", TStruct::new()) {
        for n in listed {
            if let TValue::Binary(n) = n {
                names.insert(String::from_utf8_lossy(&n).into_owned());
            }
        }
    }
    let mut tables = BTreeMap::new();
    for name in names {
        let Ok(Some(TValue::Map(_, _, families))) =
            admin.call("getColumnDescriptors", args(vec![s(&name)]))
        else {
            continue;
        };
        let families: BTreeSet<Vec<u8>> = families
            .iter()
            .filter_map(|(k, _)| match k {
                TValue::Binary(k) => Some(k.strip_suffix(b":").unwrap_or(k).to_vec()),
                _ => None,
            })
            .collect();
        let attributes = admin_op(admin, "table_attributes", &name, "", &[]);
        let descriptor = format!("{families:?} {attributes:?}");
        let enabled =
            admin.call("isTableEnabled", args(vec![s(&name)])) == Ok(Some(TValue::Bool(true)));
        if !enabled {
            admin
                .call("enableTable", args(vec![s(&name)]))
                .unwrap_or_else(|e| panic!("enabling {name}: {e}"));
        }
        let cells = raw_cells(admin, &name);
        tables.insert(
            name,
            TableState {
                enabled,
                descriptor,
                families,
                cells,
            },
        );
    }
    let grants = grants(admin);
    Store { tables, grants }
}

/// Every cell of `table`, RAW, every version.
fn raw_cells(admin: &mut Client, table: &str) -> BTreeSet<Cell> {
    let id = match admin_op(
        admin,
        "scan_open",
        table,
        "",
        &[("RAW", "true"), ("VERSIONS", "1000")],
    ) {
        Ok(Some(TValue::I32(id))) => id,
        other => panic!("the superuser's scan of {table}: {other:?}"),
    };
    let mut out = BTreeSet::new();
    loop {
        let got = admin_op(
            admin,
            "scan_next",
            table,
            &id.to_string(),
            &[("ROWS", "1000")],
        );
        let rows = typed_rows(&got).unwrap_or_else(|| panic!("scan_next of {table}: {got:?}"));
        if rows.is_empty() {
            break;
        }
        for r in rows {
            for c in r.cells {
                out.insert((
                    r.row.clone(),
                    c.family,
                    c.qualifier,
                    c.timestamp,
                    c.cell_type,
                    c.value,
                ));
            }
        }
    }
    let _ = admin.call("scannerClose", args(vec![TValue::I32(id)]));
    out
}

/// The typed rows of a `scan_next` answer.
pub(crate) fn typed_rows(a: &Answer) -> Option<Vec<TFerrobaseRow>> {
    match a {
        Ok(Some(v)) => Vec::<TFerrobaseRow>::from_value(v.clone()).ok(),
        _ => None,
    }
}

/// Every grant `hbase:acl` holds (its newest cells, decoded as the server decodes them when
/// it opens), by user.
fn grants(admin: &mut Client) -> BTreeMap<String, Grants> {
    let id = match admin
        .call(
            "scannerOpenWithScan",
            args(vec![
                s("hbase:acl"),
                TValue::Struct(TStruct::new()),
                no_attrs(),
            ]),
        )
        .unwrap()
    {
        Some(TValue::I32(id)) => id,
        other => panic!("no scanner: {other:?}"),
    };
    let rows = admin
        .call(
            "scannerGetList",
            args(vec![TValue::I32(id), TValue::I32(100_000)]),
        )
        .unwrap();
    let _ = admin.call("scannerClose", args(vec![TValue::I32(id)]));
    let mut out: BTreeMap<String, Grants> = BTreeMap::new();
    let Some(TValue::List(_, rows)) = rows else {
        return out;
    };
    for r in rows {
        let TValue::Struct(r) = r else { continue };
        let (Some(TValue::Binary(row)), Some(TValue::Map(_, _, cols))) = (r.get(1), r.get(2))
        else {
            continue;
        };
        for (k, v) in cols {
            let (TValue::Binary(k), TValue::Struct(cell)) = (k, v) else {
                continue;
            };
            let Some(TValue::Binary(value)) = cell.get(1) else {
                continue;
            };
            let qualifier = k.strip_prefix(b"l:").expect("family l");
            let (user, scope, actions) =
                decode_cell(row, qualifier, value).expect("a cell of the store's layout");
            out.entry(user).or_default().0.push((scope, actions));
        }
    }
    out
}
