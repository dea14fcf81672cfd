//! The request model's administrative half: a client's table, namespace, maintenance and
//! snapshot requests as typed engine values ([`AdminRequest`]), the operations the access rule
//! decides for each, derived from those values ([`AdminRequest::operations`]), and the
//! executor's run of them ([`Executor::admin`]): authorized, run on the engine's `Admin`, then
//! followed up (HBase's owner grant after a create or a descriptor change, the grants of a
//! dropped table or namespace removed) — once, for every door.

use super::{Executor, Failure};
use crate::access::{canonical_table, AclStore, Actions, Denied, Operation, Scope};
use ferrobase_engine::{ColumnFamilyDescriptor, Error, TableDescriptor};

/// The catalog table: drawn from the engine's catalog at each read, so nothing to flush.
const META_TABLE: &str = "hbase:meta";

/// An administrative request, as every door hands it to the [`Executor`]. A table is named as
/// the client named it (`t`, `default:t`, `ns:t`); the access rule sees its canonical form.
#[derive(Debug, Clone, PartialEq)]
pub enum AdminRequest {
    /// A table created, pre-split at `splits` (HBase's `createTable`).
    CreateTable {
        /// The new table's descriptor.
        descriptor: TableDescriptor,
        /// The first row of every region but the first.
        splits: Vec<Vec<u8>>,
    },
    /// A table dropped (`deleteTable`).
    DeleteTable {
        /// The table.
        table: String,
    },
    /// A table enabled (`enableTable`).
    EnableTable {
        /// The table.
        table: String,
    },
    /// A table disabled (`disableTable`).
    DisableTable {
        /// The table.
        table: String,
    },
    /// A table emptied (`truncateTable`).
    TruncateTable {
        /// The table.
        table: String,
        /// Whether its regions keep their boundaries.
        preserve_splits: bool,
    },
    /// A table's descriptor changed (`addColumnFamily`, `modifyColumnFamily`,
    /// `deleteColumnFamily`, `modifyTable`): the changes applied in order; all are authorized
    /// before the first runs.
    AlterTable {
        /// The table.
        table: String,
        /// What changes.
        changes: Vec<TableChange>,
    },
    /// A table's memstores written to files (`flush`).
    Flush {
        /// The table.
        table: String,
    },
    /// A table's files compacted (`compact`, `majorCompact`).
    Compact {
        /// The table.
        table: String,
        /// Whether every file of each store becomes one.
        major: bool,
    },
    /// A table's region split (`split`): at `at`, or in the middle of its only region.
    Split {
        /// The table.
        table: String,
        /// The split row.
        at: Option<Vec<u8>>,
    },
    /// A namespace created (`createNamespace`).
    CreateNamespace {
        /// The namespace.
        namespace: String,
    },
    /// A namespace dropped (`deleteNamespace`).
    DeleteNamespace {
        /// The namespace.
        namespace: String,
    },
    /// A snapshot of a table taken (`snapshot`).
    Snapshot {
        /// The table.
        table: String,
        /// The snapshot's name.
        name: String,
        /// Whether the memstores are left out (HBase's `SKIPFLUSH` snapshot).
        skip_flush: bool,
    },
    /// A snapshot dropped (`deleteSnapshot`).
    DeleteSnapshot {
        /// The snapshot's name.
        name: String,
    },
    /// A snapshot cloned into a new table (`cloneSnapshot`).
    CloneSnapshot {
        /// The snapshot's name.
        name: String,
        /// The new table.
        table: String,
    },
    /// A snapshot's table restored to it (`restoreSnapshot`).
    RestoreSnapshot {
        /// The snapshot's name.
        name: String,
    },
    /// Actions granted to a user at a scope (`grant`): the user then holds exactly `actions`
    /// there, or, with `merge`, those besides the ones held (HBase's
    /// `mergeExistingPermissions`). Only with ACLs on.
    Grant {
        /// The grantee.
        user: String,
        /// Where.
        scope: Scope,
        /// The actions.
        actions: Actions,
        /// Whether the actions held stay.
        merge: bool,
    },
    /// Actions taken from a user at a scope (`revoke`; `None`: every action). Only with ACLs
    /// on.
    Revoke {
        /// Whose.
        user: String,
        /// Where.
        scope: Scope,
        /// The actions.
        actions: Option<Actions>,
    },
}

