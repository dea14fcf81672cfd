//! The `Hbase` service: decodes each call's arguments, runs it on the engine with HBase's
//! Thrift handler semantics, and encodes the result or the declared exception.

mod admin;
mod authorize;
mod cell_ops;
pub(crate) mod convert;
mod grants;
pub(crate) mod meta_order;
mod meta_view;
pub(crate) mod names;
mod read_ahead;
mod reads;
mod scanner_lease;
mod scanners;
pub(crate) mod writes;

pub(crate) use authorize::denied;
pub(crate) use scanner_lease::ScannerGrant;
pub use scanner_lease::Scanners;
pub(crate) use scanners::SCAN_BATCH_ID;

use crate::thrift::hbase::{
    thrift_server_type, AlreadyExists, Call, Exception, IOError, IllegalArgument, Throws,
    RESULT_SUCCESS,
};
use crate::thrift::{TStruct, TValue, ThriftValue};
use admin::{Compaction, TableState};
use ferrobase_engine::{Engine, Error, ErrorClass, LATEST_TIMESTAMP};
use reads::{CellsRequest, RowsRequest};
use scanners::{ScanRequest, StartRow};
use std::time::Duration;

/// A failure reported to the client as one of the service's declared exceptions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceError {
    /// HBase's `IOError`.
    Io(String),
    /// HBase's `IllegalArgument`.
    IllegalArgument(String),
    /// HBase's `AlreadyExists`.
    AlreadyExists(String),
    /// An exception HBase's handler does not declare (a `RuntimeException` such as
    /// `ParseFilter`'s `IllegalArgumentException`): the client gets a `TApplicationException`
    /// of type INTERNAL_ERROR, as from HBase's Thrift processor. Its message is HBase's
    /// "Internal error processing METHOD" followed by the reason, which HBase leaves out.
    Internal(String),
}

impl From<crate::request::Failure> for ServiceError {
    /// A request the shared executor refused (HBase's `AccessDeniedException`, an IOError) or
    /// that failed running (the engine's error, as below).
    fn from(f: crate::request::Failure) -> Self {
        match f {
            crate::request::Failure::Denied(d) => denied(d),
            crate::request::Failure::Engine(e) => e.into(),
        }
    }
}

impl From<Error> for ServiceError {
    /// The engine's error as HBase's gateway reports it: `TableExists` is `AlreadyExists`,
    /// invalid arguments and sizes are `IllegalArgument`, the rest `IOError`. An `IOError`'s
    /// message starts with the class of the exception HBase throws for the same failure
    /// (`org.apache.hadoop.hbase.TableNotFoundException: table t does not exist`), as HBase's
    /// messages do, so clients can tell the failures apart.
    fn from(e: Error) -> Self {
        ferrobase_engine::error_class::note(e.class());
        match e {
            Error::TableExists(_) => ServiceError::AlreadyExists(e.to_string()),
            Error::IllegalArgument(_) | Error::TooLarge { .. } => {
                ServiceError::IllegalArgument(e.to_string())
            }
            Error::ReadMemory { .. } => ServiceError::Io(e.to_string()),
            Error::ClientGone => ServiceError::Io(e.to_string()),
            Error::TimeBudget { .. } => ServiceError::Io(format!(
                "java.io.IOException: {e} (ferrobase serve --max-read-time sets the budget)"
            )),
            other => match hbase_exception_class(&other) {
                Some(class) => ServiceError::Io(format!("{class}: {other}")),
                None => ServiceError::Io(other.to_string()),
            },
        }
    }
}

