//! The request model's access side, shared by every door: what an operation does, as the
//! access rules see it ([`Operation`]), and the one rule each kind has ([`AccessChecker::authorize`]),
//! with the permission HBase's `AccessController` requires for it (`docs/design/security.md`,
//! "Checks").
//!
//! A door translates each request into the operations it performs (a Thrift1 `mutateRows` is
//! one [`Operation::Write`], a native `Multi` one per action) and authorizes them all before
//! anything runs. The rule is one exhaustive match: a new kind of operation does not compile
//! until its rule is written.

use super::checker::{namespace_of, AccessChecker, Denied, FamilyMap, ReadAccess};
use ferrobase_security::acl::{Action, Scope, ACL_TABLE};

/// The namespace of the system tables (`hbase:acl`, `hbase:meta`, `hbase:namespace`).
pub const SYSTEM_NAMESPACE: &str = "hbase";

/// One operation of a request, with what the access rules look at: the canonical table
/// (`ns:t`, or `t` in the default namespace), the families and qualifiers it reads or writes,
/// the scope of a grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Cells read: a get, an existence check, a scanner's open. READ on each family or column
    /// of `families` (HBase's `preGetOp`/`preScannerOpen`). `filterable`: the door can drop
    /// the cells the user may not read from its answer (HBase's `AccessControlFilter`), so a
    /// partial grant reads the granted part; otherwise a partial grant is refused.
    Read {
        /// The table.
        table: String,
        /// What is read (every family, whole, when the request names none).
        families: FamilyMap,
        /// Whether a partly granted read may proceed filtered.
        filterable: bool,
    },
    /// Cells written: a put, a delete, an increment, an append (`prePut`, `preDelete`,
    /// `preIncrement`, `preAppend`): WRITE on the column of each cell (a family delete's
    /// qualifier is empty).
    Write {
        /// The table.
        table: String,
        /// The cells' columns.
        cells: FamilyMap,
    },
    /// An increment or append (`preIncrement`, `preAppend`): READ and WRITE on the column of
    /// each cell. HBase checks WRITE only, but the call reads the cell it changes and answers
    /// by its value (the new sum or the joined bytes) or fails by it (a value that is not 8
    /// bytes wide), so WRITE alone would let a user read a column they may not; ferrobase
    /// requires READ as well (`docs/design/security.md`, "Stricter than HBase").
    ReadModifyWrite {
        /// The table.
        table: String,
        /// The cells' columns.
        cells: FamilyMap,
    },
    /// A conditional mutation (`preCheckAndPut`/`preCheckAndDelete`): READ and WRITE on the
    /// compared column, then WRITE on the cells the mutation writes.
    CheckAndMutate {
        /// The table.
        table: String,
        /// The column the condition reads.
        compared: FamilyMap,
        /// The cells the mutation writes.
        cells: FamilyMap,
    },
    /// A later call on an open scanner (`requireScannerOwner`): only the user who opened it.
    /// `owner` is `None` when the door has not recorded one (refused: fail closed).
    UseScanner {
        /// The user who opened the scanner.
        owner: Option<String>,
    },
    /// `preCreateTable`: ADMIN or CREATE on the new table's namespace.
    CreateTable {
        /// The new table.
        table: String,
        /// Its families.
        families: Vec<Vec<u8>>,
    },
    /// `preDeleteTable`: ADMIN or CREATE on the table.
    DeleteTable {
        /// The table.
        table: String,
    },
    /// `preEnableTable`: ADMIN or CREATE on the table.
    EnableTable {
        /// The table.
        table: String,
    },
    /// `preDisableTable`: ADMIN or CREATE on the table.
    DisableTable {
        /// The table.
        table: String,
    },
    /// `preTruncateTable`: ADMIN or CREATE on the table.
    TruncateTable {
        /// The table.
        table: String,
    },
    /// A change of the table's descriptor other than dropping a family (`preModifyTable`):
    /// a family added or changed, table attributes set or unset. ADMIN or CREATE.
    ModifyTable {
        /// The table.
        table: String,
    },
    /// A family dropped (`preModifyTable` too, kept apart for `hbase:acl`'s protection).
    DeleteFamily {
        /// The table.
        table: String,
    },
    /// The table's descriptor read (`preGetTableDescriptors`): ADMIN or CREATE.
    DescribeTable {
        /// The table.
        table: String,
    },
    /// `preFlush` (`flushTable`): ADMIN or CREATE on the table.
    Flush {
        /// The table.
        table: String,
    },
    /// `preCompact` as HBase checks it before a compaction runs: ADMIN or CREATE on the table.
    Compact {
        /// The table.
        table: String,
    },
    /// `preSplitRegion`: ADMIN on the table.
    Split {
        /// The table.
        table: String,
    },
    /// `preCreateNamespace`: global ADMIN.
    CreateNamespace {
        /// The namespace.
        namespace: String,
    },
    /// `preDeleteNamespace`: global ADMIN.
    DeleteNamespace {
        /// The namespace.
        namespace: String,
    },
    /// `preModifyNamespace`: ADMIN on the namespace.
    ModifyNamespace {
        /// The namespace.
        namespace: String,
    },
    /// A namespace's descriptor read (`preGetNamespaceDescriptor`): ADMIN on the namespace.
    DescribeNamespace {
        /// The namespace.
        namespace: String,
    },
    /// A cluster-wide switch or action (`preBalance`, `preBalanceSwitch`,
    /// `preSetSplitOrMergeEnabled`, the normalizer's): global ADMIN.
    ClusterAdmin,
    /// A grant or revoke (`preGrant`/`preRevoke`): ADMIN at the scope; only a superuser changes
    /// a superuser's grants.
    ChangeGrant {
        /// Where the grant applies.
        scope: Scope,
        /// Whose grant changes.
        grantee: String,
    },
    /// The grants at a scope listed (`preGetUserPermissions`): ADMIN at the scope
    /// ([`Scope::Global`] for the listing of every grant).
    ListGrants {
        /// The scope listed.
        scope: Scope,
    },
    /// What every user may read: table and namespace lists (a door shows each user the tables
    /// a grant reaches), a table's state and regions, `hbase:meta`, the cluster's id, version
    /// and status, the server's capabilities.
    Catalog,
}