/// One change of a table's descriptor.
#[derive(Debug, Clone, PartialEq)]
pub enum TableChange {
    /// A family added.
    AddFamily(ColumnFamilyDescriptor),
    /// A family's settings replaced.
    ModifyFamily(ColumnFamilyDescriptor),
    /// A family dropped, with its cells.
    DeleteFamily(Vec<u8>),
    /// A family's attributes set (HBase shell's `alter 't', NAME => 'f', ...`): added with
    /// them when the table has no such family, else changed in the attributes named.
    PutFamily {
        /// The family.
        family: Vec<u8>,
        /// `(name, value)` attributes in HBase's spelling.
        attributes: Vec<(String, String)>,
    },
    /// Table attributes set and unset.
    Attributes {
        /// `(name, value)` pairs set.
        set: Vec<(String, String)>,
        /// Names unset.
        unset: Vec<String>,
    },
    /// The whole descriptor (HBase's `modifyTable`): families it adds are added, those it
    /// changes changed, those it leaves out dropped; attributes it sets are set, the rest
    /// unset. Its name must be the table's.
    Schema(TableDescriptor),
}

/// An administrative request the access rule allowed for one user, as
/// [`Executor::authorize_admin`] answers it: only that user's executor runs it.
#[derive(Debug)]
pub struct AuthorizedAdmin {
    request: AdminRequest,
    user: String,
}

impl AuthorizedAdmin {
    /// The request, as authorized.
    pub fn request(&self) -> &AdminRequest {
        &self.request
    }
}

impl AdminRequest {
    /// The table the request names, if it names one.
    pub fn table(&self) -> Option<&str> {
        match self {
            AdminRequest::DeleteTable { table }
            | AdminRequest::EnableTable { table }
            | AdminRequest::DisableTable { table }
            | AdminRequest::TruncateTable { table, .. }
            | AdminRequest::AlterTable { table, .. }
            | AdminRequest::Flush { table }
            | AdminRequest::Compact { table, .. }
            | AdminRequest::Split { table, .. }
            | AdminRequest::Snapshot { table, .. }
            | AdminRequest::CloneSnapshot { table, .. } => Some(table),
            AdminRequest::CreateTable { .. }
            | AdminRequest::CreateNamespace { .. }
            | AdminRequest::DeleteNamespace { .. }
            | AdminRequest::DeleteSnapshot { .. }
            | AdminRequest::RestoreSnapshot { .. }
            | AdminRequest::Grant { .. }
            | AdminRequest::Revoke { .. } => None,
        }
    }

