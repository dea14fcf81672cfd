//! Buffered writes: HBase's `BufferedMutator`. Mutations of one table gather in a buffer; a
//! full buffer goes to a sender thread of its own, which writes it while the application builds
//! the next, so a bulk load's building, encoding and the server's work overlap instead of taking
//! turns. A write that fails in the background is reported by the next [`BufferedMutator::mutate`],
//! [`BufferedMutator::flush`] or [`BufferedMutator::close`], as HBase's
//! `RetriesExhaustedWithDetailsException` is.
//!
//! A mutation is acknowledged (written as its durability says) only once a `flush` or `close`
//! after it has returned `Ok`; until then a crash of the application loses it, as with HBase's.

use crate::{ClientError, Result, Table};
use ferrobase_engine::{Delete, Mutation, Put};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// HBase's `hbase.client.write.buffer` default: 2 MiB.
pub const DEFAULT_WRITE_BUFFER_SIZE: usize = 2 * 1024 * 1024;

/// HBase's `hbase.client.keyvalue.maxsize` default: 10 MiB (the engine's own cell limit).
pub const DEFAULT_MAX_KEY_VALUE_SIZE: usize = ferrobase_engine::DEFAULT_MAX_CELL_SIZE;

/// A put cell's length as HBase's `KeyValueUtil.length` counts it: the key (row with a 2-byte
/// length, family with a 1-byte length, qualifier, 8-byte timestamp, type byte), the value,
/// and the 8 bytes of the two lengths before them.
fn key_value_length(row: usize, family: usize, qualifier: usize, value: usize) -> usize {
    (2 + row + 1 + family + qualifier + 8 + 1) + value + 8
}

/// The bytes a mutation counts against the write buffer: its row, and each cell's family,
/// qualifier and value with 32 bytes for the timestamp, type and lengths (HBase counts a
/// mutation's heap size; this is the same order).
pub fn mutation_size(m: &Mutation) -> usize {
    let (row, cells) = match m {
        Mutation::Put(p) => (&p.row, &p.cells),
        Mutation::Delete(d) => (&d.row, &d.cells),
    };
    let cells: usize = cells
        .iter()
        .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + 32)
        .sum();
    64 + row.len() + cells
}

/// How a [`BufferedMutator`] buffers (HBase's `BufferedMutatorParams`).
#[derive(Debug, Clone)]
pub struct BufferedMutatorParams {
    /// The buffer is sent once its mutations count this many bytes ([`mutation_size`]);
    /// default [`DEFAULT_WRITE_BUFFER_SIZE`] (HBase's `writeBufferSize`).
    pub write_buffer_size: usize,
    /// The buffer is also sent once it holds this many mutations; `None` (the default): no such
    /// limit (HBase's `setMaxMutations`, `hbase.client.write.buffer.maxmutations`).
    pub max_mutations: Option<usize>,
    /// A buffer that has held mutations this long is sent even when not full; `None` (the
    /// default, as HBase's 0): only a full buffer, `flush` and `close` send (HBase's
    /// `setWriteBufferPeriodicFlush`).
    pub periodic_flush: Option<Duration>,
    /// Full buffers handed to the sender and not yet answered, the one being written included;
    /// a `mutate` that fills one more waits (default 2, as HBase's
    /// `hbase.client.max.perserver.tasks`; at least 1).
    pub max_pending_batches: usize,
    /// A put with a cell longer than this (HBase's `KeyValueUtil.length`: key, value and their
    /// lengths) is refused by `mutate` at once, "KeyValue size too large", as HBase's client
    /// refuses it; default [`DEFAULT_MAX_KEY_VALUE_SIZE`]; 0: no check (HBase's
    /// `maxKeyValueSize`).
    pub max_key_value_size: usize,
}

impl Default for BufferedMutatorParams {
    fn default() -> Self {
        BufferedMutatorParams {
            write_buffer_size: DEFAULT_WRITE_BUFFER_SIZE,
            max_mutations: None,
            periodic_flush: None,
            max_pending_batches: 2,
            max_key_value_size: DEFAULT_MAX_KEY_VALUE_SIZE,
        }
    }
}

impl BufferedMutatorParams {
    /// Sets [`BufferedMutatorParams::write_buffer_size`].
    pub fn write_buffer_size(mut self, bytes: usize) -> Self {
        self.write_buffer_size = bytes;
        self
    }

    /// Sets [`BufferedMutatorParams::max_mutations`].
    pub fn max_mutations(mut self, n: usize) -> Self {
        self.max_mutations = Some(n.max(1));
        self
    }

    /// Sets [`BufferedMutatorParams::periodic_flush`].
    pub fn periodic_flush(mut self, after: Duration) -> Self {
        self.periodic_flush = Some(after);
        self
    }