impl Operation {
    /// The table whose cells, descriptor or state the operation changes, with the action
    /// HBase checks for the change: what only superusers may do to a table of the system
    /// namespace.
    fn change(&self) -> Option<(&str, Action)> {
        match self {
            Operation::Write { table, .. }
            | Operation::ReadModifyWrite { table, .. }
            | Operation::CheckAndMutate { table, .. } => Some((table, Action::Write)),
            Operation::CreateTable { table, .. }
            | Operation::DeleteTable { table }
            | Operation::EnableTable { table }
            | Operation::DisableTable { table }
            | Operation::TruncateTable { table }
            | Operation::ModifyTable { table }
            | Operation::DeleteFamily { table } => Some((table, Action::Create)),
            // Reads, maintenance (flush, compact, split: HBase's rules), namespaces and grants
            // (their own rules).
            Operation::Read { .. }
            | Operation::UseScanner { .. }
            | Operation::DescribeTable { .. }
            | Operation::Flush { .. }
            | Operation::Compact { .. }
            | Operation::Split { .. }
            | Operation::CreateNamespace { .. }
            | Operation::DeleteNamespace { .. }
            | Operation::ModifyNamespace { .. }
            | Operation::DescribeNamespace { .. }
            | Operation::ClusterAdmin
            | Operation::ChangeGrant { .. }
            | Operation::ListGrants { .. }
            | Operation::Catalog => None,
        }
    }

    /// What HBase refuses even to superusers while its AccessController is installed (and
    /// ferrobase, stricter, for truncate and a dropped family: the running server would answer
    /// from grants gone after the next restart): taking `hbase:acl` off line or emptying it.
    fn acl_table_refusal(&self) -> Option<&'static str> {
        let (table, verb) = match self {
            Operation::DisableTable { table } => (table, "disable"),
            Operation::DeleteTable { table } => (table, "delete"),
            Operation::TruncateTable { table } => (table, "truncate"),
            Operation::DeleteFamily { table } => (table, "delete a family of"),
            _ => return None,
        };
        (table == ACL_TABLE).then_some(verb)
    }
}

