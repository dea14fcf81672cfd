//! ACL checks of each Thrift call, with the permission HBase's `AccessController` requires
//! for the operation the call performs (`docs/design/security.md`, "Checks"), and what follows
//! a call: the creator's grant on a new table, dropping a deleted table's grants, filtering the
//! cells of a partly granted read, the owner of each scanner, the tables `getTableNames` shows.

use super::grants::Change;
use super::meta_view::{catalog_read, Catalog};
use super::names::admin_op;
use super::names::table_text;
use super::scanner_lease::ScannerGrant;
use super::{CallResult, Handler, ServiceError};
use crate::access::{canonical_table, AccessChecker, Denied, Operation, ReadAccess, ANONYMOUS};
use crate::catalog::NAMESPACE;
use crate::thrift::hbase::service::FerrobaseAdminArgs;
use crate::thrift::hbase::{AdminOp, Call};
use crate::thrift::TValue;

/// The ACL state of a handler. (Each scanner's owner is kept with the scanner:
/// `scanner_lease::ScannerGrant`.)
pub(crate) struct Access {
    pub(crate) checker: AccessChecker,
}

impl Access {
    pub(crate) fn new(checker: AccessChecker) -> Access {
        Access { checker }
    }
}

/// The answer to `grant`, `revoke` and `user_permission` when ACLs are off: HBase's answer
/// without its AccessController, then what to do.
pub(crate) fn acl_off() -> ServiceError {
    ServiceError::Io(
        "DISABLED: Security features are not available (access control is off: start ferrobase \
         serve with --acl (or --tls-client-ca) to grant and revoke)"
            .into(),
    )
}

/// A refusal as the method's IOError, with HBase's exception class before its message.
pub(crate) fn denied(d: Denied) -> ServiceError {
    ferrobase_engine::error_class::note(ferrobase_engine::ErrorClass::AccessDenied);
    ServiceError::Io(format!(
        "org.apache.hadoop.hbase.security.AccessDeniedException: {d}"
    ))
}

/// The canonical name (`ns:table`) of a table named by a call.
pub(crate) fn table_arg(raw: &[u8]) -> Result<String, ServiceError> {
    Ok(canonical_table(&table_text(raw)?)?)
}

/// What follows a call under the ACLs once it has run, read from the call before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FollowUp {
    /// `getTableNames`: only the tables the user may see are listed.
    ListTables,
    /// `getTableNamesWithIsTableEnabled`: the same, for the map's keys.
    ListTablesEnabled,
    /// A scanner opened: its id is the user's.
    OwnScanner,
    /// Nothing.
    Nothing,
}

impl FollowUp {
    fn of(call: &Call) -> FollowUp {
        match call {
            Call::GetTableNames(_) => FollowUp::ListTables,
            Call::GetTableNamesWithIsTableEnabled(_) => FollowUp::ListTablesEnabled,
            Call::ScannerOpenWithScan(_)
            | Call::ScannerOpen(_)
            | Call::ScannerOpenWithStop(_)
            | Call::ScannerOpenWithPrefix(_)
            | Call::ScannerOpenTs(_)
            | Call::ScannerOpenWithStopTs(_) => FollowUp::OwnScanner,
            Call::FerrobaseAdmin(a) if admin_op(a).ok() == Some(AdminOp::ScanOpen) => {
                FollowUp::OwnScanner
            }
            _ => FollowUp::Nothing,
        }
    }
}

