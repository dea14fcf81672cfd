//! Grant administration through the gateway: Thrift1's `grant`/`revoke(TAccessControlEntity)`
//! (table and namespace scope, as HBase 2.x's gateway) and ferrobase's `ferrobaseAdmin` `grant`,
//! `revoke` and `user_permission` (every scope), with HBase's checks: ADMIN at the scope, and no
//! change to a superuser's grants.

use super::authorize::{denied, table_arg};
use super::names::table_text;
use super::{CallResult, Handler, ServiceError};
use crate::access::{canonical_table, AccessChecker, Actions, Operation, Scope};
use crate::request::{AdminRequest, Executor};
use crate::thrift::hbase::service::FerrobaseAdminArgs;
use crate::thrift::hbase::AdminOp;
use crate::thrift::hbase::{permission_scope, TAccessControlEntity};
use crate::thrift::{IdlError, TType, TValue, ThriftStruct};
use std::collections::HashMap;

/// Whether a call grants or revokes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Gives the user exactly the actions.
    Grant,
    /// Takes the actions (all, when none are named).
    Revoke,
}

impl Handler {
    /// Thrift1's `grant`/`revoke(TAccessControlEntity)`: table or namespace scope, as HBase's
    /// `ThriftHBaseServiceHandler` (which returns true).
    pub(super) fn thrift_grant(
        &self,
        acl: &AccessChecker,
        caller: &str,
        change: Change,
        e: &TAccessControlEntity,
    ) -> CallResult {
        // The name the scope needs: absent, it is refused as the struct's missing field.
        let missing = |field| {
            let e = IdlError::missing(TAccessControlEntity::OWNER, field);
            ServiceError::IllegalArgument(e.to_string())
        };
        let actions = Actions::parse(&e.actions).map_err(ServiceError::IllegalArgument)?;
        let scope = match e.scope {
            permission_scope::TABLE => {
                let table = e.table_name.as_ref().ok_or_else(|| missing("tableName"))?;
                Scope::table(table_arg(table)?)
            }
            permission_scope::NAMESPACE => {
                Scope::Namespace(e.ns_name.clone().ok_or_else(|| missing("nsName"))?)
            }
            other => {
                return Err(ServiceError::IllegalArgument(format!(
                    "unknown TPermissionScope {other}"
                )))
            }
        };
        self.change_grant(acl, caller, change, &e.username, &scope, actions)?;
        Ok(Some(TValue::Bool(true)))
    }

    /// A grant or revoke after HBase's checks: ADMIN at the scope (global ADMIN for a global
    /// grant), and a superuser's grants only by a superuser.
    fn change_grant(
        &self,
        acl: &AccessChecker,
        caller: &str,
        change: Change,
        user: &str,
        scope: &Scope,
        actions: Actions,
    ) -> Result<(), ServiceError> {
        // ADMIN at the scope; only a superuser may change a superuser's grants (the shared
        // executor's rule for a grant request).
        let executor = Executor::new(&self.engine, Some(acl), caller);
        let request = match change {
            Change::Grant => AdminRequest::Grant {
                user: user.to_string(),
                scope: scope.clone(),
                actions,
                merge: false,
            },
            Change::Revoke => AdminRequest::Revoke {
                user: user.to_string(),
                scope: scope.clone(),
                actions: (!actions.is_empty()).then_some(actions),
            },
        };
        let authorized = executor.authorize_admin(request).map_err(denied)?;
        if user.is_empty() || user.contains(',') {
            return Err(ServiceError::IllegalArgument(format!(
                "invalid user name {user:?}"
            )));
        }
        executor.run_admin(authorized)?;
        Ok(())
    }

    /// `ferrobaseAdmin` `grant`, `revoke` (`tableName`: the scope — empty for global, `@ns`,
    /// or a table; attributes `USER`, `ACTIONS`, `FAMILY`, `QUALIFIER`) and `user_permission`
    /// (`tableName`: the scope to list — a table's include its families' and columns'; empty for
    /// the global grants and the superusers, as HBase's `getUserPermissions`), which returns
    /// `user scope actions` lines.
    pub(super) fn admin_acl(
        &self,
        acl: &AccessChecker,
        caller: &str,
        a: &FerrobaseAdminArgs,
    ) -> CallResult {
        let target = table_text(&a.table_name)?;
        let attrs: HashMap<String, Vec<u8>> = a
            .attributes
            .iter()
            .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), v.clone()))
            .collect();
        let scope = parse_scope(
            &target,
            attrs.get("FAMILY").cloned(),
            attrs.get("QUALIFIER").cloned(),
        )?;
        let kind = super::names::admin_op(a)?;
        if kind == AdminOp::UserPermission {
            return self.user_permission(acl, caller, &target, &scope);
        }
        let user = attrs
            .get("USER")
            .map(|u| String::from_utf8_lossy(u).into_owned())
            .ok_or_else(|| ServiceError::IllegalArgument("grant/revoke needs USER".into()))?;
        let actions = Actions::parse(&String::from_utf8_lossy(
            attrs.get("ACTIONS").map(Vec::as_slice).unwrap_or_default(),
        ))
        .map_err(ServiceError::IllegalArgument)?;
        let change = match kind {
            AdminOp::Grant => Change::Grant,
            AdminOp::Revoke => Change::Revoke,
            other => {
                return Err(ServiceError::IllegalArgument(format!(
                    "ferrobaseAdmin {} is not a grant",
                    other.name()
                )))
            }
        };
        self.change_grant(acl, caller, change, &user, &scope, actions)?;
        Ok(None)
    }

    fn user_permission(
        &self,
        acl: &AccessChecker,
        caller: &str,
        target: &str,
        scope: &Scope,
    ) -> CallResult {
        let all = target.is_empty();
        let listed = if all { Scope::Global } else { scope.clone() };
        acl.authorize(caller, &Operation::ListGrants { scope: listed })
            .map_err(denied)?;
        let mut lines: Vec<TValue> = acl
            .store()
            .permissions()
            .into_iter()
            .filter(|p| match scope {
                Scope::Table { table, .. } => p.scope.table_name() == Some(table),
                // Without a scope, HBase lists the global grants (the `hbase:acl` row of
                // `PermissionStorage.getUserPermissions` with no entry), not every scope's.
                other => &p.scope == other,
            })
            .map(|p| TValue::string(p.to_string()))
            .collect();
        if all {
            // HBase lists the superusers with every action at global scope.
            lines.extend(
                acl.superusers()
                    .map(|u| TValue::string(format!("{u} GLOBAL {}", Actions::all()))),
            );
        }
        Ok(Some(TValue::List(TType::Binary, lines)))
    }
}

/// A scope from its text (empty: global; `@ns`; a table) and an optional family and
/// qualifier.
pub(crate) fn parse_scope(
    target: &str,
    family: Option<Vec<u8>>,
    qualifier: Option<Vec<u8>>,
) -> Result<Scope, ServiceError> {
    let family = family.filter(|f| !f.is_empty());
    Ok(if target.is_empty() {
        Scope::Global
    } else if let Some(ns) = target.strip_prefix('@') {
        Scope::Namespace(ns.to_string())
    } else {
        Scope::Table {
            table: canonical_table(target)?,
            qualifier: if family.is_some() { qualifier } else { None },
            family,
        }
    })
}
