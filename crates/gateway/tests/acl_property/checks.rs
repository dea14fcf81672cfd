//! Each operation's checks against the oracle, and the superuser's part of the run: the seeded
//! store, new grants for each epoch, the grants listed around a restart, and the changes of
//! unreadable cells between a read's two runs.

use crate::client::{admin_op, args, s, Answer, Client};
use crate::gateway::{Gateway, ADMIN};
use crate::gen::Gen;
use crate::model::{namespace_of, Grants, SYSTEM};
use crate::ops::{
    admin_args, call, column, Op, Rng, ATTACKER, CANDIDATES, DATA_TABLES, NAMESPACES, QUALIFIERS,
    ROWS, SYSTEM_TABLES,
};
use crate::store::{typed_rows, Store};
use ferrobase_gateway::access::{Action, Actions, Scope};
use ferrobase_gateway::thrift::hbase::service::{
    CreateTableArgs, FerrobaseAdminArgs, MutateRowArgs, MutateRowTsArgs,
};
use ferrobase_gateway::thrift::hbase::{Call, ColumnDescriptor, Mutation};
use ferrobase_gateway::thrift::TValue;
use std::collections::{BTreeMap, BTreeSet};

/// The superuser creates `ns1` and the data tables, each cell in two versions.
pub(crate) fn seed_store(admin: &mut Client) {
    let _ = admin_op(admin, "create_namespace", "ns1", "", &[]);
    for (table, families) in DATA_TABLES {
        if admin
            .call("getColumnDescriptors", args(vec![s(table)]))
            .is_ok()
        {
            continue;
        }
        let fams = families
            .iter()
            .map(|f| ColumnDescriptor {
                name: column(f, b""),
                max_versions: 5,
                ..ColumnDescriptor::default()
            })
            .collect();
        let create = Call::CreateTable(CreateTableArgs {
            table_name: table.as_bytes().to_vec(),
            column_families: fams,
        });
        call(admin, &create).unwrap_or_else(|e| panic!("creating {table}: {e}"));
        for (i, row) in ROWS.iter().enumerate() {
            for ts in [1000, 1100] {
                let mutations = families
                    .iter()
                    .flat_map(|f| QUALIFIERS.iter().map(move |q| (f, q)))
                    .map(|(f, q)| Mutation {
                        is_delete: false,
                        column: column(f, q).into(),
                        value: [b"v".as_slice(), row, f, q, &[i as u8]].concat().into(),
                        write_to_wal: true,
                    })
                    .collect();
                let put = Call::MutateRowTs(MutateRowTsArgs {
                    table_name: table.as_bytes().to_vec(),
                    row: row.to_vec(),
                    mutations,
                    timestamp: ts + i as i64,
                    attributes: vec![],
                });
                call(admin, &put).unwrap();
            }
        }
    }
}