    /// Sets [`BufferedMutatorParams::max_key_value_size`] (0: no check).
    pub fn max_key_value_size(mut self, bytes: usize) -> Self {
        self.max_key_value_size = bytes;
        self
    }

    /// Sets [`BufferedMutatorParams::max_pending_batches`].
    pub fn max_pending_batches(mut self, n: usize) -> Self {
        self.max_pending_batches = n.max(1);
        self
    }
}

/// What the application and the sender share, behind one lock.
#[derive(Default)]
struct State {
    /// Mutations not yet handed to the sender, and their [`mutation_size`] total.
    buffer: Vec<Mutation>,
    buffered_bytes: usize,
    /// When the buffer's oldest mutation came (for the periodic flush).
    buffer_since: Option<Instant>,
    /// Full buffers waiting for the sender, oldest first.
    queued: VecDeque<Vec<Mutation>>,
    /// Whether the sender is writing a batch now.
    sending: bool,
    /// Failures not yet reported: how many mutations were in the failed batches, the first's
    /// row and its error.
    failed: usize,
    first_failure: Option<(Vec<u8>, ClientError)>,
    /// Set by `close`: the sender ends once the queue is empty.
    closing: bool,
}

impl State {
    fn pending_batches(&self) -> usize {
        self.queued.len() + usize::from(self.sending)
    }

    /// Moves the buffer to the queue (nothing when it is empty).
    fn seal(&mut self) {
        if !self.buffer.is_empty() {
            self.queued.push_back(std::mem::take(&mut self.buffer));
            self.buffered_bytes = 0;
            self.buffer_since = None;
        }
    }

    /// The failures gathered so far as one error, cleared.
    fn take_failure(&mut self) -> Result<()> {
        match self.first_failure.take() {
            None => Ok(()),
            Some((first_row, source)) => Err(ClientError::MutationsFailed {
                failed: std::mem::take(&mut self.failed),
                first_row: String::from_utf8_lossy(&first_row).into_owned(),
                source: Box::new(source),
            }),
        }
    }
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when the queue grows or `close` starts (the sender waits on it) and when a
    /// batch is answered (`mutate` waiting for room and `flush` wait on it).
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The sender never panics while holding the lock (it holds it only to move batches);
        // a poisoned lock still guards consistent state.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits on `changed` with `state` released.
    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(state).unwrap_or_else(|p| p.into_inner())
    }

    /// Waits on `changed` with `state` released, at most `limit`.
    fn wait_at_most<'a>(
        &self,
        state: MutexGuard<'a, State>,
        limit: Duration,
    ) -> MutexGuard<'a, State> {
        match self.changed.wait_timeout(state, limit) {
            Ok((state, _)) => state,
            Err(p) => p.into_inner().0,
        }
    }
}

/// Buffered writes to one table (HBase's `BufferedMutator`); see the module's documentation.
/// Made by [`Table::buffered_mutator`]. One application thread uses it (`&mut self`); it owns
/// one sender thread, which ends at [`BufferedMutator::close`] or when it is dropped.
pub struct BufferedMutator {
    table: Table,
    params: BufferedMutatorParams,
    shared: Arc<Shared>,
    sender: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for BufferedMutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferedMutator")
            .field("table", &self.table.name())
            .field("params", &self.params)
            .finish()
    }
}

