//! HBase's Thrift2 service (`THBaseService`), served by the same [`Server`](crate::Server) loop
//! as Thrift1 (`Server::bind_thrift2`): decodes each call against the IDL declared in
//! `ferrobase-thrift` ([`crate::thrift::thrift2`]), runs it on the engine with the semantics of
//! HBase's `thrift2.ThriftHBaseServiceHandler`, and answers the result or `TIOError` /
//! `TIllegalArgument`. Thrift1's handler lends its scanner table, table-name checks, error
//! mapping and result encoding. With ACLs on, every call is translated into the shared request
//! model's operations and checked before it runs (`access.rs`). `docs/design/thrift2.md` lists the
//! methods served and refused, and each method's operation.

mod access;
mod admin;
mod convert;
mod data;

use crate::access::{AccessChecker, ANONYMOUS};
use crate::handler::{CallResult, Handler, HandlerOptions, Outcome, Scanners, ServiceError};
use crate::service::Service;
use crate::thrift::thrift2::{self, Call, TIOError};
use crate::thrift::{Field, TStruct, TValue, ThriftValue};
use ferrobase_engine::Engine;

/// The name call counters give the Thrift2 door's calls.
pub const THRIFT2_SERVICE: &str = "THBaseService";

/// Serves `THBaseService` over an engine another server owns. Thread-safe; shared by every
/// connection.
pub struct Thrift2Handler {
    /// Thrift1's handler (no ACLs), for its scanner table and helpers.
    inner: Handler,
    /// Decodes protobuf filters (`filterBytes`), when the server was given a decoder.
    filters: Option<crate::handler::ProtobufFilters>,
    /// The ACL checks, when ACLs are on (`access.rs`).
    access: Option<AccessChecker>,
}

impl Thrift2Handler {
    /// A handler over `engine`, with Thrift1's settings (scanner lease, result bytes per call,
    /// mutations per call).
    pub fn new(engine: Engine, opts: HandlerOptions) -> Thrift2Handler {
        Thrift2Handler {
            filters: opts.protobuf_filters.clone(),
            inner: Handler::new(engine, opts),
            access: None,
        }
    }

    /// Checks every call against `checker` (HBase's `AccessController` rules, through the
    /// shared request model): a call's user is its connection's (SASL PLAIN login or client
    /// certificate CN), else [`ANONYMOUS`].
    pub fn with_access(self, checker: AccessChecker) -> Thrift2Handler {
        Thrift2Handler {
            access: Some(checker),
            ..self
        }
    }

    /// Names `port` as its regions' server in region locations (default 0).
    pub fn with_port(self, port: u16) -> Thrift2Handler {
        Thrift2Handler {
            inner: self.inner.with_port(port),
            ..self
        }
    }

    fn engine_ref(&self) -> &Engine {
        self.inner.engine()
    }

