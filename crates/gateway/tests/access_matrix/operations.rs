//! `AclMatrix.java`'s operations, in its order, performed on ferrobase as the matrix's user
//! through the door a ferrobase user has for each: Thrift1's methods, Thrift1's
//! `grant`/`revoke(TAccessControlEntity)` for table and namespace grants (as the Rust client
//! and the shell send them), and the `ferrobaseAdmin` extension for what Thrift1 lacks (flush,
//! alter, split, truncate, namespaces, global, family and column grants, `user_permission`).
//! Each answer is written as the recording writes HBase's.

use crate::client::{admin_op, args, columns_of, family, no_attrs, put, s, Answer, Client, DENIED};
use crate::users::VICTIM_NS;
use ferrobase_gateway::thrift::hbase::permission_scope;
use ferrobase_gateway::thrift::{TStruct, TType, TValue};
use std::collections::BTreeSet;

/// The operations, in the recording's order.
pub(crate) const OPERATIONS: [&str; 39] = [
    "get cf:q",
    "getRow",
    "getRowWithColumns cf",
    "get cf",
    "scan",
    "put cf:q",
    "delete cf:q2",
    "deleteRow",
    "increment cf:n",
    "append cf:q",
    "checkAndPut cf:q",
    "getColumnDescriptors",
    "getTableNames",
    "isTableEnabled",
    "getTableRegions",
    "flush",
    "compact",
    "majorCompact",
    "disableTable",
    "enableTable",
    "deleteTable victim",
    "createTable",
    "modifyTable",
    "addColumnFamily cf3",
    "deleteColumnFamily cf3",
    "split at s_USER",
    "grant global",
    "grant @default",
    "grant t",
    "grant t:cf",
    "grant t:cf:q",
    "revoke t",
    "user_permission global",
    "user_permission @default",
    "user_permission t",
    "createNamespace",
    "modifyNamespace victim_ns",
    "deleteNamespace victim_ns",
    "truncate t",
];

/// The user the matrix's users grant to and revoke from; it never acts.
const SOMEONE: &str = "someone";

/// The outcome of an operation ferrobase has no door for: not compared with HBase's
/// (`comparison::known_divergence`).
pub(crate) const NOT_EXPRESSIBLE: &str = "error no such operation in ferrobase";

/// One outcome as the recorded file writes it.
pub(crate) fn recorded(
    answer: &Answer,
    cells: impl FnOnce(&Option<TValue>) -> Option<String>,
) -> String {
    match answer {
        Err(m) => match m.strip_prefix(DENIED) {
            Some(text) => format!("denied {text}"),
            None => format!("error {m}"),
        },
        Ok(v) => match cells(v) {
            Some(c) if !c.is_empty() => format!("allowed {c}"),
            _ => "allowed".to_string(),
        },
    }
}

/// Sorted names joined by `,`.
fn joined(set: BTreeSet<String>) -> String {
    set.into_iter().collect::<Vec<_>>().join(",")
}

