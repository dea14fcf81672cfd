//! A request to stop a long operation (copy, export, import) between two batches: set by a
//! Ctrl-C handler, read by the operation, which then finishes the batch it is writing and returns
//! [`crate::Error::Interrupted`] with what it had done.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared stop request. Cheap to clone (the clones share the flag); thread-safe. Default: not
/// requested.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag not yet requested.
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// Asks the operations that hold a clone of this flag to stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// True once a stop has been requested.
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// The flag itself, for `signal_hook::flag::register(SIGINT, ...)`.
    pub fn shared(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }
}