    /// Runs a call for `user` (whose listings, with ACLs on, show what the user's grants
    /// reach; the call itself is checked before: `access.rs`).
    fn dispatch(&self, call: &Call, user: &str) -> CallResult {
        self.check_mutation_count(call)?;
        match call {
            Call::Exists(a) => self.exists(user, &a.table, std::slice::from_ref(&a.tget), true),
            Call::ExistsAll(a) => self.exists(user, &a.table, &a.tgets, false),
            Call::Get(a) => self.get(user, &a.table, std::slice::from_ref(&a.tget), true),
            Call::GetMultiple(a) => self.get(user, &a.table, &a.tgets, false),
            Call::Put(a) => self.put(user, &a.table, std::slice::from_ref(&a.tput)),
            Call::PutMultiple(a) => self.put(user, &a.table, &a.tputs),
            Call::DeleteSingle(a) => {
                self.delete(user, &a.table, std::slice::from_ref(&a.tdelete), true)
            }
            Call::DeleteMultiple(a) => self.delete(user, &a.table, &a.tdeletes, false),
            Call::CheckAndPut(a) => self.check_and(
                user,
                &a.table,
                data::Check {
                    row: &a.row,
                    family: &a.family,
                    qualifier: &a.qualifier,
                    op: thrift2::compare_op::EQUAL,
                    value: a.value.as_deref(),
                },
                data::Then::Put(&a.tput),
            ),
            Call::CheckAndDelete(a) => self.check_and(
                user,
                &a.table,
                data::Check {
                    row: &a.row,
                    family: &a.family,
                    qualifier: &a.qualifier,
                    op: thrift2::compare_op::EQUAL,
                    value: a.value.as_deref(),
                },
                data::Then::Delete(&a.tdelete),
            ),
            Call::CheckAndMutate(a) => self.check_and(
                user,
                &a.table,
                data::Check {
                    row: &a.row,
                    family: &a.family,
                    qualifier: &a.qualifier,
                    op: a.compare_op,
                    value: a.value.as_deref(),
                },
                data::Then::Mutate(&a.row_mutations),
            ),
            Call::Increment(a) => self.increment(user, &a.table, &a.tincrement),
            Call::Append(a) => self.append(user, &a.table, &a.tappend),
            Call::MutateRow(a) => self.mutate_row(user, &a.table, &a.trow_mutations),
            Call::OpenScanner(a) => self.open_scanner(user, &a.table, &a.tscan),
            Call::GetScannerRows(a) => self.scanner_rows(a.scanner_id, a.num_rows),
            Call::CloseScanner(a) => self.close_scanner(a.scanner_id),
            Call::GetScannerResults(a) => {
                self.scanner_results(user, &a.table, &a.tscan, a.num_rows)
            }
            Call::TableExists(a) => self.table_exists(&a.table_name),
            Call::CreateTable(a) => self.create_table(user, &a.desc, a.split_keys.as_deref()),
            Call::DeleteTable(a) => self.delete_table(user, &a.table_name),
            Call::TruncateTable(a) => self.truncate_table(user, &a.table_name, a.preserve_splits),
            Call::EnableTable(a) => self.set_enabled(user, &a.table_name, true),
            Call::DisableTable(a) => self.set_enabled(user, &a.table_name, false),
            Call::IsTableEnabled(a) => self.is_enabled(&a.table_name, true),
            Call::IsTableDisabled(a) => self.is_enabled(&a.table_name, false),
            Call::IsTableAvailable(a) => self.is_available(&a.table_name),
            Call::GetTableDescriptor(a) => self.table_descriptor(&a.table),
            Call::GetTableDescriptors(a) => self.table_descriptors(&a.tables),
            Call::GetTableNamesByPattern(a) => {
                self.tables_by_pattern(a.regex.as_deref(), admin::As::Names, user)
            }
            Call::GetTableDescriptorsByPattern(a) => {
                self.tables_by_pattern(a.regex.as_deref(), admin::As::Descriptors, user)
            }
            Call::GetTableNamesByNamespace(a) => {
                self.tables_in_namespace(&a.name, admin::As::Names, user)
            }
            Call::GetTableDescriptorsByNamespace(a) => {
                self.tables_in_namespace(&a.name, admin::As::Descriptors, user)
            }
            Call::AddColumnFamily(a) => self.put_family(user, &a.table_name, &a.column, true),
            Call::ModifyColumnFamily(a) => self.put_family(user, &a.table_name, &a.column, false),
            Call::DeleteColumnFamily(a) => self.delete_family(user, &a.table_name, &a.column),
            Call::CreateNamespace(a) => self.create_namespace(user, &a.namespace_desc),
            Call::DeleteNamespace(a) => self.delete_namespace(user, &a.name),
            Call::GetNamespaceDescriptor(a) => self.namespace_descriptor(&a.name),
            Call::ListNamespaceDescriptors(_) => self.list_namespaces(true, user),
            Call::ListNamespaces(_) => self.list_namespaces(false, user),
            Call::GetThriftServerType(_) => Ok(Some(TValue::I32(thrift2::thrift_server_type::TWO))),
            Call::GetRegionLocation(a) => self.region_locations(&a.table, Some(&a.row)),
            Call::GetAllRegionLocations(a) => self.region_locations(&a.table, None),
            Call::IsTableAvailableWithSplit(_)
            | Call::ModifyTable(_)
            | Call::ModifyNamespace(_)
            | Call::GetSlowLogResponses(_)
            | Call::ClearSlowLogResponses(_) => Err(not_supported(call.method())),
            // Declares no exception: an application exception.
            Call::GetClusterId(_) => Err(ServiceError::Internal(format!(
                "{} is not supported by ferrobase's Thrift2 gateway",
                call.method()
            ))),
        }
    }

    /// Refuses a call carrying more mutations than `--max-mutations-per-call`, before any of
    /// them is applied (as Thrift1's `mutateRows`).
    fn check_mutation_count(&self, call: &Call) -> Result<(), ServiceError> {
        let limit = self.inner.max_mutations_per_call;
        let count = match call {
            Call::PutMultiple(a) => a.tputs.len(),
            Call::DeleteMultiple(a) => a.tdeletes.len(),
            Call::MutateRow(a) => a.trow_mutations.mutations.len(),
            Call::CheckAndMutate(a) => a.row_mutations.mutations.len(),
            _ => 0,
        };
        if limit > 0 && count > limit {
            return Err(ServiceError::Io(format!(
                "{} carries {count} mutations, more than the {limit} one call may carry \
                 (--max-mutations-per-call); nothing was applied: send them in smaller batches",
                call.method()
            )));
        }
        Ok(())
    }
}