/// The class of the exception HBase throws where the engine fails with `e`, when there is one.
fn hbase_exception_class(e: &Error) -> Option<&'static str> {
    Some(match e {
        Error::TableNotFound(_) => "org.apache.hadoop.hbase.TableNotFoundException",
        Error::NamespaceNotFound(_) => "org.apache.hadoop.hbase.NamespaceNotFoundException",
        Error::NamespaceExists(_) => "org.apache.hadoop.hbase.NamespaceExistException",
        Error::NamespaceNotEmpty { .. } => "org.apache.hadoop.hbase.constraint.ConstraintException",
        Error::TableDisabled(_) => "org.apache.hadoop.hbase.TableNotEnabledException",
        Error::TableNotDisabled(_) => "org.apache.hadoop.hbase.TableNotDisabledException",
        Error::SnapshotExists(_) => "org.apache.hadoop.hbase.snapshot.SnapshotExistsException",
        Error::SnapshotNotFound(_) => {
            "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException"
        }
        Error::NoSuchColumnFamily { .. } => {
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
        }
        Error::RowTooBig { .. } => "org.apache.hadoop.hbase.regionserver.RowTooBigException",
        Error::NotALong { .. } | Error::ReadOnly(_) | Error::IncompatibleScan(_) => {
            "org.apache.hadoop.hbase.DoNotRetryIOException"
        }
        _ => return None,
    })
}

/// A call's outcome: the success value (none for `void`) or a declared exception.
pub type CallResult = Result<Option<TValue>, ServiceError>;

/// The result of dispatching a call by name.
#[derive(Debug)]
pub enum Outcome {
    /// The method's result struct (success in field 0, exceptions in 1..).
    Result(TStruct),
    /// No such method: answered with a `TApplicationException`.
    UnknownMethod,
    /// An undeclared failure: answered with a `TApplicationException` (INTERNAL_ERROR).
    InternalError(String),
}

/// Settings of the service.
#[derive(Debug, Clone)]
pub struct HandlerOptions {
    /// An abandoned scanner is closed after this long unused (HBase's 60 s default).
    pub scanner_lease: Duration,
    /// Bytes of cells one `scannerGet`/`scannerGetList` call may return (default 100 MiB,
    /// HBase's `hbase.server.scanner.max.result.size`): the call returns fewer rows than asked
    /// once its results reach it (at least one), and the client asks again. With a scan's
    /// `batchSize`, a row wider than a call is returned in pieces, none read before it is sent.
    pub max_result_bytes: usize,
    /// Mutations one call may carry (`mutateRow`'s mutations, `mutateRows`' across its
    /// batches, `incrementRows`' increments; default 200,000; 0: no limit): past it the call is
    /// refused before anything is applied, naming the limit (`--max-mutations-per-call`).
    /// HBase's `hbase.rpc.rows.size.threshold.reject` idea; decoding is bounded separately by
    /// `--max-request-memory`.
    pub max_mutations_per_call: usize,
    /// Decodes the protobuf filters Thrift2 clients may send (`TGet`/`TScan.filterBytes`, what
    /// Java's `ThriftConnection` sends); `None`: such filters are refused. The native door's
    /// filter conversion provides it (`ferrobase serve` wires it in).
    pub protobuf_filters: Option<ProtobufFilters>,
    /// A long scan's next batch is read on a worker thread while its last is answered (default
    /// on; `ferrobase serve --no-scan-read-ahead` turns it off): from a scanner's second full
    /// batch in a row, the next call finds its rows read. HBase's region server reads in the
    /// call only; its client's `setAsyncPrefetch` overlaps on the client's side.
    pub scan_read_ahead: bool,
}

/// Decodes a protobuf filter's bytes into the engine's filter, or says why it cannot.
pub type DecodeFilter =
    dyn Fn(&[u8]) -> Result<Box<dyn ferrobase_engine::filter::Filter>, String> + Send + Sync;

/// A decoder of HBase's protobuf filters (`FilterProtos.Filter` bytes) into the engine's.
#[derive(Clone)]
pub struct ProtobufFilters(pub std::sync::Arc<DecodeFilter>);

impl std::fmt::Debug for ProtobufFilters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProtobufFilters")
    }
}

impl Default for HandlerOptions {
    fn default() -> Self {
        HandlerOptions {
            scanner_lease: Duration::from_secs(60),
            max_result_bytes: 100 << 20,
            max_mutations_per_call: 200_000,
            protobuf_filters: None,
            scan_read_ahead: true,
        }
    }
}