impl Handler {
    /// Runs a call under the ACLs: checked, then run, then followed up. `None` for a method
    /// declared but not served (nothing runs).
    pub(super) fn authorized(
        &self,
        access: &Access,
        user: Option<&str>,
        owned: Call,
    ) -> Option<CallResult> {
        let user = user.unwrap_or(ANONYMOUS);
        let call = &owned;
        // An extension operation the server does not know is refused before any check, for
        // every user: nothing can run that no rule was written for.
        if let Call::FerrobaseAdmin(a) = call {
            if let Err(e) = admin_op(a) {
                return Some(Err(e));
            }
        }
        match call {
            Call::Grant(a) => {
                return Some(self.thrift_grant(&access.checker, user, Change::Grant, &a.info))
            }
            Call::Revoke(a) => {
                return Some(self.thrift_grant(&access.checker, user, Change::Revoke, &a.info))
            }
            Call::FerrobaseAdmin(a) if admin_op(a).is_ok_and(AdminOp::is_security) => {
                return Some(self.admin_acl(&access.checker, user, a));
            }
            _ => {}
        }
        // hbase:meta: HBase lets every user read it (AccessController.permissionGranted);
        // ferrobase shows each user the rows of the tables getTableNames lists to them, and
        // refuses every write to it.
        let visible = |table: &str| self.listed(&access.checker, user, table.as_bytes());
        // hbase:namespace: read as HBase's AccessController checks any table (a grant
        // reaching it: global, namespace `hbase` or the table), not as meta.
        if catalog_read(call) == Some(Catalog::Namespace) && !visible(NAMESPACE) {
            return Some(Err(denied(Denied(format!(
                "Insufficient permissions for user '{user}' (table={NAMESPACE}, action=READ)"
            )))));
        }
        // What follows the call is read from it before it runs: the call is then moved
        // into `dispatch`.
        let follow_up = FollowUp::of(call);
        if let Some(mut res) = self.meta_call(call, &visible) {
            self.follow_up(access, user, follow_up, &mut res);
            return Some(res);
        }
        if let Err(e) = self.check(access, user, call) {
            return Some(Err(e));
        }
        let mut res = self.dispatch(owned, user)?;
        self.follow_up(access, user, follow_up, &mut res);
        Some(res)
    }

    /// The check HBase makes before the operations of `call`: its scanner's owner for a
    /// scanner's later calls, else each operation the call performs (`operations`) under the
    /// shared rule (`AccessChecker::authorize`).
    fn check(&self, access: &Access, user: &str, call: &Call) -> Result<(), ServiceError> {
        let acl = &access.checker;
        let scanner = match call {
            Call::ScannerGet(a) => Some(a.id),
            Call::ScannerGetList(a) => Some(a.id),
            Call::ScannerClose(a) => Some(a.id),
            Call::FerrobaseAdmin(a) => super::cell_ops::scan_next_id(a),
            _ => None,
        };
        if let Some(id) = scanner {
            // Not open: the call answers that the id is invalid.
            if let Some(grant) = self.scanners.grant(id) {
                let owner = grant.map(|g| g.owner);
                acl.authorize(user, &Operation::UseScanner { owner })
                    .map_err(denied)?;
            }
            return Ok(());
        }
        let superuser = acl.is_superuser(user);
        let operations = match self.operations(call) {
            Ok(ops) => ops,
            // A superuser's call the rules cannot name (an invalid table name): the call
            // answers it, as without ACLs; no such name is `hbase:acl`.
            Err(_) if superuser => Vec::new(),
            Err(e) => return Err(e),
        };
        for op in &operations {
            // The reads a partial grant narrows are the executor's; one here must be granted
            // whole.
            if acl.authorize(user, op).map_err(denied)? == ReadAccess::Filtered {
                return Err(denied(Denied(format!(
                    "Insufficient permissions for user '{user}' ({} is granted in part)",
                    call.method()
                ))));
            }
        }
        Ok(())
    }

