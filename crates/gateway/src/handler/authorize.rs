//! ACL checks of each Thrift call, with the permission HBase's `AccessController` requires
//! for the operation the call performs (`docs/design/security.md`, "Checks"), and what follows
//! a call: the creator's grant on a new table, dropping a deleted table's grants, filtering the
//! cells of a partly granted read, the owner of each scanner, the tables `getTableNames` shows.

use super::grants::Change;
use super::meta_view::{catalog_read, Catalog};
use super::names::admin_op;
use super::names::{parse_column, table_text};
use super::scanner_lease::ScannerGrant;
use super::{CallResult, Handler, ServiceError};
use crate::access::checker::namespace_of;
use crate::access::{
    canonical_table, AccessChecker, Actions, Denied, FamilyMap, Operation, ReadAccess, Scope,
    ACL_TABLE, ANONYMOUS, SYSTEM_NAMESPACE,
};
use crate::catalog::NAMESPACE;
use crate::thrift::hbase::service::{
    FerrobaseAdminArgs, GetRowWithColumnsArgs, GetRowWithColumnsTsArgs, GetRowsWithColumnsArgs,
    GetRowsWithColumnsTsArgs,
};
use crate::thrift::hbase::{AdminOp, Call, Mutation, TColumn, TRowResult};
use crate::thrift::{TType, TValue};
use std::collections::BTreeSet;

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

/// What a checked call may do.
enum Permit {
    /// Run as asked.
    Full,
    /// A read of `table` whose results keep only the cells the user may read.
    Filtered(String),
}

/// The canonical name (`ns:table`) of a table named by a call.
pub(crate) fn table_arg(raw: &[u8]) -> Result<String, ServiceError> {
    Ok(canonical_table(&table_text(raw)?)?)
}

/// The families and qualifiers named by `fam` / `fam:qual` columns.
fn column_families(columns: &[Vec<u8>]) -> FamilyMap {
    let mut m = FamilyMap::new();
    for c in columns {
        match parse_column(c) {
            (f, None) => {
                m.insert(f, None);
            }
            (f, Some(q)) => {
                if let Some(set) = m.entry(f).or_insert_with(|| Some(BTreeSet::new())) {
                    set.insert(q);
                }
            }
        }
    }
    m
}

/// The cells a mutation writes: every column with its qualifier (a family delete's is empty).
fn cell_families(columns: impl IntoIterator<Item = Vec<u8>>) -> FamilyMap {
    let mut m = FamilyMap::new();
    for c in columns {
        let (f, q) = parse_column(&c);
        if let Some(set) = m.entry(f).or_insert_with(|| Some(BTreeSet::new())) {
            set.insert(q.unwrap_or_default());
        }
    }
    m
}

fn mutation_columns(mutations: &[Mutation]) -> Vec<Vec<u8>> {
    mutations.iter().map(|m| m.column.clone()).collect()
}

impl Handler {
    /// Every family of `table`, whole (what a read or row delete without columns touches:
    /// HBase adds them before its checks).
    fn all_families(&self, table: &str, whole: bool) -> Result<FamilyMap, ServiceError> {
        let desc = self.engine.admin().describe(table)?;
        Ok(desc
            .families
            .iter()
            .map(|f| {
                let quals = (!whole).then(|| BTreeSet::from([Vec::new()]));
                (f.name.clone(), quals)
            })
            .collect())
    }

    fn read_families(&self, table: &str, columns: &[Vec<u8>]) -> Result<FamilyMap, ServiceError> {
        if columns.is_empty() {
            self.all_families(table, true)
        } else {
            Ok(column_families(columns))
        }
    }