    /// What the request changes, as the access rule decides it, derived from the values that
    /// run. `table` is the canonical name of the table the request names (or creates);
    /// `families` gives that table's families now, for a whole descriptor that may drop some.
    ///
    /// Snapshots need global ADMIN (stricter than HBase, whose table ADMIN may snapshot a table
    /// and whose snapshot owner may clone, restore and delete it: ferrobase records no snapshot
    /// owners); a clone is a table created as well.
    fn operations_on(&self, table: &str, families: &dyn Fn() -> Vec<Vec<u8>>) -> Vec<Operation> {
        let table = table.to_string();
        match self {
            AdminRequest::CreateTable { descriptor, .. } => vec![Operation::CreateTable {
                table,
                families: descriptor.families.iter().map(|f| f.name.clone()).collect(),
            }],
            AdminRequest::DeleteTable { .. } => vec![Operation::DeleteTable { table }],
            AdminRequest::EnableTable { .. } => vec![Operation::EnableTable { table }],
            AdminRequest::DisableTable { .. } => vec![Operation::DisableTable { table }],
            AdminRequest::TruncateTable { .. } => vec![Operation::TruncateTable { table }],
            AdminRequest::AlterTable { changes, .. } => {
                let drops = changes.iter().any(|c| match c {
                    TableChange::DeleteFamily(_) => true,
                    TableChange::Schema(d) => families().iter().any(|f| d.family(f).is_none()),
                    TableChange::AddFamily(_)
                    | TableChange::ModifyFamily(_)
                    | TableChange::PutFamily { .. }
                    | TableChange::Attributes { .. } => false,
                });
                // ModifyTable for every change but a family dropped, and for a request that
                // changes nothing (still a modifyTable: never one that needs no permission).
                let modifies = changes.is_empty()
                    || changes
                        .iter()
                        .any(|c| !matches!(c, TableChange::DeleteFamily(_)));
                let mut ops = Vec::new();
                if modifies {
                    ops.push(Operation::ModifyTable {
                        table: table.clone(),
                    });
                }
                if drops {
                    ops.push(Operation::DeleteFamily { table });
                }
                ops
            }
            AdminRequest::Flush { .. } => vec![Operation::Flush { table }],
            AdminRequest::Compact { .. } => vec![Operation::Compact { table }],
            AdminRequest::Split { .. } => vec![Operation::Split { table }],
            AdminRequest::CreateNamespace { namespace } => vec![Operation::CreateNamespace {
                namespace: namespace.clone(),
            }],
            AdminRequest::DeleteNamespace { namespace } => vec![Operation::DeleteNamespace {
                namespace: namespace.clone(),
            }],
            AdminRequest::Snapshot { .. }
            | AdminRequest::DeleteSnapshot { .. }
            | AdminRequest::RestoreSnapshot { .. } => vec![Operation::ClusterAdmin],
            // A clone creates the table it names: the create rule holds too (only superusers
            // make a table of the system namespace).
            AdminRequest::CloneSnapshot { .. } => vec![
                Operation::ClusterAdmin,
                Operation::CreateTable {
                    table,
                    families: Vec::new(),
                },
            ],
            // ADMIN at the scope; a superuser's grants only by a superuser.
            AdminRequest::Grant { user, scope, .. } | AdminRequest::Revoke { user, scope, .. } => {
                vec![Operation::ChangeGrant {
                    scope: scope.clone(),
                    grantee: user.clone(),
                }]
            }
        }
    }

    /// The table the request names or creates, as the client named it.
    fn named_table(&self) -> Option<String> {
        match self {
            AdminRequest::CreateTable { descriptor, .. } => Some(descriptor.name.to_string()),
            other => other.table().map(str::to_string),
        }
    }

    /// What the request changes, as the access rule decides it, derived from the values that
    /// run, naming the canonical form of the request's table (`families`: that table's
    /// families now, for a whole descriptor that may drop some). Fails on a table name the
    /// rule cannot read.
    pub fn operations(&self, families: &dyn Fn() -> Vec<Vec<u8>>) -> Result<Vec<Operation>, Error> {
        let table = match self.named_table() {
            Some(t) => canonical_table(&t)?,
            None => String::new(),
        };
        Ok(self.operations_on(&table, families))
    }
}

