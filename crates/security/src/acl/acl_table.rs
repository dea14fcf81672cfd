//! The ACL store: every grant, kept in the system table `hbase:acl` as HBase's
//! `PermissionStorage` keeps it, and cached in memory for the checks.
//!
//! Layout (HBase's, `docs/format/acl.md`): one cell per user and scope in family `l`. The row
//! is the scope — `hbase:acl` for global grants, `@ns` for a namespace, the table's name
//! otherwise — the qualifier is `user`, `user,family` or `user,family,qualifier`, the value the
//! action letters (`RW`). A grant that form cannot carry (a family holding `,`) is written in a
//! length-prefixed form instead, which old cells never have. Writes go through the engine like any table's, so grants are as durable as data
//! (WAL, flush, recovery); the cache is rebuilt from the table when the store opens.

use super::permission::{Actions, Scope, UserPermission};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Delete, Engine, Error, Put, Scan, TableDescriptor, TableName,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
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
    /// The timestamp of the last cell written (ms): each write takes a later one, so a grant
    /// written in the millisecond of a revoke is not hidden by the revoke's delete marker
    /// (which covers every version at or before its timestamp) and reads back after a restart
    /// as the cache holds it.
    last_write: AtomicI64,
}

fn row_of(scope: &Scope) -> Vec<u8> {
    match scope {
        Scope::Global => GLOBAL_ROW.to_vec(),
        Scope::Namespace(ns) => format!("@{ns}").into_bytes(),
        Scope::Table { table, .. } => table.as_bytes().to_vec(),
    }
}

/// The first byte of a qualifier in the length-prefixed form (`docs/format/acl.md`): never the
/// first byte of the plain form, whose user is UTF-8 (the plain parser refuses anything else).
const LENGTH_PREFIXED: u8 = 0xff;

/// The qualifier of `user`'s grant at `scope`: HBase's plain `user[,family[,qualifier]]`
/// whenever it reads back as the same user and scope, else the length-prefixed form (a family
/// holding `,`, an empty family, ...), so every grant round-trips and the cells HBase's layout
/// can hold stay in it.
fn qualifier_of(user: &str, scope: &Scope) -> Vec<u8> {
    let plain = plain_qualifier(user, scope);
    if parse_cell(&row_of(scope), &plain).as_ref() == Some(&(user.to_string(), scope.clone())) {
        return plain;
    }
    let mut q = vec![LENGTH_PREFIXED];
    let mut part = |b: &[u8]| {
        // Names are far shorter than 4 GiB (families 255 bytes, qualifiers a cell's).
        let len = u32::try_from(b.len()).unwrap_or(u32::MAX);
        q.extend_from_slice(&len.to_be_bytes());
        q.extend_from_slice(b.get(..len as usize).unwrap_or_default());
    };
    part(user.as_bytes());
    if let Scope::Table {
        family: Some(f),
        qualifier,
        ..
    } = scope
    {
        part(f);
        if let Some(c) = qualifier {
            part(c);
        }
    }
    q
}

/// The parts of a length-prefixed qualifier (after its first byte): each a 4-byte big-endian
/// length and that many bytes, one to three of them; `None` for anything else.
fn length_prefixed_parts(mut rest: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = usize::try_from(u32::from_be_bytes(*len)).ok()?;
        if tail.len() < len || parts.len() == 3 {
            return None;
        }
        let (part, tail) = tail.split_at(len);
        parts.push(part.to_vec());
        rest = tail;
    }
    (!parts.is_empty()).then_some(parts)
}

