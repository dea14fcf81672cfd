//! Writes run twice: a write-kind operation (check-and-put, increments, appends, batches,
//! deletes) runs once, its tables are rewound to a snapshot the superuser took before it, the
//! superuser changes only cells the user cannot read, and the operation runs again. What the
//! user observed (the answers) and what changed in the part of the store the user can read
//! must be the same both times: a check-and-mutate whose outcome, or an increment whose
//! answer, depends on an unreadable cell shows here.

use crate::client::{admin_op, Client};
use crate::model::Grants;
use crate::ops::{Answers, Op, DATA_TABLES};
use crate::store::{Cell, Store};
use ferrobase_gateway::thrift::hbase::Call;
use ferrobase_gateway::thrift::{TStruct, TValue};
use std::collections::{BTreeMap, BTreeSet};

/// A server-assigned timestamp (the clock, in ms) rather than a seeded one (1000–3000) or
/// `i64::MAX`: two runs of one operation get different ones.
fn is_clock(ts: i64) -> bool {
    (1_000_000_000_000..i64::MAX).contains(&ts)
}

/// The seeded tables a write-kind operation writes (`None`: not a write-kind operation, or
/// one aimed at a table outside the seeded ones, which is not rewound).
pub(crate) fn written_tables(op: &Op) -> Option<Vec<String>> {
    let Op::Call(c) = op else { return None };
    let tables: Vec<Vec<u8>> = match c {
        Call::MutateRow(a) => vec![a.table_name.clone()],
        Call::MutateRowTs(a) => vec![a.table_name.clone()],
        Call::MutateRows(a) => vec![a.table_name.clone()],
        Call::MutateRowsTs(a) => vec![a.table_name.clone()],
        Call::AtomicIncrement(a) => vec![a.table_name.clone()],
        Call::DeleteAll(a) => vec![a.table_name.clone()],
        Call::DeleteAllTs(a) => vec![a.table_name.clone()],
        Call::DeleteAllRow(a) => vec![a.table_name.clone()],
        Call::DeleteAllRowTs(a) => vec![a.table_name.clone()],
        Call::Increment(a) => vec![a.increment.table.clone()],
        Call::IncrementRows(a) => a.increments.iter().map(|i| i.table.clone()).collect(),
        Call::Append(a) => vec![a.append.table.clone()],
        Call::CheckAndPut(a) => vec![a.table_name.clone()],
        Call::FerrobaseAdmin(a)
            if matches!(a.operation.as_str(), "increment" | "append" | "delete") =>
        {
            vec![a.table_name.clone()]
        }
        _ => return None,
    };
    let mut out: Vec<String> = tables
        .iter()
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .collect();
    out.sort();
    out.dedup();
    out.iter()
        .all(|t| DATA_TABLES.iter().any(|(d, _)| d == t))
        .then_some(out)
}

fn snapshot_name(i: usize) -> String {
    format!("acl_twice_{i}")
}

/// The superuser snapshots `tables` (flushing them first).
pub(crate) fn snapshot(admin: &mut Client, tables: &[String]) {
    for (i, t) in tables.iter().enumerate() {
        admin_op(admin, "snapshot", t, &snapshot_name(i), &[])
            .unwrap_or_else(|e| panic!("the superuser's snapshot of {t}: {e}"));
    }
}

/// The superuser puts `tables` back as their snapshots hold them, then deletes the snapshots.
pub(crate) fn rewind(admin: &mut Client, tables: &[String]) {
    for (i, t) in tables.iter().enumerate() {
        let name = snapshot_name(i);
        let step = |admin: &mut Client, op: &str, target: &str, key: &str| {
            admin_op(admin, op, target, key, &[])
                .unwrap_or_else(|e| panic!("the superuser's {op} of {t}: {e}"));
        };
        admin
            .call(
                "disableTable",
                crate::client::args(vec![crate::client::s(t)]),
            )
            .unwrap_or_else(|e| panic!("disabling {t}: {e}"));
        step(admin, "restore_snapshot", "", &name);
        admin
            .call(
                "enableTable",
                crate::client::args(vec![crate::client::s(t)]),
            )
            .unwrap_or_else(|e| panic!("enabling {t}: {e}"));
        step(admin, "delete_snapshot", "", &name);
    }
}

/// The part of `tables` the user can read, with clock timestamps made equal: the readable
/// cells, and every family delete marker (which hides readable cells; the superuser's changes
/// between the runs never write one).
pub(crate) fn readable(
    store: &Store,
    g: &Grants,
    tables: &[String],
) -> BTreeMap<String, BTreeSet<Cell>> {
    tables
        .iter()
        .map(|t| {
            let cells = store
                .tables
                .get(t)
                .map(|s| {
                    s.cells
                        .iter()
                        .filter(|c| {
                            // DeleteFamily (14) and DeleteFamilyVersion (10).
                            g.may_read(t, &c.1, &c.2) || c.4 == 14 || c.4 == 10
                        })
                        .map(|c| {
                            let ts = if is_clock(c.3) { 0 } else { c.3 };
                            (c.0.clone(), c.1.clone(), c.2.clone(), ts, c.4, c.5.clone())
                        })
                        .collect()
                })
                .unwrap_or_default();
            (t.clone(), cells)
        })
        .collect()
}

fn normalize_value(v: &TValue) -> TValue {
    match v {
        TValue::I64(ts) if is_clock(*ts) => TValue::I64(0),
        TValue::List(t, l) => TValue::List(*t, l.iter().map(normalize_value).collect()),
        TValue::Set(t, l) => TValue::Set(*t, l.iter().map(normalize_value).collect()),
        TValue::Map(k, v, m) => TValue::Map(
            *k,
            *v,
            m.iter()
                .map(|(a, b)| (normalize_value(a), normalize_value(b)))
                .collect(),
        ),
        TValue::Struct(s) => TValue::Struct(TStruct {
            fields: s
                .fields
                .iter()
                .map(|(id, f)| (*id, normalize_value(f)))
                .collect(),
        }),
        other => other.clone(),
    }
}

/// The answers with clock timestamps made equal.
pub(crate) fn normalize(answers: &Answers) -> Answers {
    answers
        .iter()
        .map(|a| match a {
            Ok(Some(v)) => Ok(Some(normalize_value(v))),
            other => other.clone(),
        })
        .collect()
}
