//! The door's errors: each is an HTTP status with HBase REST's plain-text body (`Not found`,
//! `Bad request`, `Unavailable`, ... then CRLF and the cause, as `ResourceBase.processException`
//! writes them; HBase adds a Java stack trace where ferrobase writes one line).

use crate::http::Response;
use ferrobase_engine::Error as EngineError;

/// HBase REST's `text/plain` content type, of every error body.
pub const TEXT: &str = "text/plain";

/// A request's failure: the status and body answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {message}")]
pub struct RestError {
    /// The HTTP status.
    pub status: u16,
    /// The body's text (one or more lines, without the final CRLF).
    pub message: String,
}

impl RestError {
    /// An error with `status` and body `message`.
    pub fn new(status: u16, message: impl Into<String>) -> RestError {
        RestError {
            status,
            message: message.into(),
        }
    }

    /// 404 `Not found` with HBase's bare body.
    pub fn not_found() -> RestError {
        RestError::new(404, "Not found")
    }

    /// 400 `Bad request`, then the cause on its own line.
    pub fn bad_request(cause: impl std::fmt::Display) -> RestError {
        RestError::new(400, format!("Bad request\r\n{cause}"))
    }

    /// 404 `Not found`, then the cause on its own line.
    pub fn not_found_because(cause: impl std::fmt::Display) -> RestError {
        RestError::new(404, format!("Not found\r\n{cause}"))
    }

    /// 415: a request body in a representation the resource does not read.
    pub fn unsupported_media(content_type: &str) -> RestError {
        RestError::new(
            415,
            format!("Unsupported Media Type: this resource does not read {content_type:?}"),
        )
    }

    /// 406: no representation the resource writes is acceptable.
    pub fn not_acceptable(accept: &str) -> RestError {
        RestError::new(
            406,
            format!("Not Acceptable: this resource writes none of {accept:?}"),
        )
    }

    /// The response answering this error.
    pub fn response(&self) -> Response {
        Response::new(self.status, TEXT, format!("{}\r\n", self.message))
    }
}

impl From<EngineError> for RestError {
    /// `processException`: a missing table or family is 404, a client's mistake 400, anything
    /// else 503 `Unavailable`.
    fn from(e: EngineError) -> RestError {
        ferrobase_engine::error_class::note(e.class());
        match &e {
            EngineError::TableNotFound(_) => RestError::not_found_because(format!(
                "org.apache.hadoop.hbase.TableNotFoundException: {e}"
            )),
            EngineError::NoSuchColumnFamily { .. } => RestError::not_found_because(format!(
                "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException: {e}"
            )),
            EngineError::IllegalArgument(_)
            | EngineError::TooLarge { .. }
            | EngineError::TableExists(_) => {
                RestError::bad_request(format!("java.lang.IllegalArgumentException: {e}"))
            }
            // HBase's IOExceptions (NamespaceNotFoundException, ConstraintException, ...): 503.
            EngineError::NamespaceNotEmpty { .. } => RestError::new(
                503,
                format!(
                    "Unavailable\r\norg.apache.hadoop.hbase.constraint.ConstraintException: {e}"
                ),
            ),
            EngineError::TimeBudget { .. } => RestError::new(
                503,
                format!(
                    "Unavailable\r\njava.io.IOException: {e} (ferrobase serve --max-read-time \
                     sets the budget)"
                ),
            ),
            _ => RestError::new(503, format!("Unavailable\r\njava.io.IOException: {e}")),
        }
    }
}