/// HBase's layout: `user`, `user,family` or `user,family,qualifier`.
fn plain_qualifier(user: &str, scope: &Scope) -> Vec<u8> {
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
    let (user, family, column) = match qualifier.split_first() {
        Some((&LENGTH_PREFIXED, rest)) => {
            let mut parts = length_prefixed_parts(rest)?.into_iter();
            let user = String::from_utf8(parts.next()?).ok()?;
            let family = parts.next();
            // A family part outside a table's row would be dropped: not this store's cell.
            if family.is_some() && (row == GLOBAL_ROW || row.starts_with(b"@")) {
                return None;
            }
            (user, family, parts.next())
        }
        _ => {
            let mut parts = qualifier.splitn(3, |&b| b == b',');
            let user = String::from_utf8(parts.next()?.to_vec()).ok()?;
            let family = parts.next().map(<[u8]>::to_vec);
            (user, family, parts.next().map(<[u8]>::to_vec))
        }
    };
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

/// Grants on `hbase:acl` itself (the table, a family or a column of it) cannot be kept: HBase's
/// layout stores a table's grants in the row named by the table, and `hbase:acl`'s row is the
/// global grants' row, so such a grant would read back as a global one after a restart (and
/// its revoke would delete the user's global grant). HBase has the same collision; ferrobase
/// refuses the scope instead (`docs/design/security.md`, "Differences from HBase").
fn refuse_acl_table_scope(scope: &Scope) -> Result<(), Error> {
    if scope.table_name() == Some(ACL_TABLE) {
        return Err(Error::IllegalArgument(format!(
            "grants on {ACL_TABLE} itself cannot be stored apart from the global grants (its \
             row in {ACL_TABLE} is theirs): grant globally or on the namespace @hbase instead"
        )));
    }
    Ok(())
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
        let mut newest = 0;
        let table = engine.table(ACL_TABLE)?;
        for row in table.scan_all(&Scan::new().add_family(ACL_FAMILY))? {
            for cell in &row.cells {
                newest = newest.max(cell.timestamp());
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
            last_write: AtomicI64::new(newest),
        })
    }

    /// A timestamp after every cell this store wrote: the clock's, or one past the last.
    fn next_timestamp(&self) -> i64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX - 1));
        let mut last = self.last_write.load(Ordering::Acquire);
        loop {
            let ts = now.max(last.saturating_add(1));
            match self
                .last_write
                .compare_exchange(last, ts, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return ts,
                Err(seen) => last = seen,
            }
        }
    }

    fn write(&self, user: &str, scope: &Scope, actions: Actions) -> Result<(), Error> {
        let table = self.engine.table(ACL_TABLE)?;
        let row = row_of(scope);
        let qualifier = qualifier_of(user, scope);
        let ts = self.next_timestamp();
        if actions.is_empty() {
            table.delete(Delete::new(row).add_columns_ts(ACL_FAMILY, qualifier, ts))
        } else {
            table.put(Put::new(row).add_column_ts(ACL_FAMILY, qualifier, ts, actions.to_string()))
        }
    }

    /// Gives `user` exactly `actions` at `scope`, replacing what it had there (HBase's
    /// `grant`, which does not merge). A scope on `hbase:acl` itself is refused
    /// ([`Error::IllegalArgument`]): its row is the global grants' row.
    pub fn grant(&self, user: &str, scope: &Scope, actions: Actions) -> Result<(), Error> {
        refuse_acl_table_scope(scope)?;
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
        refuse_acl_table_scope(scope)?;
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
    fn every_family_and_qualifier_round_trips_and_old_cells_keep_their_meaning() {
        let column = |f: &[u8], q: Option<&[u8]>| Scope::Table {
            table: "t".into(),
            family: Some(f.to_vec()),
            qualifier: q.map(<[u8]>::to_vec),
        };
        for scope in [
            column(b"x,y", None),
            column(b"x,y", Some(b"q")),
            column(b"x,", Some(b",")),
            column(b",", None),
            column(b"", None),
            column(b"", Some(b"q")),
            column(b"cf", Some(b"")),
            column(b"\xff\x00,", Some(b"\xff")),
        ] {
            for user in ["bob", "a,b", ""] {
                let (row, q) = (row_of(&scope), qualifier_of(user, &scope));
                assert_eq!(
                    parse_cell(&row, &q),
                    Some((user.to_string(), scope.clone())),
                    "{user:?} {scope:?}"
                );
            }
        }
        // HBase's layout wherever it is unambiguous; old cells parse as before.
        assert_eq!(
            qualifier_of("bob", &column(b"cf", Some(b"q,x"))),
            b"bob,cf,q,x"
        );
        assert_eq!(qualifier_of("bob", &column(b"cf", Some(b""))), b"bob,cf,");
        assert_eq!(qualifier_of("bob", &Scope::Global), b"bob");
        assert_eq!(
            parse_cell(b"t", b"bob,x,y"),
            Some(("bob".to_string(), column(b"x", Some(b"y"))))
        );
        assert_eq!(
            qualifier_of("bob", &column(b"x,y", None))[0],
            LENGTH_PREFIXED
        );
        // Truncated, overlong or surplus parts are no cell of this store.
        for bad in [
            &b"\xff"[..],
            b"\xff\x00\x00\x00",
            b"\xff\x00\x00\x00\x05bob",
            b"\xff\x00\x00\x00\x01b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
        ] {
            assert_eq!(parse_cell(b"t", bad), None, "{bad:?}");
        }
        assert_eq!(
            parse_cell(b"hbase:acl", b"\xff\x00\x00\x00\x01b\x00\x00\x00\x01f"),
            None
        );
    }

    /// Found by the ACL property test (seed 1): a grant on the table hbase:acl was written to
    /// the global grants' row and came back after a restart as a global grant.
    #[test]
    fn a_grant_on_the_acl_table_itself_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let store = AclStore::open(&engine).unwrap();
        store
            .grant("bob", &Scope::Global, Actions::parse("RX").unwrap())
            .unwrap();
        let on_acl = [
            Scope::table(ACL_TABLE),
            Scope::Table {
                table: ACL_TABLE.into(),
                family: Some(b"l".to_vec()),
                qualifier: None,
            },
        ];
        for scope in &on_acl {
            let e = store
                .grant("bob", scope, Actions::parse("R").unwrap())
                .unwrap_err();
            assert!(matches!(e, Error::IllegalArgument(_)), "{e}");
            let e = store.revoke("bob", scope, None).unwrap_err();
            assert!(matches!(e, Error::IllegalArgument(_)), "{e}");
        }
        engine.close();
        drop(store);
        drop(engine);
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let store = AclStore::open(&engine).unwrap();
        let lines: Vec<String> = store.permissions().iter().map(|p| p.to_string()).collect();
        assert_eq!(lines, ["bob GLOBAL RX"]);
    }

    /// Found by the ACL property test (seed 1): a revoke's delete marker covers every version at
    /// or before its timestamp, so a grant written in the same millisecond was hidden in the
    /// table while the cache held it, and a restart lost it.
    #[test]
    fn a_grant_in_the_millisecond_of_a_revoke_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let scope = Scope::table("t");
        {
            let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
            let store = AclStore::open(&engine).unwrap();
            for _ in 0..50 {
                store
                    .grant("alice", &scope, Actions::parse("RW").unwrap())
                    .unwrap();
                store.revoke("alice", &scope, None).unwrap();
                store
                    .grant("alice", &scope, Actions::parse("WC").unwrap())
                    .unwrap();
            }
            engine.close();
        }
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let store = AclStore::open(&engine).unwrap();
        let lines: Vec<String> = store.permissions().iter().map(|p| p.to_string()).collect();
        assert_eq!(lines, ["alice t WC"]);
        // And after the reopen, a revoke and a grant in one millisecond again.
        store.revoke("alice", &scope, None).unwrap();
        store
            .grant("alice", &scope, Actions::parse("R").unwrap())
            .unwrap();
        engine.close();
        drop(store);
        drop(engine);
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let store = AclStore::open(&engine).unwrap();
        let lines: Vec<String> = store.permissions().iter().map(|p| p.to_string()).collect();
        assert_eq!(lines, ["alice t R"]);
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
            let odd = Scope::Table {
                table: "t".into(),
                family: Some(b"x,y".to_vec()),
                qualifier: Some(b"q,\xff".to_vec()),
            };
            store
                .grant("carol", &odd, Actions::parse("R").unwrap())
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
        assert_eq!(
            lines,
            ["alice t R", "bob GLOBAL A", "carol t,x,y:q,\u{fffd} R"]
        );
        let carol = store.with_user("carol", |g| g.keys().cloned().collect::<Vec<_>>());
        assert_eq!(
            carol,
            [Scope::Table {
                table: "t".into(),
                family: Some(b"x,y".to_vec()),
                qualifier: Some(b"q,\xff".to_vec()),
            }]
        );
    }
}