/// Serves calls against one engine. Thread-safe; shared by every connection.
pub struct Handler {
    pub(crate) engine: Engine,
    pub(crate) scanners: Scanners,
    pub(crate) max_result_bytes: usize,
    pub(crate) max_mutations_per_call: usize,
    /// ACL checks, when on.
    pub(crate) access: Option<authorize::Access>,
    /// The server `hbase:meta` names as its regions' host.
    pub(crate) server: crate::catalog::ServerName,
    /// The server's slow-operation log, for `ferrobaseAdmin` `slow_log`.
    pub(crate) slow_log: Option<std::sync::Arc<crate::slow_log::SlowLog>>,
    /// Long scans' next batches, read while the last is answered.
    pub(crate) read_ahead: crate::read_ahead::ReadAhead,
}

impl Handler {
    /// A handler over `engine`.
    pub fn new(engine: Engine, opts: HandlerOptions) -> Handler {
        Handler {
            engine,
            scanners: Scanners::new(opts.scanner_lease),
            max_result_bytes: opts.max_result_bytes,
            max_mutations_per_call: opts.max_mutations_per_call,
            access: None,
            server: crate::catalog::ServerName {
                host: crate::catalog::host_name(),
                port: 0,
                start_code: meta_view::now_ms(),
            },
            slow_log: None,
            read_ahead: crate::read_ahead::ReadAhead::new(opts.scan_read_ahead, None),
        }
    }

    /// Answers `ferrobaseAdmin` `slow_log` from `log`.
    pub fn with_slow_log(
        mut self,
        log: Option<std::sync::Arc<crate::slow_log::SlowLog>>,
    ) -> Handler {
        self.slow_log = log;
        self
    }

    /// Names the port `hbase:meta` gives as its regions' server (default 0).
    pub fn with_port(mut self, port: u16) -> Handler {
        self.server.port = port;
        self
    }

    /// Checks every call against `checker` (HBase's AccessController rules): see
    /// [`Handler::call_as`].
    pub fn with_access(mut self, checker: crate::access::AccessChecker) -> Handler {
        self.access = Some(authorize::Access::new(checker));
        self
    }

    /// The ACL checker, when ACLs are on.
    pub fn access(&self) -> Option<&crate::access::AccessChecker> {
        self.access.as_ref().map(|a| &a.checker)
    }

    /// The engine served.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Runs method `name` with `args`, as no one in particular: without ACLs, every call
    /// runs; with them, as [`ANONYMOUS`](crate::access::ANONYMOUS).
    pub fn call(&self, name: &str, args: &TStruct) -> Outcome {
        self.call_as(None, name, args)
    }

    /// Runs method `name` with `args` for `user` (the connection's identity, `None` when it
    /// presented none). With ACLs on, the call is first checked as HBase's AccessController
    /// checks it; a refusal is the method's `IOError` with HBase's `AccessDeniedException`
    /// message. Copies the arguments; [`Handler::call_owned`] takes them.
    pub fn call_as(&self, user: Option<&str>, name: &str, args: &TStruct) -> Outcome {
        self.call_owned(user, name, args.clone())
    }

    /// [`Handler::call_as`] with the decoded arguments moved in (no copy). Arguments that do not
    /// fit the method's declaration are refused with an `IllegalArgument` naming the method and
    /// argument ("getRowTs: argument `timestamp` missing"), an `IOError` for methods that
    /// declare no `IllegalArgument`.
    pub fn call_owned(&self, user: Option<&str>, name: &str, args: TStruct) -> Outcome {
        let Some(decoded) = Call::from_struct(name, args) else {
            return Outcome::UnknownMethod;
        };
        let call = match decoded {
            Ok(call) => call,
            Err(e) => {
                let throws = crate::idl::throws(name).unwrap_or_default();
                return Self::encode(Err(ServiceError::IllegalArgument(e.to_string())), throws);
            }
        };
        let throws = call.throws();
        let answer = match call {
            // ferrobase's scanner calls with their rows: compositions of HBase's scanner calls,
            // each answered (checked, run, followed up) as itself.
            Call::FerrobaseScannerOpen(a) => Some(self.scanner_open_with_rows(user, a)),
            Call::FerrobaseScannerNext(a) => {
                Some(self.scanner_batch(user, a.id, a.nb_rows, a.close, a.packed))
            }
            call => self.answer(user, call),
        };
        match answer {
            Some(res) => Self::encode(res, throws),
            None => Outcome::UnknownMethod,
        }
    }