    /// Runs a call under the ACLs: checked, then run, then followed up. `None` for a method
    /// declared but not served (nothing runs).
    pub(super) fn authorized(
        &self,
        access: &Access,
        user: Option<&str>,
        call: &Call,
    ) -> Option<CallResult> {
        let user = user.unwrap_or(ANONYMOUS);
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
        if let Some(mut res) = self.meta_call(call, &visible) {
            if let Err(e) = self.follow_up(access, user, call, &Permit::Full, &mut res) {
                res = Err(e);
            }
            return Some(res);
        }
        let permit = match self.check(access, user, call) {
            Ok(p) => p,
            Err(e) => return Some(Err(e)),
        };
        let restricted = match self.restrict_filtered(access, user, call, &permit) {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let mut res = self.dispatch(restricted.as_ref().unwrap_or(call))?;
        if let Err(e) = self.follow_up(access, user, call, &permit, &mut res) {
            res = Err(e);
        }
        Some(res)
    }

    /// A partly granted read, rewritten so that the engine reads only what the user may read:
    /// its columns become the readable part of what it asked for (HBase puts its
    /// `AccessControlFilter` before the user's filter and inside the scanner). So a filter
    /// never evaluates an unreadable cell, and a row holding only unreadable cells is skipped
    /// by the scanner instead of coming back as an empty batch (which a client reads as the
    /// end of the scan). `None` when the call runs as it is (fully granted, or a scanner's
    /// later calls: its open was rewritten). A read with nothing readable left is refused.
    /// The results are still filtered afterwards (`filter_rows`).
    fn restrict_filtered(
        &self,
        access: &Access,
        user: &str,
        call: &Call,
        permit: &Permit,
    ) -> Result<Option<Call>, ServiceError> {
        let Permit::Filtered(table) = permit else {
            return Ok(None);
        };
        let readable = |requested: &[Vec<u8>]| -> Result<Vec<Vec<u8>>, ServiceError> {
            let families = self.read_families(table, requested)?;
            let columns = access.checker.readable_columns(user, table, &families);
            if columns.is_empty() {
                return Err(denied(Denied(format!(
                    "Insufficient permissions for user '{user}' (table={table}, action=READ)"
                ))));
            }
            Ok(columns)
        };
        // Every call a partly granted read can be (`check`'s `read` with `filterable`).
        Ok(Some(match call {
            Call::ScannerOpenWithScan(a) => {
                let mut a = a.clone();
                a.scan.columns = Some(readable(a.scan.columns.as_deref().unwrap_or_default())?);
                Call::ScannerOpenWithScan(a)
            }
            Call::ScannerOpen(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::ScannerOpen(a)
            }
            Call::ScannerOpenWithPrefix(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::ScannerOpenWithPrefix(a)
            }
            Call::ScannerOpenTs(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::ScannerOpenTs(a)
            }
            Call::ScannerOpenWithStop(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::ScannerOpenWithStop(a)
            }
            Call::ScannerOpenWithStopTs(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::ScannerOpenWithStopTs(a)
            }
            Call::GetRow(a) => Call::GetRowWithColumns(GetRowWithColumnsArgs {
                table_name: a.table_name.clone(),
                row: a.row.clone(),
                columns: readable(&[])?,
                attributes: a.attributes.clone(),
            }),
            Call::GetRowTs(a) => Call::GetRowWithColumnsTs(GetRowWithColumnsTsArgs {
                table_name: a.table_name.clone(),
                row: a.row.clone(),
                columns: readable(&[])?,
                timestamp: a.timestamp,
                attributes: a.attributes.clone(),
            }),
            Call::GetRows(a) => Call::GetRowsWithColumns(GetRowsWithColumnsArgs {
                table_name: a.table_name.clone(),
                rows: a.rows.clone(),
                columns: readable(&[])?,
                attributes: a.attributes.clone(),
            }),
            Call::GetRowsTs(a) => Call::GetRowsWithColumnsTs(GetRowsWithColumnsTsArgs {
                table_name: a.table_name.clone(),
                rows: a.rows.clone(),
                columns: readable(&[])?,
                timestamp: a.timestamp,
                attributes: a.attributes.clone(),
            }),
            Call::GetRowWithColumns(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::GetRowWithColumns(a)
            }
            Call::GetRowWithColumnsTs(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::GetRowWithColumnsTs(a)
            }
            Call::GetRowsWithColumns(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::GetRowsWithColumns(a)
            }
            Call::GetRowsWithColumnsTs(a) => {
                let mut a = a.clone();
                a.columns = readable(&a.columns)?;
                Call::GetRowsWithColumnsTs(a)
            }
            // A scanner's later calls: its open was rewritten.
            Call::ScannerGet(_) | Call::ScannerGetList(_) | Call::ScannerClose(_) => {
                return Ok(None)
            }
            other => {
                return Err(denied(Denied(format!(
                    "{} is not covered by the filtered-read rules of this server",
                    other.method()
                ))))
            }
        }))
    }

    /// The check HBase makes before the operations of `call`: its scanner's owner for a
    /// scanner's later calls, else each operation the call performs (`operations`) under the
    /// shared rule (`AccessChecker::authorize`).
    fn check(&self, access: &Access, user: &str, call: &Call) -> Result<Permit, ServiceError> {
        let acl = &access.checker;
        let scanner = match call {
            Call::ScannerGet(a) => Some(a.id),
            Call::ScannerGetList(a) => Some(a.id),
            Call::ScannerClose(a) => Some(a.id),
            Call::FerrobaseAdmin(a) => super::cell_ops::scan_next_id(a),
            _ => None,
        };
        if let Some(id) = scanner {
            return match self.scanners.grant(id) {
                // Not open: the call answers that the id is invalid.
                None => Ok(Permit::Full),
                Some(grant) => {
                    let owner = grant.as_ref().map(|g| g.owner.clone());
                    acl.authorize(user, &Operation::UseScanner { owner })
                        .map_err(denied)?;
                    Ok(match grant.and_then(|g| g.filtered) {
                        Some(t) => Permit::Filtered(t),
                        None => Permit::Full,
                    })
                }
            };
        }
        let superuser = acl.is_superuser(user);
        let operations = match self.operations(call, !superuser) {
            Ok(ops) => ops,
            // A superuser's call the rules cannot name (an invalid table name): the call
            // answers it, as without ACLs; no such name is `hbase:acl`.
            Err(_) if superuser => Vec::new(),
            Err(e) => return Err(e),
        };
        let mut permit = Permit::Full;
        for op in &operations {
            if acl.authorize(user, op).map_err(denied)? == ReadAccess::Filtered {
                if let Operation::Read { table, .. } = op {
                    permit = Permit::Filtered(table.clone());
                }
            }
        }
        Ok(permit)
    }

    /// What `call` does, as the access rules see it. `families`: look up the families a
    /// request touches without naming them (every family of the table; not needed for a
    /// superuser). One exhaustive match: a new call is decided here, not forgotten.
    fn operations(&self, call: &Call, families: bool) -> Result<Vec<Operation>, ServiceError> {
        let all_families = |table: &str, whole: bool| {
            if families {
                self.all_families(table, whole)
            } else {
                Ok(FamilyMap::new())
            }
        };
        let read = |raw: &[u8], columns: &[Vec<u8>], filterable: bool| {
            let table = table_arg(raw)?;
            let families = if columns.is_empty() {
                all_families(&table, true)?
            } else {
                column_families(columns)
            };
            Ok::<_, ServiceError>(Operation::Read {
                table,
                families,
                filterable,
            })
        };
        // A read of one column (or family): its answer names no column, so it is not filtered.
        let cell_read = |raw: &[u8], column: &[u8]| read(raw, &[column.to_vec()], false);
        let columns_read = |raw: &[u8], columns: &[Vec<u8>]| read(raw, columns, true);
        let write = |raw: &[u8], columns: Vec<Vec<u8>>| {
            Ok::<_, ServiceError>(Operation::Write {
                table: table_arg(raw)?,
                cells: cell_families(columns),
            })
        };
        // An increment or append: it reads the cell it writes.
        let read_modify_write = |raw: &[u8], columns: Vec<Vec<u8>>| {
            Ok::<_, ServiceError>(Operation::ReadModifyWrite {
                table: table_arg(raw)?,
                cells: cell_families(columns),
            })
        };
        let row_delete = |raw: &[u8]| {
            let table = table_arg(raw)?;
            let cells = all_families(&table, false)?;
            Ok::<_, ServiceError>(Operation::Write { table, cells })
        };
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
            Call::EnableTable(a) => one(Ok(Operation::EnableTable {
                table: table(&a.table_name)?,
            })),
            Call::DisableTable(a) => one(Ok(Operation::DisableTable {
                table: table(&a.table_name)?,
            })),
            Call::DeleteTable(a) => one(Ok(Operation::DeleteTable {
                table: table(&a.table_name)?,
            })),
            Call::GetColumnDescriptors(a) => one(Ok(Operation::DescribeTable {
                table: table(&a.table_name)?,
            })),
            Call::Compact(a) => one(Ok(Operation::Compact {
                table: table(&a.table_name_or_region_name)?,
            })),
            Call::MajorCompact(a) => one(Ok(Operation::Compact {
                table: table(&a.table_name_or_region_name)?,
            })),
            Call::CreateTable(a) => one(Ok(Operation::CreateTable {
                table: table(&a.table_name)?,
                families: a
                    .column_families
                    .iter()
                    .map(|f| parse_column(&f.name).0)
                    .collect(),
            })),
            Call::Get(a) => one(cell_read(&a.table_name, &a.column)),
            Call::GetVer(a) => one(cell_read(&a.table_name, &a.column)),
            Call::GetVerTs(a) => one(cell_read(&a.table_name, &a.column)),
            Call::GetRow(a) => one(columns_read(&a.table_name, &[])),
            Call::GetRowTs(a) => one(columns_read(&a.table_name, &[])),
            Call::GetRows(a) => one(columns_read(&a.table_name, &[])),
            Call::GetRowsTs(a) => one(columns_read(&a.table_name, &[])),
            Call::GetRowWithColumns(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::GetRowWithColumnsTs(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::GetRowsWithColumns(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::GetRowsWithColumnsTs(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::ScannerOpenWithScan(a) => one(columns_read(
                &a.table_name,
                a.scan.columns.as_deref().unwrap_or_default(),
            )),
            Call::ScannerOpen(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::ScannerOpenWithPrefix(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::ScannerOpenTs(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::ScannerOpenWithStop(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::ScannerOpenWithStopTs(a) => one(columns_read(&a.table_name, &a.columns)),
            Call::MutateRow(a) => one(write(&a.table_name, mutation_columns(&a.mutations))),
            Call::MutateRowTs(a) => one(write(&a.table_name, mutation_columns(&a.mutations))),
            Call::MutateRows(a) => one(write(
                &a.table_name,
                a.row_batches
                    .iter()
                    .flat_map(|b| mutation_columns(&b.mutations))
                    .collect(),
            )),
            Call::MutateRowsTs(a) => one(write(
                &a.table_name,
                a.row_batches
                    .iter()
                    .flat_map(|b| mutation_columns(&b.mutations))
                    .collect(),
            )),
            Call::AtomicIncrement(a) => {
                one(read_modify_write(&a.table_name, vec![a.column.clone()]))
            }
            Call::DeleteAll(a) => one(write(&a.table_name, vec![a.column.clone()])),
            Call::DeleteAllTs(a) => one(write(&a.table_name, vec![a.column.clone()])),
            Call::DeleteAllRow(a) => one(row_delete(&a.table_name)),
            Call::DeleteAllRowTs(a) => one(row_delete(&a.table_name)),
            Call::Increment(a) => one(read_modify_write(
                &a.increment.table,
                vec![a.increment.column.clone()],
            )),
            Call::IncrementRows(a) => a
                .increments
                .iter()
                .map(|i| read_modify_write(&i.table, vec![i.column.clone()]))
                .collect(),
            Call::Append(a) => one(read_modify_write(&a.append.table, a.append.columns.clone())),
            // HBase's preCheckAndPut: the compared column, for READ then WRITE; then the
            // put's own check (prePut, or preDelete for an isDelete mutation): WRITE on the
            // cell it writes.
            Call::CheckAndPut(a) => one(Ok(Operation::CheckAndMutate {
                table: table(&a.table_name)?,
                compared: column_families(std::slice::from_ref(&a.column)),
                cells: cell_families(mutation_columns(std::slice::from_ref(&a.mput))),
            })),
            Call::FerrobaseAdmin(a) => self.admin_operations(a, families),
            // The scanner's owner (`check`).
            Call::ScannerGet(_) | Call::ScannerGetList(_) | Call::ScannerClose(_) => {
                Ok(vec![Operation::UseScanner { owner: None }])
            }
            // Answered before the checks (`authorized`), with their own operation.
            Call::Grant(_) | Call::Revoke(_) => Err(denied(Denied(format!(
                "{} is not covered by the access rules of this server",
                call.method()
            )))),
        }
    }

    /// The operations of a `ferrobaseAdmin` call.
    fn admin_operations(
        &self,
        a: &FerrobaseAdminArgs,
        families: bool,
    ) -> Result<Vec<Operation>, ServiceError> {
        let target = || Ok::<_, ServiceError>(canonical_table(&table_text(&a.table_name)?)?);
        let op = match admin_op(a)? {
            // HBase: createNamespace, deleteNamespace need global ADMIN.
            AdminOp::CreateNamespace => Operation::CreateNamespace {
                namespace: table_text(&a.table_name)?,
            },
            AdminOp::DropNamespace => Operation::DeleteNamespace {
                namespace: table_text(&a.table_name)?,
            },
            AdminOp::PutFamily | AdminOp::SetTableAttributes | AdminOp::UnsetTableAttribute => {
                Operation::ModifyTable { table: target()? }
            }
            AdminOp::DeleteFamily => Operation::DeleteFamily { table: target()? },
            AdminOp::Flush => Operation::Flush { table: target()? },
            AdminOp::Truncate | AdminOp::TruncatePreserve => {
                Operation::TruncateTable { table: target()? }
            }
            // As getColumnDescriptors: the table's descriptor.
            AdminOp::TableAttributes | AdminOp::FamilyAttributes => {
                Operation::DescribeTable { table: target()? }
            }
            // Increment/Append with a TTL: READ and WRITE on the column the operation writes
            // (the same attribute lookup), as Thrift1's.
            AdminOp::Increment | AdminOp::Append => {
                let column = super::writes::row_op_column(a).unwrap_or_default();
                Operation::ReadModifyWrite {
                    table: table_arg(&a.table_name)?,
                    cells: cell_families([column.to_vec()]),
                }
            }
            // A delete with exact markers: WRITE on the cell of each marker the operation
            // writes (a family marker's has the empty qualifier, whatever column named it), on
            // every family for a whole-row delete (as deleteAllRow).
            AdminOp::Delete => {
                let table = table_arg(&a.table_name)?;
                let delete = super::cell_ops::extension_delete_of(a)?;
                let cells = if delete.cells.is_empty() {
                    if families {
                        self.all_families(&table, false)?
                    } else {
                        FamilyMap::new()
                    }
                } else {
                    let mut cells = FamilyMap::new();
                    for c in delete.cells {
                        if let Some(set) = cells
                            .entry(c.family)
                            .or_insert_with(|| Some(BTreeSet::new()))
                        {
                            set.insert(c.qualifier);
                        }
                    }
                    cells
                };
                Operation::Write { table, cells }
            }
            // A scan with RAW or VERSIONS, or a typed get: READ on the columns, as a Thrift1
            // scan; a partly granted read is refused (its typed rows are not filtered).
            AdminOp::ScanOpen | AdminOp::Get => {
                let table = table_arg(&a.table_name)?;
                let columns = super::cell_ops::indexed(a, "COLUMN");
                let families = if !families {
                    FamilyMap::new()
                } else {
                    self.read_families(&table, &columns)?
                };
                Operation::Read {
                    table,
                    families,
                    filterable: false,
                }
            }
            AdminOp::Split => Operation::Split { table: target()? },
            // Snapshots: global ADMIN for every one of them (stricter than HBase, which lets a
            // table's ADMIN snapshot it and a snapshot's owner clone, restore and delete it;
            // ferrobase records no snapshot owners).
            AdminOp::Snapshot
            | AdminOp::ListSnapshots
            | AdminOp::DeleteSnapshot
            | AdminOp::CloneSnapshot
            | AdminOp::RestoreSnapshot => Operation::ClusterAdmin,
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

    /// What follows a call that ran: grants of created and deleted tables, filtered results,
    /// scanner owners, listed tables.
    fn follow_up(
        &self,
        access: &Access,
        user: &str,
        call: &Call,
        permit: &Permit,
        res: &mut CallResult,
    ) -> Result<(), ServiceError> {
        let acl = &access.checker;
        let Ok(value) = res else { return Ok(()) };
        match call {
            // HBase's postCompletedCreateTableAction: the creator owns the table (never a table of
            // the system namespace: its owner is the superuser who made it).
            Call::CreateTable(a)
                if namespace_of(&table_text(&a.table_name)?) != SYSTEM_NAMESPACE =>
            {
                let table = table_arg(&a.table_name)?;
                acl.store()
                    .grant(user, &Scope::table(table), Actions::all())?;
            }
            // postModifyTable (every change of a table's descriptor, families included): the
            // table's owner, without an OWNER in the descriptor the user who changed it, is
            // granted every action on it, as by postCompletedCreateTableAction. Never on a
            // table of the system namespace (only superusers change those).
            Call::FerrobaseAdmin(a)
                if admin_op(a).is_ok_and(AdminOp::modifies_table)
                    && namespace_of(&table_text(&a.table_name)?) != SYSTEM_NAMESPACE =>
            {
                let table = canonical_table(&table_text(&a.table_name)?)?;
                let desc = self.engine.admin().describe(&table)?;
                let owner = desc
                    .attributes
                    .get("OWNER")
                    .filter(|o| !o.is_empty() && !o.contains(','))
                    .map_or(user, |o| o);
                acl.store()
                    .grant(owner, &Scope::table(table), Actions::all())?;
            }
            // postDeleteTable: the table's grants go with it.
            Call::DeleteTable(a) => acl.store().remove_table(&table_arg(&a.table_name)?)?,
            Call::FerrobaseAdmin(a) if admin_op(a).ok() == Some(AdminOp::DropNamespace) => {
                acl.store().remove_namespace(&table_text(&a.table_name)?)?
            }
            Call::GetTableNames(_) => {
                if let Some(TValue::List(_, names)) = value {
                    names.retain(|n| match n {
                        TValue::Binary(b) => self.listed(acl, user, b),
                        _ => true,
                    });
                }
            }
            Call::GetTableNamesWithIsTableEnabled(_) => {
                if let Some(TValue::Map(_, _, entries)) = value {
                    entries.retain(|(n, _)| match n {
                        TValue::Binary(b) => self.listed(acl, user, b),
                        _ => true,
                    });
                }
            }
            Call::ScannerOpenWithScan(_)
            | Call::ScannerOpen(_)
            | Call::ScannerOpenWithStop(_)
            | Call::ScannerOpenWithPrefix(_)
            | Call::ScannerOpenTs(_)
            | Call::ScannerOpenWithStopTs(_) => {
                if let Some(TValue::I32(id)) = value {
                    self.scanners.set_grant(
                        *id,
                        ScannerGrant {
                            owner: user.to_string(),
                            filtered: match permit {
                                Permit::Filtered(t) => Some(t.clone()),
                                Permit::Full => None,
                            },
                        },
                    );
                }
            }
            Call::FerrobaseAdmin(a) if admin_op(a).ok() == Some(AdminOp::ScanOpen) => {
                if let Some(TValue::I32(id)) = value {
                    self.scanners.set_grant(
                        *id,
                        ScannerGrant {
                            owner: user.to_string(),
                            filtered: None,
                        },
                    );
                }
            }
            _ => {}
        }
        if let (Permit::Filtered(table), Some(TValue::List(TType::Struct, rows))) = (permit, value)
        {
            filter_rows(acl, user, table, rows);
        }
        Ok(())
    }

    /// Whether `getTableNames` shows `table` to `user` (HBase's `postGetTableNames`: any
    /// grant reaching it). `hbase:acl` is a system table, never listed.
    fn listed(&self, acl: &AccessChecker, user: &str, table: &[u8]) -> bool {
        let table = String::from_utf8_lossy(table);
        table != ACL_TABLE && (acl.is_superuser(user) || acl.access_table(user, &table))
    }
}

/// Keeps the cells of `rows` (TRowResults) that `user` may read; rows left empty go.
fn filter_rows(acl: &AccessChecker, user: &str, table: &str, rows: &mut Vec<TValue>) {
    let readable = |name: &[u8]| {
        let (f, q) = parse_column(name);
        acl.cell_readable(user, table, &f, &q.unwrap_or_default())
    };
    rows.retain_mut(|row| {
        let TValue::Struct(s) = row else { return true };
        let mut left = 0;
        for (id, v) in s.fields.iter_mut() {
            match (*id, v) {
                (TRowResult::columns, TValue::Map(_, _, entries)) => {
                    entries.retain(|(k, _)| matches!(k, TValue::Binary(n) if readable(n)));
                    left += entries.len();
                }
                (TRowResult::sortedColumns, TValue::List(_, cols)) => {
                    cols.retain(|c| match c {
                        TValue::Struct(col) => matches!(
                            col.get(TColumn::columnName),
                            Some(TValue::Binary(n)) if readable(n)
                        ),
                        _ => false,
                    });
                    left += cols.len();
                }
                _ => {}
            }
        }
        left > 0
    });
}