/// The `TIOError` of a method ferrobase's Thrift2 door does not serve.
fn not_supported(method: &str) -> ServiceError {
    ServiceError::Io(format!(
        "{method} is not supported by ferrobase's Thrift2 gateway (docs/design/thrift2.md)"
    ))
}

/// Whether HBase raises the failure behind this message as a plain `IOException` (its
/// `TIOError.canRetry` true) rather than a `DoNotRetryIOException` (false): a mutation of
/// another row in a `TRowMutations`, and I/O failures.
fn retryable(message: &str) -> bool {
    message.starts_with("The row in the recently added")
        || message.starts_with("java.io.IOException")
}

/// An engine failure of a data method as HBase's client reports it: an unknown table is its
/// name alone, a disabled one "T is disabled." (the client's `TableNotFoundException` and
/// `TableNotEnabledException` messages); the rest as Thrift1 maps them.
pub(crate) fn client_error(e: ferrobase_engine::Error) -> ServiceError {
    ferrobase_engine::error_class::note(e.class());
    match e {
        ferrobase_engine::Error::TableNotFound(t) => ServiceError::Io(t),
        ferrobase_engine::Error::TableDisabled(t) => ServiceError::Io(format!("{t} is disabled.")),
        other => other.into(),
    }
}

impl Service for Thrift2Handler {
    fn name(&self) -> &'static str {
        THRIFT2_SERVICE
    }

    fn methods(&self) -> &'static [&'static str] {
        thrift2::METHODS
    }

    fn arguments(&self, method: &str) -> Option<&'static [Field]> {
        thrift2::arguments(method)
    }

    /// With ACLs on, every call is checked for `user` before it runs (`access.rs`); a method
    /// the service does not declare runs nothing (an unknown method).
    fn call_owned(&self, user: Option<&str>, method: &str, args: TStruct) -> Outcome {
        let Some(decoded) = Call::from_struct(method, args) else {
            return Outcome::UnknownMethod;
        };
        let (res, throws) = match decoded {
            Ok(call) => {
                let throws = call.throws();
                let res = match &self.access {
                    Some(acl) => self.authorized(acl, user, call),
                    None => self.dispatch(&call, user.unwrap_or(ANONYMOUS)),
                };
                (res, throws)
            }
            Err(e) => (
                Err(ServiceError::IllegalArgument(e.to_string())),
                thrift2::throws(method).unwrap_or_default(),
            ),
        };
        // An existing table is HBase's TableExistsException, which Thrift2 declares no
        // exception for.
        let res = res.map_err(|e| match e {
            ServiceError::AlreadyExists(m) => ServiceError::Io(format!(
                "org.apache.hadoop.hbase.TableExistsException: {}",
                m.trim_start_matches("table ")
                    .trim_end_matches(" already exists")
            )),
            other => other,
        });
        // HBase's TIOError carries canRetry: false for a DoNotRetryIOException, else true.
        let can_retry = match &res {
            Err(ServiceError::Io(m) | ServiceError::IllegalArgument(m)) => Some(retryable(m)),
            _ => None,
        };
        let mut outcome = Handler::encode(res, throws);
        if let (Outcome::Result(s), Some(can_retry)) = (&mut outcome, can_retry) {
            for (id, v) in &mut s.fields {
                if *id == 1 {
                    if let Ok(mut e) =
                        TIOError::from_value(std::mem::replace(v, TValue::Bool(false)))
                    {
                        e.can_retry = Some(can_retry);
                        *v = e.to_value();
                    }
                }
            }
        }
        outcome
    }

    fn opens_scanner(&self, method: &str, _args: &TStruct) -> bool {
        method == "openScanner"
    }

    fn closes_scanner(&self, method: &str, args: &TStruct) -> Option<i32> {
        match args.get(1) {
            Some(TValue::I32(id)) if method == "closeScanner" => Some(*id),
            _ => None,
        }
    }

    fn scanners(&self) -> &Scanners {
        &self.inner.scanners
    }

    fn engine(&self) -> &Engine {
        self.engine_ref()
    }

    fn owns_engine(&self) -> bool {
        false
    }
}