/// A scope's `ferrobaseAdmin` target and attributes.
fn scope_target(scope: &Scope) -> (String, Vec<(&'static str, Vec<u8>)>) {
    match scope {
        Scope::Global => (String::new(), vec![]),
        Scope::Namespace(ns) => (format!("@{ns}"), vec![]),
        Scope::Table {
            table,
            family,
            qualifier,
        } => {
            let mut attrs = vec![];
            if let Some(f) = family {
                attrs.push(("FAMILY", f.clone()));
            }
            if let Some(q) = qualifier {
                attrs.push(("QUALIFIER", q.clone()));
            }
            (table.clone(), attrs)
        }
    }
}

fn grant_call(
    op: &str,
    user: &str,
    target: &str,
    attrs: &[(&'static str, Vec<u8>)],
    actions: &str,
) -> Call {
    let mut a: Vec<(&str, &[u8])> = attrs.iter().map(|(k, v)| (*k, v.as_slice())).collect();
    a.push(("USER", user.as_bytes()));
    a.push(("ACTIONS", actions.as_bytes()));
    Call::FerrobaseAdmin(admin_args(op, target, b"", &a))
}

/// A new epoch: the seeded tables back, every grant of the users taken away, and new random
/// grants given by the superuser (1–4 to the attacker, 0–2 to `bob`).
pub(crate) fn new_grants(admin: &mut Client, rng: &mut Rng, store: &Store) {
    seed_store(admin);
    for (user, grants) in &store.grants {
        if user == ADMIN {
            continue;
        }
        for (scope, _) in &grants.0 {
            let (target, attrs) = scope_target(scope);
            let _ = call(admin, &grant_call("revoke", user, &target, &attrs, "RWXCA"));
        }
    }
    // Partly granted reads are where filters and batches can see past the grants: most epochs
    // give the attacker one on a seeded table.
    if rng.chance(70) {
        let (table, families) = *rng.pick(DATA_TABLES);
        let family = *rng.pick(families);
        let mut attrs = vec![("FAMILY", family.to_vec())];
        if rng.chance(40) {
            attrs.push(("QUALIFIER", rng.pick(QUALIFIERS).to_vec()));
        }
        let actions = *rng.pick(&["R", "RW"]);
        let _ = call(
            admin,
            &grant_call("grant", ATTACKER, table, &attrs, actions),
        );
    }
    for (user, n) in [(ATTACKER, rng.below(4)), ("bob", rng.below(3))] {
        for _ in 0..n {
            let mut g = Gen { rng };
            let (target, attrs) = g.scope();
            let actions = g.actions();
            let _ = call(admin, &grant_call("grant", user, &target, &attrs, &actions));
        }
    }
}

/// Every grant as the superuser lists it at every scope (`user_permission`).
pub(crate) fn every_grant_listed(gw: &Gateway) -> Vec<(String, Answer)> {
    let mut admin = gw.client(ADMIN);
    let mut targets = vec![String::new()];
    targets.extend(NAMESPACES.iter().map(|n| format!("@{n}")));
    targets.extend(
        CANDIDATES
            .iter()
            .chain(SYSTEM_TABLES)
            .map(|t| t.to_string()),
    );
    targets
        .into_iter()
        .map(|t| {
            let a = admin_op(&mut admin, "user_permission", &t, "", &[]);
            (t, a)
        })
        .collect()
}

/// The grants of a store as a map per user and scope.
fn grant_map(store: &Store) -> BTreeMap<(String, Scope), Actions> {
    let mut m = BTreeMap::new();
    for (user, grants) in &store.grants {
        for (scope, actions) in &grants.0 {
            m.insert((user.clone(), scope.clone()), *actions);
        }
    }
    m
}

/// Everything that changed between `before` and `after` is something `grants` allow.
pub(crate) fn changes(op: &Op, g: &Grants, before: &Store, after: &Store) -> Result<(), String> {
    let names: BTreeSet<&String> = before.tables.keys().chain(after.tables.keys()).collect();
    for name in names {
        let ns = namespace_of(name);
        match (before.tables.get(name), after.tables.get(name)) {
            (None, Some(_)) if !g.may_create_in(ns) => {
                return Err(format!(
                    "table {name} was created without CREATE or ADMIN on {ns}"
                ))
            }
            (Some(_), None) if !g.may_alter(name) => {
                return Err(format!(
                    "table {name} was dropped without CREATE or ADMIN on it"
                ))
            }
            (Some(b), Some(a)) => {
                if (b.descriptor != a.descriptor || b.enabled != a.enabled) && !g.may_alter(name) {
                    return Err(format!(
                        "table {name}'s descriptor or state changed without CREATE or ADMIN:\n  \
                         before {} {}\n  after  {} {}",
                        b.enabled, b.descriptor, a.enabled, a.descriptor
                    ));
                }
                if name == "hbase:acl" {
                    continue; // as grants, below
                }
                for c in b.cells.symmetric_difference(&a.cells) {
                    let removed = b.cells.contains(c);
                    if !(g.may_write(name, &c.1, &c.2) || removed && g.may_alter(name)) {
                        return Err(format!(
                            "cell {} of {name} was {} without WRITE on {}",
                            show_cell(c),
                            if removed { "removed" } else { "added" },
                            String::from_utf8_lossy(&column(&c.1, &c.2)),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    let (gb, ga) = (grant_map(before), grant_map(after));
    let keys: BTreeSet<&(String, Scope)> = gb.keys().chain(ga.keys()).collect();
    for key in keys {
        let (was, now) = (gb.get(key), ga.get(key));
        if was == now {
            continue;
        }
        let (user, scope) = key;
        let granted = user != ADMIN && g.admin_at(scope);
        let owner = match scope {
            Scope::Table {
                table,
                family: None,
                qualifier: None,
            } => {
                now == Some(&Actions::all())
                    && after.tables.contains_key(table)
                    && namespace_of(table) != SYSTEM
                    && (g.may_alter(table)
                        || !before.tables.contains_key(table)
                            && g.may_create_in(namespace_of(table)))
            }
            _ => false,
        };
        let gone_with = now.is_none()
            && match scope {
                Scope::Table { table, .. } => {
                    !after.tables.contains_key(table) && g.may_alter(table)
                }
                Scope::Namespace(_) => g.global_admin(),
                Scope::Global => false,
            };
        if !(granted || owner || gone_with) {
            return Err(format!(
                "the grant of {user} at {scope} changed from {was:?} to {now:?} without ADMIN \
                 there ({op:?})"
            ));
        }
    }
    Ok(())
}

fn show_cell(c: &crate::store::Cell) -> String {
    format!(
        "{:?}/{}/{}/{}",
        String::from_utf8_lossy(&c.0),
        String::from_utf8_lossy(&column(&c.1, &c.2)),
        c.3,
        c.4
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn split_column(c: &[u8]) -> (&[u8], Option<&[u8]>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (&c[..i], Some(&c[i + 1..])),
        None => (c, None),
    }
}

/// The cells of TRowResults are all readable.
fn rows_readable(g: &Grants, table: &str, a: &Answer) -> Result<(), String> {
    let Ok(Some(TValue::List(_, rows))) = a else {
        return Ok(());
    };
    for r in rows {
        let TValue::Struct(r) = r else { continue };
        let mut names = Vec::new();
        if let Some(TValue::Map(_, _, cols)) = r.get(2) {
            names.extend(cols.iter().filter_map(|(k, _)| match k {
                TValue::Binary(k) => Some(k.clone()),
                _ => None,
            }));
        }
        if let Some(TValue::List(_, cols)) = r.get(3) {
            names.extend(cols.iter().filter_map(|c| match c {
                TValue::Struct(c) => match c.get(1) {
                    Some(TValue::Binary(n)) => Some(n.clone()),
                    _ => None,
                },
                _ => None,
            }));
        }
        for n in names {
            let (f, q) = split_column(&n);
            if !g.may_read(table, f, q.unwrap_or_default()) {
                return Err(format!(
                    "a read of {table} returned {} unreadable to the user",
                    text(&n)
                ));
            }
        }
    }
    Ok(())
}

fn table_of(c: &Call) -> Option<Vec<u8>> {
    Some(match c {
        Call::Get(a) => a.table_name.clone(),
        Call::GetVer(a) => a.table_name.clone(),
        Call::GetVerTs(a) => a.table_name.clone(),
        Call::GetRow(a) => a.table_name.clone(),
        Call::GetRowTs(a) => a.table_name.clone(),
        Call::GetRows(a) => a.table_name.clone(),
        Call::GetRowsTs(a) => a.table_name.clone(),
        Call::GetRowWithColumns(a) => a.table_name.clone(),
        Call::GetRowWithColumnsTs(a) => a.table_name.clone(),
        Call::GetRowsWithColumns(a) => a.table_name.clone(),
        Call::GetRowsWithColumnsTs(a) => a.table_name.clone(),
        Call::ScannerOpenWithScan(a) => a.table_name.clone(),
        Call::ScannerOpen(a) => a.table_name.clone(),
        Call::ScannerOpenWithStop(a) => a.table_name.clone(),
        Call::ScannerOpenWithPrefix(a) => a.table_name.clone(),
        Call::ScannerOpenTs(a) => a.table_name.clone(),
        Call::ScannerOpenWithStopTs(a) => a.table_name.clone(),
        Call::GetColumnDescriptors(a) => a.table_name.clone(),
        Call::Compact(a) => a.table_name_or_region_name.clone(),
        Call::MajorCompact(a) => a.table_name_or_region_name.clone(),
        Call::FerrobaseAdmin(a) => a.table_name.clone(),
        _ => return None,
    })
}

/// ADMIN or CREATE on the table (HBase's check of a descriptor read, flush and compaction).
fn admin_or_create(g: &Grants, table: &str) -> bool {
    g.covers(Action::Admin, table, None, None) || g.covers(Action::Create, table, None, None)
}

/// Some grant of any action reaches `table` (HBase's `postGetTableNames`).
fn reaches(g: &Grants, table: &str) -> bool {
    g.0.iter().any(|(scope, _)| match scope {
        Scope::Global => true,
        Scope::Namespace(ns) => ns == namespace_of(table),
        Scope::Table { table: t, .. } => t == table,
    })
}

/// What a call answered is something the user may see.
pub(crate) fn answers(op: &Op, g: &Grants, answers: &[Answer]) -> Result<(), String> {
    let ok = |i: usize| answers.get(i).is_some_and(Result::is_ok);
    match op {
        Op::Hijack { .. } => match answers.first() {
            None => Ok(()),
            Some(Err(m)) if m.contains("is not the scanner owner") => Ok(()),
            Some(a) => Err(format!("another user's scanner answered {a:?}")),
        },
        Op::Sequence(_) => Ok(()),
        Op::Scan { open, .. } => {
            let table = text(&table_of(open).unwrap_or_default());
            answers.iter().try_for_each(|a| rows_readable(g, &table, a))
        }
        Op::ExtScan { open, .. } => {
            let table = text(&open.table_name);
            for a in answers.iter().skip(1) {
                for r in typed_rows(a).unwrap_or_default() {
                    for c in r.cells {
                        if !g.may_read(&table, &c.family, &c.qualifier) {
                            return Err(format!(
                                "scan_next of {table} returned {} unreadable to the user",
                                text(&column(&c.family, &c.qualifier))
                            ));
                        }
                    }
                }
            }
            Ok(())
        }
        Op::Call(c) => {
            let table = text(&table_of(c).unwrap_or_default());
            let answer = &answers[0];
            match c {
                Call::Get(a) => cell_answer(g, &table, &a.column, answer),
                Call::GetVer(a) => cell_answer(g, &table, &a.column, answer),
                Call::GetVerTs(a) => cell_answer(g, &table, &a.column, answer),
                Call::GetRow(_)
                | Call::GetRowTs(_)
                | Call::GetRows(_)
                | Call::GetRowsTs(_)
                | Call::GetRowWithColumns(_)
                | Call::GetRowWithColumnsTs(_)
                | Call::GetRowsWithColumns(_)
                | Call::GetRowsWithColumnsTs(_) => rows_readable(g, &table, answer),
                Call::GetColumnDescriptors(_) | Call::Compact(_) | Call::MajorCompact(_)
                    if ok(0) && !admin_or_create(g, &table) =>
                {
                    Err(format!(
                        "{} of {table} ran without ADMIN or CREATE on it",
                        c.method()
                    ))
                }
                Call::GetTableNames(_) | Call::GetTableNamesWithIsTableEnabled(_) => {
                    let names: Vec<String> = match answer {
                        Ok(Some(TValue::List(_, l))) => l.iter().filter_map(bin).collect(),
                        Ok(Some(TValue::Map(_, _, m))) => {
                            m.iter().filter_map(|(k, _)| bin(k)).collect()
                        }
                        _ => vec![],
                    };
                    match names.iter().find(|n| *n == "hbase:acl" || !reaches(g, n)) {
                        Some(n) => Err(format!(
                            "{} listed {n}, which no grant of the user reaches",
                            c.method()
                        )),
                        None => Ok(()),
                    }
                }
                Call::FerrobaseAdmin(a) if ok(0) => admin_answer(g, a),
                _ => Ok(()),
            }
        }
    }
}

fn bin(v: &TValue) -> Option<String> {
    match v {
        TValue::Binary(b) => Some(text(b)),
        _ => None,
    }
}

/// The cells of a `get`: the column's, readable (a family's: the whole family).
fn cell_answer(g: &Grants, table: &str, column: &[u8], a: &Answer) -> Result<(), String> {
    let Ok(Some(TValue::List(_, cells))) = a else {
        return Ok(());
    };
    if cells.is_empty() {
        return Ok(());
    }
    let readable = match split_column(column) {
        (f, Some(q)) => g.may_read(table, f, q),
        (f, None) => g.may_read_family(table, f),
    };
    if readable {
        Ok(())
    } else {
        Err(format!(
            "get of {} in {table} answered cells the user may not read",
            text(column)
        ))
    }
}

/// An extension operation that answered: the permission it needs.
fn admin_answer(g: &Grants, a: &FerrobaseAdminArgs) -> Result<(), String> {
    let target = text(&a.table_name);
    let allowed = match a.operation.as_str() {
        "create_namespace" | "drop_namespace" => g.global_admin(),
        "flush" | "table_attributes" | "family_attributes" => admin_or_create(g, &target),
        "split" => g.covers(Action::Admin, &target, None, None),
        "slow_log" | "server_status" => g.global_admin(),
        // A typed get of one column (or family) that answered: READ on all of it.
        "get" => {
            let column = a
                .attributes
                .iter()
                .find(|(k, _)| k == b"COLUMN.0")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            match split_column(&column) {
                (f, Some(q)) => g.may_read(&target, f, q),
                (f, None) => g.may_read_family(&target, f),
            }
        }
        "user_permission" => {
            let attr = |k: &str| {
                a.attributes
                    .iter()
                    .find(|(key, _)| key == k.as_bytes())
                    .map(|(_, v)| v.clone())
                    .filter(|v| !v.is_empty())
            };
            let scope = if target.is_empty() {
                Scope::Global
            } else if let Some(ns) = target.strip_prefix('@') {
                Scope::Namespace(ns.into())
            } else {
                let family = attr("FAMILY");
                Scope::Table {
                    table: target.clone(),
                    qualifier: family.as_ref().and(attr("QUALIFIER")),
                    family,
                }
            };
            g.admin_at(&scope)
        }
        _ => true,
    };
    if allowed {
        Ok(())
    } else {
        Err(format!(
            "ferrobaseAdmin {} of {target:?} ran without the permission it needs",
            a.operation
        ))
    }
}

/// The superuser changes cells the user may not read (puts at the seeded timestamps, new rows,
/// deletes) in every data table, so that a read run again sees a store that differs only there.
/// Half the changes aim at the cells `op` names (its rows and columns: the cell an increment
/// reads, a check-and-put's compared column), with values an increment can read as a number.
pub(crate) fn perturb_unreadable(
    admin: &mut Client,
    rng: &mut Rng,
    store: &Store,
    g: &Grants,
    op: &Op,
) {
    let tables: Vec<(String, Vec<Vec<u8>>)> = store
        .tables
        .iter()
        .filter(|(t, _)| namespace_of(t) != SYSTEM)
        .map(|(t, s)| (t.clone(), s.families.iter().cloned().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    if tables.is_empty() {
        return;
    }
    let named: Vec<NamedCell> = named_cells(op)
        .into_iter()
        .filter(|(t, _, f, q)| {
            tables.iter().any(|(n, fs)| n == t && fs.contains(f)) && !g.may_read(t, f, q)
        })
        .collect();
    let mut rows: Vec<&[u8]> = ROWS.to_vec();
    rows.extend([&b"r0"[..], b"r15", b"r5", b"zzz"]);
    let mut done = 0;
    for attempt in 0..60 {
        if done == 8 {
            break;
        }
        let aimed = !named.is_empty() && rng.chance(50);
        let (table, row, family, qualifier) = if aimed {
            rng.pick(&named).clone()
        } else {
            let (table, families) = rng.pick(&tables).clone();
            let family = rng.pick(&families).clone();
            let qualifier = rng.pick(QUALIFIERS).to_vec();
            // Half the changes go to rows that did not exist (between the seeded rows, so that
            // a scan meets them midway): rows holding only cells the user cannot read.
            let row = if attempt % 2 == 0 {
                let base = *rng.pick(ROWS);
                [base, &b"~"[..], &rng.next().to_le_bytes()[..3]].concat()
            } else {
                rng.pick(&rows).to_vec()
            };
            (table, row, family, qualifier)
        };
        if g.may_read(&table, &family, &qualifier) {
            continue;
        }
        let delete = rng.chance(25);
        let value = match rng.below(4) {
            0 => (rng.next() % 1000).to_be_bytes().to_vec(),
            1 => rng
                .pick(&[&b"A"[..], b"v", b"\0\0\0\0\0\0\0\x01", b"p,q:\xff"])
                .to_vec(),
            _ => [&b"p"[..], &rng.next().to_le_bytes()[..2]].concat(),
        };
        let mutation = Mutation {
            is_delete: delete,
            column: column(&family, &qualifier).into(),
            value: value.into(),
            write_to_wal: true,
        };
        let put = if delete {
            Call::MutateRow(MutateRowArgs {
                table_name: table.as_bytes().to_vec(),
                row,
                mutations: vec![mutation],
                attributes: vec![],
            })
        } else {
            Call::MutateRowTs(MutateRowTsArgs {
                table_name: table.as_bytes().to_vec(),
                row,
                mutations: vec![mutation],
                timestamp: *rng.pick(&[999, 1005, 1104, 1150, 1500, 3000]),
                attributes: vec![],
            })
        };
        call(admin, &put).unwrap_or_else(|e| panic!("the superuser's change of {table}: {e}"));
        done += 1;
    }
}

/// A cell by name: table, row, family, qualifier.
type NamedCell = (String, Vec<u8>, Vec<u8>, Vec<u8>);

/// The cells an operation names: (table, row, family, qualifier) of each column of each row
/// it names (a family alone: every seeded qualifier).
fn named_cells(op: &Op) -> Vec<NamedCell> {
    // (table, rows, columns)
    type Named = (Vec<u8>, Vec<Vec<u8>>, Vec<Vec<u8>>);
    let mut rows_columns: Vec<Named> = Vec::new();
    let mut add = |t: &[u8], rows: Vec<Vec<u8>>, columns: Vec<Vec<u8>>| {
        rows_columns.push((t.to_vec(), rows, columns));
    };
    let mutation_columns = |ms: &[Mutation]| ms.iter().map(|m| m.column.to_vec()).collect();
    match op {
        Op::Call(c) => match c {
            Call::Get(a) => add(&a.table_name, vec![a.row.clone()], vec![a.column.clone()]),
            Call::GetVer(a) => add(&a.table_name, vec![a.row.clone()], vec![a.column.clone()]),
            Call::GetRowWithColumns(a) => {
                add(&a.table_name, vec![a.row.clone()], a.columns.clone())
            }
            Call::MutateRow(a) => add(
                &a.table_name,
                vec![a.row.clone()],
                mutation_columns(&a.mutations),
            ),
            Call::MutateRowTs(a) => add(
                &a.table_name,
                vec![a.row.clone()],
                mutation_columns(&a.mutations),
            ),
            Call::MutateRows(a) => {
                for b in &a.row_batches {
                    add(
                        &a.table_name,
                        vec![b.row.to_vec()],
                        mutation_columns(&b.mutations),
                    );
                }
            }
            Call::MutateRowsTs(a) => {
                for b in &a.row_batches {
                    add(
                        &a.table_name,
                        vec![b.row.to_vec()],
                        mutation_columns(&b.mutations),
                    );
                }
            }
            Call::AtomicIncrement(a) => {
                add(&a.table_name, vec![a.row.clone()], vec![a.column.clone()])
            }
            Call::DeleteAll(a) => add(&a.table_name, vec![a.row.clone()], vec![a.column.clone()]),
            Call::DeleteAllTs(a) => add(&a.table_name, vec![a.row.clone()], vec![a.column.clone()]),
            Call::Increment(a) => add(
                &a.increment.table,
                vec![a.increment.row.clone()],
                vec![a.increment.column.clone()],
            ),
            Call::IncrementRows(a) => {
                for i in &a.increments {
                    add(&i.table, vec![i.row.clone()], vec![i.column.clone()]);
                }
            }
            Call::Append(a) => add(
                &a.append.table,
                vec![a.append.row.clone()],
                a.append.columns.clone(),
            ),
            Call::CheckAndPut(a) => add(
                &a.table_name,
                vec![a.row.clone()],
                vec![a.column.clone(), a.mput.column.to_vec()],
            ),
            Call::FerrobaseAdmin(a) => {
                let columns = a
                    .attributes
                    .iter()
                    .filter(|(k, _)| k.starts_with(b"COLUMN"))
                    .map(|(_, v)| v.clone())
                    .collect();
                add(&a.table_name, vec![a.key.clone()], columns);
            }
            _ => {}
        },
        Op::Scan { .. } | Op::ExtScan { .. } | Op::Sequence(_) | Op::Hijack { .. } => {}
    }
    let mut out = Vec::new();
    for (t, rows, columns) in rows_columns {
        let t = text(&t);
        for row in &rows {
            for c in &columns {
                match split_column(c) {
                    (f, Some(q)) => out.push((t.clone(), row.clone(), f.to_vec(), q.to_vec())),
                    (f, None) => {
                        for q in QUALIFIERS {
                            out.push((t.clone(), row.clone(), f.to_vec(), q.to_vec()));
                        }
                    }
                }
            }
        }
    }
    out
}
