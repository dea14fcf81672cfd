//! The checks of HBase's `AccessChecker`/`AuthManager`, and the denial messages of its
//! `AccessDeniedException`s, over the grants of an [`AclStore`].
//!
//! A grant implies another scope's request the way HBase's do: a global grant covers every
//! namespace, a namespace grant every table in it, a table grant every family, a family grant
//! every qualifier. Superusers (`--superuser`, HBase's `hbase.superuser`) pass every check.

use ferrobase_engine::TableName;
use ferrobase_security::acl::{AclStore, Action, Scope};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The families a request touches, each with the qualifiers it names (`None`: the whole
/// family), as HBase's `familyMap`.
pub type FamilyMap = BTreeMap<Vec<u8>, Option<BTreeSet<Vec<u8>>>>;

/// The user of a connection that presented no identity (plain Thrift, or TLS without a
/// client CA) when ACLs are on. Grants to it apply to every such connection.
pub const ANONYMOUS: &str = "anonymous";

/// How a read may proceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAccess {
    /// Every requested cell may be read.
    All,
    /// Only some families or qualifiers are granted: the cells the user may not read are
    /// dropped from the results (HBase's `AccessControlFilter`).
    Filtered,
}

/// A refused call: HBase's `AccessDeniedException` message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied(pub String);

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The namespace of a table name (`default` when it names none).
pub fn namespace_of(table: &str) -> String {
    TableName::parse(table)
        .map(|t| t.namespace().to_string())
        .unwrap_or_else(|_| "default".to_string())
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// HBase's family string of a denial: `f`, `f:q`, or several joined by `|`.
fn family_string(family: Option<&[u8]>, qualifier: Option<&[u8]>) -> String {
    match (family, qualifier) {
        (Some(f), Some(q)) => format!("{}:{}", text(f), text(q)),
        (Some(f), None) => text(f),
        _ => String::new(),
    }
}

/// A table's name with its namespace, as HBase's `getNameWithNamespaceInclAsString` (`default:t`).
fn with_namespace(table: &str) -> String {
    if table.contains(':') {
        table.to_string()
    } else {
        format!("default:{table}")
    }
}

/// HBase 2.6's `AuthResult.toContextString`: `(user=U, scope=S, [family=F, ]params=[P],action=A)`.
/// `params` are joined by `,`; an unset extra parameter (HBase's `filterUser` of checks that
/// take one) shows as a trailing empty entry, `params=[table=default:t,]`.
fn context(
    user: &str,
    scope: &str,
    family: &str,
    params: &[String],
    action: Option<Action>,
) -> String {
    let family = if family.is_empty() {
        String::new()
    } else {
        format!("family={family}, ")
    };
    format!(
        "(user={user}, scope={scope}, {family}params=[{}],action={})",
        params.join(","),
        action.map(|a| a.to_string()).unwrap_or_default()
    )
}

/// The `params` of a table check: the table, its family string if any, and with `extra` the
/// unset `filterUser`.
fn table_params(table: &str, family: &str, extra: bool) -> Vec<String> {
    let mut p = vec![format!("table={}", with_namespace(table))];
    if !family.is_empty() {
        p.push(format!("family={family}"));
    }
    if extra {
        p.push(String::new());
    }
    p
}

/// Decides every request of an ACL-checked server. Thread-safe.
pub struct AccessChecker {
    store: Arc<AclStore>,
    superusers: BTreeSet<String>,
}

impl AccessChecker {
    /// Checks against `store`, with `superusers` passing every check.
    pub fn new(store: Arc<AclStore>, superusers: impl IntoIterator<Item = String>) -> Self {
        AccessChecker {
            store,
            superusers: superusers.into_iter().collect(),
        }
    }

    /// The grants.
    pub fn store(&self) -> &AclStore {
        &self.store
    }

    /// True for a superuser.
    pub fn is_superuser(&self, user: &str) -> bool {
        self.superusers.contains(user)
    }

    /// The superusers, sorted.
    pub fn superusers(&self) -> impl Iterator<Item = &str> {
        self.superusers.iter().map(String::as_str)
    }

    fn granted(&self, user: &str, action: Action, covers: impl Fn(&Scope) -> bool) -> bool {
        self.store.with_user(user, |grants| {
            grants
                .iter()
                .any(|(scope, actions)| actions.contains(action) && covers(scope))
        })
    }

    /// HBase's `authorizeUserGlobal`.
    pub fn authorize_global(&self, user: &str, action: Action) -> bool {
        self.is_superuser(user) || self.granted(user, action, |s| *s == Scope::Global)
    }

    /// HBase's `authorizeUserNamespace`: global, or the namespace.
    pub fn authorize_namespace(&self, user: &str, ns: &str, action: Action) -> bool {
        self.authorize_global(user, action)
            || self.granted(
                user,
                action,
                |s| matches!(s, Scope::Namespace(n) if n == ns),
            )
    }

    /// HBase's `authorizeUserTable(user, table, family, qualifier, action)`: the namespace, or
    /// a grant on the table whose family and qualifier (when it has them) match the request's.
    pub fn authorize_table(
        &self,
        user: &str,
        table: &str,
        family: Option<&[u8]>,
        qualifier: Option<&[u8]>,
        action: Action,
    ) -> bool {
        self.authorize_namespace(user, &namespace_of(table), action)
            || self.granted(user, action, |s| match s {
                Scope::Table {
                    table: t,
                    family: gf,
                    qualifier: gq,
                } => {
                    t == table
                        && gf.as_deref().is_none_or(|gf| family == Some(gf))
                        && gq.as_deref().is_none_or(|gq| qualifier == Some(gq))
                }
                _ => false,
            })
    }

    /// HBase's `authorizeUserFamily`: a grant on the table or on `family` (a grant on one of
    /// its qualifiers counts too; the qualifier is not looked at).
    fn authorize_family(&self, user: &str, table: &str, family: &[u8], action: Action) -> bool {
        self.granted(user, action, |s| match s {
            Scope::Table {
                table: t,
                family: gf,
                ..
            } => t == table && gf.as_deref().is_none_or(|gf| gf == family),
            _ => false,
        })
    }

    /// HBase's `accessUserTable` for any action: some grant reaches the table (a family or
    /// qualifier grant is enough). Decides which tables `getTableNames` lists.
    pub fn access_table(&self, user: &str, table: &str) -> bool {
        let ns = namespace_of(table);
        Action::ALL.into_iter().any(|action| {
            self.authorize_namespace(user, &ns, action)
                || self.granted(user, action, |s| s.table_name() == Some(table))
        })
    }

    /// HBase's `requireGlobalPermission`.
    pub fn require_global(&self, user: &str, action: Action) -> Result<(), Denied> {
        if self.authorize_global(user, action) {
            return Ok(());
        }
        Err(Denied(format!(
            "Insufficient permissions for user '{user}' (global, action={action})"
        )))
    }

    /// HBase's `requireNamespacePermission`: any one of `actions` on the namespace.
    pub fn require_namespace(
        &self,
        user: &str,
        ns: &str,
        actions: &[Action],
    ) -> Result<(), Denied> {
        let mut last = None;
        for &action in actions {
            if self.authorize_namespace(user, ns, action) {
                return Ok(());
            }
            last = Some(action);
        }
        Err(Denied(format!(
            "Insufficient permissions {}",
            context(
                user,
                ns,
                "",
                &[format!("namespace={ns}"), String::new()],
                last
            )
        )))
    }

    /// HBase's `preCreateTable` check (`requireNamespacePermission` with the new table and its
    /// families): any one of `actions` on the namespace of `table`.
    pub fn require_namespace_for_table(
        &self,
        user: &str,
        table: &str,
        families: &[Vec<u8>],
        actions: &[Action],
    ) -> Result<(), Denied> {
        let ns = namespace_of(table);
        let mut last = None;
        for &action in actions {
            if self.authorize_namespace(user, &ns, action) {
                return Ok(());
            }
            last = Some(action);
        }
        let mut sorted: Vec<&Vec<u8>> = families.iter().collect();
        sorted.sort();
        sorted.dedup();
        let families = sorted.iter().map(|f| text(f)).collect::<Vec<_>>().join("|");
        let mut params = vec![
            format!("namespace={ns}"),
            format!("table={}", with_namespace(table)),
        ];
        if !families.is_empty() {
            params.push(format!("family={families}"));
        }
        Err(Denied(format!(
            "Insufficient permissions {}",
            context(user, &ns, "", &params, last)
        )))
    }

    /// HBase's `requirePermission(user, request, table, family, qualifier, actions...)`: any one
    /// of `actions` on the table (or its family, or column).
    pub fn require_table(
        &self,
        user: &str,
        table: &str,
        family: Option<&[u8]>,
        qualifier: Option<&[u8]>,
        actions: &[Action],
    ) -> Result<(), Denied> {
        let mut last = None;
        for &action in actions {
            if self.authorize_table(user, table, family, qualifier, action) {
                return Ok(());
            }
            last = Some(action);
        }
        let family = family_string(family, qualifier);
        Err(Denied(format!(
            "Insufficient permissions {}",
            context(
                user,
                &with_namespace(table),
                &family,
                &table_params(table, &family, true),
                last
            )
        )))
    }

    /// HBase's `AccessChecker.permissionGranted`: the table, or every family (a family grant, or
    /// a grant on each named qualifier). The error is the family string of the first failure.
    fn permission_granted(
        &self,
        user: &str,
        table: &str,
        action: Action,
        families: &FamilyMap,
    ) -> Result<(), String> {
        if self.authorize_table(user, table, None, None, action) {
            return Ok(());
        }
        if families.is_empty() {
            return Err(String::new());
        }
        for (family, qualifiers) in families {
            if self.authorize_table(user, table, Some(family), None, action) {
                continue;
            }
            match qualifiers {
                Some(qs) if !qs.is_empty() => {
                    for q in qs {
                        if !self.authorize_table(user, table, Some(family), Some(q), action) {
                            return Err(family_string(Some(family), Some(q)));
                        }
                    }
                }
                _ => return Err(family_string(Some(family), None)),
            }
        }
        Ok(())
    }

    /// A mutation's check (HBase's `prePut`, `preDelete`, `preIncrement`, `preAppend`, and
    /// `preCheckAndPut` with READ then WRITE): every action on every family/qualifier touched.
    pub fn require_mutation(
        &self,
        user: &str,
        table: &str,
        families: &FamilyMap,
        actions: &[Action],
    ) -> Result<(), Denied> {
        for &action in actions {
            if let Err(family) = self.permission_granted(user, table, action, families) {
                return Err(Denied(format!(
                    "Insufficient permissions {}",
                    context(
                        user,
                        &with_namespace(table),
                        &family,
                        &table_params(table, &family, false),
                        Some(action)
                    )
                )));
            }
        }
        Ok(())
    }

    /// A read's check (HBase's `internalPreRead` with `hbase.security.access.early_out` at its
    /// default): all of it, or, when some requested family has a family or qualifier grant,
    /// the granted cells only.
    pub fn require_read(
        &self,
        user: &str,
        table: &str,
        families: &FamilyMap,
    ) -> Result<ReadAccess, Denied> {
        if self
            .permission_granted(user, table, Action::Read, families)
            .is_ok()
        {
            return Ok(ReadAccess::All);
        }
        let some = families
            .iter()
            .any(|(family, qualifiers)| match qualifiers {
                Some(qs) if !qs.is_empty() => qs.iter().any(|q| {
                    self.authorize_table(user, table, Some(family), Some(q), Action::Read)
                }),
                _ => self.authorize_family(user, table, family, Action::Read),
            });
        if some {
            return Ok(ReadAccess::Filtered);
        }
        Err(Denied(format!(
            "Insufficient permissions for user '{user}' (table={table}, action=READ)"
        )))
    }

    /// The part of a partly granted read that `user` may read, as the columns of a scan
    /// (`family` for a whole family, `family:qualifier` for one column): of each requested
    /// family, the requested qualifiers that are granted, or, the whole family asked for, the
    /// family when it is granted whole, else the qualifiers of it that the user's grants name. What the engine is asked
    /// to read when a filter must not see the rest (HBase's `AccessControlFilter`, which runs
    /// before the user's filter); empty when nothing is readable.
    pub fn readable_columns(&self, user: &str, table: &str, families: &FamilyMap) -> Vec<Vec<u8>> {
        let column = |family: &[u8], qualifier: &[u8]| {
            let mut c = family.to_vec();
            c.push(b':');
            c.extend_from_slice(qualifier);
            c
        };
        let mut out = Vec::new();
        for (family, qualifiers) in families {
            let whole = self.authorize_table(user, table, Some(family), None, Action::Read);
            let granted: Vec<Vec<u8>> = match qualifiers {
                Some(qs) if !qs.is_empty() => qs
                    .iter()
                    .filter(|q| {
                        whole
                            || self.authorize_table(
                                user,
                                table,
                                Some(family),
                                Some(q),
                                Action::Read,
                            )
                    })
                    .cloned()
                    .collect(),
                _ if whole => {
                    out.push(family.clone());
                    continue;
                }
                _ => self.store.with_user(user, |grants| {
                    grants
                        .iter()
                        .filter_map(|(scope, actions)| match scope {
                            Scope::Table {
                                table: t,
                                family: Some(f),
                                qualifier: Some(q),
                            } if t == table && f == family && actions.contains(Action::Read) => {
                                Some(q.clone())
                            }
                            _ => None,
                        })
                        .collect()
                }),
            };
            out.extend(granted.iter().map(|q| column(family, q)));
        }
        out
    }

    /// True when `user` may read the cells of `family:qualifier` (the filter of a
    /// [`ReadAccess::Filtered`] read).
    pub fn cell_readable(&self, user: &str, table: &str, family: &[u8], qualifier: &[u8]) -> bool {
        self.authorize_table(user, table, Some(family), Some(qualifier), Action::Read)
    }
}
