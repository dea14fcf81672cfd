//! The ACL store: every grant, kept in the system table `hbase:acl` as HBase's
//! `PermissionStorage` keeps it, and cached in memory for the checks.
//!
//! Layout (HBase's): one cell per user and scope in family `l`. The row is the scope —
//! `hbase:acl` for global grants, `@ns` for a namespace, the table's name otherwise — the
//! qualifier is `user`, `user,family` or `user,family,qualifier`, the value the action letters
//! (`RW`). Writes go through the engine like any table's, so grants are as durable as data
//! (WAL, flush, recovery); the cache is rebuilt from the table when the store opens.

use super::permission::{Actions, Scope, UserPermission};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Delete, Engine, Error, Put, Scan, TableDescriptor, TableName,
};
use std::collections::BTreeMap;
use std::sync::RwLock;

/// The ACL table's name.
pub const ACL_TABLE: &str = "hbase:acl";
/// Its one family.
const ACL_FAMILY: &[u8] = b"l";
/// The row of global grants (HBase: the ACL table's own name).
const GLOBAL_ROW: &[u8] = b"hbase:acl";

/// Grants by user, then scope.
type Grants = BTreeMap<String, BTreeMap<Scope, Actions>>;

/// Every grant of an engine. Thread-safe: checks read the cache under a read lock; grants and
/// revokes write the table, then the cache, under the write lock.
pub struct AclStore {
    engine: Engine,
    grants: RwLock<Grants>,
}

fn row_of(scope: &Scope) -> Vec<u8> {
    match scope {
        Scope::Global => GLOBAL_ROW.to_vec(),
        Scope::Namespace(ns) => format!("@{ns}").into_bytes(),
        Scope::Table { table, .. } => table.as_bytes().to_vec(),
    }
}

fn qualifier_of(user: &str, scope: &Scope) -> Vec<u8> {
    let mut q = user.as_bytes().to_vec();
    if let Scope::Table {
        family: Some(f),
        qualifier,
        ..
    } = scope
    {
        q.push(b',');
        q.extend_from_slice(f);
        if let Some(c) = qualifier {
            q.push(b',');
            q.extend_from_slice(c);
        }
    }
    q
}

/// The user and scope of one ACL cell; `None` for a cell this store did not write.
fn parse_cell(row: &[u8], qualifier: &[u8]) -> Option<(String, Scope)> {
    let mut parts = qualifier.splitn(3, |&b| b == b',');
    let user = String::from_utf8(parts.next()?.to_vec()).ok()?;
    let family = parts.next().map(<[u8]>::to_vec);
    let column = parts.next().map(<[u8]>::to_vec);
    let scope = if row == GLOBAL_ROW {
        Scope::Global
    } else if let Some(ns) = row.strip_prefix(b"@") {
        Scope::Namespace(String::from_utf8(ns.to_vec()).ok()?)
    } else {
        Scope::Table {
            table: String::from_utf8(row.to_vec()).ok()?,
            family,
            qualifier: column,
        }
    };
    Some((user, scope))
}

/// One `hbase:acl` cell as the store reads it when it opens: the user, scope and actions of a
/// cell in this store's layout; `None` for any other cell (one this store did not write, or
/// whose value has a letter that is no action), which the store skips. Public for the
/// `acl_cell` fuzz target, not part of the supported API.
#[doc(hidden)]
pub fn decode_cell(row: &[u8], qualifier: &[u8], value: &[u8]) -> Option<(String, Scope, Actions)> {
    let (user, scope) = parse_cell(row, qualifier)?;
    let actions = Actions::parse(&String::from_utf8_lossy(value)).ok()?;
    Some((user, scope, actions))
}

/// Normalises a table name to HBase's spelling (`t`, not `default:t`).
pub fn canonical_table(name: &str) -> Result<String, Error> {
    Ok(TableName::parse(name)?.to_string())
}