    /// Runs `call` for `user`: under the ACLs when they are on ([`Handler::authorized`]), else
    /// as is ([`Handler::dispatch`]).
    fn answer(&self, user: Option<&str>, call: Call) -> Option<CallResult> {
        match &self.access {
            None => self.dispatch(call, user.unwrap_or(crate::access::ANONYMOUS)),
            Some(access) => self.authorized(access, user, call),
        }
    }

    /// [`Handler::answer`] of a call that answers a value: that value, or its failure.
    fn answer_value(&self, user: Option<&str>, call: Call) -> Result<TValue, ServiceError> {
        let method = call.method();
        match self.answer(user, call) {
            Some(Ok(Some(v))) => Ok(v),
            Some(Err(e)) => Err(e),
            other => Err(ServiceError::Internal(format!(
                "{method} was answered {other:?}"
            ))),
        }
    }

    /// Runs a call for `user` (its data requests through the shared executor, which authorizes
    /// them with ACLs on); `None` for a method declared but not served (answered as unknown).
    /// The call is taken whole: `mutateRows` moves its rows' buffers into the mutations.
    pub(crate) fn dispatch(&self, call: Call, user: &str) -> Option<CallResult> {
        if let Some(answer) = self.meta_call(&call, &|_| true) {
            return Some(answer);
        }
        if let Err(e) = self.check_mutation_count(&call) {
            return Some(Err(e));
        }
        Some(match call {
            Call::EnableTable(a) => self.set_table_state(user, &a.table_name, TableState::Enabled),
            Call::DisableTable(a) => {
                self.set_table_state(user, &a.table_name, TableState::Disabled)
            }
            Call::IsTableEnabled(a) => self.is_table_enabled(&a.table_name),
            Call::Compact(a) => self.compact(user, &a.table_name_or_region_name, Compaction::Minor),
            Call::MajorCompact(a) => {
                self.compact(user, &a.table_name_or_region_name, Compaction::Major)
            }
            Call::GetTableNames(_) => self.get_table_names(),
            Call::GetTableNamesWithIsTableEnabled(_) => self.get_table_names_enabled(),
            Call::GetColumnDescriptors(a) => self.get_column_descriptors(&a.table_name),
            Call::GetTableRegions(a) => self.get_table_regions(&a.table_name),
            Call::CreateTable(a) => self.create_table(user, &a.table_name, &a.column_families),
            Call::DeleteTable(a) => self.delete_table(user, &a.table_name),
            Call::GetThriftServerType(_) => Ok(Some(TValue::I32(thrift_server_type::ONE))),
            Call::GetClusterId(_) => return None,
            Call::GetRegionInfo(a) => self.get_region_info(&a.row),
            Call::Get(a) => self.get_cells(
                user,
                &CellsRequest {
                    table: &a.table_name,
                    row: &a.row,
                    column: &a.column,
                    timestamp: None,
                    versions: None,
                },
            ),
            Call::GetVer(a) => self.get_cells(
                user,
                &CellsRequest {
                    table: &a.table_name,
                    row: &a.row,
                    column: &a.column,
                    timestamp: None,
                    versions: Some(a.num_versions),
                },
            ),
            Call::GetVerTs(a) => self.get_cells(
                user,
                &CellsRequest {
                    table: &a.table_name,
                    row: &a.row,
                    column: &a.column,
                    timestamp: Some(a.timestamp),
                    versions: Some(a.num_versions),
                },
            ),
            Call::GetRow(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: std::slice::from_ref(&a.row),
                    columns: &[],
                    timestamp: None,
                },
            ),
            Call::GetRowWithColumns(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: std::slice::from_ref(&a.row),
                    columns: &a.columns,
                    timestamp: None,
                },
            ),
            Call::GetRowTs(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: std::slice::from_ref(&a.row),
                    columns: &[],
                    timestamp: Some(a.timestamp),
                },
            ),
            Call::GetRowWithColumnsTs(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: std::slice::from_ref(&a.row),
                    columns: &a.columns,
                    timestamp: Some(a.timestamp),
                },
            ),
            Call::GetRows(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: &a.rows,
                    columns: &[],
                    timestamp: None,
                },
            ),
            Call::GetRowsWithColumns(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: &a.rows,
                    columns: &a.columns,
                    timestamp: None,
                },
            ),
            Call::GetRowsTs(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: &a.rows,
                    columns: &[],
                    timestamp: Some(a.timestamp),
                },
            ),
            Call::GetRowsWithColumnsTs(a) => self.get_rows(
                user,
                &RowsRequest {
                    table: &a.table_name,
                    rows: &a.rows,
                    columns: &a.columns,
                    timestamp: Some(a.timestamp),
                },
            ),
            // HBase 2.6's Hbase.thrift and ThriftHBaseServiceHandler have no getRowOrBefore
            // (older clients' IDLs still declare it): its gateway answers "Invalid method name".
            Call::GetRowOrBefore(_) => return None,
            Call::MutateRow(a) => self.mutate_row(
                user,
                &a.table_name,
                a.row,
                a.mutations,
                LATEST_TIMESTAMP,
                &a.attributes,
            ),
            Call::MutateRowTs(a) => self.mutate_row(
                user,
                &a.table_name,
                a.row,
                a.mutations,
                a.timestamp,
                &a.attributes,
            ),
            Call::MutateRows(a) => self.mutate_rows(
                user,
                &a.table_name,
                a.row_batches.0,
                LATEST_TIMESTAMP,
                &a.attributes,
            ),
            Call::MutateRowsTs(a) => self.mutate_rows(
                user,
                &a.table_name,
                a.row_batches.0,
                a.timestamp,
                &a.attributes,
            ),
            Call::AtomicIncrement(a) => self.atomic_increment(user, &a),
            Call::DeleteAll(a) => self.delete_all(
                user,
                &a.table_name,
                &a.row,
                &a.column,
                LATEST_TIMESTAMP,
                &a.attributes,
            ),
            Call::DeleteAllTs(a) => self.delete_all(
                user,
                &a.table_name,
                &a.row,
                &a.column,
                a.timestamp,
                &a.attributes,
            ),
            Call::DeleteAllRow(a) => {
                self.delete_all_row(user, &a.table_name, &a.row, None, &a.attributes)
            }
            Call::DeleteAllRowTs(a) => self.delete_all_row(
                user,
                &a.table_name,
                &a.row,
                Some(a.timestamp),
                &a.attributes,
            ),
            Call::Increment(a) => self.increment(user, std::slice::from_ref(&a.increment)),
            Call::IncrementRows(a) => self.increment(user, &a.increments),
            Call::Append(a) => self.append(user, &a.append),
            Call::CheckAndPut(a) => self.check_and_put(user, &a),
            Call::ScannerOpenWithScan(a) => {
                self.scanner_open_with_scan(user, &a.table_name, &a.scan)
            }
            Call::ScannerOpen(a) => self.scanner_open(
                user,
                &ScanRequest {
                    table: &a.table_name,
                    start: StartRow::From(&a.start_row),
                    stop: None,
                    columns: &a.columns,
                    timestamp: None,
                },
            ),
            Call::ScannerOpenWithStop(a) => self.scanner_open(
                user,
                &ScanRequest {
                    table: &a.table_name,
                    start: StartRow::From(&a.start_row),
                    stop: Some(&a.stop_row),
                    columns: &a.columns,
                    timestamp: None,
                },
            ),
            Call::ScannerOpenWithPrefix(a) => self.scanner_open(
                user,
                &ScanRequest {
                    table: &a.table_name,
                    start: StartRow::Prefix(&a.start_and_prefix),
                    stop: None,
                    columns: &a.columns,
                    timestamp: None,
                },
            ),
            Call::ScannerOpenTs(a) => self.scanner_open(
                user,
                &ScanRequest {
                    table: &a.table_name,
                    start: StartRow::From(&a.start_row),
                    stop: None,
                    columns: &a.columns,
                    timestamp: Some(a.timestamp),
                },
            ),
            Call::ScannerOpenWithStopTs(a) => self.scanner_open(
                user,
                &ScanRequest {
                    table: &a.table_name,
                    start: StartRow::From(&a.start_row),
                    stop: Some(&a.stop_row),
                    columns: &a.columns,
                    timestamp: Some(a.timestamp),
                },
            ),
            Call::ScannerGet(a) => self.scanner_get(a.id, 1),
            // HBase's `ResultScanner.next(n)` sizes an ArrayList by `n`: a negative count is an
            // undeclared IllegalArgumentException, after the id's check.
            Call::ScannerGetList(a) if a.nb_rows < 0 => self.scanner_get(a.id, 0).and_then(|_| {
                Err(ServiceError::Internal(format!(
                    "java.lang.IllegalArgumentException: Illegal Capacity: {}",
                    a.nb_rows
                )))
            }),
            Call::ScannerGetList(a) => self.scanner_get(a.id, a.nb_rows as usize),
            Call::ScannerClose(a) => self.scanner_close(a.id),
            Call::FerrobaseAdmin(a) => self.ferrobase_admin(&a, user),
            Call::Grant(_) | Call::Revoke(_) => Err(authorize::acl_off()),
            // Answered as the calls they stand for (`call_owned`), never here.
            c @ (Call::FerrobaseScannerOpen(_) | Call::FerrobaseScannerNext(_)) => Err(
                ServiceError::Internal(format!("{} is answered by its parts", c.method())),
            ),
        })
    }

    /// The result struct of a call (success in field 0, exceptions in the ids `throws`
    /// declares; an exception the method does not declare goes as its `IOError`).
    pub(crate) fn encode(res: CallResult, throws: Throws) -> Outcome {
        // The failure's class, when no engine error or door check named it while the call ran.
        if let Err(e) = &res {
            ferrobase_engine::error_class::note_default(match e {
                ServiceError::IllegalArgument(_) => ErrorClass::IllegalArgument,
                ServiceError::AlreadyExists(_) => ErrorClass::Exists,
                ServiceError::Io(_) => ErrorClass::Other,
                ServiceError::Internal(_) => ErrorClass::Internal,
            });
        }
        let result = match res {
            Err(ServiceError::Internal(m)) => return Outcome::InternalError(m),
            Ok(None) => TStruct::new(),
            Ok(Some(v)) => TStruct::new().with(RESULT_SUCCESS, v),
            Err(ServiceError::IllegalArgument(message))
                if throws.declares(Exception::IllegalArgument) =>
            {
                let e = IllegalArgument { message };
                TStruct::new().with(Exception::IllegalArgument.id(), e.to_value())
            }
            Err(ServiceError::AlreadyExists(message))
                if throws.declares(Exception::AlreadyExists) =>
            {
                let e = AlreadyExists { message };
                TStruct::new().with(Exception::AlreadyExists.id(), e.to_value())
            }
            Err(
                ServiceError::Io(message)
                | ServiceError::IllegalArgument(message)
                | ServiceError::AlreadyExists(message),
            ) => {
                let e = IOError {
                    message,
                    can_retry: None,
                };
                TStruct::new().with(Exception::IOError.id(), e.to_value())
            }
        };
        Outcome::Result(result)
    }
}

impl Handler {
    /// Refuses a call carrying more mutations than `max_mutations_per_call`, before any of them
    /// is applied.
    fn check_mutation_count(&self, call: &Call) -> Result<(), ServiceError> {
        let limit = self.max_mutations_per_call;
        let count = match call {
            Call::MutateRow(a) => a.mutations.len(),
            Call::MutateRowTs(a) => a.mutations.len(),
            Call::MutateRows(a) => a.row_batches.iter().map(|b| b.mutations.len()).sum(),
            Call::MutateRowsTs(a) => a.row_batches.iter().map(|b| b.mutations.len()).sum(),
            Call::IncrementRows(a) => a.increments.len(),
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
