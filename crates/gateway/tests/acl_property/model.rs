//! The oracle: HBase's rules (`docs/design/security.md`, "Checks"; HBase's `AuthManager`)
//! written again from the grants alone, independently of the gateway's checker, with
//! ferrobase's stricter rule for the system namespace.

use ferrobase_gateway::access::{Action, Actions, Scope};

/// The namespace of a canonical table name (`t` is `default:t`).
pub(crate) fn namespace_of(table: &str) -> &str {
    table.split_once(':').map_or("default", |(ns, _)| ns)
}

/// The system namespace: only superusers change its tables.
pub(crate) const SYSTEM: &str = "hbase";

/// Every grant of one user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Grants(pub(crate) Vec<(Scope, Actions)>);

impl Grants {
    /// HBase's `authorizeUserTable`: some grant with `action` covers the table, family and
    /// qualifier asked for (`None`: the request names none).
    pub(crate) fn covers(
        &self,
        action: Action,
        table: &str,
        family: Option<&[u8]>,
        qualifier: Option<&[u8]>,
    ) -> bool {
        self.0.iter().any(|(scope, actions)| {
            actions.contains(action)
                && match scope {
                    Scope::Global => true,
                    Scope::Namespace(ns) => ns == namespace_of(table),
                    Scope::Table {
                        table: t,
                        family: f,
                        qualifier: q,
                    } => {
                        t == table
                            && f.as_deref().is_none_or(|f| family == Some(f))
                            && q.as_deref().is_none_or(|q| qualifier == Some(q))
                    }
                }
        })
    }

    /// May read the cells of `family:qualifier` of `table`. Every user may read `hbase:meta`.
    pub(crate) fn may_read(&self, table: &str, family: &[u8], qualifier: &[u8]) -> bool {
        table == "hbase:meta" || self.covers(Action::Read, table, Some(family), Some(qualifier))
    }

    /// May read every cell of `family` of `table`.
    pub(crate) fn may_read_family(&self, table: &str, family: &[u8]) -> bool {
        table == "hbase:meta" || self.covers(Action::Read, table, Some(family), None)
    }

    /// May write the cells of `family:qualifier` (a family marker's qualifier is empty).
    pub(crate) fn may_write(&self, table: &str, family: &[u8], qualifier: &[u8]) -> bool {
        namespace_of(table) != SYSTEM
            && self.covers(Action::Write, table, Some(family), Some(qualifier))
    }

    /// May administer `table` (ADMIN or CREATE on it: alter, truncate, disable, drop).
    pub(crate) fn may_alter(&self, table: &str) -> bool {
        namespace_of(table) != SYSTEM
            && (self.covers(Action::Admin, table, None, None)
                || self.covers(Action::Create, table, None, None))
    }

    /// May create a table in `ns` (ADMIN or CREATE on the namespace).
    pub(crate) fn may_create_in(&self, ns: &str) -> bool {
        ns != SYSTEM
            && self.0.iter().any(|(scope, actions)| {
                (actions.contains(Action::Admin) || actions.contains(Action::Create))
                    && match scope {
                        Scope::Global => true,
                        Scope::Namespace(n) => n == ns,
                        Scope::Table { .. } => false,
                    }
            })
    }

    /// ADMIN at `scope` (HBase's check of a grant, revoke or listing there).
    pub(crate) fn admin_at(&self, scope: &Scope) -> bool {
        match scope {
            Scope::Global => self
                .0
                .iter()
                .any(|(s, a)| *s == Scope::Global && a.contains(Action::Admin)),
            Scope::Namespace(ns) => self.0.iter().any(|(s, a)| {
                a.contains(Action::Admin)
                    && match s {
                        Scope::Global => true,
                        Scope::Namespace(n) => n == ns,
                        Scope::Table { .. } => false,
                    }
            }),
            Scope::Table {
                table,
                family,
                qualifier,
            } => self.covers(
                Action::Admin,
                table,
                family.as_deref(),
                qualifier.as_deref(),
            ),
        }
    }

    /// Global ADMIN.
    pub(crate) fn global_admin(&self) -> bool {
        self.admin_at(&Scope::Global)
    }
}
