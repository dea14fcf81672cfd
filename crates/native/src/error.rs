//! A call's failure as HBase's client reads it: an exception class name, a message, and
//! whether the client may retry (`ExceptionResponse`).

use crate::proto::rpc::ExceptionResponse;
use ferrobase_engine::Error;

/// `org.apache.hadoop.hbase.DoNotRetryIOException`.
pub const DO_NOT_RETRY: &str = "org.apache.hadoop.hbase.DoNotRetryIOException";
/// `org.apache.hadoop.hbase.NotServingRegionException`: the client looks the region up again.
pub const NOT_SERVING_REGION: &str = "org.apache.hadoop.hbase.NotServingRegionException";
/// `org.apache.hadoop.hbase.UnknownScannerException`.
pub const UNKNOWN_SCANNER: &str = "org.apache.hadoop.hbase.UnknownScannerException";
/// `org.apache.hadoop.hbase.CallQueueTooBigException`.
pub const CALL_QUEUE_TOO_BIG: &str = "org.apache.hadoop.hbase.CallQueueTooBigException";

/// A call's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The Java exception class the client instantiates.
    pub class: String,
    /// Its message.
    pub message: String,
    /// Set: the client gives up at once; unset: it retries.
    pub do_not_retry: bool,
}

impl RpcError {
    /// A failure of `class` that the client must not retry.
    pub fn fatal(class: &str, message: impl Into<String>) -> RpcError {
        RpcError {
            class: class.to_string(),
            message: message.into(),
            do_not_retry: true,
        }
    }

    /// A failure of `class` that the client may retry.
    pub fn retry(class: &str, message: impl Into<String>) -> RpcError {
        RpcError {
            class: class.to_string(),
            message: message.into(),
            do_not_retry: false,
        }
    }

    /// `DoNotRetryIOException` with `message`: a request ferrobase cannot serve.
    pub fn unsupported(message: impl Into<String>) -> RpcError {
        RpcError::fatal(DO_NOT_RETRY, message)
    }

    /// A request that does not decode or breaks the protocol's rules.
    pub fn bad_request(message: impl Into<String>) -> RpcError {
        RpcError::fatal(DO_NOT_RETRY, message)
    }

    /// The class of this failure for the metrics when no engine error named it: the door's
    /// own exceptions by their Java class, the rest `other`.
    pub fn class(&self) -> ferrobase_engine::ErrorClass {
        use ferrobase_engine::ErrorClass;
        match self.class.as_str() {
            crate::access::ACCESS_DENIED => ErrorClass::AccessDenied,
            UNKNOWN_SCANNER => ErrorClass::UnknownScanner,
            CALL_QUEUE_TOO_BIG => ErrorClass::Busy,
            NOT_SERVING_REGION => ErrorClass::RegionOffline,
            "org.apache.hadoop.hbase.TableNotFoundException" => ErrorClass::TableNotFound,
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException" => {
                ErrorClass::NoSuchFamily
            }
            _ => ErrorClass::Other,
        }
    }

    /// The response header's exception. HBase sends the stringified exception (`class:
    /// message` and the stack) as `stack_trace`, and the client's exception message is that
    /// text; ferrobase sends `class: message` and no stack.
    pub fn to_response(&self, host: &str, port: u16) -> ExceptionResponse {
        ExceptionResponse {
            exception_class_name: Some(self.class.clone()),
            stack_trace: Some(format!("{}: {}\n", self.class, self.message)),
            hostname: Some(host.to_string()),
            port: Some(i32::from(port)),
            do_not_retry: Some(self.do_not_retry),
            server_overloaded: None,
        }
    }
}

impl From<Error> for RpcError {
    /// The engine's error as the exception HBase throws for the same failure, with HBase's
    /// retry flag (a `DoNotRetryIOException` subclass is never retried).
    fn from(e: Error) -> RpcError {
        ferrobase_engine::error_class::note(e.class());
        let fatal = |class: &str| RpcError::fatal(class, e.to_string());
        match &e {
            Error::TableNotFound(t) => {
                RpcError::fatal("org.apache.hadoop.hbase.TableNotFoundException", t.clone())
            }
            Error::SnapshotExists(_) => RpcError::fatal(
                "org.apache.hadoop.hbase.snapshot.SnapshotExistsException",
                e.to_string(),
            ),
            Error::SnapshotNotFound(_) => RpcError::fatal(
                "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException",
                e.to_string(),
            ),
            Error::TableExists(t) => {
                RpcError::fatal("org.apache.hadoop.hbase.TableExistsException", t.clone())
            }
            Error::NamespaceNotFound(n) => RpcError::fatal(
                "org.apache.hadoop.hbase.NamespaceNotFoundException",
                n.clone(),
            ),
            Error::NamespaceExists(n) => {
                RpcError::fatal("org.apache.hadoop.hbase.NamespaceExistException", n.clone())
            }
            Error::NamespaceNotEmpty { .. } => {
                fatal("org.apache.hadoop.hbase.constraint.ConstraintException")
            }
            Error::TableDisabled(t) => RpcError::fatal(
                "org.apache.hadoop.hbase.TableNotEnabledException",
                t.clone(),
            ),
            Error::TableNotDisabled(t) => RpcError::fatal(
                "org.apache.hadoop.hbase.TableNotDisabledException",
                t.clone(),
            ),
            Error::NoSuchColumnFamily { .. } => {
                fatal("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException")
            }
            Error::RowTooBig { .. } => {
                fatal("org.apache.hadoop.hbase.regionserver.RowTooBigException")
            }
            Error::ReadMemory { .. } => RpcError::retry(
                "org.apache.hadoop.hbase.CallQueueTooBigException",
                e.to_string(),
            ),
            // Nobody is left to read it.
            Error::ClientGone => fatal(DO_NOT_RETRY),
            // Done again, the read would run out again: the client must not retry it.
            Error::TimeBudget { .. } => RpcError::fatal(
                "org.apache.hadoop.hbase.DoNotRetryIOException",
                format!("{e} (ferrobase serve --max-read-time sets the budget)"),
            ),
            Error::IllegalArgument(_) | Error::TooLarge { .. } => {
                fatal("org.apache.hadoop.hbase.DoNotRetryIOException")
            }
            Error::NotALong { .. } | Error::ReadOnly(_) | Error::IncompatibleScan(_) => {
                fatal(DO_NOT_RETRY)
            }
            Error::UnsupportedCompression(_) => fatal(DO_NOT_RETRY),
            Error::RegionOffline { .. } => RpcError::retry(NOT_SERVING_REGION, e.to_string()),
            Error::WritesSuspended { .. } | Error::DdlNotApplied { .. } => {
                RpcError::retry("java.io.IOException", e.to_string())
            }
            _ => RpcError::retry("java.io.IOException", e.to_string()),
        }
    }
}