    /// What `call` does, as the access rules see it, for a call the shared executor does not
    /// run (those derive their operations from the typed request). One exhaustive match: a new
    /// call is decided here, not forgotten.
    fn operations(&self, call: &Call) -> Result<Vec<Operation>, ServiceError> {
        let table = |raw: &[u8]| table_arg(raw);
        let one = |op: Result<Operation, ServiceError>| op.map(|op| vec![op]);
        match call {
            // Answered from hbase:meta, which every user may read; table lists are filtered
            // afterwards.
            Call::GetTableNames(_)
            | Call::GetTableNamesWithIsTableEnabled(_)
            | Call::IsTableEnabled(_)
            | Call::GetTableRegions(_)
            | Call::GetRegionInfo(_)
            | Call::GetThriftServerType(_)
            | Call::GetClusterId(_) => Ok(vec![Operation::Catalog]),
            // Not served (HBase 2.6 has no such method): answered as an unknown method, and
            // nothing runs.
            Call::GetRowOrBefore(_) => Ok(vec![Operation::Catalog]),
            // Table changes and maintenance: authorized by the shared executor when they run,
            // from the typed request (`crate::request::AdminRequest`), and followed up there.
            Call::EnableTable(_)
            | Call::DisableTable(_)
            | Call::DeleteTable(_)
            | Call::Compact(_)
            | Call::MajorCompact(_)
            | Call::CreateTable(_) => Ok(Vec::new()),
            Call::GetColumnDescriptors(a) => one(Ok(Operation::DescribeTable {
                table: table(&a.table_name)?,
            })),
            // Gets and scanner opens: authorized by the shared executor when they run
            // (`crate::request`), a partly granted getRow* or scan narrowed there, a get of one
            // column refused.
            Call::Get(_)
            | Call::GetVer(_)
            | Call::GetVerTs(_)
            | Call::GetRow(_)
            | Call::GetRowTs(_)
            | Call::GetRows(_)
            | Call::GetRowsTs(_)
            | Call::GetRowWithColumns(_)
            | Call::GetRowWithColumnsTs(_)
            | Call::GetRowsWithColumns(_)
            | Call::GetRowsWithColumnsTs(_)
            | Call::ScannerOpenWithScan(_)
            | Call::ScannerOpen(_)
            | Call::ScannerOpenWithPrefix(_)
            | Call::ScannerOpenTs(_)
            | Call::ScannerOpenWithStop(_)
            | Call::ScannerOpenWithStopTs(_) => Ok(Vec::new()),
            // Data writes: authorized by the shared executor when they run
            // (`crate::request::Executor`), from the mutations, increments, appends and checks
            // that run, not from this door's reading of the arguments.
            Call::MutateRow(_)
            | Call::MutateRowTs(_)
            | Call::MutateRows(_)
            | Call::MutateRowsTs(_)
            | Call::AtomicIncrement(_)
            | Call::DeleteAll(_)
            | Call::DeleteAllTs(_)
            | Call::DeleteAllRow(_)
            | Call::DeleteAllRowTs(_)
            | Call::Increment(_)
            | Call::IncrementRows(_)
            | Call::Append(_)
            | Call::CheckAndPut(_) => Ok(Vec::new()),
            Call::FerrobaseAdmin(a) => self.admin_operations(a),
            // The scanner's owner (`check`).
            Call::ScannerGet(_) | Call::ScannerGetList(_) | Call::ScannerClose(_) => {
                Ok(vec![Operation::UseScanner { owner: None }])
            }
            // Answered before the checks (`authorized`), with their own operation; the
            // scanner calls with rows as the calls they stand for (`Handler::call_owned`), each
            // checked as itself.
            Call::Grant(_)
            | Call::Revoke(_)
            | Call::FerrobaseScannerOpen(_)
            | Call::FerrobaseScannerNext(_) => Err(denied(Denied(format!(
                "{} is not covered by the access rules of this server",
                call.method()
            )))),
        }
    }

