//! The services of HBase's RPC, one module each, dispatched by the service the connection
//! header names and the method each request header names (`docs/design/native-protocol.md`,
//! "Services"). A method ferrobase does not serve is a `DoNotRetryIOException` naming it.

mod admin;
mod client;
mod master;
mod master_acl;
mod meta;
mod slow_log;

use crate::access;
use crate::cellblock::Codec;
use crate::error::RpcError;
use crate::state::Shared;
use prost::Message;
use std::sync::Arc;

/// What a call runs with: the server, and the connection's codec, service and user.
pub(crate) struct Ctx {
    pub(crate) shared: Arc<Shared>,
    pub(crate) codec: Codec,
    pub(crate) service: String,
    /// The user the connection header names (SIMPLE authentication: the client's claim,
    /// unauthenticated).
    pub(crate) user: String,
    /// With mutual TLS, the subject CN of the client's certificate, which the CA vouched for:
    /// the identity ACL checks are to use (`docs/design/security.md`, "Identities").
    pub(crate) certificate_user: Option<String>,
    /// The connection's id (its scanners are counted and closed by it).
    pub(crate) connection: u64,
    /// Set once the connection's reader has seen the client leave: the calls still running
    /// for it stop their reads (`call_budget::CallBudget::with_cancel`).
    pub(crate) client_gone: Arc<std::sync::atomic::AtomicBool>,
    /// The memory pool its calls' reads take from (the server's in-flight memory): one for the
    /// connection, so that the rows read ahead of a scan call are taken over by the call that
    /// answers them (`call_budget::adopt` knows a pool by its `Arc`).
    pub(crate) read_pool: Arc<dyn ferrobase_engine::call_budget::MemoryPool>,
}

/// A call's answer: the response message and its cell block.
pub(crate) struct Reply {
    pub(crate) body: Vec<u8>,
    pub(crate) cells: Vec<u8>,
}

impl Reply {
    pub(crate) fn pb(m: &impl Message) -> Reply {
        Reply {
            body: m.encode_to_vec(),
            cells: Vec::new(),
        }
    }

    pub(crate) fn with_cells(m: &impl Message, cells: Vec<u8>) -> Reply {
        Reply {
            body: m.encode_to_vec(),
            cells,
        }
    }
}

/// Decodes a request parameter.
pub(crate) fn decode<M: Message + Default>(param: &[u8], method: &str) -> Result<M, RpcError> {
    M::decode(param)
        .map_err(|e| RpcError::bad_request(format!("the {method} request does not decode: {e}")))
}

/// The method is not one ferrobase serves.
pub(crate) fn unknown_method(service: &str, method: &str) -> RpcError {
    RpcError::unsupported(format!(
        "{service}.{method} is not served by ferrobase (docs/design/native-protocol.md lists \
         what is)"
    ))
}