fn read_denied(user: &str, table: &str) -> Denied {
    Denied(format!(
        "Insufficient permissions for user '{user}' (table={table}, action=READ)"
    ))
}

impl AccessChecker {
    /// Whether `user` may perform `op`, and how a read proceeds ([`ReadAccess::Filtered`] only
    /// for a filterable [`Operation::Read`]); the denial is HBase's `AccessDeniedException`
    /// message.
    pub fn authorize(&self, user: &str, op: &Operation) -> Result<ReadAccess, Denied> {
        if let Some(verb) = op.acl_table_refusal() {
            return Err(Denied(format!(
                "Not allowed to {verb} {ACL_TABLE} table with AccessController installed"
            )));
        }
        // HBase's requireScannerOwner holds for superusers too.
        if let Operation::UseScanner { owner } = op {
            return match owner {
                Some(o) if o == user => Ok(ReadAccess::All),
                // Another user's, or one whose owner is not recorded: fail closed.
                _ => Err(Denied(format!("User '{user}' is not the scanner owner!"))),
            };
        }
        if self.is_superuser(user) {
            return Ok(ReadAccess::All);
        }
        // Stricter than HBase: only superusers change the tables of the system namespace
        // (hbase:acl's cells are the grants; HBase lets a global CREATE or WRITE holder change
        // them, and so become a global ADMIN).
        if let Some((table, action)) = op.change() {
            if namespace_of(table) == SYSTEM_NAMESPACE {
                return Err(Denied(format!(
                    "Insufficient permissions for user '{user}' (table={table}, \
                     action={action}): only superusers may change a table of the system \
                     namespace {SYSTEM_NAMESPACE}"
                )));
            }
        }
        self.requirement(user, op)
    }

    /// The permission each kind of operation requires (after the superuser and system rules).
    fn requirement(&self, user: &str, op: &Operation) -> Result<ReadAccess, Denied> {
        let all = |r: Result<(), Denied>| r.map(|()| ReadAccess::All);
        let admin_or_create = [Action::Admin, Action::Create];
        match op {
            Operation::Read {
                table,
                families,
                filterable,
            } => match self.require_read(user, table, families)? {
                ReadAccess::All => Ok(ReadAccess::All),
                ReadAccess::Filtered if *filterable => Ok(ReadAccess::Filtered),
                // The answer carries no column names to filter by: refused, as when nothing
                // is granted.
                ReadAccess::Filtered => Err(read_denied(user, table)),
            },
            Operation::Write { table, cells } => {
                all(self.require_mutation(user, table, cells, &[Action::Write]))
            }
            // WRITE first: a user without it is refused in HBase's words.
            Operation::ReadModifyWrite { table, cells } => {
                all(self.require_mutation(user, table, cells, &[Action::Write, Action::Read]))
            }
            Operation::CheckAndMutate {
                table,
                compared,
                cells,
            } => {
                self.require_mutation(user, table, compared, &[Action::Read, Action::Write])?;
                all(self.require_mutation(user, table, cells, &[Action::Write]))
            }
            Operation::CreateTable { table, families } => {
                all(self.require_namespace_for_table(user, table, families, &admin_or_create))
            }
            Operation::DeleteTable { table }
            | Operation::EnableTable { table }
            | Operation::DisableTable { table }
            | Operation::TruncateTable { table }
            | Operation::ModifyTable { table }
            | Operation::DeleteFamily { table }
            | Operation::DescribeTable { table }
            | Operation::Flush { table }
            | Operation::Compact { table } => {
                all(self.require_table(user, table, None, None, &admin_or_create))
            }
            Operation::Split { table } => {
                all(self.require_table(user, table, None, None, &[Action::Admin]))
            }
            Operation::CreateNamespace { .. } | Operation::DeleteNamespace { .. } => {
                all(self.require_global(user, Action::Admin))
            }
            Operation::ModifyNamespace { namespace }
            | Operation::DescribeNamespace { namespace } => {
                all(self.require_namespace(user, namespace, &[Action::Admin]))
            }
            Operation::ClusterAdmin => all(self.require_global(user, Action::Admin)),
            Operation::ChangeGrant { scope, grantee } => {
                self.require_admin_at(user, scope)?;
                if self.is_superuser(grantee) {
                    return Err(Denied(
                        "Granting or revoking superusers's or supergroups's permissions is not \
                         allowed"
                            .into(),
                    ));
                }
                Ok(ReadAccess::All)
            }
            Operation::ListGrants { scope } => all(self.require_admin_at(user, scope)),
            // Checked in `authorize`.
            Operation::UseScanner { .. } => {
                Err(Denied(format!("User '{user}' is not the scanner owner!")))
            }
            Operation::Catalog => Ok(ReadAccess::All),
        }
    }

