//! The crate's one error type.

/// Everything that can go wrong declaring a schema, encoding, decoding or parsing a key.
///
/// Every variant names the field it concerns (where there is one) and, for decoding, the byte
/// offset in the key where the field starts or the fault lies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema text does not follow the syntax (see the crate docs); `pos` is a byte offset
    /// into the text.
    #[error("schema syntax error at {pos}: {message}")]
    Syntax {
        /// Byte offset in the schema text.
        pos: usize,
        /// What was expected.
        message: String,
    },
    /// The schema is well-formed text but not a valid schema (duplicate names, a hash over an
    /// unknown field, a width out of range, ...).
    #[error("invalid schema: {0}")]
    Schema(String),
    /// A value given for encoding does not fit its field (wrong type, out of range, too long).
    #[error("field `{field}`: {message}")]
    Value {
        /// The field's name.
        field: String,
        /// Why the value does not fit.
        message: String,
    },
    /// The number of values given does not match the schema (or the prefix asked for).
    #[error("expected {expected} values, got {got}")]
    Arity {
        /// How many the schema wants (at most, for a prefix).
        expected: usize,
        /// How many were given.
        got: usize,
    },
    /// A key's bytes are not an encoding of this schema.
    #[error("field `{field}` at offset {offset}: {message}")]
    Decode {
        /// The field being decoded (empty when the fault is after the last field).
        field: String,
        /// Byte offset in the key.
        offset: usize,
        /// What was wrong.
        message: String,
    },
    /// The textual form of a value or a key could not be parsed.
    #[error("field `{field}`: cannot parse {input:?}: {message}")]
    Parse {
        /// The field's name (empty when the fault is outside any field).
        field: String,
        /// The text that was given.
        input: String,
        /// Why it was rejected.
        message: String,
    },
    /// A range was asked that the schema cannot produce (a hash over fields not given, too
    /// many buckets, a bound on a derived field).
    #[error("range: {0}")]
    Range(String),
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn value(field: &str, message: impl Into<String>) -> Error {
        Error::Value {
            field: field.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn decode(field: &str, offset: usize, message: impl Into<String>) -> Error {
        Error::Decode {
            field: field.to_string(),
            offset,
            message: message.into(),
        }
    }

    pub(crate) fn parse(field: &str, input: &str, message: impl Into<String>) -> Error {
        Error::Parse {
            field: field.to_string(),
            input: input.to_string(),
            message: message.into(),
        }
    }
}
