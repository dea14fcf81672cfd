//! Each grant against ferrobase's table of checks (docs/design/security.md, "Checks"): for
//! each action alone at each scope, which Thrift calls are allowed, what partly granted reads
//! return, who may use a scanner and which tables are listed.

use crate::client::{args, columns_of, family, no_attrs, put, s, Answer, Gateway, DENIED};
use crate::users::{grant, reset, At, SCOPES};
use ferrobase_gateway::access::Action;
use ferrobase_gateway::thrift::{TStruct, TType, TValue};
use std::collections::BTreeSet;

/// What a call may do for a user.
#[derive(Debug, PartialEq)]
enum Expect {
    Allowed,
    Denied,
}

use Expect::*;

fn allowed(yes: bool) -> Expect {
    if yes {
        Allowed
    } else {
        Denied
    }
}

/// Allowed unless refused for access (another failure means the check let it through).
fn outcome(name: &str, user: &str, a: &Answer) -> Expect {
    match a {
        Err(m) if m.starts_with(DENIED) => {
            assert!(
                m.contains(&format!("user '{user}'")) || m.contains(&format!("user={user}")),
                "{name}: {m}"
            );
            Denied
        }
        _ => Allowed,
    }
}

#[test]
fn each_grant_allows_exactly_what_hbase_allows() {
    let gw = Gateway::start();
    let mut admin = gw.client("admin");
    admin.create_table("t", &["cf", "cf2"]).unwrap();
    let failures = std::cell::RefCell::new(Vec::new());
    for at in SCOPES {
        for action in Action::ALL {
            let user = format!("u_{at:?}_{}", action.code()).to_lowercase();
            grant(&mut admin, &user, at, &action.code().to_string());
            reset(&mut admin);
            let mut c = gw.client(&user);
            let (r, w, c_, a_) = (
                action == Action::Read,
                action == Action::Write,
                action == Action::Create,
                action == Action::Admin,
            );
            let table_wide = matches!(at, At::Global | At::Namespace | At::Table);
            let ns_wide = matches!(at, At::Global | At::Namespace);
            let check = |name: &str, expect: Expect, answer: Answer| {
                let got = outcome(name, &user, &answer);
                if got != expect {
                    failures.borrow_mut().push(format!(
                        "{user} {name}: expected {expect:?}, got {answer:?}"
                    ));
                }
                answer
            };
            // Reads: R covering the cells; a family or qualifier grant reads only its cells.
            let _ = check(
                "get cf:q",
                allowed(r),
                c.call("get", args(vec![s("t"), s("r"), s("cf:q"), no_attrs()])),
            );
            let row = check(
                "getRow",
                allowed(r),
                c.call("getRow", args(vec![s("t"), s("r"), no_attrs()])),
            );
            if r {
                let want: BTreeSet<String> = match at {
                    At::Family => ["cf:q", "cf:q2"].map(String::from).into(),
                    At::Qualifier => ["cf:q".to_string()].into(),
                    _ => ["cf:q", "cf:q2", "cf2:q"].map(String::from).into(),
                };
                let mut got = columns_of(row.as_ref().unwrap());
                got.remove("cf:n"); // the counter of earlier users' increments
                if got != want {
                    failures
                        .borrow_mut()
                        .push(format!("{user} getRow read {got:?}, expected {want:?}"));
                }
            }
            let scanner = check(
                "scannerOpen",
                allowed(r),
                c.call(
                    "scannerOpen",
                    args(vec![
                        s("t"),
                        s(""),
                        TValue::List(TType::Binary, vec![]),
                        no_attrs(),
                    ]),
                ),
            );
            if let Ok(Some(TValue::I32(id))) = scanner {
                let rows = c
                    .call(
                        "scannerGetList",
                        args(vec![TValue::I32(id), TValue::I32(10)]),
                    )
                    .unwrap();
                let got = columns_of(&rows);
                assert!(
                    !got.is_empty() && (table_wide || !got.contains("cf2:q")),
                    "{got:?}"
                );
                // Another user may not use the scanner.
                let other = admin.call("scannerGet", args(vec![TValue::I32(id)]));
                assert!(
                    matches!(&other, Err(m) if m.contains("User 'admin' is not the scanner owner!")),
                    "{other:?}"
                );
                c.call("scannerClose", args(vec![TValue::I32(id)])).unwrap();
            }
            // Writes: W covering every written cell.
            let _ = check(
                "mutateRow cf:q",
                allowed(w),
                c.call(
                    "mutateRow",
                    args(vec![
                        s("t"),
                        s("r"),
                        TValue::List(TType::Struct, vec![put("cf:q", "v")]),
                        no_attrs(),
                    ]),
                ),
            );
            // An increment or append reads the cell it changes: READ and WRITE (stricter than
            // HBase, which checks WRITE only), so one action never does.
            let _ = check(
                "atomicIncrement cf:n",
                Denied,
                c.call(
                    "atomicIncrement",
                    args(vec![s("t"), s("r"), s("cf:n"), TValue::I64(1)]),
                ),
            );
            // Increment/Append with a TTL through the extension: as Thrift1's, RW on the column.
            let ttl_attrs = |operand: &str, value: &str| {
                TValue::Map(
                    TType::Binary,
                    TType::Binary,
                    vec![
                        (s("COLUMN"), s("cf:n")),
                        (s(operand), s(value)),
                        (s("TTL"), s("600000")),
                    ],
                )
            };
            let _ = check(
                "ferrobaseAdmin increment cf:n",
                Denied,
                c.call(
                    "ferrobaseAdmin",
                    args(vec![
                        s("increment"),
                        s("t"),
                        s("r"),
                        ttl_attrs("AMOUNT", "1"),
                    ]),
                ),
            );
            let _ = check(
                "ferrobaseAdmin append cf:n",
                Denied,
                c.call(
                    "ferrobaseAdmin",
                    args(vec![s("append"), s("t"), s("r2"), ttl_attrs("VALUE", "x")]),
                ),
            );
            let _ = check(
                "deleteAllRow",
                allowed(w && table_wide),
                c.call("deleteAllRow", args(vec![s("t"), s("zz"), no_attrs()])),
            );
            // checkAndPut needs READ and WRITE on the compared column: one action never does.
            let _ = check(
                "checkAndPut",
                Denied,
                c.call(
                    "checkAndPut",
                    args(vec![
                        s("t"),
                        s("r"),
                        s("cf:q"),
                        TValue::Binary(b"v".to_vec()),
                        put("cf:q", "v"),
                        no_attrs(),
                    ])
                    .with(5, TValue::string("v"))
                    .with(6, put("cf:q", "v"))
                    .with(7, no_attrs()),
                ),
            );
            // Table administration: ADMIN or CREATE on the table.
            let ddl = (a_ || c_) && table_wide;
            let _ = check(
                "getColumnDescriptors",
                allowed(ddl),
                c.call("getColumnDescriptors", args(vec![s("t")])),
            );
            let _ = check(
                "ferrobaseAdmin table_attributes",
                allowed(ddl),
                c.call("ferrobaseAdmin", args(vec![s("table_attributes"), s("t")])),
            );
            let _ = check(
                "ferrobaseAdmin family_attributes",
                allowed(ddl),
                c.call("ferrobaseAdmin", args(vec![s("family_attributes"), s("t")])),
            );
            // modifyTable: a table attribute set and unset (the shell's alter over --connect).
            let _ = check(
                "ferrobaseAdmin set_table_attributes",
                allowed(ddl),
                c.call(
                    "ferrobaseAdmin",
                    args(vec![
                        s("set_table_attributes"),
                        s("t"),
                        s(""),
                        TValue::Map(
                            TType::Binary,
                            TType::Binary,
                            vec![(s("MAX_FILESIZE"), s("1073741824"))],
                        ),
                    ]),
                ),
            );
            let _ = check(
                "ferrobaseAdmin unset_table_attribute",
                allowed(ddl),
                c.call(
                    "ferrobaseAdmin",
                    args(vec![s("unset_table_attribute"), s("t"), s("MAX_FILESIZE")]),
                ),
            );
            let _ = check(
                "compact",
                allowed(ddl),
                c.call("compact", args(vec![s("t")])),
            );
            let _ = check(
                "disableTable",
                allowed(ddl),
                c.call("disableTable", args(vec![s("t")])),
            );
            let _ = check(
                "enableTable",
                allowed(ddl),
                c.call("enableTable", args(vec![s("t")])),
            );
            let _ = check(
                "deleteTable victim",
                allowed((a_ || c_) && ns_wide),
                c.call("deleteTable", args(vec![s("victim")])),
            );
            // createTable: ADMIN or CREATE on the namespace.
            let created = format!("c_{user}");
            let answer = check(
                "createTable",
                allowed((a_ || c_) && ns_wide),
                c.call(
                    "createTable",
                    args(vec![
                        s(&created),
                        TValue::List(TType::Struct, vec![family("cf")]),
                    ]),
                ),
            );
            if answer.is_ok() {
                // The creator owns its table: it may write and drop it.
                c.call(
                    "mutateRow",
                    args(vec![
                        s(&created),
                        s("r"),
                        TValue::List(TType::Struct, vec![put("cf:q", "v")]),
                        no_attrs(),
                    ]),
                )
                .unwrap();
                c.call("disableTable", args(vec![s(&created)])).unwrap();
                c.call("deleteTable", args(vec![s(&created)])).unwrap();
            }
            // split: ADMIN on the table; namespaces: global ADMIN; grants: ADMIN at the scope.
            // A user with CREATE on t altered it above and so became its owner, with every
            // action on it (HBase's postModifyTable).
            let owner = ddl;
            let _ = check(
                "split",
                allowed((a_ || owner) && table_wide),
                c.call(
                    "ferrobaseAdmin",
                    args(vec![s("split"), s("t"), s(""), no_attrs()]),
                ),
            );
            let _ = check(
                "create_namespace",
                allowed(a_ && at == At::Global),
                c.call(
                    "ferrobaseAdmin",
                    args(vec![s("create_namespace"), s(&created), s(""), no_attrs()]),
                ),
            );
            let entity = TStruct::new()
                .with(1, s("someone"))
                .with(2, TValue::I32(0))
                .with(4, s("R"))
                .with(5, s("t"));
            let _ = check(
                "grant on t",
                allowed((a_ || owner) && table_wide),
                c.call("grant", TStruct::new().with(1, TValue::Struct(entity))),
            );
            // Every grant reaching t lists it; a grant on t alone lists nothing else.
            let Ok(Some(TValue::List(_, names))) = c.call("getTableNames", TStruct::new()) else {
                panic!("{user}: getTableNames");
            };
            assert!(names.contains(&s("t")), "{user}: {names:?}");
            if !ns_wide {
                assert_eq!(names, [s("t")], "{user}");
            }
        }
    }
    let failures = failures.into_inner();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