    /// A read of `columns` of `table` (every family `families` names, whole, when it names
    /// none) authorized for `user`; a partly granted read narrowed to the columns the user may
    /// read (HBase's `AccessControlFilter`, which runs before the user's filter: a filter never
    /// sees an unreadable cell). Shared by the doors whose reads carry a column selection.
    pub fn authorize_read_columns(
        &self,
        user: &str,
        table: &str,
        columns: &mut ferrobase_engine::ColumnSelection,
        families: impl FnOnce() -> Vec<Vec<u8>>,
    ) -> Result<(), Denied> {
        let families: FamilyMap = if columns.is_empty() {
            families().into_iter().map(|f| (f, None)).collect()
        } else {
            columns
                .iter()
                .map(|(f, qs)| {
                    let qs = (!qs.is_empty()).then(|| qs.iter().cloned().collect());
                    (f.clone(), qs)
                })
                .collect()
        };
        let op = Operation::Read {
            table: table.to_string(),
            families,
            filterable: true,
        };
        if self.authorize(user, &op)? == ReadAccess::All {
            return Ok(());
        }
        let Operation::Read { families, .. } = op else {
            unreachable!("built above")
        };
        let readable = self.readable_columns(user, table, &families);
        if readable.is_empty() {
            return Err(read_denied(user, table));
        }
        let mut narrowed = ferrobase_engine::ColumnSelection::new();
        for c in readable {
            match c.iter().position(|&b| b == b':') {
                None => {
                    narrowed.insert(c, Vec::new());
                }
                Some(i) => {
                    let e = narrowed.entry(c[..i].to_vec()).or_default();
                    e.push(c[i + 1..].to_vec());
                    e.sort();
                }
            }
        }
        *columns = narrowed;
        Ok(())
    }

    /// ADMIN at a grant's scope (HBase's checks of `grant`, `revoke`, `getUserPermissions`).
    fn require_admin_at(&self, user: &str, scope: &Scope) -> Result<(), Denied> {
        match scope {
            Scope::Global => self.require_global(user, Action::Admin),
            Scope::Namespace(ns) => self.require_namespace(user, ns, &[Action::Admin]),
            Scope::Table {
                table,
                family,
                qualifier,
            } => self.require_table(
                user,
                table,
                family.as_deref(),
                qualifier.as_deref(),
                &[Action::Admin],
            ),
        }
    }
}

/// What a listing shows each user, on every door (HBase's `postGetTableNames`,
/// `postGetTableDescriptors`, `postListNamespaceDescriptors`).
impl AccessChecker {
    /// Whether a listing of table names shows `table` (canonical) to `user`: any grant reaching
    /// it; `hbase:acl` never (its cells are the grants).
    pub fn lists_table(&self, user: &str, table: &str) -> bool {
        table != ACL_TABLE && (self.is_superuser(user) || self.access_table(user, table))
    }

    /// Whether a listing of descriptors shows `table` (canonical) to `user`: ADMIN or CREATE on
    /// it, as reading its descriptor needs.
    pub fn describes_table(&self, user: &str, table: &str) -> bool {
        let op = Operation::DescribeTable {
            table: table.to_string(),
        };
        self.authorize(user, &op).is_ok()
    }

