//! The engine's one error type, and why writes are suspended ([`StallCause`], which errors and
//! the health report both carry).

use std::path::PathBuf;

/// Every failure the engine reports. Each variant's `Display` is a one-line message that names
/// the problem; the gateway maps them onto HBase's exception names.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O failure, with the path it concerned when known.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Bytes read from disk failed a check; `offset` locates the bad record or block.
    #[error("corruption in {path} at offset {offset}: {reason}")]
    Corruption {
        /// The file holding the bad bytes.
        path: PathBuf,
        /// Byte offset of the bad record or block within the file.
        offset: u64,
        /// What check failed.
        reason: String,
    },
    /// `table` is not in the catalog (HBase's `TableNotFoundException`).
    #[error("table {0} does not exist")]
    TableNotFound(String),
    /// `table` already exists (HBase's `TableExistsException`).
    #[error("table {0} already exists")]
    TableExists(String),
    /// A read ran past the time budget of the call it served ([`crate::call_budget`]); the
    /// door's option sets the budget.
    #[error("the read ran past its call's time budget of {budget_ms} ms and was stopped")]
    TimeBudget {
        /// The budget, in milliseconds.
        budget_ms: u64,
    },
    /// The client of the call this read served went away (closed its connection), so the read
    /// was stopped ([`crate::call_budget::CallBudget::with_cancel`]); nobody is left to answer.
    #[error("the read was stopped: its client closed the connection")]
    ClientGone,
    /// A scan stopped between two rows at its call's heartbeat deadline
    /// ([`crate::call_budget::Heartbeat`]) with its position kept: the scanner goes on from
    /// there when next asked. Only reads on a thread with such a deadline (a door's scan call)
    /// see it, and [`crate::ResultScanner::next_batch_or_heartbeat`] turns it into a short batch.
    #[error("the scan stopped for a heartbeat at its call's time limit; ask again to go on")]
    Heartbeat {
        /// The last row the scan looked at in the call (every row before it in scan order is
        /// done), when it looked at one in the region it stands in: HBase's scan cursor.
        cursor: Option<Vec<u8>>,
    },
    /// The results the calls in flight are building would pass the door's memory pool
    /// ([`crate::call_budget::MemoryPool`]); the call may be retried.
    #[error(
        "server busy (CallQueueTooBigException): requests in flight hold more than {limit} \
         bytes of memory (--max-inflight-memory); retry later"
    )]
    ReadMemory {
        /// The pool's limit in bytes.
        limit: usize,
    },
    /// A snapshot of this name exists (HBase's `SnapshotExistsException`).
    #[error("Snapshot '{0}' already stored on the filesystem.")]
    SnapshotExists(String),
    /// No snapshot of this name exists (HBase's `SnapshotDoesNotExistException`).
    #[error("Snapshot '{0}' doesn't exist on the filesystem")]
    SnapshotNotFound(String),
    /// The namespace does not exist (HBase's `NamespaceNotFoundException`).
    #[error("namespace {0} does not exist")]
    NamespaceNotFound(String),
    /// The namespace already exists (HBase's `NamespaceExistException`).
    #[error("namespace {0} already exists")]
    NamespaceExists(String),
    /// Only an empty namespace can be dropped (HBase's `ConstraintException`).
    #[error("Only empty namespaces can be removed. Namespace {namespace} has {tables} tables")]
    NamespaceNotEmpty {
        /// The namespace.
        namespace: String,
        /// How many tables it still holds.
        tables: usize,
    },
    /// The table is disabled (HBase's `TableNotEnabledException`).
    #[error("table {0} is disabled")]
    TableDisabled(String),
    /// The table is enabled but the operation needs it disabled (HBase's `TableNotDisabledException`).
    #[error("table {0} is enabled; disable it first")]
    TableNotDisabled(String),
    /// The family does not exist in the table (HBase's `NoSuchColumnFamilyException`).
    #[error("column family {family} does not exist in table {table}")]
    NoSuchColumnFamily {
        /// The table name.
        table: String,
        /// The family name, lossily decoded.
        family: String,
    },
    /// An argument was invalid (HBase's `IllegalArgumentException`).
    #[error("illegal argument: {0}")]
    IllegalArgument(String),
    /// An increment found a cell that is not an 8-byte long (HBase's `DoNotRetryIOException`
    /// "Field is not a long, it's N bytes wide", an `IOError` through Thrift).
    #[error("Field is not a long, it's {width} bytes wide (cannot increment {column})")]
    NotALong {
        /// The cell's column, `family:qualifier`.
        column: String,
        /// The cell's value length in bytes.
        width: usize,
    },
    /// A write to a table whose `READONLY` attribute is true (HBase's `DoNotRetryIOException`
    /// "region is read only", an `IOError` through Thrift).
    #[error("region is read only: table {0} has READONLY => true")]
    ReadOnly(String),
    /// A scan combines settings HBase refuses to run together (HBase's
    /// `IncompatibleFilterException` for a batch with a filter that decides whole rows, and its
    /// `DoNotRetryIOException` for a reversed scan that would load families on demand; both an
    /// `IOError` through Thrift).
    #[error("{0}")]
    IncompatibleScan(String),
    /// A Get of a row larger than it may return (HBase's `RowTooBigException`, an `IOError`
    /// through Thrift): read the row with a scan, in pieces.
    #[error(
        "Max row size allowed: {limit}, but the row is bigger than that, the row info: {row} \
         (read it in pieces: a scan with batch or partial results)"
    )]
    RowTooBig {
        /// The row, printable.
        row: String,
        /// The limit in bytes (`EngineOptions::max_row_size`).
        limit: usize,
    },
    /// A row key, qualifier or value exceeded a size limit.
    #[error("{what} is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// What was too large ("row key", "cell", ...).
        what: &'static str,
        /// Its size in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A compression codec is not available in this build.
    #[error("compression {0} is not supported by this build")]
    UnsupportedCompression(String),
    /// An fsync or fdatasync failed: what the page cache holds is unknown, so the engine
    /// poisons itself (PostgreSQL's fsyncgate lesson).
    #[error("fsync failed on {path}: {source}")]
    SyncFailed {
        /// The file that was being synced.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A region is not serving (HBase's `NotServingRegionException`): a background job failed
    /// on one of its files (the reason names the job and the file; other regions keep serving,
    /// and `Admin::reopen_region` brings it back once its files read), or its table was
    /// truncated under an open scanner.
    #[error("region {region} of table {table} is not serving: {reason}")]
    RegionOffline {
        /// The table name.
        table: String,
        /// The region id.
        region: u64,
        /// What happened, naming the job and file when a job failed.
        reason: String,
    },
    /// Shared durable state (the WAL, the manifest, an fsync) failed earlier; the engine refuses
    /// writes rather than continue with a possibly lost update.
    #[error("engine is poisoned after an earlier failure: {0}")]
    Poisoned(String),
    /// Writes are suspended by a transient disk failure (a full disk or quota, an `EIO` from a
    /// WAL write) or by free space below the reserve: the write was not applied and can be
    /// retried. Reads go on; a background task retries with back-off and resumes writes by
    /// itself (`docs/design/durability.md`, "Errors from the disk").
    #[error(
        "writes are suspended ({cause}) and can be retried later: the write was not applied, \
         the server retries in the background and resumes writes by itself once the disk \
         accepts them; reads go on. Cause: {reason}"
    )]
    WritesSuspended {
        /// What suspended writes.
        cause: StallCause,
        /// The failure, naming the file and the OS error (or the free space and the reserve).
        reason: String,
    },
    /// A DDL operation (create, alter, enable/disable, truncate or drop a table, add, modify or
    /// delete a family, create or drop a namespace) could not write its new manifest because
    /// the disk is full (`ENOSPC`, `EDQUOT`): the change was not applied, the catalog is as
    /// before, the engine stays healthy, and the same call can be retried once the disk has
    /// space (`docs/design/durability.md`, "Errors from the disk").
    #[error(
        "the schema change was not applied: writing {path} failed: {source}; the catalog is \
         unchanged and the operation can be retried once the disk has space"
    )]
    DdlNotApplied {
        /// The manifest file being written (`MANIFEST.tmp` in the data directory).
        path: PathBuf,
        /// The underlying error (`ENOSPC` or `EDQUOT`).
        source: std::io::Error,
    },
    /// The engine is closed.
    #[error("engine is closed")]
    Closed,
    /// Another process holds the data directory's lock.
    #[error("data directory {0} is locked by another process")]
    Locked(PathBuf),
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O error with the path it concerned.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Whether the same call may succeed if retried later without any operator action once
    /// the disk has space ([`Error::WritesSuspended`], [`Error::DdlNotApplied`]).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Error::WritesSuspended { .. } | Error::DdlNotApplied { .. } | Error::ReadMemory { .. }
        )
    }

    /// A corruption error for `path` at `offset`.
    pub fn corruption(path: impl Into<PathBuf>, offset: u64, reason: impl Into<String>) -> Self {
        Error::Corruption {
            path: path.into(),
            offset,
            reason: reason.into(),
        }
    }
}

