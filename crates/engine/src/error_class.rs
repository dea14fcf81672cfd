//! The class of a failure as clients see it, for the server's `ferrobase_errors_total{door,class}`
//! (`docs/design/operations.md`): a short, fixed set of labels, so the metric stays bounded
//! whatever fails. [`Error::class`] derives an engine error's class in one exhaustive match; the
//! doors add the classes of the failures they produce themselves (a refused login or grant, a
//! full call queue, an unknown scanner, a request that does not decode).
//!
//! A door learns the class of its call's failure through a per-thread note: where it turns an
//! engine error into its own exception it calls [`note`] with the error's class, and when the
//! call ends it [`take`]s what was noted (each door runs a call on one thread). The note is
//! cleared with [`take`] before each call.

use crate::Error;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// What kind of failure a client saw. Labels are `snake_case` ([`ErrorClass::label`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The table does not exist (`TableNotFoundException`).
    TableNotFound,
    /// Another named thing does not exist: a namespace, a snapshot, a row (REST's 404).
    NotFound,
    /// The table, namespace or snapshot already exists.
    Exists,
    /// The table is not in the state the call needs (disabled, enabled, a namespace not empty).
    WrongState,
    /// The column family does not exist in the table (`NoSuchColumnFamilyException`).
    NoSuchFamily,
    /// An argument was invalid, or a request combined settings that do not go together.
    IllegalArgument,
    /// A write to a `READONLY` table.
    ReadOnly,
    /// A row, cell or request over a size limit.
    TooLarge,
    /// The call ran past its read time budget.
    Timeout,
    /// The client left before its answer.
    ClientGone,
    /// The server was busy: a full call queue, the in-flight memory pool, no free handler.
    Busy,
    /// A limit of the request itself: too many scanners, too large a message for the door.
    Limit,
    /// The region is not serving (`NotServingRegionException`).
    RegionOffline,
    /// Writes are suspended by a disk failure or low space (retryable).
    WritesSuspended,
    /// The engine is poisoned, closed or its directory locked.
    Unavailable,
    /// An I/O failure.
    Io,
    /// Bytes read from disk failed a check.
    Corrupt,
    /// A login or grant refused the call (`AccessDeniedException`, HTTP 401/403).
    AccessDenied,
    /// The scanner id is not open (expired or never opened; `UnknownScannerException`).
    UnknownScanner,
    /// The request did not decode or named an unknown method.
    BadRequest,
    /// An internal failure (a panic, an undeclared exception).
    Internal,
    /// A failure the door did not classify.
    Other,
}

impl ErrorClass {
    /// Every class, in label order (the index of [`ErrorCounts`]).
    pub const ALL: [ErrorClass; 22] = [
        ErrorClass::TableNotFound,
        ErrorClass::NotFound,
        ErrorClass::Exists,
        ErrorClass::WrongState,
        ErrorClass::NoSuchFamily,
        ErrorClass::IllegalArgument,
        ErrorClass::ReadOnly,
        ErrorClass::TooLarge,
        ErrorClass::Timeout,
        ErrorClass::ClientGone,
        ErrorClass::Busy,
        ErrorClass::Limit,
        ErrorClass::RegionOffline,
        ErrorClass::WritesSuspended,
        ErrorClass::Unavailable,
        ErrorClass::Io,
        ErrorClass::Corrupt,
        ErrorClass::AccessDenied,
        ErrorClass::UnknownScanner,
        ErrorClass::BadRequest,
        ErrorClass::Internal,
        ErrorClass::Other,
    ];