    /// Whether a listing of namespace descriptors shows `ns` to `user`: ADMIN on it.
    pub fn describes_namespace(&self, user: &str, ns: &str) -> bool {
        let op = Operation::DescribeNamespace {
            namespace: ns.to_string(),
        };
        self.authorize(user, &op).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrobase_security::acl::{AclStore, Actions};
    use std::collections::BTreeSet;
    use std::sync::Arc;

    fn checker() -> (tempfile::TempDir, AccessChecker) {
        let dir = tempfile::tempdir().unwrap();
        let engine =
            ferrobase_engine::Engine::open(dir.path(), ferrobase_engine::EngineOptions::default())
                .unwrap();
        let store = Arc::new(AclStore::open(&engine).unwrap());
        (dir, AccessChecker::new(store, ["root".to_string()]))
    }

    fn fam(f: &str, q: Option<&str>) -> FamilyMap {
        let mut m = FamilyMap::new();
        m.insert(
            f.as_bytes().to_vec(),
            q.map(|q| BTreeSet::from([q.as_bytes().to_vec()])),
        );
        m
    }

    #[test]
    fn the_acl_table_cannot_be_taken_off_line_even_by_a_superuser() {
        let (_d, acl) = checker();
        for op in [
            Operation::DisableTable {
                table: ACL_TABLE.into(),
            },
            Operation::DeleteTable {
                table: ACL_TABLE.into(),
            },
            Operation::TruncateTable {
                table: ACL_TABLE.into(),
            },
            Operation::DeleteFamily {
                table: ACL_TABLE.into(),
            },
        ] {
            let e = acl.authorize("root", &op).unwrap_err();
            assert!(e.0.starts_with("Not allowed to "), "{op:?}: {e}");
        }
    }

    #[test]
    fn only_the_owner_uses_a_scanner_and_an_unrecorded_owner_is_nobody() {
        let (_d, acl) = checker();
        let op = |o: Option<&str>| Operation::UseScanner {
            owner: o.map(str::to_string),
        };
        assert!(acl.authorize("alice", &op(Some("alice"))).is_ok());
        assert!(acl.authorize("root", &op(Some("alice"))).is_err());
        assert!(acl.authorize("alice", &op(None)).is_err());
    }

    #[test]
    fn system_tables_change_only_for_superusers() {
        let (_d, acl) = checker();
        acl.store()
            .grant("alice", &Scope::Global, Actions::all())
            .unwrap();
        let write = Operation::Write {
            table: ACL_TABLE.into(),
            cells: fam("l", Some("x")),
        };
        assert!(acl.authorize("alice", &write).is_err());
        assert!(acl.authorize("root", &write).is_ok());
        let read = Operation::Read {
            table: ACL_TABLE.into(),
            families: fam("l", None),
            filterable: true,
        };
        assert!(acl.authorize("alice", &read).is_ok());
    }

    #[test]
    fn a_partial_read_is_filtered_only_where_the_door_can_filter() {
        let (_d, acl) = checker();
        acl.store()
            .grant(
                "bob",
                &Scope::Table {
                    table: "t".into(),
                    family: Some(b"a".to_vec()),
                    qualifier: None,
                },
                Actions::parse("R").unwrap(),
            )
            .unwrap();
        let mut both = fam("a", None);
        both.insert(b"b".to_vec(), None);
        let read = |filterable| Operation::Read {
            table: "t".into(),
            families: both.clone(),
            filterable,
        };
        assert_eq!(acl.authorize("bob", &read(true)), Ok(ReadAccess::Filtered));
        assert!(acl.authorize("bob", &read(false)).is_err());
        assert!(acl.authorize("carol", &read(true)).is_err());
    }

    #[test]
    fn a_superusers_grants_change_only_by_a_superuser() {
        let (_d, acl) = checker();
        acl.store()
            .grant("alice", &Scope::Global, Actions::all())
            .unwrap();
        let op = |grantee: &str| Operation::ChangeGrant {
            scope: Scope::Global,
            grantee: grantee.into(),
        };
        assert!(acl.authorize("alice", &op("root")).is_err());
        assert!(acl.authorize("alice", &op("bob")).is_ok());
        assert!(acl.authorize("root", &op("root")).is_ok());
    }
}