/// The (service, method) pairs [`call`] answers, the fixed label set of the door's call
/// counters (`/metrics`): a call of any other name is counted as `other`. Keep it beside the
/// dispatch below and its services' matches.
pub(crate) const SERVED: &[(&str, &str)] = &[
    ("ClientService", "Get"),
    ("ClientService", "Mutate"),
    ("ClientService", "Multi"),
    ("ClientService", "Scan"),
    ("MasterService", "IsMasterRunning"),
    ("MasterService", "getProcedureResult"),
    ("MasterService", "CreateTable"),
    ("MasterService", "DeleteTable"),
    ("MasterService", "DisableTable"),
    ("MasterService", "EnableTable"),
    ("MasterService", "truncateTable"),
    ("MasterService", "FlushTable"),
    ("MasterService", "AddColumn"),
    ("MasterService", "ModifyColumn"),
    ("MasterService", "DeleteColumn"),
    ("MasterService", "ModifyTable"),
    ("MasterService", "GetSchemaAlterStatus"),
    ("MasterService", "GetTableDescriptors"),
    ("MasterService", "GetTableNames"),
    ("MasterService", "GetTableState"),
    ("MasterService", "CreateNamespace"),
    ("MasterService", "ModifyNamespace"),
    ("MasterService", "DeleteNamespace"),
    ("MasterService", "GetNamespaceDescriptor"),
    ("MasterService", "ListNamespaceDescriptors"),
    ("MasterService", "ListNamespaces"),
    ("MasterService", "ListTableDescriptorsByNamespace"),
    ("MasterService", "ListTableNamesByNamespace"),
    ("MasterService", "GetClusterStatus"),
    ("MasterService", "SplitRegion"),
    ("MasterService", "ExecProcedure"),
    ("MasterService", "ExecProcedureWithRet"),
    ("MasterService", "IsProcedureDone"),
    ("MasterService", "getSecurityCapabilities"),
    ("MasterService", "IsBalancerEnabled"),
    ("MasterService", "SetBalancerRunning"),
    ("MasterService", "Balance"),
    ("MasterService", "IsNormalizerEnabled"),
    ("MasterService", "SetNormalizerRunning"),
    ("MasterService", "IsMasterInMaintenanceMode"),
    ("MasterService", "IsSplitOrMergeEnabled"),
    ("MasterService", "GetCompletedSnapshots"),
    ("MasterService", "Snapshot"),
    ("MasterService", "IsSnapshotDone"),
    ("MasterService", "DeleteSnapshot"),
    ("MasterService", "RestoreSnapshot"),
    ("MasterService", "IsRestoreSnapshotDone"),
    ("MasterService", "Grant"),
    ("MasterService", "Revoke"),
    ("MasterService", "GetUserPermissions"),
    ("MasterService", "MergeTableRegions"),
    ("MasterService", "SetSplitOrMergeEnabled"),
    ("AdminService", "GetRegionInfo"),
    ("AdminService", "GetOnlineRegion"),
    ("AdminService", "FlushRegion"),
    ("AdminService", "CompactRegion"),
    ("AdminService", "GetRegionLoad"),
    ("AdminService", "GetStoreFile"),
    ("AdminService", "GetSpaceQuotaSnapshots"),
    ("ClientMetaService", "GetClusterId"),
    ("ClientMetaService", "GetActiveMaster"),
    ("ClientMetaService", "GetMasters"),
    ("ClientMetaService", "GetMetaRegionLocations"),
    ("ClientMetaService", "GetBootstrapNodes"),
];

/// Runs one call; with ACLs on, only a method the access rules list (`access::rule`), and a
/// checked method's answer only when it authorized what it did.
pub(crate) fn call(ctx: &Ctx, method: &str, param: &[u8], cells: &[u8]) -> Result<Reply, RpcError> {
    if ctx.acl().is_none() {
        return dispatch(ctx, method, param, cells);
    }
    match access::rule(&ctx.service, method) {
        None => Err(RpcError::unsupported(format!(
            "{}.{method} is not served by ferrobase with ACLs on (no access rule covers it)",
            ctx.service
        ))),
        Some(access::Rule::Public) => dispatch(ctx, method, param, cells),
        Some(access::Rule::Checked) => {
            access::begin_call();
            let answer = dispatch(ctx, method, param, cells)?;
            if access::checks() == 0 {
                // A handler that ran without authorizing: a bug, answered closed.
                return Err(access::denied(ferrobase_gateway::access::Denied(format!(
                    "{}.{method} ran no access check; refused (a ferrobase bug: report it)",
                    ctx.service
                ))));
            }
            Ok(answer)
        }
    }
}

fn dispatch(ctx: &Ctx, method: &str, param: &[u8], cells: &[u8]) -> Result<Reply, RpcError> {
    match ctx.service.as_str() {
        "ClientService" => client::call(ctx, method, param, cells),
        "MasterService" => master::call(ctx, method, param),
        "AdminService" => admin::call(ctx, method, param),
        "AccessControlService" => Err(admin::access_control(method)),
        "ClientMetaService" => meta::call(ctx, method),
        other => Err(unknown_method(other, method)),
    }
}
