//! The crate's one error type.

use std::path::PathBuf;

/// Errors of reading and writing HBase's Export files and of applying them to a table.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file system failed (open, read, write, rename).
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file does not start with a SequenceFile's magic `SEQ`.
    #[error("{path}: not a Hadoop SequenceFile (the first bytes are {found:02x?}, not \"SEQ\")")]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// Its first bytes (up to 3).
        found: Vec<u8>,
    },
    /// A SequenceFile header version other than 6 (the only one Hadoop 2 and 3 write).
    #[error("{path}: SequenceFile version {version} is not supported (only version 6 is)")]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version byte.
        version: u8,
    },
    /// A compression codec this reader does not have.
    #[error("{path}: compression codec {codec} is not supported (DefaultCodec, GzipCodec and SnappyCodec are)")]
    UnsupportedCodec {
        /// The file.
        path: PathBuf,
        /// The codec's class name from the header.
        codec: String,
    },
    /// A sync marker that is not the header's: the file is damaged or two files were spliced.
    #[error(
        "{path} at offset {offset}: sync marker does not match the header's (file is corrupt)"
    )]
    BadSync {
        /// The file.
        path: PathBuf,
        /// Where the marker starts.
        offset: u64,
    },
    /// The file ends inside a header, record or block.
    #[error("{path} at offset {offset}: file ends inside {what} (truncated)")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Where the unfinished piece starts.
        offset: u64,
        /// What was being read.
        what: &'static str,
    },
    /// Bytes that do not decode: a negative length, a bad compressed stream, a value that is not
    /// an HBase `Result`, a cell of another row.
    #[error("{path} at offset {offset}: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Where the record or block starts.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A SequenceFile whose key and value classes are not those of HBase's Export.
    #[error("{path}: holds {key} → {value}, not HBase Export's ImmutableBytesWritable → Result")]
    NotAnExport {
        /// The file.
        path: PathBuf,
        /// Its key class.
        key: String,
        /// Its value class.
        value: String,
    },
    /// A bad argument (an output directory that is not empty, an input directory without files,
    /// a family the table does not have).
    #[error("{0}")]
    Invalid(String),
    /// The database refused an operation. `applied` says what an import had written before.
    #[error("{context}: {source}")]
    Client {
        /// What was being done, and what had been done.
        context: String,
        /// The client's error.
        source: ferrobase_client::ClientError,
    },
    /// A copy failed on one side: the store, what was being done, and what had been written to
    /// the destination before (rows whose every cell was written).
    #[error("{side} {store}: {what}{}", .written.as_ref().map(|w| format!(" (written before it: {w})")).unwrap_or_else(|| " (nothing was written)".to_string()))]
    Copy {
        /// The side.
        side: crate::copy::Side,
        /// The store (`file:DIR`, `thrift://ADDR`).
        store: String,
        /// What was wrong, or what was being done.
        what: String,
        /// What had been written when the copy stopped; `None` before it started.
        written: Option<Box<crate::copy::CopySummary>>,
        /// The client's error, if one.
        #[source]
        source: Option<Box<ferrobase_client::ClientError>>,
    },
    /// Stopped at the user's request (Ctrl-C), between two batches: `done` says what had been
    /// written.
    #[error("interrupted: {done}")]
    Interrupted {
        /// What had been done, in words ("copied 1200 rows, ...").
        done: String,
    },
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
}