    /// The operations of a `ferrobaseAdmin` call.
    fn admin_operations(&self, a: &FerrobaseAdminArgs) -> Result<Vec<Operation>, ServiceError> {
        let target = || Ok::<_, ServiceError>(canonical_table(&table_text(&a.table_name)?)?);
        let op = match admin_op(a)? {
            // Namespace, table and family changes, maintenance and snapshots: authorized by the
            // shared executor when they run, from the typed request
            // (`crate::request::AdminRequest`: global ADMIN for namespaces and snapshots), and
            // followed up there.
            AdminOp::CreateNamespace
            | AdminOp::DropNamespace
            | AdminOp::PutFamily
            | AdminOp::SetTableAttributes
            | AdminOp::UnsetTableAttribute
            | AdminOp::DeleteFamily
            | AdminOp::Flush
            | AdminOp::Truncate
            | AdminOp::TruncatePreserve
            | AdminOp::Split
            | AdminOp::Snapshot
            | AdminOp::DeleteSnapshot
            | AdminOp::CloneSnapshot
            | AdminOp::RestoreSnapshot => return Ok(Vec::new()),
            // As getColumnDescriptors: the table's descriptor.
            AdminOp::TableAttributes | AdminOp::FamilyAttributes => {
                Operation::DescribeTable { table: target()? }
            }
            // Increment/Append with a TTL and a delete with exact markers: data writes, authorized
            // by the shared executor when they run, from what runs.
            AdminOp::Increment | AdminOp::Append | AdminOp::Delete => return Ok(Vec::new()),
            // A scan with RAW or VERSIONS, or a typed get (with EXPLAIN, its cost): READ on the
            // columns, authorized by the shared executor when it runs (a partly granted read is
            // refused: its typed rows are not narrowed).
            AdminOp::ScanOpen | AdminOp::Get => return Ok(Vec::new()),
            // Listing snapshots: global ADMIN, as taking one (stricter than HBase, which lists a
            // snapshot to its owner; ferrobase records no snapshot owners).
            AdminOp::ListSnapshots => Operation::ClusterAdmin,
            // HBase's getLogEntries needs the global ADMIN permission.
            AdminOp::SlowLog | AdminOp::ServerStatus => Operation::ClusterAdmin,
            // The capability probe reads and changes nothing.
            AdminOp::Capabilities => Operation::Catalog,
            // The scanner's owner (`check`).
            AdminOp::ScanNext | AdminOp::ScanCost => Operation::UseScanner { owner: None },
            // Answered before the checks (`authorized`), with their own operation.
            AdminOp::Grant | AdminOp::Revoke | AdminOp::UserPermission => {
                return Err(denied(Denied(format!(
                    "ferrobaseAdmin {} is not covered by the access rules of this server",
                    a.operation
                ))))
            }
        };
        Ok(vec![op])
    }

    /// Applies what follows a call that ran ([`FollowUp::of`]) to its answer.
    fn follow_up(&self, access: &Access, user: &str, follow_up: FollowUp, res: &mut CallResult) {
        let acl = &access.checker;
        let Ok(value) = res else { return };
        match follow_up {
            FollowUp::ListTables => {
                if let Some(TValue::List(_, names)) = value {
                    names.retain(|n| match n {
                        TValue::Binary(b) => self.listed(acl, user, b),
                        _ => true,
                    });
                }
            }
            FollowUp::ListTablesEnabled => {
                if let Some(TValue::Map(_, _, entries)) = value {
                    entries.retain(|(n, _)| match n {
                        TValue::Binary(b) => self.listed(acl, user, b),
                        _ => true,
                    });
                }
            }
            FollowUp::OwnScanner => {
                if let Some(TValue::I32(id)) = value {
                    let owner = user.to_string();
                    self.scanners.set_grant(*id, ScannerGrant { owner });
                }
            }
            FollowUp::Nothing => {}
        }
    }

    /// Whether `getTableNames` shows `table` to `user` (HBase's `postGetTableNames`: any
    /// grant reaching it). `hbase:acl` is a system table, never listed.
    fn listed(&self, acl: &AccessChecker, user: &str, table: &[u8]) -> bool {
        acl.lists_table(user, &String::from_utf8_lossy(table))
    }
}