impl AclStore {
    /// Opens the store of `engine`, creating `hbase:acl` on first use and loading its grants.
    pub fn open(engine: &Engine) -> Result<AclStore, Error> {
        let admin = engine.admin();
        if !admin.table_exists(ACL_TABLE)? {
            let mut family = ColumnFamilyDescriptor::new(ACL_FAMILY);
            family.max_versions = 1;
            let desc = TableDescriptor::new(TableName::parse(ACL_TABLE)?).with_family(family);
            match admin.create_table(desc) {
                Ok(()) | Err(Error::TableExists(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let mut grants = Grants::new();
        let table = engine.table(ACL_TABLE)?;
        for row in table.scan_all(&Scan::new().add_family(ACL_FAMILY))? {
            for cell in &row.cells {
                let Some((user, scope, actions)) =
                    decode_cell(cell.row(), cell.qualifier(), cell.value())
                else {
                    continue;
                };
                if !actions.is_empty() {
                    grants.entry(user).or_default().insert(scope, actions);
                }
            }
        }
        Ok(AclStore {
            engine: engine.clone(),
            grants: RwLock::new(grants),
        })
    }

    fn write(&self, user: &str, scope: &Scope, actions: Actions) -> Result<(), Error> {
        let table = self.engine.table(ACL_TABLE)?;
        let row = row_of(scope);
        let qualifier = qualifier_of(user, scope);
        if actions.is_empty() {
            table.delete(Delete::new(row).add_columns(ACL_FAMILY, qualifier))
        } else {
            table.put(Put::new(row).add_column(ACL_FAMILY, qualifier, actions.to_string()))
        }
    }

    /// Gives `user` exactly `actions` at `scope`, replacing what it had there (HBase's
    /// `grant`, which does not merge).
    pub fn grant(&self, user: &str, scope: &Scope, actions: Actions) -> Result<(), Error> {
        let mut g = self.grants.write().unwrap_or_else(|p| p.into_inner());
        self.write(user, scope, actions)?;
        let mine = g.entry(user.to_string()).or_default();
        if actions.is_empty() {
            mine.remove(scope);
        } else {
            mine.insert(scope.clone(), actions);
        }
        Ok(())
    }

    /// Takes `actions` (all of them when `None`) from `user` at `scope`; the rest stay.
    /// Revoking what was never granted changes nothing.
    pub fn revoke(&self, user: &str, scope: &Scope, actions: Option<Actions>) -> Result<(), Error> {
        let mut g = self.grants.write().unwrap_or_else(|p| p.into_inner());
        let Some(had) = g.get(user).and_then(|m| m.get(scope)).copied() else {
            return Ok(());
        };
        let left = actions.map_or(Actions::NONE, |a| had.without(a));
        self.write(user, scope, left)?;
        if let Some(mine) = g.get_mut(user) {
            if left.is_empty() {
                mine.remove(scope);
            } else {
                mine.insert(scope.clone(), left);
            }
        }
        Ok(())
    }

    /// Drops every grant on `table` and its families (HBase's `postDeleteTable`).
    pub fn remove_table(&self, table: &str) -> Result<(), Error> {
        self.remove_where(|s| s.table_name() == Some(table))
    }

    /// Drops every grant on namespace `ns` (HBase's `postDeleteNamespace`).
    pub fn remove_namespace(&self, ns: &str) -> Result<(), Error> {
        self.remove_where(|s| matches!(s, Scope::Namespace(n) if n == ns))
    }

    fn remove_where(&self, doomed: impl Fn(&Scope) -> bool) -> Result<(), Error> {
        let mut g = self.grants.write().unwrap_or_else(|p| p.into_inner());
        for (user, scopes) in g.iter_mut() {
            let gone: Vec<Scope> = scopes.keys().filter(|s| doomed(s)).cloned().collect();
            for scope in gone {
                self.write(user, &scope, Actions::NONE)?;
                scopes.remove(&scope);
            }
        }
        Ok(())
    }

    /// Every grant, by user then scope.
    pub fn permissions(&self) -> Vec<UserPermission> {
        let g = self.grants.read().unwrap_or_else(|p| p.into_inner());
        g.iter()
            .flat_map(|(user, scopes)| {
                scopes.iter().map(|(scope, actions)| UserPermission {
                    user: user.clone(),
                    scope: scope.clone(),
                    actions: *actions,
                })
            })
            .collect()
    }

    /// Calls `f` with the grants of `user` (none: an empty map).
    pub fn with_user<R>(&self, user: &str, f: impl FnOnce(&BTreeMap<Scope, Actions>) -> R) -> R {
        let g = self.grants.read().unwrap_or_else(|p| p.into_inner());
        match g.get(user) {
            Some(m) => f(m),
            None => f(&BTreeMap::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrobase_engine::EngineOptions;

    #[test]
    fn acl_cells_round_trip_hbase_layout() {
        for scope in [
            Scope::Global,
            Scope::Namespace("ns".into()),
            Scope::table("t"),
            Scope::Table {
                table: "ns:t".into(),
                family: Some(b"cf".to_vec()),
                qualifier: Some(b"q,x".to_vec()),
            },
        ] {
            let (row, q) = (row_of(&scope), qualifier_of("bob", &scope));
            assert_eq!(parse_cell(&row, &q), Some(("bob".to_string(), scope)));
        }
        assert_eq!(row_of(&Scope::Namespace("ns".into())), b"@ns");
        assert_eq!(
            qualifier_of(
                "bob",
                &Scope::Table {
                    table: "t".into(),
                    family: Some(b"cf".to_vec()),
                    qualifier: None
                }
            ),
            b"bob,cf"
        );
    }

    #[test]
    fn grants_survive_reopening_the_engine() {
        let dir = tempfile::tempdir().unwrap();
        {
            let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
            let store = AclStore::open(&engine).unwrap();
            store
                .grant("alice", &Scope::table("t"), Actions::parse("RW").unwrap())
                .unwrap();
            store
                .grant("bob", &Scope::Global, Actions::parse("A").unwrap())
                .unwrap();
            store
                .revoke(
                    "alice",
                    &Scope::table("t"),
                    Some(Actions::parse("W").unwrap()),
                )
                .unwrap();
            engine.close();
        }
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let store = AclStore::open(&engine).unwrap();
        let lines: Vec<String> = store.permissions().iter().map(|p| p.to_string()).collect();
        assert_eq!(lines, ["alice t R", "bob GLOBAL A"]);
    }
}
