//! ACL checks of each Thrift2 call: the translation of every `THBaseService` method the shared
//! executor does not run into the operations of the request model ([`Operation`], decided by
//! [`AccessChecker::authorize`]), each scanner's owner, and the listings each user sees. The
//! rules are HBase's `AccessController`'s (`docs/design/security.md`, "Checks";
//! `docs/design/thrift2.md`, "ACLs").
//!
//! The data methods (`get`, `exists`, their multiples, `openScanner`, `getScannerResults`, every
//! write) and the table, family and namespace changes are authorized by the shared executor
//! (`crate::request`) from the typed values that run; a partly granted read is narrowed there to
//! the columns the user may read before it runs, as HBase's `AccessControlFilter` runs before the
//! user's filter, and a change is followed up there (the creator's grant on a new table, the
//! grants of a deleted table or namespace).

use super::admin::name_of;
use super::Thrift2Handler;
use crate::access::{AccessChecker, Operation, ANONYMOUS};
use crate::handler::{denied, CallResult, ScannerGrant, ServiceError};
use crate::thrift::thrift2::{Call, TTableName};
use crate::thrift::TValue;

impl Thrift2Handler {
    /// Checks `call` for `user` before it runs: one exhaustive match over every method of the
    /// service, so a method added to the IDL does not compile until its translation is
    /// written (fail closed). Data requests are checked by the shared executor as they run.
    fn authorize_call(
        &self,
        acl: &AccessChecker,
        user: &str,
        call: &Call,
    ) -> Result<(), ServiceError> {
        // A scanner's later calls: only its owner. An id not open runs and answers so.
        let scanner = match call {
            Call::GetScannerRows(a) => Some(a.scanner_id),
            Call::CloseScanner(a) => Some(a.scanner_id),
            _ => None,
        };
        if let Some(id) = scanner {
            if let Some(grant) = self.inner.scanners.grant(id) {
                let owner = grant.map(|g| g.owner);
                acl.authorize(user, &Operation::UseScanner { owner })
                    .map_err(denied)?;
            }
            return Ok(());
        }
        let superuser = acl.is_superuser(user);
        let ops = match self.operations(call) {
            Ok(ops) => ops,
            // A superuser's call the rules cannot name (an invalid table name): the call
            // answers it, as without ACLs; no such name is `hbase:acl`.
            Err(_) if superuser => return Ok(()),
            Err(e) => return Err(e),
        };
        for op in &ops {
            acl.authorize(user, op).map_err(denied)?;
        }
        Ok(())
    }