impl BufferedMutator {
    pub(crate) fn new(table: Table, params: BufferedMutatorParams) -> Result<BufferedMutator> {
        let params = BufferedMutatorParams {
            max_pending_batches: params.max_pending_batches.max(1),
            ..params
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let sender = {
            let (table, shared, periodic) = (table.clone(), shared.clone(), params.periodic_flush);
            std::thread::Builder::new()
                .name(format!("buffered-mutator {}", table.name()))
                .spawn(move || send_batches(&table, &shared, periodic))
                .map_err(|e| {
                    ClientError::Transport(format!("cannot start the sender thread: {e}"))
                })?
        };
        Ok(BufferedMutator {
            table,
            params,
            shared,
            sender: Some(sender),
        })
    }

    /// The table written.
    pub fn table_name(&self) -> &str {
        self.table.name()
    }

    /// The buffer's size in bytes ([`BufferedMutatorParams::write_buffer_size`]).
    pub fn write_buffer_size(&self) -> usize {
        self.params.write_buffer_size
    }

    /// Buffers one put or delete; a full buffer goes to the sender (waiting while
    /// [`BufferedMutatorParams::max_pending_batches`] are pending). A put without cells, or
    /// with a cell longer than [`BufferedMutatorParams::max_key_value_size`], is refused at once
    /// and not buffered (HBase's "No columns to insert", "KeyValue size too large"). An `Err`
    /// from an earlier batch that failed in the background is returned here (the mutation
    /// given is buffered all the same, as in HBase).
    pub fn mutate(&mut self, m: impl Into<Mutation>) -> Result<()> {
        self.mutate_all(std::iter::once(m.into()))
    }

    /// Buffers many mutations, as [`BufferedMutator::mutate`] does each.
    pub fn mutate_all(&mut self, mutations: impl IntoIterator<Item = Mutation>) -> Result<()> {
        let mut state = self.shared.lock();
        for m in mutations {
            if let Mutation::Put(p) = &m {
                self.validate_put(p)?;
            }
            state.buffered_bytes += mutation_size(&m);
            state.buffer_since.get_or_insert_with(Instant::now);
            state.buffer.push(m);
            let full = state.buffered_bytes >= self.params.write_buffer_size
                || self
                    .params
                    .max_mutations
                    .is_some_and(|n| state.buffer.len() >= n);
            if full {
                while state.pending_batches() >= self.params.max_pending_batches {
                    state = self.shared.wait(state);
                }
                state.seal();
                self.shared.changed.notify_all();
            }
        }
        state.take_failure()
    }

    /// HBase's client-side checks of a put (`ConnectionUtils.validatePut`): at least one cell,
    /// none longer than `max_key_value_size`.
    fn validate_put(&self, p: &Put) -> Result<()> {
        let refuse = |why: &str| {
            Err(ClientError::Engine(
                ferrobase_engine::Error::IllegalArgument(why.to_string()),
            ))
        };
        if p.cells.is_empty() {
            return refuse("No columns to insert");
        }
        let max = self.params.max_key_value_size;
        let too_long = |c: &ferrobase_engine::MutationCell| {
            key_value_length(
                p.row.len(),
                c.family.len(),
                c.qualifier.len(),
                c.value.len(),
            ) > max
        };
        if max > 0 && p.cells.iter().any(too_long) {
            return refuse("KeyValue size too large");
        }
        Ok(())
    }

    /// Buffers one put (see [`BufferedMutator::mutate`]).
    pub fn put(&mut self, put: Put) -> Result<()> {
        self.mutate(put)
    }

    /// Buffers one delete (see [`BufferedMutator::mutate`]).
    pub fn delete(&mut self, delete: Delete) -> Result<()> {
        self.mutate(delete)
    }

    /// Sends what is buffered and waits until every batch handed to the sender has been
    /// answered. `Ok` means every mutation buffered so far is written; `Err`
    /// ([`ClientError::MutationsFailed`]) counts those that failed since the last report.
    pub fn flush(&mut self) -> Result<()> {
        let mut state = self.shared.lock();
        state.seal();
        self.shared.changed.notify_all();
        while state.pending_batches() > 0 {
            state = self.shared.wait(state);
        }
        state.take_failure()
    }

    /// Flushes, then ends the sender thread. The result is the flush's.
    pub fn close(mut self) -> Result<()> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<()> {
        let Some(sender) = self.sender.take() else {
            return Ok(());
        };
        let flushed = self.flush();
        self.shared.lock().closing = true;
        self.shared.changed.notify_all();
        // The sender returns once the queue is empty and `closing` is set; a write that panics
        // is caught as that batch's error.
        let _ = sender.join();
        flushed
    }
}

impl Drop for BufferedMutator {
    /// Sends what is still buffered and waits for it, as `close` does; an error is lost here
    /// (call [`BufferedMutator::close`] to see it).
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

/// The sender thread: writes queued batches in order, one at a time, until closed.
fn send_batches(table: &Table, shared: &Shared, periodic: Option<Duration>) {
    let mut state = shared.lock();
    loop {
        if let (Some(after), Some(since)) = (periodic, state.buffer_since) {
            if since.elapsed() >= after {
                state.seal();
            }
        }
        let Some(batch) = state.queued.pop_front() else {
            if state.closing {
                return;
            }
            // With a periodic flush, awake when the buffer's oldest mutation is due (a full
            // period while it is empty: `mutate` does not signal a buffer that is not full).
            state = match periodic {
                Some(after) => {
                    let left = state
                        .buffer_since
                        .map_or(after, |since| after.saturating_sub(since.elapsed()));
                    shared.wait_at_most(state, left)
                }
                None => shared.wait(state),
            };
            continue;
        };
        state.sending = true;
        drop(state);
        let count = batch.len();
        let first_row = batch.first().map(|m| m.row().to_vec()).unwrap_or_default();
        // A panic below the call (a bug) is this batch's error, never a sender gone while
        // `sending` is set, which would leave `mutate` and `flush` waiting for ever.
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| table.mutate(batch)))
                .unwrap_or_else(|panic| {
                    let why = ferrobase_engine::panic_message(&*panic);
                    Err(ClientError::Transport(format!("the write panicked: {why}")))
                });
        state = shared.lock();
        state.sending = false;
        if let Err(e) = outcome {
            state.failed += count;
            state.first_failure.get_or_insert((first_row, e));
        }
        shared.changed.notify_all();
    }
}
