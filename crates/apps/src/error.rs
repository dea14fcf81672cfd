//! The applications' error type.

use ferrobase_client::ClientError;

/// An application error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// The database (embedded engine or gateway) failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// A key could not be encoded or decoded with its schema.
    #[error(transparent)]
    Rowkey(#[from] ferrobase_rowkey::Error),
    /// An argument out of its domain (a negative timestamp, a malformed date, ...).
    #[error("invalid {what}: {message}")]
    Invalid {
        /// The argument.
        what: &'static str,
        /// Why it is rejected.
        message: String,
    },
    /// A stored row the application cannot read back (a missing column, a bad number).
    #[error("table {table}, row {row}: {message}")]
    Corrupt {
        /// The table.
        table: String,
        /// The row key, printed with `\xNN` escapes.
        row: String,
        /// What is wrong.
        message: String,
    },
}

/// The applications' result type.
pub type Result<T, E = AppError> = std::result::Result<T, E>;

impl AppError {
    /// An [`AppError::Invalid`].
    pub(crate) fn invalid(what: &'static str, message: impl Into<String>) -> AppError {
        AppError::Invalid {
            what,
            message: message.into(),
        }
    }

    /// An [`AppError::Corrupt`] for `row` of `table`.
    pub(crate) fn corrupt(table: &str, row: &[u8], message: impl Into<String>) -> AppError {
        AppError::Corrupt {
            table: table.to_string(),
            row: crate::bytes_text::escape(row),
            message: message.into(),
        }
    }
}