    /// The operations `call` performs (none for a data request: the executor derives them).
    fn operations(&self, call: &Call) -> Result<Vec<Operation>, ServiceError> {
        let tname = |t: &TTableName| -> Result<String, ServiceError> {
            Ok(crate::access::canonical_table(&name_of(t)?)?)
        };
        match call {
            // Data requests: authorized by the shared executor when they run
            // (`crate::request::Executor`), from the typed values that run; a partly granted
            // read narrowed there.
            Call::Get(_)
            | Call::Exists(_)
            | Call::GetMultiple(_)
            | Call::ExistsAll(_)
            | Call::Put(_)
            | Call::PutMultiple(_)
            | Call::DeleteSingle(_)
            | Call::DeleteMultiple(_)
            | Call::Increment(_)
            | Call::Append(_)
            | Call::MutateRow(_)
            | Call::CheckAndPut(_)
            | Call::CheckAndDelete(_)
            | Call::CheckAndMutate(_)
            | Call::OpenScanner(_)
            | Call::GetScannerResults(_) => Ok(Vec::new()),
            // Table, family and namespace changes: authorized by the shared executor when they
            // run, from the typed request (`crate::request::AdminRequest`), and followed up there.
            Call::CreateTable(_)
            | Call::DeleteTable(_)
            | Call::TruncateTable(_)
            | Call::EnableTable(_)
            | Call::DisableTable(_)
            | Call::AddColumnFamily(_)
            | Call::ModifyColumnFamily(_)
            | Call::DeleteColumnFamily(_)
            | Call::CreateNamespace(_)
            | Call::DeleteNamespace(_) => Ok(Vec::new()),
            // Checked in `authorize_call`.
            Call::GetScannerRows(_) | Call::CloseScanner(_) => {
                Ok(vec![Operation::UseScanner { owner: None }])
            }
            // Answered from what every user may read (hbase:meta, the server); listings are
            // filtered as they are built (`lists_table`, `describes_table`,
            // `describes_namespace`).
            Call::TableExists(_)
            | Call::IsTableEnabled(_)
            | Call::IsTableDisabled(_)
            | Call::IsTableAvailable(_)
            | Call::IsTableAvailableWithSplit(_)
            | Call::GetRegionLocation(_)
            | Call::GetAllRegionLocations(_)
            | Call::GetTableNamesByPattern(_)
            | Call::GetTableDescriptorsByPattern(_)
            | Call::GetTableNamesByNamespace(_)
            | Call::GetTableDescriptorsByNamespace(_)
            | Call::ListNamespaces(_)
            | Call::ListNamespaceDescriptors(_)
            | Call::GetThriftServerType(_)
            | Call::GetClusterId(_) => Ok(vec![Operation::Catalog]),
            // preGetTableDescriptors with tables named: ADMIN or CREATE on each.
            Call::GetTableDescriptor(a) => Ok(vec![Operation::DescribeTable {
                table: tname(&a.table)?,
            }]),
            Call::GetTableDescriptors(a) => a
                .tables
                .iter()
                .map(|t| Ok(Operation::DescribeTable { table: tname(t)? }))
                .collect(),
            // Not served (answered as such), translated all the same.
            Call::ModifyTable(a) => Ok(vec![Operation::ModifyTable {
                table: tname(&a.desc.table_name)?,
            }]),
            Call::ModifyNamespace(a) => Ok(vec![Operation::ModifyNamespace {
                namespace: a.namespace_desc.name.clone(),
            }]),
            Call::GetNamespaceDescriptor(a) => Ok(vec![Operation::DescribeNamespace {
                namespace: a.name.clone(),
            }]),
            // The region servers' slow logs (not served): global ADMIN.
            Call::GetSlowLogResponses(_) | Call::ClearSlowLogResponses(_) => {
                Ok(vec![Operation::ClusterAdmin])
            }
        }
    }

    /// Runs `call` under the ACLs: checked (its reads narrowed), run, followed up.
    pub(super) fn authorized(
        &self,
        acl: &AccessChecker,
        user: Option<&str>,
        call: Call,
    ) -> CallResult {
        let user = user.unwrap_or(ANONYMOUS);
        self.authorize_call(acl, user, &call)?;
        let res = self.dispatch(&call, user)?;
        self.follow_up(user, &call, &res);
        Ok(res)
    }

    /// What follows a call that ran here: the owner of each scanner opened. (What follows a
    /// table or namespace change is the shared executor's.)
    fn follow_up(&self, user: &str, call: &Call, res: &Option<TValue>) {
        if let (Call::OpenScanner(_), Some(TValue::I32(id))) = (call, res) {
            self.inner.scanners.set_grant(
                *id,
                ScannerGrant {
                    owner: user.to_string(),
                },
            );
        }
    }

    /// Whether a listing of table names shows `table` to `user` (HBase's `postGetTableNames`:
    /// any grant reaching it; `hbase:acl` never).
    pub(super) fn lists_table(&self, user: &str, table: &str) -> bool {
        self.access
            .as_ref()
            .is_none_or(|acl| acl.lists_table(user, table))
    }

    /// Whether a listing of descriptors shows `table` (HBase's `postGetTableDescriptors`:
    /// ADMIN or CREATE on it).
    pub(super) fn describes_table(&self, user: &str, table: &str) -> bool {
        self.access
            .as_ref()
            .is_none_or(|acl| acl.describes_table(user, table))
    }

    /// Whether a listing of namespace descriptors shows `ns` (HBase's
    /// `postListNamespaceDescriptors`: ADMIN on it).
    pub(super) fn describes_namespace(&self, user: &str, ns: &str) -> bool {
        self.access
            .as_ref()
            .is_none_or(|acl| acl.describes_namespace(user, ns))
    }
}
