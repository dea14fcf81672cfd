//! The `Hbase` service: decodes each call's arguments, runs it on the engine with HBase's
//! Thrift handler semantics, and encodes the result or the declared exception.

mod admin;
mod args;
mod authorize;
mod convert;
mod grants;
mod reads;
mod scanners;
mod writes;

pub use scanners::Scanners;

use crate::thrift::{TStruct, TValue};
use args::Args;
use ferrobase_engine::{Engine, Error};
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

impl From<Error> for ServiceError {
    fn from(e: Error) -> Self {
        match e {
            Error::TableExists(_) => ServiceError::AlreadyExists(e.to_string()),
            Error::IllegalArgument(_) | Error::TooLarge { .. } => {
                ServiceError::IllegalArgument(e.to_string())
            }
            other => ServiceError::Io(other.to_string()),
        }
    }
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
}

impl Default for HandlerOptions {
    fn default() -> Self {
        HandlerOptions {
            scanner_lease: Duration::from_secs(60),
            max_result_bytes: 100 << 20,
        }
    }
}

/// Serves calls against one engine. Thread-safe; shared by every connection.
pub struct Handler {
    pub(crate) engine: Engine,
    pub(crate) scanners: Scanners,
    pub(crate) max_result_bytes: usize,
    /// ACL checks, when on.
    pub(crate) access: Option<authorize::Access>,
}

impl Handler {
    /// A handler over `engine`.
    pub fn new(engine: Engine, opts: HandlerOptions) -> Handler {
        Handler {
            engine,
            scanners: Scanners::new(opts.scanner_lease),
            max_result_bytes: opts.max_result_bytes,
            access: None,
        }
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
    /// message.
    pub fn call_as(&self, user: Option<&str>, name: &str, args: &TStruct) -> Outcome {
        let a = Args(args);
        let answer = match &self.access {
            None => self.dispatch(name, &a),
            Some(access) => self.authorized(access, user, name, &a),
        };
        match answer {
            Some((res, ia, exists)) => Self::encode(res, ia, exists),
            None => Outcome::UnknownMethod,
        }
    }

    /// Runs a call: its result and whether the method declares IllegalArgument and
    /// AlreadyExists; `None` for an unknown method.
    pub(crate) fn dispatch(&self, name: &str, a: &Args<'_>) -> Option<(CallResult, bool, bool)> {
        // (declares IllegalArgument, declares AlreadyExists)
        Some(match name {
            "enableTable" => (self.enable_table(a, true), false, false),
            "disableTable" => (self.enable_table(a, false), false, false),
            "isTableEnabled" => (self.is_table_enabled(a), false, false),
            "compact" => (self.compact(a, false), false, false),
            "majorCompact" => (self.compact(a, true), false, false),
            "getTableNames" => (self.get_table_names(), false, false),
            "getTableNamesWithIsTableEnabled" => (self.get_table_names_enabled(), false, false),
            "getColumnDescriptors" => (self.get_column_descriptors(a), false, false),
            "getTableRegions" => (self.get_table_regions(a), false, false),
            "createTable" => (self.create_table(a), true, true),
            "deleteTable" => (self.delete_table(a), false, false),
            "getThriftServerType" => (Ok(Some(TValue::I32(1))), false, false),
            "getRegionInfo" => (self.get_region_info(a), false, false),
            "get" => (self.get_cells(a, false, false), false, false),
            "getVer" => (self.get_cells(a, true, false), false, false),
            "getVerTs" => (self.get_cells(a, true, true), false, false),
            "getRow" => (self.get_rows(a, false, false, false), false, false),
            "getRowWithColumns" => (self.get_rows(a, false, true, false), false, false),
            "getRowTs" => (self.get_rows(a, false, false, true), false, false),
            "getRowWithColumnsTs" => (self.get_rows(a, false, true, true), false, false),
            "getRows" => (self.get_rows(a, true, false, false), false, false),
            "getRowsWithColumns" => (self.get_rows(a, true, true, false), false, false),
            "getRowsTs" => (self.get_rows(a, true, false, true), false, false),
            "getRowsWithColumnsTs" => (self.get_rows(a, true, true, true), false, false),
            "getRowOrBefore" => (self.get_row_or_before(a), false, false),
            "mutateRow" => (self.mutate_row(a, false), true, false),
            "mutateRowTs" => (self.mutate_row(a, true), true, false),
            "mutateRows" => (self.mutate_rows(a, false), true, false),
            "mutateRowsTs" => (self.mutate_rows(a, true), true, false),
            "atomicIncrement" => (self.atomic_increment(a), true, false),
            "deleteAll" => (self.delete_all(a, false), false, false),
            "deleteAllTs" => (self.delete_all(a, true), false, false),
            "deleteAllRow" => (self.delete_all_row(a, false), false, false),
            "deleteAllRowTs" => (self.delete_all_row(a, true), false, false),
            "increment" => (self.increment(a), false, false),
            "incrementRows" => (self.increment_rows(a), false, false),
            "append" => (self.append(a), false, false),
            "checkAndPut" => (self.check_and_put(a), true, false),
            "scannerOpenWithScan" => (self.scanner_open_with_scan(a), false, false),
            "scannerOpen" => (self.scanner_open(a, false, false, false), false, false),
            "scannerOpenWithStop" => (self.scanner_open(a, true, false, false), false, false),
            "scannerOpenWithPrefix" => (self.scanner_open(a, false, true, false), false, false),
            "scannerOpenTs" => (self.scanner_open(a, false, false, true), false, false),
            "scannerOpenWithStopTs" => (self.scanner_open(a, true, false, true), false, false),
            "scannerGet" => (self.scanner_get(a, false), true, false),
            "scannerGetList" => (self.scanner_get(a, true), true, false),
            "scannerClose" => (self.scanner_close(a), true, false),
            "ferrobaseAdmin" => (self.ferrobase_admin(a), true, false),
            "grant" | "revoke" => (Err(authorize::acl_off()), false, false),
            _ => return None,
        })
    }

    /// The result struct of a call (success in field 0, exceptions in 1..).
    fn encode(res: CallResult, ia: bool, exists: bool) -> Outcome {
        let result = match res {
            Err(ServiceError::Internal(m)) => return Outcome::InternalError(m),
            Ok(None) => TStruct::new(),
            Ok(Some(v)) => TStruct::new().with(0, v),
            Err(e) => {
                let (id, msg) = match e {
                    ServiceError::IllegalArgument(m) if ia => (2, m),
                    ServiceError::AlreadyExists(m) if exists => (3, m),
                    ServiceError::Io(m)
                    | ServiceError::IllegalArgument(m)
                    | ServiceError::AlreadyExists(m)
                    | ServiceError::Internal(m) => (1, m),
                };
                TStruct::new().with(
                    id,
                    TValue::Struct(TStruct::new().with(1, TValue::string(msg))),
                )
            }
        };
        Outcome::Result(result)
    }
}
