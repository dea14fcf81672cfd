//! Grants through a connection (HBase's `grant`, `revoke`, `user_permission`): embedded, on the
//! data directory's `hbase:acl`; remote, through the gateway, which checks the caller.

use crate::{Actions, ClientError, Connection, Result, Scope, UserPermission};
use ferrobase_security::acl::AclStore;
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::ThriftValue;

impl Connection {
    /// Gives `user` exactly `actions` at `scope` (HBase's `grant`: what the user had there is
    /// replaced). Embedded, the engine's ACL store is written directly (whoever opens the
    /// directory administers it); through a gateway, the caller needs ADMIN at the scope.
    /// Table and namespace grants use Thrift1's `grant`, which Apache HBase's gateway takes
    /// too; global, family and column grants need a ferrobase gateway.
    pub fn grant(&self, user: &str, scope: &Scope, actions: Actions) -> Result<()> {
        self.change_grant(true, user, scope, Some(actions))
    }

    /// Takes `actions` (every action when `None`, as the shell's `revoke`) from `user` at
    /// `scope`.
    pub fn revoke(&self, user: &str, scope: &Scope, actions: Option<Actions>) -> Result<()> {
        self.change_grant(false, user, scope, actions)
    }

    fn change_grant(
        &self,
        grant: bool,
        user: &str,
        scope: &Scope,
        actions: Option<Actions>,
    ) -> Result<()> {
        match self {
            Connection::Embedded(e) => {
                let store = AclStore::open(e)?;
                if grant {
                    store.grant(user, scope, actions.unwrap_or(Actions::NONE))?;
                } else {
                    store.revoke(user, scope, actions)?;
                }
                Ok(())
            }
            Connection::Remote(r) => {
                let letters = actions.unwrap_or_else(Actions::all).to_string();
                match scope {
                    Scope::Table {
                        table,
                        family: None,
                        ..
                    } => r.thrift_grant(grant, user, 0, table, &letters),
                    Scope::Namespace(ns) => r.thrift_grant(grant, user, 1, ns, &letters),
                    _ => {
                        let (target, family, qualifier) = scope_parts(scope);
                        let mut attrs = vec![
                            ("USER".to_string(), user.to_string()),
                            ("ACTIONS".to_string(), letters),
                        ];
                        attrs.extend(family.map(|f| ("FAMILY".to_string(), f)));
                        attrs.extend(qualifier.map(|q| ("QUALIFIER".to_string(), q)));
                        let op = if grant {
                            AdminOp::Grant
                        } else {
                            AdminOp::Revoke
                        };
                        r.admin_ext(op, &target, b"", &attrs)
                    }
                }
            }
        }
    }

    /// The grants at `scope` (a table's include its families' and columns'), or, when `None`,
    /// the global grants (and through a gateway its superusers), as HBase's
    /// `getUserPermissions` without a scope. Through a gateway this needs ADMIN at the scope and
    /// a ferrobase gateway.
    pub fn user_permissions(&self, scope: Option<&Scope>) -> Result<Vec<UserPermission>> {
        match self {
            Connection::Embedded(e) => Ok(AclStore::open(e)?
                .permissions()
                .into_iter()
                .filter(|p| match scope {
                    None => p.scope == Scope::Global,
                    Some(Scope::Table { table, .. }) => p.scope.table_name() == Some(table),
                    Some(other) => &p.scope == other,
                })
                .collect()),
            Connection::Remote(r) => {
                let target = scope.map(|s| scope_parts(s).0).unwrap_or_default();
                let Some(answer) = r.admin_call(AdminOp::UserPermission, &target, b"", &[])? else {
                    return Ok(Vec::new());
                };
                let lines = Vec::<String>::from_value(answer)
                    .map_err(|e| ClientError::Transport(format!("user_permission: {e}")))?;
                Ok(lines.iter().filter_map(|l| parse_permission(l)).collect())
            }
        }
    }
}

/// A scope as `ferrobaseAdmin` takes it: the target (empty, `@ns` or a table), the family and
/// the qualifier.
fn scope_parts(scope: &Scope) -> (String, Option<String>, Option<String>) {
    let lossy = |b: &Vec<u8>| String::from_utf8_lossy(b).into_owned();
    match scope {
        Scope::Global => (String::new(), None, None),
        Scope::Namespace(ns) => (format!("@{ns}"), None, None),
        Scope::Table {
            table,
            family,
            qualifier,
        } => (
            table.clone(),
            family.as_ref().map(lossy),
            qualifier.as_ref().map(lossy),
        ),
    }
}

/// A `user scope actions` line of `user_permission` (as [`UserPermission`] prints).
fn parse_permission(line: &str) -> Option<UserPermission> {
    let (user, rest) = line.split_once(' ')?;
    let (scope, actions) = rest.rsplit_once(' ')?;
    let scope = if scope == "GLOBAL" {
        Scope::Global
    } else if let Some(ns) = scope.strip_prefix('@') {
        Scope::Namespace(ns.to_string())
    } else {
        let (table, column) = match scope.split_once(',') {
            Some((t, c)) => (t, Some(c)),
            None => (scope, None),
        };
        let (family, qualifier) = match column.map(|c| c.split_once(':').unwrap_or((c, ""))) {
            Some((f, q)) => (
                Some(f.as_bytes().to_vec()),
                column
                    .filter(|c| c.contains(':'))
                    .map(|_| q.as_bytes().to_vec()),
            ),
            None => (None, None),
        };
        Scope::Table {
            table: table.to_string(),
            family,
            qualifier,
        }
    };
    Some(UserPermission {
        user: user.to_string(),
        scope,
        actions: Actions::parse(actions).ok()?,
    })
}