/// Extension to attach a path to `std::io::Result`.
pub(crate) trait IoContext<T> {
    /// Converts the I/O error into [`Error::Io`] naming `path`.
    fn at(self, path: &std::path::Path) -> Result<T>;

    /// Converts the error of an fsync of `path` into [`Error::SyncFailed`].
    fn synced(self, path: &std::path::Path) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }

    fn synced(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::SyncFailed {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Why writes are suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StallCause {
    /// A write(2) of the WAL failed with a transient error (`ENOSPC`, `EDQUOT`, `EIO`).
    WalWrite,
    /// A flush could not write its block file (`ENOSPC`, `EDQUOT`).
    FlushWrite,
    /// Free space on the data directory's file system is below the reserve
    /// (`EngineOptions::min_free_space`).
    LowDiskSpace,
    /// A flush, compaction or split could not write the new manifest (`ENOSPC`, `EDQUOT`);
    /// the previous one stays in force until a retry writes it.
    ManifestWrite,
}

impl StallCause {
    /// Every cause, in a fixed order (the index of [`crate::Metrics::write_suspensions_by_cause`]).
    pub const ALL: [StallCause; 4] = [
        StallCause::WalWrite,
        StallCause::FlushWrite,
        StallCause::LowDiskSpace,
        StallCause::ManifestWrite,
    ];

    /// A short name for labels: `wal_write`, `flush_write`, `low_disk_space`, `manifest_write`.
    pub fn label(self) -> &'static str {
        match self {
            StallCause::WalWrite => "wal_write",
            StallCause::FlushWrite => "flush_write",
            StallCause::LowDiskSpace => "low_disk_space",
            StallCause::ManifestWrite => "manifest_write",
        }
    }
}

impl std::fmt::Display for StallCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StallCause::WalWrite => "WAL write failed",
            StallCause::FlushWrite => "flush write failed",
            StallCause::LowDiskSpace => "low disk space",
            StallCause::ManifestWrite => "manifest write failed",
        })
    }
}
