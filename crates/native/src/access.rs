//! ACLs on the native door: each call's operations under the rule every door shares
//! (`ferrobase_gateway::access::Operation`, `AccessChecker::authorize`), the user a connection
//! authenticated as, and what follows a call (a table's creator owns it, listings show each user
//! what HBase's `AccessController` shows).
//!
//! Fail closed: with ACLs on, a method is run only when [`rule`] lists it; a method listed as
//! [`Rule::Checked`] that answers without having authorized an operation is answered with an
//! error instead (a check forgotten in a handler shows at once, in tests, not as an open door).

use crate::error::RpcError;
use crate::services::Ctx;
use ferrobase_gateway::access::{AccessChecker, Denied, Operation, ReadAccess, ANONYMOUS};
use ferrobase_gateway::request::{
    AdminRequest, Authorized, AuthorizedAdmin, Executor, Failure, Request, Response,
};
use std::cell::Cell;
use std::sync::Arc;

/// HBase's exception for a refused operation (a `DoNotRetryIOException`).
pub(crate) const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

/// How the native door knows who a connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Identity {
    /// HBase's SIMPLE authentication: the user the client names in its connection header
    /// (`UserInformation.effective_user`), trusted as HBase trusts it. Anyone who reaches the
    /// port can claim any name: for trusted networks only (`--rpc-auth simple`).
    Simple,
    /// The subject common name (CN) of the client's TLS certificate, which the CA of
    /// `--tls-client-ca` signed (mutual TLS; the Thrift door's identity too). A connection
    /// without one is [`ANONYMOUS`]; the header's claim is not looked at.
    Certificate,
}

/// The ACL settings of the native door: the checker (sharing the Thrift door's grants) and
/// how users are identified.
#[derive(Clone)]
pub struct NativeAccess {
    /// The grants and superusers.
    pub checker: Arc<AccessChecker>,
    /// How a connection's user is known.
    pub identity: Identity,
    /// Whether `hbase:meta` shows each user only the rows of the tables a grant reaches
    /// (`--rpc-hide-tables`): a user then cannot learn that another table exists, and its client
    /// answers `TableNotFoundException` where HBase's says `AccessDeniedException`. Off by default,
    /// as HBase, whose AccessController lets every user read every row of `hbase:meta`.
    pub hide_tables: bool,
}

impl std::fmt::Debug for NativeAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeAccess")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

/// How the access rules treat a method when ACLs are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Reads what every user may read (`Operation::Catalog`), or lists what each user is
    /// shown; runs for everyone.
    Public,
    /// Its handler authorizes each operation it performs before running it.
    Checked,
}

thread_local! {
    /// Operations authorized by the call running on this handler thread.
    static CHECKS: Cell<u32> = const { Cell::new(0) };
}

/// Starts counting a call's authorizations (a handler thread runs one call at a time).
pub(crate) fn begin_call() {
    CHECKS.with(|c| c.set(0));
}

/// How many operations the call on this thread authorized.
pub(crate) fn checks() -> u32 {
    CHECKS.with(Cell::get)
}

pub(crate) fn denied(d: Denied) -> RpcError {
    RpcError::fatal(ACCESS_DENIED, d.0)
}

impl Ctx {
    /// The checker, when ACLs are on.
    pub(crate) fn acl(&self) -> Option<&AccessChecker> {
        self.shared.opts.access.as_ref().map(|a| &*a.checker)
    }

    /// The connection's user, as the door's [`Identity`] knows it ([`ANONYMOUS`] when it has
    /// none).
    pub(crate) fn user(&self) -> &str {
        let identity = self.shared.opts.access.as_ref().map(|a| a.identity);
        let user = match identity {
            Some(Identity::Certificate) => self.certificate_user.as_deref().unwrap_or_default(),
            Some(Identity::Simple) | None => &self.user,
        };
        if user.is_empty() {
            ANONYMOUS
        } else {
            user
        }
    }

    /// Whether the user may perform `op` (always, with ACLs off).
    pub(crate) fn authorize(&self, op: &Operation) -> Result<ReadAccess, RpcError> {
        let Some(acl) = self.acl() else {
            return Ok(ReadAccess::All);
        };
        CHECKS.with(|c| c.set(c.get() + 1));
        acl.authorize(self.user(), op).map_err(denied)
    }

