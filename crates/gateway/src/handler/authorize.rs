//! ACL checks of each Thrift call, with the permission HBase's `AccessController` requires
//! for the operation the call performs (`docs/design/security.md`, "Checks"), and what follows
//! a call: the creator's grant on a new table, dropping a deleted table's grants, filtering the
//! cells of a partly granted read, the owner of each scanner, the tables `getTableNames` shows.

use super::args::{parse_column, table_name, Args};
use super::{CallResult, Handler, ServiceError};
use crate::access::{
    canonical_table, AccessChecker, Action, Actions, Denied, FamilyMap, ReadAccess, Scope,
    ACL_TABLE, ANONYMOUS,
};
use crate::thrift::{TStruct, TType, TValue};
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

/// The ACL state of a handler.
pub(crate) struct Access {
    pub(crate) checker: AccessChecker,
    /// Open scanners: the user who opened each, and the table whose cells it filters when the
    /// read was only partly granted. Guarded by its own lock, taken alone.
    scanners: Mutex<HashMap<i32, ScannerGrant>>,
}

struct ScannerGrant {
    owner: String,
    filtered: Option<String>,
}

impl Access {
    pub(crate) fn new(checker: AccessChecker) -> Access {
        Access {
            checker,
            scanners: Mutex::new(HashMap::new()),
        }
    }