    /// The label value (`table_not_found`, `no_such_family`, `busy`, ...).
    pub fn label(self) -> &'static str {
        match self {
            ErrorClass::TableNotFound => "table_not_found",
            ErrorClass::NotFound => "not_found",
            ErrorClass::Exists => "exists",
            ErrorClass::WrongState => "wrong_state",
            ErrorClass::NoSuchFamily => "no_such_family",
            ErrorClass::IllegalArgument => "illegal_argument",
            ErrorClass::ReadOnly => "read_only",
            ErrorClass::TooLarge => "too_large",
            ErrorClass::Timeout => "timeout",
            ErrorClass::ClientGone => "client_gone",
            ErrorClass::Busy => "busy",
            ErrorClass::Limit => "limit",
            ErrorClass::RegionOffline => "region_offline",
            ErrorClass::WritesSuspended => "writes_suspended",
            ErrorClass::Unavailable => "unavailable",
            ErrorClass::Io => "io",
            ErrorClass::Corrupt => "corrupt",
            ErrorClass::AccessDenied => "access_denied",
            ErrorClass::UnknownScanner => "unknown_scanner",
            ErrorClass::BadRequest => "bad_request",
            ErrorClass::Internal => "internal",
            ErrorClass::Other => "other",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl Error {
    /// The class of this failure as clients see it. One match, no wildcard: a new variant must
    /// be given its class here.
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::TableNotFound(_) => ErrorClass::TableNotFound,
            Error::NamespaceNotFound(_) | Error::SnapshotNotFound(_) => ErrorClass::NotFound,
            Error::TableExists(_) | Error::NamespaceExists(_) | Error::SnapshotExists(_) => {
                ErrorClass::Exists
            }
            Error::TableDisabled(_)
            | Error::TableNotDisabled(_)
            | Error::NamespaceNotEmpty { .. } => ErrorClass::WrongState,
            Error::NoSuchColumnFamily { .. } => ErrorClass::NoSuchFamily,
            Error::IllegalArgument(_)
            | Error::NotALong { .. }
            | Error::IncompatibleScan(_)
            | Error::UnsupportedCompression(_) => ErrorClass::IllegalArgument,
            Error::ReadOnly(_) => ErrorClass::ReadOnly,
            Error::TooLarge { .. } | Error::RowTooBig { .. } => ErrorClass::TooLarge,
            Error::TimeBudget { .. } => ErrorClass::Timeout,
            Error::ClientGone => ErrorClass::ClientGone,
            Error::ReadMemory { .. } => ErrorClass::Busy,
            Error::RegionOffline { .. } => ErrorClass::RegionOffline,
            Error::WritesSuspended { .. } | Error::DdlNotApplied { .. } => {
                ErrorClass::WritesSuspended
            }
            Error::Poisoned(_) | Error::Closed | Error::Locked(_) => ErrorClass::Unavailable,
            Error::Io { .. } | Error::SyncFailed { .. } => ErrorClass::Io,
            Error::Corruption { .. } => ErrorClass::Corrupt,
            // A scan's heartbeat is turned into a short batch before any client sees it.
            Error::Heartbeat { .. } => ErrorClass::Internal,
        }
    }
}

thread_local! {
    static NOTED: Cell<Option<ErrorClass>> = const { Cell::new(None) };
}

/// Notes `class` as the failure of the call running on this thread (the last note wins).
pub fn note(class: ErrorClass) {
    NOTED.with(|n| n.set(Some(class)));
}

/// Notes `class` unless a class is already noted on this thread (a door's own, coarser view of
/// a failure an engine error may already have classified).
pub fn note_default(class: ErrorClass) {
    NOTED.with(|n| {
        if n.get().is_none() {
            n.set(Some(class));
        }
    });
}

/// The class noted on this thread since the last `take`, which clears it.
pub fn take() -> Option<ErrorClass> {
    NOTED.with(|n| n.take())
}

/// Failures by class: monotonic, relaxed atomics, one add per failure. Thread-safe.
#[derive(Debug, Default)]
pub struct ErrorCounts {
    counts: [AtomicU64; ErrorClass::ALL.len()],
}

impl ErrorCounts {
    /// Counts one failure of `class`.
    pub fn record(&self, class: ErrorClass) {
        self.counts[class.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// Every class with its count (zeros included, so each series exists from the start).
    pub fn snapshot(&self) -> Vec<(ErrorClass, u64)> {
        ErrorClass::ALL
            .iter()
            .map(|&c| (c, self.counts[c.index()].load(Ordering::Relaxed)))
            .collect()
    }

    /// Failures counted under `class`.
    pub fn get(&self, class: ErrorClass) -> u64 {
        self.counts[class.index()].load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_distinct_and_all_is_in_index_order() {
        let mut seen = std::collections::HashSet::new();
        for (i, c) in ErrorClass::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
            assert!(seen.insert(c.label()), "{}", c.label());
        }
    }

    #[test]
    fn a_note_is_taken_once_and_a_default_does_not_replace_it() {
        assert_eq!(take(), None);
        note(ErrorClass::NoSuchFamily);
        note_default(ErrorClass::Io);
        assert_eq!(take(), Some(ErrorClass::NoSuchFamily));
        assert_eq!(take(), None);
        note_default(ErrorClass::Io);
        assert_eq!(take(), Some(ErrorClass::Io));
    }
}
