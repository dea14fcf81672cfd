//! `MasterService` under ACLs: the operation of each method that reads or changes what not
//! every user may and that the shared executor does not run ([`check`]; table, namespace,
//! maintenance and snapshot changes are `AdminRequest`s, authorized and followed up there),
//! and `Grant`, `Revoke` and `GetUserPermissions` ([`grants`]), which HBase 2.2+ clients send
//! to the master.

use super::{decode, Ctx, Reply};
use crate::access::denied;
use crate::error::RpcError;
use crate::proto::access_control::{permission, *};
use crate::proto::master::*;
use crate::regions::{pb_table_name, table_text};
use ferrobase_gateway::access::{
    Action, Actions, Denied, Operation, Scope, UserPermission as Grant,
};
use ferrobase_gateway::request::AdminRequest;

/// The operation a `MasterService` method performs, authorized before it runs; `Ok` for a
/// method every user may call (`access::rule` lists which).
pub(super) fn check(ctx: &Ctx, method: &str, param: &[u8]) -> Result<(), RpcError> {
    if ctx.acl().is_none() {
        return Ok(());
    }
    let op = match method {
        // Run by the shared executor, which authorizes them from the typed request
        // (`ferrobase_gateway::request::AdminRequest`) and follows them up.
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
        | "DeleteNamespace"
        | "SplitRegion"
        | "ExecProcedure"
        | "ExecProcedureWithRet"
        | "Snapshot"
        | "DeleteSnapshot"
        | "RestoreSnapshot" => return Ok(()),
        "ModifyNamespace" => Operation::ModifyNamespace {
            namespace: decode::<ModifyNamespaceRequest>(param, method)?
                .namespace_descriptor
                .and_then(|d| d.name)
                .map(|n| String::from_utf8_lossy(&n).into_owned())
                .unwrap_or_default(),
        },
        "GetNamespaceDescriptor" => Operation::DescribeNamespace {
            namespace: decode::<GetNamespaceDescriptorRequest>(param, method)?
                .namespace_name
                .unwrap_or_default(),
        },
        "SetBalancerRunning" | "Balance" | "SetNormalizerRunning" | "SetSplitOrMergeEnabled" => {
            Operation::ClusterAdmin
        }
        // Snapshots: global ADMIN (stricter than HBase, whose table ADMIN may snapshot a table
        // and whose snapshot owner may clone, restore and delete it: ferrobase records no
        // snapshot owners).
        "IsSnapshotDone" | "IsRestoreSnapshotDone" => Operation::ClusterAdmin,
        // Checked by `grants`, which knows the scope.
        "Grant" | "Revoke" | "GetUserPermissions" => return Ok(()),
        // Every user's (access::rule): nothing to check.
        _ => return Ok(()),
    };
    ctx.authorize(&op).map(drop)
}

fn action_of(code: i32) -> Result<Action, RpcError> {
    Ok(match permission::Action::try_from(code) {
        Ok(permission::Action::Read) => Action::Read,
        Ok(permission::Action::Write) => Action::Write,
        Ok(permission::Action::Exec) => Action::Exec,
        Ok(permission::Action::Create) => Action::Create,
        Ok(permission::Action::Admin) => Action::Admin,
        Err(_) => return Err(RpcError::bad_request(format!("unknown action {code}"))),
    })
}

fn code_of(a: Action) -> i32 {
    (match a {
        Action::Read => permission::Action::Read,
        Action::Write => permission::Action::Write,
        Action::Exec => permission::Action::Exec,
        Action::Create => permission::Action::Create,
        Action::Admin => permission::Action::Admin,
    }) as i32
}

fn actions_of(codes: &[i32]) -> Result<Actions, RpcError> {
    codes.iter().map(|&c| action_of(c)).collect()
}

fn text(b: Option<&[u8]>) -> String {
    String::from_utf8_lossy(b.unwrap_or_default()).into_owned()
}

/// The scope and actions of a permission message.
fn scope_of(p: &Permission) -> Result<(Scope, Actions), RpcError> {
    match p.r#type.map(permission::Type::try_from) {
        Some(Ok(permission::Type::Global)) => Ok((
            Scope::Global,
            actions_of(
                &p.global_permission
                    .as_ref()
                    .map(|g| g.action.clone())
                    .unwrap_or_default(),
            )?,
        )),
        Some(Ok(permission::Type::Namespace)) => {
            let n = p.namespace_permission.clone().unwrap_or_default();
            Ok((
                Scope::Namespace(text(n.namespace_name.as_deref())),
                actions_of(&n.action)?,
            ))
        }
        Some(Ok(permission::Type::Table)) => {
            let t = p.table_permission.clone().unwrap_or_default();
            let family = t.family.filter(|f| !f.is_empty());
            Ok((
                Scope::Table {
                    table: table_text(t.table_name.as_ref())?,
                    qualifier: if family.is_some() {
                        t.qualifier.filter(|q| !q.is_empty())
                    } else {
                        None
                    },
                    family,
                },
                actions_of(&t.action)?,
            ))
        }
        _ => Err(RpcError::bad_request("a permission without a known type")),
    }
}