    fn scanners(&self) -> std::sync::MutexGuard<'_, HashMap<i32, ScannerGrant>> {
        self.scanners.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The answer to `grant`/`revoke` when ACLs are off.
pub(crate) fn acl_off() -> ServiceError {
    ServiceError::Io(
        "access control is off: start ferrobase serve with --acl (or --tls-client-ca) to grant \
         and revoke"
            .into(),
    )
}

/// A refusal as the method's IOError, with HBase's exception class before its message.
pub(super) fn denied(d: Denied) -> ServiceError {
    ServiceError::Io(format!(
        "org.apache.hadoop.hbase.security.AccessDeniedException: {d}"
    ))
}

/// (declares IllegalArgument, declares AlreadyExists) of a method, as in `dispatch`.
fn declared(name: &str) -> (bool, bool) {
    match name {
        "createTable" => (true, true),
        "mutateRow" | "mutateRowTs" | "mutateRows" | "mutateRowsTs" | "atomicIncrement"
        | "checkAndPut" | "scannerGet" | "scannerGetList" | "scannerClose" | "ferrobaseAdmin" => {
            (true, false)
        }
        _ => (false, false),
    }
}

/// What a checked call may do.
enum Permit {
    /// Run as asked.
    Full,
    /// A read of `table` whose results keep only the cells the user may read.
    Filtered(String),
}

pub(super) fn table_arg(a: &Args<'_>, id: i16) -> Result<String, ServiceError> {
    Ok(canonical_table(&table_name(&a.bytes(id)?)?)?)
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

fn mutation_columns(mutations: &[&TStruct]) -> Vec<Vec<u8>> {
    mutations
        .iter()
        .filter_map(|m| Args(m).opt_bytes(2))
        .collect()
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

    /// Runs a call under the ACLs: checked, then run, then followed up. `None` for an
    /// unknown method (nothing runs).
    pub(super) fn authorized(
        &self,
        access: &Access,
        user: Option<&str>,
        name: &str,
        a: &Args<'_>,
    ) -> Option<(CallResult, bool, bool)> {
        crate::idl::arguments(name)?;
        let user = user.unwrap_or(ANONYMOUS);
        let (ia, exists) = declared(name);
        match name {
            "grant" | "revoke" => {
                return Some((
                    self.thrift_grant(&access.checker, user, name == "grant", a),
                    false,
                    false,
                ))
            }
            "ferrobaseAdmin" => {
                let op = a.opt_bytes(1).unwrap_or_default();
                if matches!(&op[..], b"grant" | b"revoke" | b"user_permission") {
                    return Some((self.admin_acl(&access.checker, user, &op, a), true, false));
                }
            }
            _ => {}
        }
        let permit = match self.check(access, user, name, a) {
            Ok(p) => p,
            Err(e) => return Some((Err(e), ia, exists)),
        };
        let (mut res, ia, exists) = self.dispatch(name, a)?;
        if let Err(e) = self.follow_up(access, user, name, a, &permit, &mut res) {
            res = Err(e);
        }
        Some((res, ia, exists))
    }

    /// The check HBase makes before the operation of call `name`.
    fn check(
        &self,
        access: &Access,
        user: &str,
        name: &str,
        a: &Args<'_>,
    ) -> Result<Permit, ServiceError> {
        let acl = &access.checker;
        // HBase's requireScannerOwner: only the user who opened a scanner may use it.
        if matches!(name, "scannerGet" | "scannerGetList" | "scannerClose") {
            if let Ok(id) = a.i32(1) {
                if let Some(g) = access.scanners().get(&id) {
                    if g.owner != user {
                        return Err(denied(Denied(format!(
                            "User '{user}' is not the scanner owner!"
                        ))));
                    }
                    if let Some(t) = &g.filtered {
                        return Ok(Permit::Filtered(t.clone()));
                    }
                }
            }
            return Ok(Permit::Full);
        }
        // HBase refuses these even to superusers while its AccessController is installed.
        if matches!(name, "disableTable" | "deleteTable") && table_arg(a, 1)? == ACL_TABLE {
            return Err(denied(Denied(format!(
                "Not allowed to {} {ACL_TABLE} table with AccessController installed",
                if name == "disableTable" {
                    "disable"
                } else {
                    "delete"
                }
            ))));
        }
        if acl.is_superuser(user) {
            return Ok(Permit::Full);
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
        match name {
            // Answered from hbase:meta, which every user may read; table lists are filtered
            // afterwards.
            "getTableNames"
            | "getTableNamesWithIsTableEnabled"
            | "isTableEnabled"
            | "getTableRegions"
            | "getRegionInfo"
            | "getThriftServerType"
            | "getClusterId" => Ok(Permit::Full),
            "enableTable"
            | "disableTable"
            | "deleteTable"
            | "compact"
            | "majorCompact"
            | "getColumnDescriptors" => {
                let table = table_arg(a, 1)?;
                acl.require_table(user, &table, None, None, &admin_or_create)
                    .map_err(denied)?;
                Ok(Permit::Full)
            }
            "createTable" => {
                let table = table_arg(a, 1)?;
                let ns = crate::access::checker::namespace_of(&table);
                acl.require_namespace(user, &ns, &admin_or_create)
                    .map_err(denied)?;
                Ok(Permit::Full)
            }
            "get" | "getVer" | "getVerTs" | "getRowOrBefore" => {
                let table = table_arg(a, 1)?;
                let mut families = column_families(&[a.bytes(3)?]);
                if name == "getRowOrBefore" {
                    families = families.into_keys().map(|f| (f, None)).collect();
                }
                read(table, families, false)
            }
            "getRow" | "getRowTs" | "getRows" | "getRowsTs" => {
                let table = table_arg(a, 1)?;
                let families = self.all_families(&table, true)?;
                read(table, families, true)
            }
            "getRowWithColumns"
            | "getRowWithColumnsTs"
            | "getRowsWithColumns"
            | "getRowsWithColumnsTs" => {
                let table = table_arg(a, 1)?;
                let families = self.read_families(&table, &a.byte_list(3))?;
                read(table, families, true)
            }
            "scannerOpenWithScan" => {
                let table = table_arg(a, 1)?;
                let columns = a
                    .strukt(2)
                    .map(|s| Args(s).byte_list(4))
                    .unwrap_or_default();
                let families = self.read_families(&table, &columns)?;
                read(table, families, true)
            }
            "scannerOpen"
            | "scannerOpenWithPrefix"
            | "scannerOpenTs"
            | "scannerOpenWithStop"
            | "scannerOpenWithStopTs" => {
                let table = table_arg(a, 1)?;
                let at = if name.starts_with("scannerOpenWithStop") {
                    4
                } else {
                    3
                };
                let families = self.read_families(&table, &a.byte_list(at))?;
                read(table, families, true)
            }
            "mutateRow" | "mutateRowTs" => {
                let table = table_arg(a, 1)?;
                let families = cell_families(mutation_columns(&a.struct_list(3)));
                write(table, families, &[Action::Write])
            }
            "mutateRows" | "mutateRowsTs" => {
                let table = table_arg(a, 1)?;
                let columns = a
                    .struct_list(2)
                    .iter()
                    .flat_map(|b| mutation_columns(&Args(b).struct_list(2)))
                    .collect::<Vec<_>>();
                write(table, cell_families(columns), &[Action::Write])
            }
            "atomicIncrement" | "deleteAll" | "deleteAllTs" => {
                let table = table_arg(a, 1)?;
                write(table, cell_families([a.bytes(3)?]), &[Action::Write])
            }
            "deleteAllRow" | "deleteAllRowTs" => {
                let table = table_arg(a, 1)?;
                let families = self.all_families(&table, false)?;
                write(table, families, &[Action::Write])
            }
            "increment" | "incrementRows" => {
                let incs = if name == "increment" {
                    a.strukt(1).into_iter().collect()
                } else {
                    a.struct_list(1)
                };
                for inc in incs {
                    let i = Args(inc);
                    write(
                        table_arg(&i, 1)?,
                        cell_families([i.bytes(3)?]),
                        &[Action::Write],
                    )?;
                }
                Ok(Permit::Full)
            }
            "append" => {
                let ap = Args(a.strukt(1).ok_or_else(|| {
                    ServiceError::IllegalArgument("append needs a TAppend".into())
                })?);
                write(
                    table_arg(&ap, 1)?,
                    cell_families(ap.byte_list(3)),
                    &[Action::Write],
                )
            }
            "checkAndPut" => {
                // HBase checks the compared column, for READ then WRITE.
                let table = table_arg(a, 1)?;
                write(
                    table,
                    column_families(&[a.bytes(3)?]),
                    &[Action::Read, Action::Write],
                )
            }
            "ferrobaseAdmin" => {
                let op = String::from_utf8_lossy(&a.bytes(1)?).into_owned();
                let target = table_name(&a.bytes(2)?)?;
                match op.as_str() {
                    // HBase: createNamespace, deleteNamespace need global ADMIN.
                    "create_namespace" | "drop_namespace" => acl
                        .require_global(user, Action::Admin)
                        .map(|()| Permit::Full)
                        .map_err(denied),
                    // flushTable, truncateTable, modifyTable: ADMIN or CREATE on the table.
                    "flush" | "truncate" | "truncate_preserve" | "put_family" | "delete_family" => {
                        let table = canonical_table(&target)?;
                        acl.require_table(user, &table, None, None, &admin_or_create)
                            .map(|()| Permit::Full)
                            .map_err(denied)
                    }
                    // split: ADMIN on the table.
                    "split" => {
                        let table = canonical_table(&target)?;
                        acl.require_table(user, &table, None, None, &[Action::Admin])
                            .map(|()| Permit::Full)
                            .map_err(denied)
                    }
                    // The capability probe and unknown operations change nothing.
                    _ => Ok(Permit::Full),
                }
            }
            other => Err(denied(Denied(format!(
                "{other} is not covered by the access rules of this server"
            )))),
        }
    }

    /// What follows a call that ran: grants of created and deleted tables, filtered results,
    /// scanner owners, listed tables.
    fn follow_up(
        &self,
        access: &Access,
        user: &str,
        name: &str,
        a: &Args<'_>,
        permit: &Permit,
        res: &mut CallResult,
    ) -> Result<(), ServiceError> {
        let acl = &access.checker;
        let Ok(value) = res else { return Ok(()) };
        match name {
            // HBase's postCompletedCreateTableAction: the creator owns the table.
            "createTable" => {
                let table = table_arg(a, 1)?;
                acl.store()
                    .grant(user, &Scope::table(table), Actions::all())?;
            }
            // postDeleteTable: the table's grants go with it.
            "deleteTable" => acl.store().remove_table(&table_arg(a, 1)?)?,
            "ferrobaseAdmin" if a.opt_bytes(1).as_deref() == Some(b"drop_namespace") => {
                acl.store().remove_namespace(&table_name(&a.bytes(2)?)?)?
            }
            "getTableNames" => {
                if let Some(TValue::List(_, names)) = value {
                    names.retain(|n| match n {
                        TValue::Binary(b) => self.listed(acl, user, b),
                        _ => true,
                    });
                }
            }
            "getTableNamesWithIsTableEnabled" => {
                if let Some(TValue::Map(_, _, entries)) = value {
                    entries.retain(|(n, _)| match n {
                        TValue::Binary(b) => self.listed(acl, user, b),
                        _ => true,
                    });
                }
            }
            n if n.starts_with("scannerOpen") => {
                if let Some(TValue::I32(id)) = value {
                    access.scanners().insert(
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
            "scannerClose" => {
                if let Ok(id) = a.i32(1) {
                    access.scanners().remove(&id);
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
            match (id, v) {
                (2, TValue::Map(_, _, entries)) => {
                    entries.retain(|(k, _)| matches!(k, TValue::Binary(n) if readable(n)));
                    left += entries.len();
                }
                (3, TValue::List(_, cols)) => {
                    cols.retain(|c| match c {
                        TValue::Struct(col) => {
                            matches!(col.get(1), Some(TValue::Binary(n)) if readable(n))
                        }
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
