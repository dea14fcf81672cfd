//! `MasterService` (Master.proto): what `Admin` does every day. ferrobase runs each table and
//! namespace change at once, so the procedure id it answers is already finished when the
//! client asks `getProcedureResult`; a change that fails is refused by the call itself, with
//! the exception HBase throws from that call.

use super::{decode, master_acl, unknown_method, Ctx, Reply};
use crate::descriptors::{family_from_pb, table_from_pb, table_to_pb};
use crate::error::RpcError;
use crate::proto::cluster_status::{
    ClusterStatus, HBaseVersionFileContent, LiveServerInfo, RegionStatesCount, ServerLoad,
    TableRegionStatesCount,
};
use crate::proto::hbase::{table_state, NamespaceDescriptor, TableState};
use crate::proto::master::*;
use crate::proto::zookeeper::ClusterId;
use crate::regions::{pb_table_name, table_text};
use crate::state::now_ms;
use ferrobase_engine::{Admin, Error, TableName};
use ferrobase_gateway::access::Operation;
use ferrobase_gateway::catalog;
use ferrobase_gateway::request::{AdminRequest, TableChange};
use std::sync::atomic::Ordering;

/// Tables the master lists: every table but ferrobase's `hbase:acl` (a system table, as
/// HBase's listings leave system tables out unless asked).
fn listed_tables(admin: &Admin, include_sys: bool) -> Result<Vec<String>, RpcError> {
    Ok(admin
        .list_tables()?
        .into_iter()
        .filter(|t| include_sys || t.namespace() != "hbase")
        .map(|t| t.to_string())
        .collect())
}

/// HBase matches `regex` against the whole name (`Pattern.matcher(name).matches()`).
fn name_matches(regex: Option<&str>, name: &str) -> Result<bool, RpcError> {
    let Some(r) = regex.filter(|r| !r.is_empty()) else {
        return Ok(true);
    };
    let re = ferrobase_gateway::hbase_values::java_regex(r)
        .map_err(|e| RpcError::bad_request(format!("table name pattern {r:?}: {e}")))?;
    Ok(re.is_match(name))
}

fn in_namespace(ns: Option<&str>, table: &str) -> bool {
    match ns.filter(|n| !n.is_empty()) {
        None => true,
        Some(ns) => table.split_once(':').map_or("default", |(n, _)| n) == ns,
    }
}

/// Runs a `MasterService` call: with ACLs on, its operation authorized first and what follows
/// a change after (`master_acl`).
pub(super) fn call(ctx: &Ctx, method: &str, param: &[u8]) -> Result<Reply, RpcError> {
    if ctx.acl().is_some() && matches!(method, "Grant" | "Revoke" | "GetUserPermissions") {
        return master_acl::grants(ctx, method, param);
    }
    master_acl::check(ctx, method, param)?;
    run(ctx, method, param)
}