fn permission_of(scope: &Scope, actions: Actions) -> Permission {
    let action: Vec<i32> = actions.iter().map(code_of).collect();
    match scope {
        Scope::Global => Permission {
            r#type: Some(permission::Type::Global as i32),
            global_permission: Some(GlobalPermission { action }),
            ..Permission::default()
        },
        Scope::Namespace(ns) => Permission {
            r#type: Some(permission::Type::Namespace as i32),
            namespace_permission: Some(NamespacePermission {
                namespace_name: Some(ns.as_bytes().to_vec()),
                action,
            }),
            ..Permission::default()
        },
        Scope::Table {
            table,
            family,
            qualifier,
        } => Permission {
            r#type: Some(permission::Type::Table as i32),
            table_permission: Some(TablePermission {
                table_name: Some(pb_table_name(table)),
                family: family.clone(),
                qualifier: qualifier.clone(),
                action,
            }),
            ..Permission::default()
        },
    }
}

/// `Grant`, `Revoke` and `GetUserPermissions` with ACLs on (HBase's `MasterRpcServices`
/// methods, checked as its `AccessController` checks them).
pub(super) fn grants(ctx: &Ctx, method: &str, param: &[u8]) -> Result<Reply, RpcError> {
    let Some(acl) = ctx.acl() else {
        return Err(RpcError::unsupported(
            "Security features are not available: ACLs are off (start ferrobase serve with --acl)",
        ));
    };
    let store = acl.store();
    match method {
        "Grant" | "Revoke" => {
            let (user_permission, merge) = if method == "Grant" {
                let r: GrantRequest = decode(param, method)?;
                (
                    r.user_permission,
                    r.merge_existing_permissions.unwrap_or(false),
                )
            } else {
                (
                    decode::<RevokeRequest>(param, method)?.user_permission,
                    false,
                )
            };
            let up = user_permission
                .ok_or_else(|| RpcError::bad_request("the request carries no permission"))?;
            let grantee = text(up.user.as_deref());
            let (scope, actions) = scope_of(&up.permission.unwrap_or_default())?;
            let change = ctx.authorize_admin(if method == "Revoke" {
                AdminRequest::Revoke {
                    user: grantee.clone(),
                    scope,
                    actions: Some(actions),
                }
            } else {
                AdminRequest::Grant {
                    user: grantee.clone(),
                    scope,
                    actions,
                    merge,
                }
            })?;
            if grantee.is_empty() || grantee.contains(',') {
                return Err(RpcError::bad_request(format!(
                    "invalid user name {grantee:?}"
                )));
            }
            ctx.run_admin(change)?;
            Ok(if method == "Revoke" {
                Reply::pb(&RevokeResponse {})
            } else {
                Reply::pb(&GrantResponse {})
            })
        }
        "GetUserPermissions" => {
            let req: GetUserPermissionsRequest = decode(param, method)?;
            let scope = match req.r#type.map(permission::Type::try_from) {
                Some(Ok(permission::Type::Namespace)) => {
                    Scope::Namespace(text(req.namespace_name.as_deref()))
                }
                Some(Ok(permission::Type::Table)) => {
                    let family = req.column_family.clone().filter(|f| !f.is_empty());
                    Scope::Table {
                        table: table_text(req.table_name.as_ref())?,
                        qualifier: if family.is_some() {
                            req.column_qualifier.clone().filter(|q| !q.is_empty())
                        } else {
                            None
                        },
                        family,
                    }
                }
                _ => Scope::Global,
            };
            ctx.authorize(&Operation::ListGrants {
                scope: scope.clone(),
            })?;
            let user = req.user_name.as_deref().map(|u| text(Some(u)));
            let shown = |p: &Grant| {
                let at = match (&scope, &p.scope) {
                    (
                        Scope::Table {
                            table,
                            family,
                            qualifier,
                        },
                        Scope::Table {
                            table: t,
                            family: f,
                            qualifier: q,
                        },
                    ) => {
                        t == table
                            && (family.is_none() || f == family)
                            && (qualifier.is_none() || q == qualifier)
                    }
                    (s, p) => s == p,
                };
                at && user.as_ref().is_none_or(|u| *u == p.user)
            };
            let mut user_permission: Vec<UserPermission> = store
                .permissions()
                .into_iter()
                .filter(shown)
                .map(|p| UserPermission {
                    user: Some(p.user.into_bytes()),
                    permission: Some(permission_of(&p.scope, p.actions)),
                })
                .collect();
            // HBase lists the superusers with every action at global scope.
            if scope == Scope::Global {
                user_permission.extend(
                    acl.superusers()
                        .filter(|s| user.as_ref().is_none_or(|u| u == s))
                        .map(|s| UserPermission {
                            user: Some(s.as_bytes().to_vec()),
                            permission: Some(permission_of(&Scope::Global, Actions::all())),
                        }),
                );
            }
            Ok(Reply::pb(&GetUserPermissionsResponse { user_permission }))
        }
        other => Err(denied(Denied(format!(
            "MasterService.{other} is not covered by the access rules of this server"
        )))),
    }
}
