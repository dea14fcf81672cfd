//! Scan explain (issue 43): what one Get or Scan cost, counted as it runs. A read asked to
//! explain itself ([`crate::Table::get_explained`], [`crate::Scan::explain`]), or a door that
//! keeps a slow-operation log, starts a [`CostRecording`] on the thread that runs the read; the
//! read path adds to it where the work happens (a block from the cache or the disk, a file left
//! out, a region opened), and per-cell and per-seek counts kept in plain fields of the store
//! scanners are added when they close. Without a recording each of those points costs one
//! read of a thread-local flag.
//!
//! A scanner keeps its own record between calls and puts it in force for each call
//! (`table_scan.rs`), so a scan served by several threads in turn still adds up. Recordings
//! nest: what an inner one counted is added to the outer one when it ends.

use std::cell::Cell;
use std::fmt;

/// What one read cost. Every field counts from zero at the start of the read; all are exact
/// counts of work done, not estimates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadCost {
    /// Regions whose scanner was opened (a Get visits one).
    pub regions_visited: u64,
    /// Rows the read looked at, before filters decided.
    pub rows_examined: u64,
    /// Rows returned (a Get of an absent row returns none).
    pub rows_returned: u64,
    /// Cells the query matcher looked at (versions, delete markers and filtered cells
    /// included; cells stepped over by a seek are not).
    pub cells_examined: u64,
    /// Cells returned.
    pub cells_returned: u64,
    /// Memstores (active and being flushed) read.
    pub memstores_read: u64,
    /// Store files read (opened for the read, not left out).
    pub files_read: u64,
    /// Store files left out because no row of theirs lies in the read's row range.
    pub files_skipped_by_key_range: u64,
    /// Store files left out because their time range cannot match the read's (or every cell
    /// in them has expired).
    pub files_skipped_by_time_range: u64,
    /// Store files a Get left out because their bloom filter proved the row (or columns)
    /// absent.
    pub files_skipped_by_bloom: u64,
    /// Data blocks found in the block cache.
    pub blocks_from_cache: u64,
    /// Data blocks read from the files (the cache missed, or the family does not cache).
    pub blocks_from_disk: u64,
    /// Bytes of data blocks decompressed (their size after decompression; blocks stored
    /// uncompressed count nothing).
    pub bytes_decompressed: u64,
    /// Seeks of a store's merged cursor (to a row, past a column or row, to a filter's hint).
    pub seeks: u64,
}

/// The names [`ReadCost`]'s `Display` and `FromStr` use, in order, with each field.
macro_rules! cost_fields {
    ($m:ident) => {
        $m! {
            regions_visited,
            rows_examined,
            rows_returned,
            cells_examined,
            cells_returned,
            memstores_read,
            files_read,
            files_skipped_by_key_range,
            files_skipped_by_time_range,
            files_skipped_by_bloom,
            blocks_from_cache,
            blocks_from_disk,
            bytes_decompressed,
            seeks
        }
    };
}

impl ReadCost {
    /// Every field with its name, in the order of the explain line.
    pub fn fields(&self) -> Vec<(&'static str, u64)> {
        macro_rules! list {
            ($($f:ident),*) => { vec![$((stringify!($f), self.$f)),*] };
        }
        cost_fields!(list)
    }

    /// Adds `other`, field by field.
    pub fn add(&mut self, other: &ReadCost) {
        macro_rules! sum {
            ($($f:ident),*) => {{ $(self.$f += other.$f;)* }};
        }
        cost_fields!(sum)
    }

    /// Takes `other` away, field by field (`other` counted no more than `self`).
    fn subtract(&mut self, other: &ReadCost) {
        macro_rules! minus {
            ($($f:ident),*) => {{ $(self.$f = self.$f.saturating_sub(other.$f);)* }};
        }
        cost_fields!(minus)
    }

    fn set(&mut self, name: &str, value: u64) -> bool {
        macro_rules! assign {
            ($($f:ident),*) => {
                match name {
                    $(stringify!($f) => self.$f = value,)*
                    _ => return false,
                }
            };
        }
        cost_fields!(assign);
        true
    }
}

impl fmt::Display for ReadCost {
    /// The explain line: `name=value` for every field, space-separated, in a fixed order
    /// (what the slow log and the `ferrobaseAdmin` extension carry).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value)) in self.fields().into_iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{name}={value}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for ReadCost {
    type Err = String;

    /// Reads an explain line back. Names it does not know are skipped (a newer server's
    /// fields); a pair without `=` or a value that is not a number is an error naming it.
    fn from_str(s: &str) -> Result<ReadCost, String> {
        let mut cost = ReadCost::default();
        for pair in s.split_whitespace() {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("explain line: {pair:?} is not name=value"))?;
            let value = value
                .parse()
                .map_err(|_| format!("explain line: {name}'s value {value:?} is not a count"))?;
            cost.set(name, value);
        }
        Ok(cost)
    }
}

thread_local! {
    /// Whether a recording is in force on this thread.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    /// What the recording in force has counted.
    static COST: Cell<ReadCost> = const { Cell::new(ZERO) };
}