    /// The shared executor, for this connection's user.
    fn executor(&self) -> Executor<'_> {
        Executor::new(&self.shared.engine, self.acl(), self.user())
    }

    /// `request` authorized for the user (a partly granted read narrowed); always, with ACLs
    /// off.
    pub(crate) fn authorize_request(&self, request: Request) -> Result<Authorized, RpcError> {
        if self.acl().is_some() {
            CHECKS.with(|c| c.set(c.get() + 1));
        }
        self.executor().authorize(request).map_err(denied)
    }

    /// `request` authorized, then run on the engine.
    pub(crate) fn execute(&self, request: Request) -> Result<Response, RpcError> {
        let authorized = self.authorize_request(request)?;
        self.run(authorized)
    }

    /// An authorized request run on the engine.
    pub(crate) fn run(&self, authorized: Authorized) -> Result<Response, RpcError> {
        Ok(self.executor().run(authorized)?)
    }

    /// An administrative request authorized, run on the engine and followed up by the shared
    /// executor.
    pub(crate) fn admin(&self, request: AdminRequest) -> Result<(), RpcError> {
        if self.acl().is_some() {
            CHECKS.with(|c| c.set(c.get() + 1));
        }
        match self.executor().admin(request) {
            Ok(_) => Ok(()),
            Err(Failure::Denied(d)) => Err(denied(d)),
            Err(Failure::Engine(e)) => Err(e.into()),
        }
    }

    /// An administrative request authorized for the user (always, with ACLs off), to be run
    /// by [`Ctx::run_admin`] once the door's own checks pass.
    pub(crate) fn authorize_admin(
        &self,
        request: AdminRequest,
    ) -> Result<AuthorizedAdmin, RpcError> {
        if self.acl().is_some() {
            CHECKS.with(|c| c.set(c.get() + 1));
        }
        self.executor().authorize_admin(request).map_err(denied)
    }

    /// An authorized administrative request run and followed up.
    pub(crate) fn run_admin(&self, authorized: AuthorizedAdmin) -> Result<(), RpcError> {
        self.executor().run_admin(authorized)?;
        Ok(())
    }

    /// Authorized puts and deletes of one table run as one batch, answered one by one
    /// ([`Executor::run_batch`]).
    pub(crate) fn run_batch(
        &self,
        parts: Vec<Authorized>,
    ) -> Result<Vec<Result<(), RpcError>>, RpcError> {
        Ok(self
            .executor()
            .run_batch(parts)?
            .into_iter()
            .map(|r| r.map_err(RpcError::from))
            .collect())
    }

    /// Whether `hbase:meta` shows `table`'s rows to the user: always, as HBase, unless the door
    /// hides the tables no grant reaches ([`NativeAccess::hide_tables`]).
    pub(crate) fn meta_shows(&self, table: &str) -> bool {
        match self.shared.opts.access.as_ref() {
            Some(a) if a.hide_tables => self.lists_table(table),
            _ => true,
        }
    }

    /// Whether a listing of table names shows `table` to the user (HBase's `postGetTableNames`:
    /// any grant reaching it). `hbase:acl` is never listed to anyone but superusers.
    pub(crate) fn lists_table(&self, table: &str) -> bool {
        // A superuser's listing of system tables (`includeSysTables`) shows hbase:acl too.
        self.acl()
            .is_none_or(|acl| acl.is_superuser(self.user()) || acl.lists_table(self.user(), table))
    }

    /// Whether a listing of descriptors shows `table` (HBase's `postGetTableDescriptors`: ADMIN
    /// or CREATE on it).
    pub(crate) fn describes_table(&self, table: &str) -> bool {
        self.acl()
            .is_none_or(|acl| acl.describes_table(self.user(), table))
    }

    /// Whether a listing of namespace descriptors shows `ns` (HBase's
    /// `postListNamespaceDescriptors`: ADMIN on it).
    pub(crate) fn describes_namespace(&self, ns: &str) -> bool {
        self.acl()
            .is_none_or(|acl| acl.describes_namespace(self.user(), ns))
    }
}

/// The rule of each method the door serves with ACLs on; `None`: not run with ACLs on.
pub(crate) fn rule(service: &str, method: &str) -> Option<Rule> {
    use Rule::{Checked, Public};
    Some(match (service, method) {
        ("ClientService", "Get" | "Mutate" | "Multi" | "Scan") => Checked,
        (
            "MasterService",
            "CreateTable"
            | "DeleteTable"
            | "DisableTable"
            | "EnableTable"
            | "truncateTable"
            | "FlushTable"
            | "AddColumn"
            | "ModifyColumn"
            | "DeleteColumn"
            | "ModifyTable"
            | "CreateNamespace"
            | "ModifyNamespace"
            | "DeleteNamespace"
            | "GetNamespaceDescriptor"
            | "SplitRegion"
            | "ExecProcedure"
            | "ExecProcedureWithRet"
            | "SetBalancerRunning"
            | "Balance"
            | "SetNormalizerRunning"
            | "SetSplitOrMergeEnabled"
            | "Grant"
            | "Revoke"
            | "GetUserPermissions"
            | "Snapshot"
            | "IsSnapshotDone"
            | "DeleteSnapshot"
            | "RestoreSnapshot"
            | "IsRestoreSnapshotDone",
        ) => Checked,
        // Listings filtered for each user, or state every user may read.
        (
            "MasterService",
            "IsMasterRunning"
            | "getProcedureResult"
            | "GetSchemaAlterStatus"
            | "GetTableDescriptors"
            | "GetTableNames"
            | "GetTableState"
            | "ListNamespaceDescriptors"
            | "ListNamespaces"
            | "ListTableDescriptorsByNamespace"
            | "ListTableNamesByNamespace"
            | "GetClusterStatus"
            | "IsProcedureDone"
            | "getSecurityCapabilities"
            | "IsBalancerEnabled"
            | "IsNormalizerEnabled"
            | "IsMasterInMaintenanceMode"
            | "IsSplitOrMergeEnabled"
            | "GetCompletedSnapshots",
        ) => Public,
        ("AdminService", "FlushRegion" | "CompactRegion") => Checked,
        (
            "AdminService",
            "GetRegionInfo"
            | "GetOnlineRegion"
            | "GetRegionLoad"
            | "GetStoreFile"
            | "GetSpaceQuotaSnapshots",
        ) => Public,
        ("ClientMetaService", _) => Public,
        _ => return None,
    })
}