impl Executor<'_> {
    /// Authorizes `request` for the user (always, with ACLs off): every operation it performs,
    /// granted whole.
    fn check_admin(&self, request: &AdminRequest) -> Result<(), Denied> {
        let Some(acl) = self.access else {
            return Ok(());
        };
        let table = match request.named_table() {
            None => String::new(),
            Some(name) => match self.rule_name(acl, &name)? {
                Some(t) => t,
                None => return Ok(()),
            },
        };
        let families = || self.families(&table);
        for op in request.operations_on(&table, &families) {
            acl.authorize(self.user, &op)?;
        }
        // A restore writes the snapshot's table (and makes it again when it is gone): the rule
        // for a change of that table holds too (only superusers change a table of the system
        // namespace). Looked up once global ADMIN passed, so no one else learns a snapshot's
        // table from the answer.
        if let AdminRequest::RestoreSnapshot { name } = request {
            if let Ok(info) = self.engine.admin().snapshot_info(name) {
                let table = info.table.to_string();
                acl.authorize(self.user, &Operation::ModifyTable { table })?;
            }
        }
        Ok(())
    }

    /// Authorizes `request` for the user (always, with ACLs off): only an authorized request
    /// runs ([`Executor::run_admin`]).
    pub fn authorize_admin(&self, request: AdminRequest) -> Result<AuthorizedAdmin, Denied> {
        self.check_admin(&request)?;
        Ok(AuthorizedAdmin {
            request,
            user: self.user.to_string(),
        })
    }

    /// Authorizes `request`, runs it on the engine and, with ACLs on, does what follows it:
    /// nothing of a refused request runs.
    pub fn admin(&self, request: AdminRequest) -> Result<(), Failure> {
        let authorized = self.authorize_admin(request)?;
        Ok(self.run_admin(authorized)?)
    }

    /// Runs a request authorized for this executor's user on the engine and, with ACLs on,
    /// does what follows it. One authorized for another user is refused, nothing run.
    pub fn run_admin(&self, authorized: AuthorizedAdmin) -> Result<(), Error> {
        self.authorized_as(&authorized.user)?;
        let request = authorized.request;
        let admin = self.engine.admin();
        match &request {
            AdminRequest::CreateTable { descriptor, splits } => {
                admin.create_table_with_splits(descriptor.clone(), splits)?
            }
            AdminRequest::DeleteTable { table } => admin.delete_table(table)?,
            AdminRequest::EnableTable { table } => admin.enable(table)?,
            AdminRequest::DisableTable { table } => admin.disable(table)?,
            AdminRequest::TruncateTable {
                table,
                preserve_splits,
            } => admin.truncate(table, *preserve_splits)?,
            AdminRequest::AlterTable { table, changes } => {
                for change in changes {
                    self.alter(table, change)?;
                }
            }
            AdminRequest::Flush { table } => {
                if canonical_table(table).ok().as_deref() != Some(META_TABLE) {
                    admin.flush(table)?
                }
            }
            AdminRequest::Compact { table, major } => {
                if *major {
                    admin.major_compact(table)?
                } else {
                    admin.compact(table)?
                }
            }
            AdminRequest::Split { table, at } => admin.split(table, at.as_deref())?,
            AdminRequest::CreateNamespace { namespace } => admin.create_namespace(namespace)?,
            AdminRequest::DeleteNamespace { namespace } => admin.drop_namespace(namespace)?,
            AdminRequest::Snapshot {
                table,
                name,
                skip_flush,
            } => admin.snapshot(table, name, *skip_flush)?,
            AdminRequest::DeleteSnapshot { name } => admin.delete_snapshot(name)?,
            AdminRequest::CloneSnapshot { name, table } => admin.clone_snapshot(name, table)?,
            AdminRequest::RestoreSnapshot { name } => admin.restore_snapshot(name)?,
            AdminRequest::Grant {
                user,
                scope,
                actions,
                merge,
            } => {
                let store = self.grants(user)?;
                let actions = if *merge {
                    let held = store
                        .permissions()
                        .into_iter()
                        .filter(|p| &p.user == user && &p.scope == scope)
                        .flat_map(|p| p.actions.iter().collect::<Vec<_>>());
                    actions.iter().chain(held).collect()
                } else {
                    *actions
                };
                store.grant(user, scope, actions)?
            }
            AdminRequest::Revoke {
                user,
                scope,
                actions,
            } => self.grants(user)?.revoke(user, scope, *actions)?,
        }
        self.follow_up(&request)
    }

    /// The grants, for a change of `user`'s: refused with ACLs off and for a name HBase's
    /// `hbase:acl` could not hold.
    fn grants(&self, user: &str) -> Result<&AclStore, Error> {
        let acl = self.access.ok_or_else(|| {
            Error::IllegalArgument(
                "grants are kept only with ACLs on (start ferrobase serve with --acl)".into(),
            )
        })?;
        if user.is_empty() || user.contains(',') {
            return Err(Error::IllegalArgument(format!(
                "invalid user name {user:?}"
            )));
        }
        Ok(acl.store())
    }

    /// One change of `table`'s descriptor, run.
    fn alter(&self, table: &str, change: &TableChange) -> Result<(), Error> {
        let admin = self.engine.admin();
        match change {
            TableChange::AddFamily(f) => admin.add_family(table, f.clone())?,
            TableChange::ModifyFamily(f) => admin.modify_family(table, f.clone())?,
            TableChange::DeleteFamily(f) => admin.delete_family(table, f)?,
            TableChange::PutFamily { family, attributes } => {
                let existing = admin.describe(table)?.family(family).cloned();
                let mut f = existing
                    .clone()
                    .unwrap_or_else(|| ColumnFamilyDescriptor::new(family.clone()));
                for (k, v) in attributes {
                    f.set_attribute(k, v)?;
                }
                if existing.is_some() {
                    admin.modify_family(table, f)?
                } else {
                    admin.add_family(table, f)?
                }
            }
            TableChange::Attributes { set, unset } => {
                if !set.is_empty() || !unset.is_empty() {
                    admin.alter_table_attributes(table, set, unset)?
                }
            }
            TableChange::Schema(new) => {
                let old = admin.describe(table)?;
                if new.name != old.name {
                    return Err(Error::IllegalArgument(format!(
                        "the descriptor of {} cannot change table {}",
                        new.name, old.name
                    )));
                }
                for f in &new.families {
                    match old.family(&f.name) {
                        None => admin.add_family(table, f.clone())?,
                        Some(o) if o != f => admin.modify_family(table, f.clone())?,
                        Some(_) => {}
                    }
                }
                for f in &old.families {
                    if new.family(&f.name).is_none() {
                        admin.delete_family(table, &f.name)?;
                    }
                }
                let mut set: Vec<(String, String)> = new
                    .attributes
                    .iter()
                    .filter(|(k, v)| old.attributes.get(k) != Some(*v))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                if new.durability != old.durability {
                    set.push(("DURABILITY".into(), new.durability.name().into()));
                }
                let unset: Vec<String> = old
                    .attributes
                    .iter()
                    .filter(|(k, _)| new.attributes.get(k).is_none())
                    .map(|(k, _)| k.to_string())
                    .collect();
                if !set.is_empty() || !unset.is_empty() {
                    admin.alter_table_attributes(table, &set, &unset)?;
                }
            }
        }
        Ok(())
    }

    /// What follows a change that ran, with ACLs on: HBase's `postCompletedCreateTableAction`
    /// (after a create or a clone) and `postModifyTable` (the table's `OWNER`, else the user
    /// who made or changed it, is granted every action on it), `postDeleteTable` and
    /// `postDeleteNamespace` (their grants go with them).
    fn follow_up(&self, request: &AdminRequest) -> Result<(), Error> {
        let Some(acl) = self.access else {
            return Ok(());
        };
        let canonical = || {
            request
                .named_table()
                .map(|t| canonical_table(&t))
                .transpose()
        };
        match request {
            // A clone is a table created (HBase's `CloneSnapshotProcedure` ends with
            // `postCompletedCreateTableAction`).
            AdminRequest::CreateTable { .. }
            | AdminRequest::AlterTable { .. }
            | AdminRequest::CloneSnapshot { .. } => {
                if let Some(t) = canonical()? {
                    acl.table_modified(self.engine, self.user, &t)?
                }
            }
            AdminRequest::DeleteTable { .. } => {
                if let Some(t) = canonical()? {
                    acl.table_deleted(&t)?
                }
            }
            AdminRequest::DeleteNamespace { namespace } => acl.namespace_deleted(namespace)?,
            AdminRequest::EnableTable { .. }
            | AdminRequest::DisableTable { .. }
            | AdminRequest::TruncateTable { .. }
            | AdminRequest::Flush { .. }
            | AdminRequest::Compact { .. }
            | AdminRequest::Split { .. }
            | AdminRequest::CreateNamespace { .. }
            | AdminRequest::Snapshot { .. }
            | AdminRequest::DeleteSnapshot { .. }
            | AdminRequest::RestoreSnapshot { .. }
            | AdminRequest::Grant { .. }
            | AdminRequest::Revoke { .. } => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{AccessChecker, Actions, Scope};
    use ferrobase_engine::{Engine, EngineOptions, TableName};
    use ferrobase_security::acl::AclStore;
    use std::sync::Arc;

    /// An engine with table `t` (families `a`, `b`) and a checker where `creator` holds CREATE
    /// on the default namespace and `reader` READ on `t`; `root` is the superuser.
    fn setup() -> (tempfile::TempDir, Engine, AccessChecker) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        engine
            .admin()
            .create_table(descriptor("t", &["a", "b"]))
            .unwrap();
        let store = Arc::new(AclStore::open(&engine).unwrap());
        store
            .grant(
                "creator",
                &Scope::Namespace("default".into()),
                Actions::parse("C").unwrap(),
            )
            .unwrap();
        store
            .grant("reader", &Scope::table("t"), Actions::parse("R").unwrap())
            .unwrap();
        (dir, engine, AccessChecker::new(store, ["root".to_string()]))
    }

    fn descriptor(name: &str, families: &[&str]) -> TableDescriptor {
        families.iter().fold(
            TableDescriptor::new(TableName::parse(name).unwrap()),
            |d, f| d.with_family(ColumnFamilyDescriptor::new(*f)),
        )
    }

    fn families() -> Vec<Vec<u8>> {
        vec![b"a".to_vec(), b"b".to_vec()]
    }

    fn grants_of(acl: &AccessChecker, user: &str) -> Vec<Scope> {
        acl.store()
            .permissions()
            .into_iter()
            .filter(|p| p.user == user)
            .map(|p| p.scope)
            .collect()
    }

    #[test]
    fn operations_come_from_the_values_that_run() {
        let ops = |r: AdminRequest| r.operations(&families).unwrap();
        assert_eq!(
            ops(AdminRequest::CreateTable {
                descriptor: descriptor("ns:n", &["x"]),
                splits: Vec::new(),
            }),
            vec![Operation::CreateTable {
                table: "ns:n".into(),
                families: vec![b"x".to_vec()],
            }]
        );
        // A whole descriptor that leaves family `b` out drops it: both rules apply.
        assert_eq!(
            ops(AdminRequest::AlterTable {
                table: "default:t".into(),
                changes: vec![TableChange::Schema(descriptor("t", &["a"]))],
            }),
            vec![
                Operation::ModifyTable { table: "t".into() },
                Operation::DeleteFamily { table: "t".into() },
            ]
        );
        // Dropping a family alone is DeleteFamily; a change of nothing is still ModifyTable.
        assert_eq!(
            ops(AdminRequest::AlterTable {
                table: "t".into(),
                changes: vec![TableChange::DeleteFamily(b"b".to_vec())],
            }),
            vec![Operation::DeleteFamily { table: "t".into() }]
        );
        assert_eq!(
            ops(AdminRequest::AlterTable {
                table: "t".into(),
                changes: Vec::new(),
            }),
            vec![Operation::ModifyTable { table: "t".into() }]
        );
        assert_eq!(
            ops(AdminRequest::CloneSnapshot {
                name: "s".into(),
                table: "c".into(),
            }),
            vec![
                Operation::ClusterAdmin,
                Operation::CreateTable {
                    table: "c".into(),
                    families: Vec::new(),
                },
            ]
        );
        assert!(AdminRequest::Flush {
            table: "bad name".into(),
        }
        .operations(&families)
        .is_err());
    }

    #[test]
    fn a_refused_change_runs_nothing() {
        let (_dir, engine, acl) = setup();
        let reader = Executor::new(&engine, Some(&acl), "reader");
        for request in [
            AdminRequest::DeleteTable { table: "t".into() },
            AdminRequest::DisableTable { table: "t".into() },
            AdminRequest::AlterTable {
                table: "t".into(),
                changes: vec![
                    TableChange::AddFamily(ColumnFamilyDescriptor::new("c")),
                    TableChange::DeleteFamily(b"b".to_vec()),
                ],
            },
            AdminRequest::CreateNamespace {
                namespace: "ns".into(),
            },
            AdminRequest::Snapshot {
                table: "t".into(),
                name: "s".into(),
                skip_flush: false,
            },
        ] {
            let what = format!("{request:?}");
            match reader.admin(request) {
                Err(Failure::Denied(_)) => {}
                other => panic!("{what}: {other:?}"),
            }
        }
        let admin = engine.admin();
        assert!(admin.is_enabled("t").unwrap());
        assert_eq!(
            admin.describe("t").unwrap().families.len(),
            2,
            "no family added or dropped"
        );
        assert!(admin.list_snapshots().unwrap().is_empty());
        assert!(!admin.list_namespaces().unwrap().contains(&"ns".to_string()));
        // hbase:acl cannot be taken off line, even by a superuser.
        let root = Executor::new(&engine, Some(&acl), "root");
        assert!(matches!(
            root.admin(AdminRequest::DisableTable {
                table: "hbase:acl".into()
            }),
            Err(Failure::Denied(_))
        ));
    }

    #[test]
    fn a_change_that_ran_is_followed_up() {
        let (_dir, engine, acl) = setup();
        let creator = Executor::new(&engine, Some(&acl), "creator");
        // The creator owns the table it made; with an OWNER attribute, that owner does.
        creator
            .admin(AdminRequest::CreateTable {
                descriptor: descriptor("mine", &["f"]),
                splits: Vec::new(),
            })
            .unwrap();
        assert!(grants_of(&acl, "creator").contains(&Scope::table("mine")));
        let mut owned = descriptor("theirs", &["f"]);
        owned.attributes.set("OWNER", "alice").unwrap();
        creator
            .admin(AdminRequest::CreateTable {
                descriptor: owned,
                splits: Vec::new(),
            })
            .unwrap();
        assert!(grants_of(&acl, "alice").contains(&Scope::table("theirs")));
        // A family put through the extension's form: added, then changed in place.
        let put = |attrs: &[(&str, &str)]| AdminRequest::AlterTable {
            table: "mine".into(),
            changes: vec![TableChange::PutFamily {
                family: b"g".to_vec(),
                attributes: attrs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }],
        };
        creator.admin(put(&[("VERSIONS", "3")])).unwrap();
        creator.admin(put(&[("TTL", "60")])).unwrap();
        let g = engine
            .admin()
            .describe("mine")
            .unwrap()
            .family(b"g")
            .cloned()
            .unwrap();
        assert_eq!((g.max_versions, g.ttl_seconds), (3, 60));
        // Dropped: its grants go with it.
        creator
            .admin(AdminRequest::DisableTable {
                table: "mine".into(),
            })
            .unwrap();
        creator
            .admin(AdminRequest::DeleteTable {
                table: "mine".into(),
            })
            .unwrap();
        assert!(!grants_of(&acl, "creator").contains(&Scope::table("mine")));
    }

    #[test]
    fn grants_are_changed_under_the_rule() {
        let (_dir, engine, acl) = setup();
        let grant = |user: &str, scope: Scope, actions: &str, merge: bool| AdminRequest::Grant {
            user: user.into(),
            scope,
            actions: Actions::parse(actions).unwrap(),
            merge,
        };
        let reader = Executor::new(&engine, Some(&acl), "reader");
        // READ on t is no ADMIN there: refused, nothing written.
        assert!(matches!(
            reader.admin(grant("reader", Scope::table("t"), "RWXCA", false)),
            Err(Failure::Denied(_))
        ));
        assert_eq!(grants_of(&acl, "reader"), [Scope::table("t")]);
        let root = Executor::new(&engine, Some(&acl), "root");
        root.admin(grant("bob", Scope::table("t"), "R", false))
            .unwrap();
        root.admin(grant("bob", Scope::table("t"), "W", true))
            .unwrap();
        let held = acl.store().permissions();
        let bob = held.iter().find(|p| p.user == "bob").unwrap();
        assert_eq!(bob.actions, Actions::parse("RW").unwrap());
        root.admin(AdminRequest::Revoke {
            user: "bob".into(),
            scope: Scope::table("t"),
            actions: None,
        })
        .unwrap();
        assert!(grants_of(&acl, "bob").is_empty());
        // A name hbase:acl cannot hold; and no grant at all with ACLs off.
        assert!(matches!(
            root.admin(grant("a,b", Scope::Global, "R", false)),
            Err(Failure::Engine(Error::IllegalArgument(_)))
        ));
        let off = Executor::new(&engine, None, "root");
        assert!(matches!(
            off.admin(grant("bob", Scope::Global, "R", false)),
            Err(Failure::Engine(Error::IllegalArgument(_)))
        ));
        assert!(grants_of(&acl, "bob").is_empty());
    }

    #[test]
    fn an_authorization_is_one_users() {
        let (_dir, engine, acl) = setup();
        let root = Executor::new(&engine, Some(&acl), "root");
        let reader = Executor::new(&engine, Some(&acl), "reader");
        let drop = root
            .authorize_admin(AdminRequest::DisableTable { table: "t".into() })
            .unwrap();
        assert!(matches!(
            reader.run_admin(drop),
            Err(Error::IllegalArgument(_))
        ));
        assert!(engine.admin().is_enabled("t").unwrap());
    }
}
