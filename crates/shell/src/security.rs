//! The security commands of HBase's shell (`grant.rb`, `revoke.rb`, `user_permission.rb`):
//! grants of `RWXCA` to a user globally, on a namespace (`@ns`), a table, a family or a column.
//! Embedded they write the data directory's `hbase:acl`; over `--connect` they go to the
//! gateway, which checks that the connection's user may grant (ADMIN at the scope).

use super::args::{arity, client, illegal, text, Res};
use super::interpreter::{matching, Shell};
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};
use ferrobase_client::{Actions, Scope, UserPermission};

/// The scope named by the arguments after the user (and actions): none, `@ns`, or a table
/// with an optional family and qualifier.
fn scope_of(args: &[Value]) -> Res<Scope> {
    let Some(first) = args.first() else {
        return Ok(Scope::Global);
    };
    let first = text(first, "table or @namespace")?;
    if let Some(ns) = first.strip_prefix('@') {
        if args.len() > 1 {
            return Err(illegal("a @namespace grant takes no family or qualifier"));
        }
        return Ok(Scope::Namespace(ns.to_string()));
    }
    let table = ferrobase_engine::TableName::parse(&first)
        .map_err(illegal)?
        .to_string();
    let family = args.get(1).map(|v| text(v, "column family")).transpose()?;
    let qualifier = args
        .get(2)
        .map(|v| text(v, "column qualifier"))
        .transpose()?;
    Ok(Scope::Table {
        table,
        family: family.map(String::into_bytes),
        qualifier: qualifier.map(String::into_bytes),
    })
}

/// HBase's `Namespace,Table,Family,Qualifier` column of `user_permission`.
fn scope_columns(scope: &Scope) -> String {
    let lossy = |b: &Option<Vec<u8>>| {
        b.as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    match scope {
        Scope::Global => ",,,".to_string(),
        Scope::Namespace(ns) => format!("{ns},,,"),
        Scope::Table {
            table,
            family,
            qualifier,
        } => {
            let (ns, t) = table.split_once(':').unwrap_or(("default", table));
            format!("{ns},{t},{},{}", lossy(family), lossy(qualifier))
        }
    }
}

fn action_names(p: &UserPermission) -> String {
    p.actions
        .iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The `security` group.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "grant",
        group: Group::Security,
        help: "Grant a user actions (R, W, X, C, A) globally, on a @namespace, a table, a family or a column.",
        examples: &["grant 'bob', 'RW', 't1', 'f1', 'c1'", "grant 'ops', 'RWXCA'", "grant 'ana', 'C', '@ns1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.grant(st)),
    },
    Command {
        name: "revoke",
        group: Group::Security,
        help: "Revoke all of a user's actions at a scope (global, @namespace, table, family, column).",
        examples: &["revoke 'bob', 't1', 'f1', 'c1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.revoke(st)),
    },
    Command {
        name: "user_permission",
        group: Group::Security,
        help: "List the grants, or those on a table or @namespace.",
        examples: &["user_permission", "user_permission 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.user_permission(st)),
    },
];

impl Shell {
    fn grant(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, 5)?;
        let user = text(&st.args[0], "user")?;
        let actions = Actions::parse(&text(&st.args[1], "permissions")?).map_err(illegal)?;
        let scope = scope_of(&st.args[2..])?;
        self.conn.grant(&user, &scope, actions).map_err(client)
    }

    fn revoke(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 4)?;
        let user = text(&st.args[0], "user")?;
        let scope = scope_of(&st.args[1..])?;
        self.conn.revoke(&user, &scope, None).map_err(client)
    }

    fn user_permission(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 1)?;
        // HBase's argument is a regular expression: `@ns-regex` or a table regex ('.*').
        let perms = match st.args.first() {
            None => self.conn.user_permissions(None).map_err(client)?,
            Some(v) if text(v, "table regex")?.starts_with('@') => {
                let scope = scope_of(&st.args[..1])?;
                self.conn.user_permissions(Some(&scope)).map_err(client)?
            }
            Some(v) => {
                let tables = self.conn.list_tables().map_err(client)?;
                let mut perms = Vec::new();
                for t in matching(Some(v), tables)? {
                    let scope = scope_of(&[Value::Str(t.into_bytes())])?;
                    perms.extend(self.conn.user_permissions(Some(&scope)).map_err(client)?);
                }
                perms
            }
        };
        self.line(&format!(
            "{:<40} Namespace,Table,Family,Qualifier:Permission",
            "User"
        ));
        for p in &perms {
            self.line(&format!(
                " {:<39} {}: [Permission: actions={}]",
                p.user,
                scope_columns(&p.scope),
                action_names(p)
            ));
        }
        self.line(&format!("{} row(s)", perms.len()));
        Ok(())
    }
}