/// The operations of `AclMatrix.java`, in its order, as `user` (`c`); `admin`, the superuser,
/// sets the table up around the truncate and drops what the user created.
pub(crate) fn perform(
    c: &mut Client,
    admin: &mut Client,
    user: &str,
) -> Vec<(&'static str, String)> {
    let none = |_: &Option<TValue>| None;
    let mut out = Vec::new();
    let a = c.call("get", args(vec![s("t"), s("r"), s("cf:q"), no_attrs()]));
    let read_cf_q = |v: &Option<TValue>| match v {
        Some(TValue::List(_, cells)) if !cells.is_empty() => Some("cf:q".to_string()),
        _ => None,
    };
    out.push(("get cf:q", recorded(&a, read_cf_q)));
    let a = c.call("getRow", args(vec![s("t"), s("r"), no_attrs()]));
    out.push(("getRow", recorded(&a, |v| Some(joined(columns_of(v))))));
    let a = c.call(
        "getRowWithColumns",
        args(vec![
            s("t"),
            s("r"),
            TValue::List(TType::Binary, vec![s("cf")]),
            no_attrs(),
        ]),
    );
    out.push((
        "getRowWithColumns cf",
        recorded(&a, |v| Some(joined(columns_of(v)))),
    ));
    // A whole family through `get`: its TCells carry no column names, so only their number.
    let a = c.call("get", args(vec![s("t"), s("r"), s("cf"), no_attrs()]));
    out.push((
        "get cf",
        recorded(&a, |v| match v {
            Some(TValue::List(_, cells)) => Some(format!("{} cells", cells.len())),
            _ => None,
        }),
    ));
    let a = c.call(
        "scannerOpen",
        args(vec![
            s("t"),
            s(""),
            TValue::List(TType::Binary, vec![]),
            no_attrs(),
        ]),
    );
    let a = match a {
        Ok(Some(TValue::I32(id))) => {
            let mut seen = BTreeSet::new();
            loop {
                let rows = c
                    .call(
                        "scannerGetList",
                        args(vec![TValue::I32(id), TValue::I32(100)]),
                    )
                    .unwrap();
                let got = columns_of(&rows);
                if matches!(&rows, Some(TValue::List(_, r)) if r.is_empty()) || rows.is_none() {
                    break;
                }
                seen.extend(got);
            }
            c.call("scannerClose", args(vec![TValue::I32(id)])).unwrap();
            Ok(Some(TValue::string(joined(seen))))
        }
        other => other,
    };
    out.push((
        "scan",
        recorded(&a, |v| match v {
            Some(TValue::Binary(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }),
    ));
    let a = c.call(
        "mutateRow",
        args(vec![
            s("t"),
            s("r"),
            TValue::List(TType::Struct, vec![put("cf:q", "v")]),
            no_attrs(),
        ]),
    );
    out.push(("put cf:q", recorded(&a, none)));
    let a = c.call(
        "deleteAll",
        args(vec![s("t"), s("zz"), s("cf:q2"), no_attrs()]),
    );
    out.push(("delete cf:q2", recorded(&a, none)));
    let a = c.call("deleteAllRow", args(vec![s("t"), s("zz"), no_attrs()]));
    out.push(("deleteRow", recorded(&a, none)));
    let a = c.call(
        "atomicIncrement",
        args(vec![s("t"), s("r"), s("cf:n"), TValue::I64(1)]),
    );
    out.push(("increment cf:n", recorded(&a, none)));
    let append = TStruct::new()
        .with(1, s("t"))
        .with(2, s("r"))
        .with(3, TValue::List(TType::Binary, vec![s("cf:q")]))
        .with(4, TValue::List(TType::Binary, vec![s("v")]));
    let a = c.call("append", TStruct::new().with(1, TValue::Struct(append)));
    out.push(("append cf:q", recorded(&a, none)));
    let a = c.call(
        "checkAndPut",
        args(vec![s("t"), s("r"), s("cf:q")])
            .with(5, s("v"))
            .with(6, put("cf:q", "v"))
            .with(7, no_attrs()),
    );
    out.push(("checkAndPut cf:q", recorded(&a, none)));
    let a = c.call("getColumnDescriptors", args(vec![s("t")]));
    out.push(("getColumnDescriptors", recorded(&a, none)));
    let a = c.call("getTableNames", TStruct::new());
    out.push((
        "getTableNames",
        recorded(&a, |v| match v {
            Some(TValue::List(_, names)) => Some(
                names
                    .iter()
                    .filter_map(|n| match n {
                        TValue::Binary(b) => Some(String::from_utf8_lossy(b).into_owned()),
                        _ => None,
                    })
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            _ => None,
        }),
    ));
    let a = c.call("isTableEnabled", args(vec![s("t")]));
    out.push(("isTableEnabled", recorded(&a, none)));
    let a = c.call("getTableRegions", args(vec![s("t")]));
    out.push(("getTableRegions", recorded(&a, none)));
    let a = c.call(
        "ferrobaseAdmin",
        args(vec![s("flush"), s("t"), s(""), no_attrs()]),
    );
    out.push(("flush", recorded(&a, none)));
    let a = c.call("compact", args(vec![s("t")]));
    out.push(("compact", recorded(&a, none)));
    let a = c.call("majorCompact", args(vec![s("t")]));
    out.push(("majorCompact", recorded(&a, none)));
    let a = c.call("disableTable", args(vec![s("t")]));
    out.push(("disableTable", recorded(&a, none)));
    let a = c.call("enableTable", args(vec![s("t")]));
    out.push(("enableTable", recorded(&a, none)));
    let a = c.call("deleteTable", args(vec![s("victim")]));
    out.push(("deleteTable victim", recorded(&a, none)));
    let created = format!("c_{user}");
    let a = c.call(
        "createTable",
        args(vec![
            s(&created),
            TValue::List(TType::Struct, vec![family("cf")]),
        ]),
    );
    out.push(("createTable", recorded(&a, none)));
    if a.is_ok() {
        c.call("disableTable", args(vec![s(&created)])).unwrap();
        c.call("deleteTable", args(vec![s(&created)])).unwrap();
    }
    administration(c, admin, user, &mut out);
    out
}

/// Thrift1's `grant` or `revoke` of READ to [`SOMEONE`] on table `t` or namespace `default`.
fn thrift_grant(c: &mut Client, method: &str, scope: i32) -> Answer {
    let mut entity = TStruct::new()
        .with(1, s(SOMEONE))
        .with(2, TValue::I32(scope))
        .with(4, s("R"));
    entity = if scope == permission_scope::TABLE {
        entity.with(5, s("t"))
    } else {
        entity.with(6, s("default"))
    };
    c.call(method, TStruct::new().with(1, TValue::Struct(entity)))
}

/// `N grants`: how many lines of a `user_permission` answer are grants of users other than the
/// superuser `admin` (`AclMatrix.java` counts those of HBase's listing the same way); nothing
/// for an answer that is not a list.
fn grants_listed(v: &Option<TValue>) -> Option<String> {
    let Some(TValue::List(_, lines)) = v else {
        return None;
    };
    let n = lines
        .iter()
        .filter(|l| !matches!(l, TValue::Binary(b) if b.starts_with(b"admin ")))
        .count();
    Some(format!("{n} grants"))
}

/// The table, namespace and grant administration of the matrix, after `createTable`.
fn administration(
    c: &mut Client,
    admin: &mut Client,
    user: &str,
    out: &mut Vec<(&'static str, String)>,
) {
    let none = |_: &Option<TValue>| None;
    // HBase's modifyTable, as the shell's alter over --connect sends it.
    let a = admin_op(
        c,
        "set_table_attributes",
        "t",
        "",
        &[("MAX_FILESIZE", "1073741824")],
    );
    out.push(("modifyTable", recorded(&a, none)));
    let a = admin_op(c, "put_family", "t", "", &[("NAME", "cf3")]);
    out.push(("addColumnFamily cf3", recorded(&a, none)));
    // The family to delete is there whatever the user before could do, and gone again after.
    admin_op(admin, "put_family", "t", "", &[("NAME", "cf3")]).unwrap();
    let a = admin_op(c, "delete_family", "t", "cf3", &[]);
    out.push(("deleteColumnFamily cf3", recorded(&a, none)));
    // Still there only when the user was refused.
    let _ = admin_op(admin, "delete_family", "t", "cf3", &[]);
    let a = admin_op(c, "split", "t", &format!("s_{user}"), &[]);
    out.push(("split at s_USER", recorded(&a, none)));
    let grant = [("USER", SOMEONE), ("ACTIONS", "R")];
    let a = admin_op(c, "grant", "", "", &grant);
    out.push(("grant global", recorded(&a, none)));
    let a = thrift_grant(c, "grant", permission_scope::NAMESPACE);
    out.push(("grant @default", recorded(&a, none)));
    let a = thrift_grant(c, "grant", permission_scope::TABLE);
    out.push(("grant t", recorded(&a, none)));
    let a = admin_op(c, "grant", "t", "", &[grant[0], grant[1], ("FAMILY", "cf")]);
    out.push(("grant t:cf", recorded(&a, none)));
    let column = [grant[0], grant[1], ("FAMILY", "cf"), ("QUALIFIER", "q")];
    let a = admin_op(c, "grant", "t", "", &column);
    out.push(("grant t:cf:q", recorded(&a, none)));
    let a = thrift_grant(c, "revoke", permission_scope::TABLE);
    out.push(("revoke t", recorded(&a, none)));
    for (operation, target) in [
        ("user_permission global", ""),
        ("user_permission @default", "@default"),
        ("user_permission t", "t"),
    ] {
        let a = admin_op(c, "user_permission", target, "", &[]);
        out.push((operation, recorded(&a, grants_listed)));
    }
    let created = format!("n_{user}");
    let a = admin_op(c, "create_namespace", &created, "", &[]);
    out.push(("createNamespace", recorded(&a, none)));
    if a.is_ok() {
        admin_op(admin, "drop_namespace", &created, "", &[]).unwrap();
    }
    // A namespace has no properties in ferrobase: nothing to modify.
    out.push(("modifyNamespace victim_ns", NOT_EXPRESSIBLE.to_string()));
    let a = admin_op(c, "drop_namespace", VICTIM_NS, "", &[]);
    out.push(("deleteNamespace victim_ns", recorded(&a, none)));
    // HBase truncates a disabled table only: the superuser disables t first (and enables it
    // again after a refusal), so the outcome is the truncate's check.
    admin.call("disableTable", args(vec![s("t")])).unwrap();
    let a = admin_op(c, "truncate_preserve", "t", "", &[]);
    out.push(("truncate t", recorded(&a, none)));
    if admin.call("isTableEnabled", args(vec![s("t")])) == Ok(Some(TValue::Bool(false))) {
        admin.call("enableTable", args(vec![s("t")])).unwrap();
    }
}
