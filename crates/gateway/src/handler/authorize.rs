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
    canonical_table, AccessChecker, Action, Actions, Denied, FamilyMap, ReadAccess, Scope,
    ACL_TABLE, ANONYMOUS,
};
use crate::catalog::NAMESPACE;
use crate::thrift::hbase::service::{
    GetRowWithColumnsArgs, GetRowWithColumnsTsArgs, GetRowsWithColumnsArgs,
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
pub(super) fn denied(d: Denied) -> ServiceError {
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
pub(super) fn table_arg(raw: &[u8]) -> Result<String, ServiceError> {
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

    /// The check HBase makes before the operation of `call`.
    fn check(&self, access: &Access, user: &str, call: &Call) -> Result<Permit, ServiceError> {
        let acl = &access.checker;
        // HBase's requireScannerOwner: only the user who opened a scanner may use it.
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
                Some(Some(g)) if g.owner == user => Ok(match g.filtered {
                    Some(t) => Permit::Filtered(t),
                    None => Permit::Full,
                }),
                // Another user's, or one whose owner is not recorded yet: fail closed.
                Some(_) => Err(denied(Denied(format!(
                    "User '{user}' is not the scanner owner!"
                )))),
            };
        }
        // HBase refuses these even to superusers while its AccessController is installed.
        let off_line = match call {
            Call::DisableTable(a) => Some(("disable", &a.table_name)),
            Call::DeleteTable(a) => Some(("delete", &a.table_name)),
            _ => None,
        };
        if let Some((verb, table)) = off_line {
            if table_arg(table)? == ACL_TABLE {
                return Err(denied(Denied(format!(
                    "Not allowed to {verb} {ACL_TABLE} table with AccessController installed"
                ))));
            }
        }
        // Stricter than HBase (whose truncate needs the table disabled first, which it refuses
        // for hbase:acl): emptying hbase:acl, or dropping its family, would leave the running
        // server answering from grants that are gone after the next restart.
        if let Call::FerrobaseAdmin(a) = call {
            let verb = match admin_op(a)? {
                AdminOp::Truncate | AdminOp::TruncatePreserve => Some("truncate"),
                AdminOp::DeleteFamily => Some("delete a family of"),
                AdminOp::Capabilities
                | AdminOp::Increment
                | AdminOp::Append
                | AdminOp::Delete
                | AdminOp::ScanOpen
                | AdminOp::ScanNext
                | AdminOp::CreateNamespace
                | AdminOp::DropNamespace
                | AdminOp::Flush
                | AdminOp::Split
                | AdminOp::TableAttributes
                | AdminOp::FamilyAttributes
                | AdminOp::SetTableAttributes
                | AdminOp::UnsetTableAttribute
                | AdminOp::PutFamily
                | AdminOp::Grant
                | AdminOp::Revoke
                | AdminOp::UserPermission => None,
            };
            if let Some(verb) = verb {
                if canonical_table(&table_text(&a.table_name)?).ok().as_deref() == Some(ACL_TABLE) {
                    return Err(denied(Denied(format!(
                        "Not allowed to {verb} {ACL_TABLE} table with AccessController installed"
                    ))));
                }
            }
        }
        if acl.is_superuser(user) {
            return Ok(Permit::Full);
        }
        // Stricter than HBase: only superusers change the tables of the system namespace
        // (hbase:acl's cells are the grants; HBase lets a global CREATE or WRITE holder
        // change them, and so become a global ADMIN).
        for (raw, action) in system_changes(call) {
            let table = table_text(raw)?;
            if namespace_of(&table) == SYSTEM_NAMESPACE {
                return Err(denied(Denied(format!(
                    "Insufficient permissions for user '{user}' (table={table}, \
                     action={action}): only superusers may change a table of the system \
                     namespace {SYSTEM_NAMESPACE}"
                ))));
            }
        }
        let admin_or_create = [Action::Admin, Action::Create];
        let read = |table: String, families: FamilyMap, filterable: bool| {
            match acl.require_read(user, &table, &families).map_err(denied)? {
                ReadAccess::All => Ok(Permit::Full),
                ReadAccess::Filtered if filterable => Ok(Permit::Filtered(table)),
                // The answer carries no column names to filter by: refuse, as when nothing
                // is granted.
                ReadAccess::Filtered => Err(denied(Denied(format!(
                    "Insufficient permissions for user '{user}' (table={table}, action=READ)"
                )))),
            }
        };
        let write = |table: String, families: FamilyMap, actions: &[Action]| {
            acl.require_mutation(user, &table, &families, actions)
                .map(|()| Permit::Full)
                .map_err(denied)
        };
        let table_admin = |raw: &[u8]| {
            let table = table_arg(raw)?;
            acl.require_table(user, &table, None, None, &admin_or_create)
                .map_err(denied)?;
            Ok(Permit::Full)
        };
        // A read of one column (or family): its answer names no column, so it is not filtered.
        let cell_read = |raw: &[u8], column: &[u8]| {
            read(table_arg(raw)?, column_families(&[column.to_vec()]), false)
        };
        let row_read = |raw: &[u8]| {
            let table = table_arg(raw)?;
            let families = self.all_families(&table, true)?;
            read(table, families, true)
        };
        let columns_read = |raw: &[u8], columns: &[Vec<u8>]| {
            let table = table_arg(raw)?;
            let families = self.read_families(&table, columns)?;
            read(table, families, true)
        };
        let column_write = |raw: &[u8], column: &[u8]| {
            write(
                table_arg(raw)?,
                cell_families([column.to_vec()]),
                &[Action::Write],
            )
        };
        let row_delete = |raw: &[u8]| {
            let table = table_arg(raw)?;
            let families = self.all_families(&table, false)?;
            write(table, families, &[Action::Write])
        };
        match call {
            // Answered from hbase:meta, which every user may read; table lists are filtered
            // afterwards.
            Call::GetTableNames(_)
            | Call::GetTableNamesWithIsTableEnabled(_)
            | Call::IsTableEnabled(_)
            | Call::GetTableRegions(_)
            | Call::GetRegionInfo(_)
            | Call::GetThriftServerType(_)
            | Call::GetClusterId(_) => Ok(Permit::Full),
            // Not served (HBase 2.6 has no such method): answered as an unknown method.
            Call::GetRowOrBefore(_) => Ok(Permit::Full),
            Call::EnableTable(a) => table_admin(&a.table_name),
            Call::DisableTable(a) => table_admin(&a.table_name),
            Call::DeleteTable(a) => table_admin(&a.table_name),
            Call::GetColumnDescriptors(a) => table_admin(&a.table_name),
            Call::Compact(a) => table_admin(&a.table_name_or_region_name),
            Call::MajorCompact(a) => table_admin(&a.table_name_or_region_name),
            Call::CreateTable(a) => {
                let table = table_arg(&a.table_name)?;
                let families: Vec<Vec<u8>> = a
                    .column_families
                    .iter()
                    .map(|f| parse_column(&f.name).0)
                    .collect();
                acl.require_namespace_for_table(user, &table, &families, &admin_or_create)
                    .map_err(denied)?;
                Ok(Permit::Full)
            }
            Call::Get(a) => cell_read(&a.table_name, &a.column),
            Call::GetVer(a) => cell_read(&a.table_name, &a.column),
            Call::GetVerTs(a) => cell_read(&a.table_name, &a.column),
            Call::GetRow(a) => row_read(&a.table_name),
            Call::GetRowTs(a) => row_read(&a.table_name),
            Call::GetRows(a) => row_read(&a.table_name),
            Call::GetRowsTs(a) => row_read(&a.table_name),
            Call::GetRowWithColumns(a) => columns_read(&a.table_name, &a.columns),
            Call::GetRowWithColumnsTs(a) => columns_read(&a.table_name, &a.columns),
            Call::GetRowsWithColumns(a) => columns_read(&a.table_name, &a.columns),
            Call::GetRowsWithColumnsTs(a) => columns_read(&a.table_name, &a.columns),
            Call::ScannerOpenWithScan(a) => {
                columns_read(&a.table_name, a.scan.columns.as_deref().unwrap_or_default())
            }
            Call::ScannerOpen(a) => columns_read(&a.table_name, &a.columns),
            Call::ScannerOpenWithPrefix(a) => columns_read(&a.table_name, &a.columns),
            Call::ScannerOpenTs(a) => columns_read(&a.table_name, &a.columns),
            Call::ScannerOpenWithStop(a) => columns_read(&a.table_name, &a.columns),
            Call::ScannerOpenWithStopTs(a) => columns_read(&a.table_name, &a.columns),
            Call::MutateRow(a) => write(
                table_arg(&a.table_name)?,
                cell_families(mutation_columns(&a.mutations)),
                &[Action::Write],
            ),
            Call::MutateRowTs(a) => write(
                table_arg(&a.table_name)?,
                cell_families(mutation_columns(&a.mutations)),
                &[Action::Write],
            ),
            Call::MutateRows(a) => write(
                table_arg(&a.table_name)?,
                cell_families(
                    a.row_batches
                        .iter()
                        .flat_map(|b| mutation_columns(&b.mutations)),
                ),
                &[Action::Write],
            ),
            Call::MutateRowsTs(a) => write(
                table_arg(&a.table_name)?,
                cell_families(
                    a.row_batches
                        .iter()
                        .flat_map(|b| mutation_columns(&b.mutations)),
                ),
                &[Action::Write],
            ),
            Call::AtomicIncrement(a) => column_write(&a.table_name, &a.column),
            Call::DeleteAll(a) => column_write(&a.table_name, &a.column),
            Call::DeleteAllTs(a) => column_write(&a.table_name, &a.column),
            Call::DeleteAllRow(a) => row_delete(&a.table_name),
            Call::DeleteAllRowTs(a) => row_delete(&a.table_name),
            Call::Increment(a) => column_write(&a.increment.table, &a.increment.column),
            Call::IncrementRows(a) => {
                for i in &a.increments {
                    column_write(&i.table, &i.column)?;
                }
                Ok(Permit::Full)
            }
            Call::Append(a) => write(
                table_arg(&a.append.table)?,
                cell_families(a.append.columns.iter().cloned()),
                &[Action::Write],
            ),
            // HBase's preCheckAndPut: the compared column, for READ then WRITE; then the
            // put's own check (prePut, or preDelete for an isDelete mutation): WRITE on the
            // cell it writes.
            Call::CheckAndPut(a) => {
                let table = table_arg(&a.table_name)?;
                write(
                    table.clone(),
                    column_families(std::slice::from_ref(&a.column)),
                    &[Action::Read, Action::Write],
                )?;
                write(
                    table,
                    cell_families(mutation_columns(std::slice::from_ref(&a.mput))),
                    &[Action::Write],
                )
            }
            Call::FerrobaseAdmin(a) => {
                let target = table_text(&a.table_name)?;
                match admin_op(a)? {
                    // HBase: createNamespace, deleteNamespace need global ADMIN.
                    AdminOp::CreateNamespace | AdminOp::DropNamespace => acl
                        .require_global(user, Action::Admin)
                        .map(|()| Permit::Full)
                        .map_err(denied),
                    // flushTable, truncateTable, modifyTable: ADMIN or CREATE on the table.
                    // (table_attributes and family_attributes as getColumnDescriptors: the
                    // table's descriptor.)
                    AdminOp::PutFamily
                    | AdminOp::DeleteFamily
                    | AdminOp::SetTableAttributes
                    | AdminOp::UnsetTableAttribute
                    | AdminOp::Flush
                    | AdminOp::Truncate
                    | AdminOp::TruncatePreserve
                    | AdminOp::TableAttributes
                    | AdminOp::FamilyAttributes => {
                        let table = canonical_table(&target)?;
                        acl.require_table(user, &table, None, None, &admin_or_create)
                            .map(|()| Permit::Full)
                            .map_err(denied)
                    }
                    // Increment/Append with a TTL: WRITE on the column the operation writes
                    // (the same attribute lookup), as Thrift1's.
                    AdminOp::Increment | AdminOp::Append => {
                        let column = super::writes::row_op_column(a).unwrap_or_default();
                        column_write(&a.table_name, column)
                    }
                    // A delete with exact markers: WRITE on the cell of each marker the
                    // operation writes (a family marker's has the empty qualifier, whatever
                    // column named it), on every family for a whole-row delete (as
                    // deleteAllRow).
                    AdminOp::Delete => {
                        let delete = super::cell_ops::extension_delete_of(a)?;
                        if delete.cells.is_empty() {
                            row_delete(&a.table_name)
                        } else {
                            let mut families = FamilyMap::new();
                            for c in delete.cells {
                                if let Some(set) = families
                                    .entry(c.family)
                                    .or_insert_with(|| Some(BTreeSet::new()))
                                {
                                    set.insert(c.qualifier);
                                }
                            }
                            write(table_arg(&a.table_name)?, families, &[Action::Write])
                        }
                    }
                    // A scan with RAW or VERSIONS: READ on the columns, as a Thrift1 scan;
                    // a partly granted read is refused (its typed rows are not filtered).
                    AdminOp::ScanOpen => {
                        let table = table_arg(&a.table_name)?;
                        let columns = super::cell_ops::indexed(a, "COLUMN");
                        let families = self.read_families(&table, &columns)?;
                        read(table, families, false)
                    }
                    // split: ADMIN on the table.
                    AdminOp::Split => {
                        let table = canonical_table(&target)?;
                        acl.require_table(user, &table, None, None, &[Action::Admin])
                            .map(|()| Permit::Full)
                            .map_err(denied)
                    }
                    // The capability probe reads and changes nothing.
                    AdminOp::Capabilities => Ok(Permit::Full),
                    // Checked before (`check`): the scanner's owner.
                    AdminOp::ScanNext => Ok(Permit::Full),
                    // Answered before the checks (`authorized`).
                    AdminOp::Grant | AdminOp::Revoke | AdminOp::UserPermission => {
                        Err(denied(Denied(format!(
                            "ferrobaseAdmin {} is not covered by the access rules of this server",
                            a.operation
                        ))))
                    }
                }
            }
            // Checked above: the scanner's owner.
            Call::ScannerGet(_) | Call::ScannerGetList(_) | Call::ScannerClose(_) => {
                Ok(Permit::Full)
            }
            // Answered before the checks (`authorized`).
            Call::Grant(_) | Call::Revoke(_) => Err(denied(Denied(format!(
                "{} is not covered by the access rules of this server",
                call.method()
            )))),
        }
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

/// The namespace of the system tables (`hbase:acl`, `hbase:meta`, `hbase:namespace`).
const SYSTEM_NAMESPACE: &str = "hbase";

/// The tables a call writes cells of, or whose descriptor or state it changes, with the action
/// HBase checks for it: what only superusers may do to a table of the system namespace. One
/// exhaustive match, so a new call is decided here, not forgotten.
fn system_changes(call: &Call) -> Vec<(&[u8], Action)> {
    fn one(t: &[u8], action: Action) -> Vec<(&[u8], Action)> {
        vec![(t, action)]
    }
    match call {
        Call::MutateRow(a) => one(&a.table_name, Action::Write),
        Call::MutateRowTs(a) => one(&a.table_name, Action::Write),
        Call::MutateRows(a) => one(&a.table_name, Action::Write),
        Call::MutateRowsTs(a) => one(&a.table_name, Action::Write),
        Call::AtomicIncrement(a) => one(&a.table_name, Action::Write),
        Call::DeleteAll(a) => one(&a.table_name, Action::Write),
        Call::DeleteAllTs(a) => one(&a.table_name, Action::Write),
        Call::DeleteAllRow(a) => one(&a.table_name, Action::Write),
        Call::DeleteAllRowTs(a) => one(&a.table_name, Action::Write),
        Call::CheckAndPut(a) => one(&a.table_name, Action::Write),
        Call::Increment(a) => one(&a.increment.table, Action::Write),
        Call::IncrementRows(a) => a
            .increments
            .iter()
            .map(|i| (i.table.as_slice(), Action::Write))
            .collect(),
        Call::Append(a) => one(&a.append.table, Action::Write),
        Call::CreateTable(a) => one(&a.table_name, Action::Create),
        Call::DeleteTable(a) => one(&a.table_name, Action::Create),
        Call::EnableTable(a) => one(&a.table_name, Action::Create),
        Call::DisableTable(a) => one(&a.table_name, Action::Create),
        Call::FerrobaseAdmin(a) => match admin_op(a) {
            Ok(AdminOp::Increment | AdminOp::Append | AdminOp::Delete) => {
                one(&a.table_name, Action::Write)
            }
            Ok(
                AdminOp::PutFamily
                | AdminOp::DeleteFamily
                | AdminOp::SetTableAttributes
                | AdminOp::UnsetTableAttribute
                | AdminOp::Truncate
                | AdminOp::TruncatePreserve,
            ) => one(&a.table_name, Action::Create),
            // Reads, maintenance (flush, split: HBase's rules), namespaces and grants (their
            // own checks).
            Ok(
                AdminOp::Capabilities
                | AdminOp::ScanOpen
                | AdminOp::ScanNext
                | AdminOp::CreateNamespace
                | AdminOp::DropNamespace
                | AdminOp::Flush
                | AdminOp::Split
                | AdminOp::TableAttributes
                | AdminOp::FamilyAttributes
                | AdminOp::Grant
                | AdminOp::Revoke
                | AdminOp::UserPermission,
            ) => Vec::new(),
            // Refused before any check (`authorized`); nothing of it runs.
            Err(_) => Vec::new(),
        },
        // Reads, maintenance and grants (their own checks).
        Call::GetTableNames(_)
        | Call::GetTableNamesWithIsTableEnabled(_)
        | Call::IsTableEnabled(_)
        | Call::GetTableRegions(_)
        | Call::GetRegionInfo(_)
        | Call::GetThriftServerType(_)
        | Call::GetClusterId(_)
        | Call::GetRowOrBefore(_)
        | Call::GetColumnDescriptors(_)
        | Call::Compact(_)
        | Call::MajorCompact(_)
        | Call::Get(_)
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
        | Call::ScannerOpenWithStopTs(_)
        | Call::ScannerGet(_)
        | Call::ScannerGetList(_)
        | Call::ScannerClose(_)
        | Call::Grant(_)
        | Call::Revoke(_) => Vec::new(),
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