const ZERO: ReadCost = ReadCost {
    regions_visited: 0,
    rows_examined: 0,
    rows_returned: 0,
    cells_examined: 0,
    cells_returned: 0,
    memstores_read: 0,
    files_read: 0,
    files_skipped_by_key_range: 0,
    files_skipped_by_time_range: 0,
    files_skipped_by_bloom: 0,
    blocks_from_cache: 0,
    blocks_from_disk: 0,
    bytes_decompressed: 0,
    seeks: 0,
};

/// Adds to the recording in force on this thread, if any: one flag read otherwise.
#[inline]
pub(crate) fn record(f: impl FnOnce(&mut ReadCost)) {
    if RECORDING.with(Cell::get) {
        COST.with(|c| {
            let mut cost = c.get();
            f(&mut cost);
            c.set(cost);
        });
    }
}

/// A recording of what the reads on this thread cost, in force until [`CostRecording::finish`]
/// (or drop, which adds what it counted to the recording it interrupted, if any, as finish
/// does). Not `Send`: it belongs to the thread that started it.
#[derive(Debug)]
#[must_use = "the recording holds only while the guard lives"]
pub struct CostRecording {
    /// The recording this one interrupted: whether one was in force, and what it had.
    previous: Option<(bool, ReadCost)>,
    /// What this recording went on from (counted by earlier recordings).
    base: ReadCost,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl CostRecording {
    /// Starts recording on this thread from zero.
    pub fn start() -> CostRecording {
        CostRecording::resume(ReadCost::default())
    }

    /// Starts recording on this thread, going on from `so_far` (a scanner's record between
    /// calls).
    pub fn resume(so_far: ReadCost) -> CostRecording {
        let was = RECORDING.with(|r| r.replace(true));
        let had = COST.with(|c| c.replace(so_far));
        CostRecording {
            previous: Some((was, had)),
            base: so_far,
            _not_send: std::marker::PhantomData,
        }
    }

    /// What the reads on this thread cost since the recording started (with `resume`, on top
    /// of what it went on from), without ending it.
    pub fn so_far(&self) -> ReadCost {
        COST.with(Cell::get)
    }

    /// Adds `cost`, counted on another thread for a call of this one (a batch a worker read
    /// ahead for the call that takes it), to the recording in force on this thread, if any.
    pub fn credit(cost: &ReadCost) {
        record(|c| c.add(cost));
    }

    /// Ends the recording and answers what it counted.
    pub fn finish(mut self) -> ReadCost {
        self.end()
    }

    fn end(&mut self) -> ReadCost {
        let Some((was, had)) = self.previous.take() else {
            return ReadCost::default();
        };
        let mine = COST.with(|c| c.replace(had));
        RECORDING.with(|r| r.set(was));
        if was {
            // An outer recording counts what this one did too; a resumed record's earlier
            // calls were counted by the outer recordings of their own calls.
            COST.with(|c| {
                let mut outer = c.get();
                outer.add(&mine);
                outer.subtract(&self.base);
                c.set(outer);
            });
        }
        mine
    }
}

impl Drop for CostRecording {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explain_line_reads_back() {
        let cost = ReadCost {
            rows_examined: 3,
            blocks_from_disk: 2,
            seeks: 7,
            ..ReadCost::default()
        };
        let line = cost.to_string();
        assert!(
            line.starts_with("regions_visited=0 rows_examined=3 "),
            "{line}"
        );
        assert_eq!(line.parse::<ReadCost>().unwrap(), cost);
        assert_eq!(
            "later_field=9 seeks=1".parse::<ReadCost>().unwrap().seeks,
            1
        );
        assert!("seeks".parse::<ReadCost>().is_err());
        assert!("seeks=x".parse::<ReadCost>().is_err());
    }

    #[test]
    fn nothing_is_counted_without_a_recording_and_recordings_nest() {
        record(|c| c.seeks += 1);
        let outer = CostRecording::start();
        record(|c| c.seeks += 1);
        let inner = CostRecording::resume(ReadCost {
            seeks: 10,
            ..ReadCost::default()
        });
        record(|c| c.seeks += 1);
        assert_eq!(inner.finish().seeks, 11);
        // The outer recording sees what the inner one counted while it was in force, not
        // what it resumed from.
        assert_eq!(outer.so_far().seeks, 2);
        assert_eq!(outer.finish().seeks, 2);
        record(|c| c.seeks += 1);
        assert_eq!(CostRecording::start().finish(), ReadCost::default());
    }

    #[test]
    fn a_credit_counts_only_where_a_recording_is_in_force() {
        let elsewhere = ReadCost {
            rows_returned: 100,
            blocks_from_disk: 2,
            ..ReadCost::default()
        };
        CostRecording::credit(&elsewhere);
        let call = CostRecording::start();
        CostRecording::credit(&elsewhere);
        record(|c| c.rows_returned += 1);
        let cost = call.finish();
        assert_eq!((cost.rows_returned, cost.blocks_from_disk), (101, 2));
        assert_eq!(CostRecording::start().finish(), ReadCost::default());
    }
}