fn run(ctx: &Ctx, method: &str, param: &[u8]) -> Result<Reply, RpcError> {
    let shared = &ctx.shared;
    let admin = shared.engine.admin();
    let procedure = || {
        Reply::pb(&CreateTableResponse {
            proc_id: Some(shared.next_procedure.fetch_add(1, Ordering::AcqRel)),
        })
    };
    Ok(match method {
        "IsMasterRunning" => Reply::pb(&IsMasterRunningResponse {
            is_master_running: Some(true),
        }),
        "getProcedureResult" => {
            let req: GetProcedureResultRequest = decode(param, method)?;
            let issued = req
                .proc_id
                .is_some_and(|id| id > 0 && id < shared.next_procedure.load(Ordering::Acquire));
            let now = now_ms();
            let mut res = GetProcedureResultResponse {
                submitted_time: Some(now),
                last_update: Some(now),
                ..GetProcedureResultResponse::default()
            };
            res.set_state(if issued {
                get_procedure_result_response::State::Finished
            } else {
                get_procedure_result_response::State::NotFound
            });
            Reply::pb(&res)
        }
        "CreateTable" => {
            let req: CreateTableRequest = decode(param, method)?;
            let schema = req
                .table_schema
                .as_ref()
                .ok_or_else(|| RpcError::bad_request("CreateTable without a table schema"))?;
            ctx.admin(AdminRequest::CreateTable {
                descriptor: table_from_pb(schema)?,
                splits: req.split_keys,
            })?;
            procedure()
        }
        "DeleteTable" => {
            let req: DeleteTableRequest = decode(param, method)?;
            ctx.admin(AdminRequest::DeleteTable {
                table: table_text(req.table_name.as_ref())?,
            })?;
            procedure()
        }
        "DisableTable" => {
            let req: DisableTableRequest = decode(param, method)?;
            ctx.admin(AdminRequest::DisableTable {
                table: table_text(req.table_name.as_ref())?,
            })?;
            procedure()
        }
        "EnableTable" => {
            let req: EnableTableRequest = decode(param, method)?;
            ctx.admin(AdminRequest::EnableTable {
                table: table_text(req.table_name.as_ref())?,
            })?;
            procedure()
        }
        // Master.proto spells this one method in lower camel case.
        "truncateTable" => {
            let req: TruncateTableRequest = decode(param, method)?;
            ctx.admin(AdminRequest::TruncateTable {
                table: table_text(req.table_name.as_ref())?,
                preserve_splits: req.preserve_splits.unwrap_or(false),
            })?;
            procedure()
        }
        "FlushTable" => {
            let req: FlushTableRequest = decode(param, method)?;
            ctx.admin(AdminRequest::Flush {
                table: table_text(req.table_name.as_ref())?,
            })?;
            procedure()
        }
        "AddColumn" => {
            let req: AddColumnRequest = decode(param, method)?;
            let table = table_text(req.table_name.as_ref())?;
            let cf = req
                .column_families
                .as_ref()
                .ok_or_else(|| RpcError::bad_request("AddColumn without a family"))?;
            ctx.admin(AdminRequest::AlterTable {
                table,
                changes: vec![TableChange::AddFamily(family_from_pb(cf)?)],
            })?;
            procedure()
        }
        "ModifyColumn" => {
            let req: ModifyColumnRequest = decode(param, method)?;
            let table = table_text(req.table_name.as_ref())?;
            let cf = req
                .column_families
                .as_ref()
                .ok_or_else(|| RpcError::bad_request("ModifyColumn without a family"))?;
            ctx.admin(AdminRequest::AlterTable {
                table,
                changes: vec![TableChange::ModifyFamily(family_from_pb(cf)?)],
            })?;
            procedure()
        }
        "DeleteColumn" => {
            let req: DeleteColumnRequest = decode(param, method)?;
            ctx.admin(AdminRequest::AlterTable {
                table: table_text(req.table_name.as_ref())?,
                changes: vec![TableChange::DeleteFamily(
                    req.column_name.unwrap_or_default(),
                )],
            })?;
            procedure()
        }
        "ModifyTable" => {
            let req: ModifyTableRequest = decode(param, method)?;
            let table = table_text(req.table_name.as_ref())?;
            let schema = req
                .table_schema
                .as_ref()
                .ok_or_else(|| RpcError::bad_request("ModifyTable without a table schema"))?;
            let schema = table_from_pb(schema)?;
            if TableName::parse(&table).ok().as_ref() != Some(&schema.name) {
                return Err(RpcError::bad_request(format!(
                    "ModifyTable of {table} carries the schema of {}",
                    schema.name
                )));
            }
            ctx.admin(AdminRequest::AlterTable {
                table,
                changes: vec![TableChange::Schema(schema)],
            })?;
            procedure()
        }
        "GetSchemaAlterStatus" => Reply::pb(&GetSchemaAlterStatusResponse {
            yet_to_update_regions: Some(0),
            total_regions: Some(1),
        }),
        "GetTableDescriptors" => {
            let req: GetTableDescriptorsRequest = decode(param, method)?;
            let names = if req.table_names.is_empty() {
                let mut names = Vec::new();
                for t in listed_tables(&admin, req.include_sys_tables.unwrap_or(false))? {
                    if name_matches(req.regex.as_deref(), &t)?
                        && in_namespace(req.namespace.as_deref(), &t)
                        && ctx.describes_table(&t)
                    {
                        names.push(t);
                    }
                }
                names
            } else {
                let names: Vec<String> = req
                    .table_names
                    .iter()
                    .map(|n| table_text(Some(n)))
                    .collect::<Result<_, _>>()?;
                // HBase's preGetTableDescriptors: ADMIN or CREATE on each named table that
                // exists.
                for t in &names {
                    if admin.table_exists(t)? {
                        ctx.authorize(&Operation::DescribeTable { table: t.clone() })?;
                    }
                }
                names
            };
            let mut table_schema = Vec::new();
            for t in names {
                match admin.describe(&t) {
                    Ok(d) => table_schema.push(table_to_pb(&d)),
                    // HBase answers with the tables that exist; the client raises
                    // TableNotFoundException when the one it asked for is missing.
                    Err(ferrobase_engine::Error::TableNotFound(_)) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            Reply::pb(&GetTableDescriptorsResponse { table_schema })
        }
        "GetTableNames" => {
            let req: GetTableNamesRequest = decode(param, method)?;
            let mut table_names = Vec::new();
            for t in listed_tables(&admin, req.include_sys_tables.unwrap_or(false))? {
                if name_matches(req.regex.as_deref(), &t)?
                    && in_namespace(req.namespace.as_deref(), &t)
                    && ctx.lists_table(&t)
                {
                    table_names.push(pb_table_name(&t));
                }
            }
            Reply::pb(&GetTableNamesResponse { table_names })
        }
        "GetTableState" => {
            let req: GetTableStateRequest = decode(param, method)?;
            let table = table_text(req.table_name.as_ref())?;
            let mut state = TableState::default();
            state.set_state(if admin.is_enabled(&table)? {
                table_state::State::Enabled
            } else {
                table_state::State::Disabled
            });
            Reply::pb(&GetTableStateResponse {
                table_state: Some(state),
            })
        }
        "CreateNamespace" => {
            let req: CreateNamespaceRequest = decode(param, method)?;
            let namespace = namespace_without_properties(req.namespace_descriptor.as_ref())?;
            ctx.admin(AdminRequest::CreateNamespace { namespace })?;
            procedure()
        }
        "ModifyNamespace" => {
            let req: ModifyNamespaceRequest = decode(param, method)?;
            let ns = namespace_without_properties(req.namespace_descriptor.as_ref())?;
            if !admin.list_namespaces()?.contains(&ns) {
                return Err(ferrobase_engine::Error::NamespaceNotFound(ns).into());
            }
            procedure()
        }
        "DeleteNamespace" => {
            let req: DeleteNamespaceRequest = decode(param, method)?;
            ctx.admin(AdminRequest::DeleteNamespace {
                namespace: req.namespace_name.unwrap_or_default(),
            })?;
            procedure()
        }
        "GetNamespaceDescriptor" => {
            let req: GetNamespaceDescriptorRequest = decode(param, method)?;
            let ns = req.namespace_name.unwrap_or_default();
            if !admin.list_namespaces()?.contains(&ns) {
                return Err(ferrobase_engine::Error::NamespaceNotFound(ns).into());
            }
            Reply::pb(&GetNamespaceDescriptorResponse {
                namespace_descriptor: Some(namespace(&ns)),
            })
        }
        "ListNamespaceDescriptors" => {
            let mut names = admin.list_namespaces()?;
            names.retain(|n| ctx.describes_namespace(n));
            names.sort();
            Reply::pb(&ListNamespaceDescriptorsResponse {
                namespace_descriptor: names.iter().map(|n| namespace(n)).collect(),
            })
        }
        "ListNamespaces" => {
            let mut names = admin.list_namespaces()?;
            names.sort();
            Reply::pb(&ListNamespacesResponse {
                namespace_name: names,
            })
        }
        "ListTableDescriptorsByNamespace" => {
            let req: ListTableDescriptorsByNamespaceRequest = decode(param, method)?;
            let ns = namespace_exists(&admin, req.namespace_name)?;
            let mut table_schema = Vec::new();
            for t in listed_tables(&admin, true)? {
                if in_namespace(Some(&ns), &t) && ctx.describes_table(&t) {
                    table_schema.push(table_to_pb(&admin.describe(&t)?));
                }
            }
            Reply::pb(&ListTableDescriptorsByNamespaceResponse { table_schema })
        }
        "ListTableNamesByNamespace" => {
            let req: ListTableNamesByNamespaceRequest = decode(param, method)?;
            let ns = namespace_exists(&admin, req.namespace_name)?;
            let table_name = listed_tables(&admin, true)?
                .into_iter()
                .filter(|t| in_namespace(Some(&ns), t) && ctx.lists_table(t))
                .map(|t| pb_table_name(&t))
                .collect();
            Reply::pb(&ListTableNamesByNamespaceResponse { table_name })
        }
        "GetClusterStatus" => {
            let req: GetClusterStatusRequest = decode(param, method)?;
            Reply::pb(&GetClusterStatusResponse {
                cluster_status: Some(cluster_status(ctx, &req)?),
            })
        }
        "SplitRegion" => {
            let req: SplitTableRegionRequest = decode(param, method)?;
            split_region(ctx, &req)?;
            Reply::pb(&SplitTableRegionResponse {
                proc_id: Some(shared.next_procedure.fetch_add(1, Ordering::AcqRel)),
            })
        }
        // Admin.flush's path before HBase 2.6's FlushTable procedure, still taken by 2.x clients
        // that find FlushTable missing: the `flush-table-proc` procedure, done at once.
        "ExecProcedure" | "ExecProcedureWithRet" => {
            let req: ExecProcedureRequest = decode(param, method)?;
            let p = req.procedure.unwrap_or_default();
            match p.signature.as_deref() {
                Some("flush-table-proc") => {
                    ctx.admin(AdminRequest::Flush {
                        table: table_text(Some(&pb_table_name(
                            p.instance.as_deref().unwrap_or_default(),
                        )))?,
                    })?;
                }
                other => {
                    return Err(RpcError::unsupported(format!(
                        "procedure {} is not supported by ferrobase (only flush-table-proc)",
                        other.unwrap_or_default()
                    )))
                }
            }
            Reply::pb(&ExecProcedureResponse {
                expected_timeout: Some(0),
                return_data: None,
            })
        }
        "IsProcedureDone" => Reply::pb(&IsProcedureDoneResponse {
            done: Some(true),
            snapshot: None,
        }),
        "getSecurityCapabilities" => {
            // AUTHORIZATION with ACLs on (HBase's AccessController); without it HBase's shell
            // answers grant and revoke with "Security features are not available".
            let mut res = SecurityCapabilitiesResponse::default();
            res.push_capabilities(security_capabilities_response::Capability::SimpleAuthentication);
            if ctx.acl().is_some() {
                res.push_capabilities(security_capabilities_response::Capability::Authorization);
            }
            Reply::pb(&res)
        }
        // ferrobase has no balancer, no normalizer and no maintenance mode: each is off, and a
        // request to turn one on changes nothing (as HBase's own switches, they are hints).
        "IsBalancerEnabled" => Reply::pb(&IsBalancerEnabledResponse {
            enabled: Some(false),
        }),
        "SetBalancerRunning" => Reply::pb(&SetBalancerRunningResponse {
            prev_balance_value: Some(false),
        }),
        "Balance" => Reply::pb(&BalanceResponse {
            balancer_ran: Some(false),
            moves_calculated: Some(0),
            moves_executed: Some(0),
        }),
        "IsNormalizerEnabled" => Reply::pb(&IsNormalizerEnabledResponse {
            enabled: Some(false),
        }),
        "SetNormalizerRunning" => Reply::pb(&SetNormalizerRunningResponse {
            prev_normalizer_value: Some(false),
        }),
        "IsMasterInMaintenanceMode" => Reply::pb(&IsInMaintenanceModeResponse {
            in_maintenance_mode: Some(false),
        }),
        // Splits happen (ferrobase's split policy, `split`); merges do not exist.
        "IsSplitOrMergeEnabled" => {
            let req: IsSplitOrMergeEnabledRequest = decode(param, method)?;
            Reply::pb(&IsSplitOrMergeEnabledResponse {
                enabled: Some(req.switch_type() == MasterSwitchType::Split),
            })
        }
        "GetCompletedSnapshots" => {
            // HBase lists a snapshot only to its owner and global admins; ferrobase records no
            // owners, so with ACLs on a user without global ADMIN sees none.
            let shown = ctx.acl().is_none() || ctx.authorize(&Operation::ClusterAdmin).is_ok();
            let snapshots = if shown {
                admin
                    .list_snapshots()?
                    .into_iter()
                    .map(snapshot_to_pb)
                    .collect()
            } else {
                Vec::new()
            };
            Reply::pb(&GetCompletedSnapshotsResponse { snapshots })
        }
        "Snapshot" => {
            let req: SnapshotRequest = decode(param, method)?;
            let d = snapshot_of(req.snapshot)?;
            let snapshot = ctx.authorize_admin(AdminRequest::Snapshot {
                table: d.table.clone().unwrap_or_default(),
                name: d.name.clone().unwrap_or_default(),
                skip_flush: d.r#type == Some(snapshot_description::Type::Skipflush as i32),
            })?;
            for (option, set) in [
                ("TTL", d.ttl.is_some_and(|t| t > 0)),
                ("MAX_FILESIZE", d.max_file_size.is_some_and(|m| m > 0)),
            ] {
                if set {
                    return Err(RpcError::unsupported(format!(
                        "snapshot option {option} is not supported by ferrobase"
                    )));
                }
            }
            ctx.run_admin(snapshot)?;
            // Taken before the answer: the client's IsSnapshotDone finds it done at once.
            Reply::pb(&SnapshotResponse {
                expected_timeout: Some(300_000),
                proc_id: None,
            })
        }
        "IsSnapshotDone" => {
            let req: IsSnapshotDoneRequest = decode(param, method)?;
            let d = snapshot_of(req.snapshot)?;
            let name = d.name.unwrap_or_default();
            let found = match admin.snapshot_info(&name) {
                Ok(found) => found,
                Err(Error::SnapshotNotFound(_) | Error::IllegalArgument(_)) => {
                    return Err(RpcError::fatal(
                        "org.apache.hadoop.hbase.snapshot.UnknownSnapshotException",
                        format!("Snapshot '{name}' has not been taken and is not in progress"),
                    ))
                }
                Err(e) => return Err(e.into()),
            };
            Reply::pb(&IsSnapshotDoneResponse {
                done: Some(true),
                snapshot: Some(snapshot_to_pb(found)),
            })
        }
        "DeleteSnapshot" => {
            let req: DeleteSnapshotRequest = decode(param, method)?;
            let d = snapshot_of(req.snapshot)?;
            ctx.admin(AdminRequest::DeleteSnapshot {
                name: d.name.unwrap_or_default(),
            })?;
            Reply::pb(&DeleteSnapshotResponse {})
        }
        "RestoreSnapshot" => {
            let req: RestoreSnapshotRequest = decode(param, method)?;
            let d = snapshot_of(req.snapshot)?;
            let name = d.name.unwrap_or_default();
            let target = d.table.unwrap_or_default();
            // A missing or misnamed snapshot: the clone below says which.
            let source = admin.snapshot_info(&name).ok().map(|s| s.table.to_string());
            // HBase's master restores into an existing table and clones into a missing one;
            // the client names the snapshot's own table to restore and another to clone.
            let restore = ctx.authorize_admin(if source.as_deref() == Some(target.as_str()) {
                AdminRequest::RestoreSnapshot { name }
            } else {
                AdminRequest::CloneSnapshot {
                    name,
                    table: target,
                }
            })?;
            if req.restore_acl == Some(true) {
                return Err(RpcError::unsupported(
                    "snapshot option RESTORE_ACL is not supported by ferrobase: its snapshots \
                     hold no grants",
                ));
            }
            ctx.run_admin(restore)?;
            procedure()
        }
        "IsRestoreSnapshotDone" => Reply::pb(&IsRestoreSnapshotDoneResponse { done: Some(true) }),
        other => return Err(refused(other)),
    })
}

/// Why a `MasterService` method ferrobase does not serve is refused.
fn refused(method: &str) -> RpcError {
    let why = match method {
        "SwitchSnapshotCleanup" | "IsSnapshotCleanupEnabled" => {
            "ferrobase's snapshots have no TTL, so there is no snapshot cleanup to switch"
        }
        "SetQuota"
        | "GetSpaceQuotaRegionSizes"
        | "GetQuotaStates"
        | "SwitchRpcThrottle"
        | "IsRpcThrottleEnabled"
        | "SwitchExceedThrottleQuota" => "quotas are not supported by ferrobase",
        m if m.contains("ReplicationPeer") => "ferrobase has no replication",
        "Grant" | "Revoke" | "GetUserPermissions" | "HasUserPermissions" => {
            "ACLs are not served on HBase's native RPC door yet (`ferrobase serve` refuses \
             --rpc-port with --acl)"
        }
        "MergeTableRegions" => "ferrobase does not merge regions",
        "MoveRegion"
        | "AssignRegion"
        | "UnassignRegion"
        | "OfflineRegion"
        | "Assigns"
        | "Unassigns"
        | "DecommissionRegionServers"
        | "RecommissionRegionServer"
        | "ListDecommissionedRegionServers"
        | "ClearDeadServers"
        | "Shutdown"
        | "StopMaster" => {
            "ferrobase places its regions itself (one process is its master and its only \
             region server)"
        }
        "SetSplitOrMergeEnabled" => "ferrobase's split switch is its split policy, per table",
        _ => return unknown_method("MasterService", method),
    };
    RpcError::unsupported(format!("MasterService.{method}: {why}"))
}

/// `Admin.split`: at the split row given, or, without one, a table of one region at the
/// engine's midpoint (an empty table stays as it is). The client sends one request per region
/// for a table split; the engine's split without a row splits every region, so a table of
/// several regions is split by key only.
fn split_region(ctx: &Ctx, req: &SplitTableRegionRequest) -> Result<(), RpcError> {
    let info = req
        .region_info
        .as_ref()
        .ok_or_else(|| RpcError::bad_request("SplitRegion without a region"))?;
    let table = table_text(info.table_name.as_ref())?;
    let at = req.split_row.clone().filter(|r| !r.is_empty());
    // Authorized before the region is looked at, as HBase's preSplitRegion runs first.
    let split = ctx.authorize_admin(AdminRequest::Split {
        table: table.clone(),
        at: at.clone(),
    })?;
    let admin = ctx.shared.engine.admin();
    let regions = admin.regions(&table)?;
    let start = info.start_key.as_deref().unwrap_or_default();
    let Some(region) = regions
        .iter()
        .find(|r| Some(r.id) == info.region_id && r.start == start)
    else {
        return Err(RpcError::unsupported(format!(
            "region {} of {table} is not online (split or dropped meanwhile)",
            String::from_utf8_lossy(&catalog::region_row(
                &table,
                start,
                info.region_id.unwrap_or(0)
            ))
        )));
    };
    match at.as_deref() {
        Some(row) => {
            let inside = row > region.start.as_slice()
                && (region.end.is_empty() || row < region.end.as_slice());
            if !inside {
                return Err(RpcError::unsupported(format!(
                    "split row {} is not inside region {}",
                    String::from_utf8_lossy(row),
                    String::from_utf8_lossy(&catalog::region_row(&table, start, region.id))
                )));
            }
            ctx.run_admin(split)?;
        }
        None if regions.len() == 1 => ctx.run_admin(split)?,
        None => {
            return Err(RpcError::unsupported(format!(
                "{table} has {} regions: ferrobase splits one region of several only at a key \
                 given (split 'REGION', 'KEY')",
                regions.len()
            )))
        }
    }
    Ok(())
}

/// HBase's version this door speaks, and ferrobase's.
fn hbase_version() -> String {
    format!("2.6.1-ferrobase-{}", env!("CARGO_PKG_VERSION"))
}

/// `Admin.getClusterMetrics`: this server as the active master and the only live region
/// server, with every region's load; no backup masters, no dead servers, nothing in
/// transition. Every part is filled whatever the options ask (HBase fills what they name; the
/// client reads only those).
fn cluster_status(ctx: &Ctx, _req: &GetClusterStatusRequest) -> Result<ClusterStatus, RpcError> {
    let shared = &ctx.shared;
    let admin = shared.engine.admin();
    let me = shared.server_name();
    let region_loads = super::admin::region_loads(shared, None)?;
    let now = now_ms();
    let load = ServerLoad {
        number_of_requests: Some(0),
        total_number_of_requests: Some(0),
        used_heap_mb: Some(0),
        max_heap_mb: Some(0),
        region_loads,
        report_start_time: Some(now),
        report_end_time: Some(now),
        ..ServerLoad::default()
    };
    let mut table_region_states_count = Vec::new();
    for t in admin.list_tables()? {
        let table = t.to_string();
        let (Ok(regions), Ok(enabled)) = (admin.regions(&table), admin.is_enabled(&table)) else {
            continue; // dropped meanwhile
        };
        let n = u32::try_from(regions.len()).unwrap_or(u32::MAX);
        table_region_states_count.push(TableRegionStatesCount {
            table_name: Some(pb_table_name(&table)),
            region_states_count: Some(RegionStatesCount {
                open_regions: Some(if enabled { n } else { 0 }),
                split_regions: Some(0),
                closed_regions: Some(if enabled { 0 } else { n }),
                regions_in_transition: Some(0),
                total_regions: Some(n),
            }),
        });
    }
    Ok(ClusterStatus {
        hbase_version: Some(HBaseVersionFileContent {
            version: Some(hbase_version()),
        }),
        live_servers: vec![LiveServerInfo {
            server: Some(me.clone()),
            server_load: Some(load),
        }],
        cluster_id: Some(ClusterId {
            cluster_id: Some(shared.cluster_id.clone()),
        }),
        master: Some(me.clone()),
        balancer_on: Some(false),
        servers_name: vec![me],
        table_region_states_count,
        ..ClusterStatus::default()
    })
}

fn namespace(name: &str) -> NamespaceDescriptor {
    NamespaceDescriptor {
        name: Some(name.as_bytes().to_vec()),
        configuration: Vec::new(),
    }
}

fn namespace_exists(admin: &Admin, name: Option<String>) -> Result<String, RpcError> {
    let ns = name.unwrap_or_default();
    if admin.list_namespaces()?.contains(&ns) {
        Ok(ns)
    } else {
        Err(ferrobase_engine::Error::NamespaceNotFound(ns).into())
    }
}

/// The name of a namespace descriptor; ferrobase's namespaces have no properties, so one that
/// sets any is refused naming it.
fn namespace_without_properties(d: Option<&NamespaceDescriptor>) -> Result<String, RpcError> {
    let d = d.ok_or_else(|| RpcError::bad_request("the request carries no namespace"))?;
    if let Some(c) = d.configuration.first() {
        return Err(RpcError::unsupported(format!(
            "namespace property {} is not supported by ferrobase (its namespaces have none)",
            c.name.as_deref().unwrap_or_default()
        )));
    }
    Ok(String::from_utf8_lossy(d.name.as_deref().unwrap_or_default()).into_owned())
}

/// The snapshot a request names (a required field).
fn snapshot_of(d: Option<SnapshotDescription>) -> Result<SnapshotDescription, RpcError> {
    d.filter(|d| d.name.as_deref().is_some_and(|n| !n.is_empty()))
        .ok_or_else(|| RpcError::bad_request("a snapshot request without the snapshot's name"))
}

/// A stored snapshot as HBase describes it (a flush snapshot, format version 2).
fn snapshot_to_pb(s: ferrobase_engine::SnapshotInfo) -> SnapshotDescription {
    SnapshotDescription {
        name: Some(s.name),
        table: Some(s.table.to_string()),
        creation_time: Some(s.created_ms),
        r#type: Some(snapshot_description::Type::Flush as i32),
        version: Some(2),
        owner: None,
        ttl: Some(0),
        max_file_size: Some(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_quoted_spans_are_literal() {
        assert!(name_matches(Some("\\Qseed_\\E.*"), "seed_t").unwrap());
        assert!(!name_matches(Some("\\Qa.b\\E"), "axb").unwrap());
    }
}
