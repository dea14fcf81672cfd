//! Access control with HBase's model: users (the subject CN of a mutual-TLS client
//! certificate), grants of the actions R, W, X, C, A at global, namespace, table, family and
//! qualifier scope kept in `hbase:acl`, superusers, and the checks HBase's `AccessController`
//! makes before each operation (`docs/design/security.md` has the table).

//!
//! The model and the store of grants are `ferrobase-security`'s (the client shares them); the
//! checks are here.

pub mod checker;
pub mod operation;
mod ownership;

pub use checker::{AccessChecker, Denied, FamilyMap, ReadAccess, ANONYMOUS};
pub use ferrobase_security::acl::{
    acl_table, canonical_table, permission, AclStore, Action, Actions, Scope, UserPermission,
    ACL_TABLE,
};
pub use operation::{Operation, SYSTEM_NAMESPACE};

/// ACL settings of a server.
#[derive(Clone, Default)]
pub struct AccessOptions {
    /// Users that pass every check (HBase's `hbase.superuser`), e.g. the CN of the operator's
    /// client certificate.
    pub superusers: Vec<String>,
    /// The grants, when another door shares them (`None`: the server opens the engine's
    /// `hbase:acl`). Two doors over one engine must share one store: each caches the grants.
    pub store: Option<std::sync::Arc<AclStore>>,
}

impl std::fmt::Debug for AccessOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessOptions")
            .field("superusers", &self.superusers)
            .field("shared_store", &self.store.is_some())
            .finish()
    }
}
