//! Puts and Deletes (HBase's `Put`, `Delete`).

use crate::cell::{CellType, LATEST_TIMESTAMP};
use crate::schema::Durability;
use bytes::Bytes;

/// One cell of a mutation, before the server assigns timestamps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutationCell {
    /// Column family.
    pub family: Bytes,
    /// Qualifier (empty for family-level markers).
    pub qualifier: Bytes,
    /// Timestamp in ms; [`LATEST_TIMESTAMP`] means "now" (and for a version delete, "the
    /// newest version").
    pub timestamp: i64,
    /// Put or a delete-marker type.
    pub cell_type: CellType,
    /// Value (empty for markers). A slice of a larger buffer (a request's) costs no copy:
    /// the memstore copies what it keeps.
    pub value: Bytes,
}

/// Writes cells to one row atomically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    /// Row key.
    pub row: Bytes,
    /// Cells to write.
    pub cells: Vec<MutationCell>,
    /// Default timestamp for cells added without one.
    pub timestamp: i64,
    /// WAL durability.
    pub durability: Durability,
    /// Time to live of the put's cells in milliseconds, counted from each cell's timestamp
    /// (HBase's `Mutation.setTTL`, stored with every cell). `None` (the default): only the
    /// family's TTL applies; a cell TTL can shorten a cell's life, never extend it.
    pub ttl_ms: Option<i64>,
}

impl Put {
    /// A put on `row` with server-assigned timestamps.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Put {
            row: Bytes::from(row.into()),
            cells: Vec::new(),
            timestamp: LATEST_TIMESTAMP,
            durability: Durability::UseDefault,
            ttl_ms: None,
        }
    }

    /// A put whose cells default to timestamp `ts`.
    pub fn with_timestamp(row: impl Into<Vec<u8>>, ts: i64) -> Self {
        Put {
            timestamp: ts,
            ..Put::new(row)
        }
    }

    /// Adds `family:qualifier = value` at the put's timestamp.
    pub fn add_column(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        let ts = self.timestamp;
        self.cells.push(MutationCell {
            family: Bytes::from(family.into()),
            qualifier: Bytes::from(qualifier.into()),
            timestamp: ts,
            cell_type: CellType::Put,
            value: Bytes::from(value.into()),
        });
        self
    }

    /// Adds `family:qualifier = value` at the put's timestamp, holding the buffers given
    /// instead of copying them: a family, qualifier or value shared by many puts (a bulk load's)
    /// is one buffer, each put a reference to it.
    pub fn add_cell(mut self, family: Bytes, qualifier: Bytes, value: Bytes) -> Self {
        let ts = self.timestamp;
        self.cells.push(MutationCell {
            family,
            qualifier,
            timestamp: ts,
            cell_type: CellType::Put,
            value,
        });
        self
    }

    /// Adds `family:qualifier = value` at timestamp `ts`.
    pub fn add_column_ts(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        ts: i64,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        self.cells.push(MutationCell {
            family: Bytes::from(family.into()),
            qualifier: Bytes::from(qualifier.into()),
            timestamp: ts,
            cell_type: CellType::Put,
            value: Bytes::from(value.into()),
        });
        self
    }

    /// Sets the durability.
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Gives the put's cells a time to live (HBase's `Put.setTTL`): a cell is gone from reads
    /// once `timestamp + ttl` is in the past, and flushes and compactions drop it. Durations
    /// past `i64::MAX` milliseconds saturate.
    pub fn ttl(self, ttl: std::time::Duration) -> Self {
        self.ttl_ms(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX))
    }

    /// [`Put::ttl`] in milliseconds, as HBase's `_ttl` attribute carries it (a TTL of 0 or
    /// below expires the cells at once).
    pub fn ttl_ms(mut self, ttl_ms: i64) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self
    }
}

/// Deletes from one row atomically. With no entries it deletes the whole row (every family)
/// up to its timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    /// Row key.
    pub row: Bytes,
    /// Markers to write.
    pub cells: Vec<MutationCell>,
    /// The delete's timestamp: the default for entries added without one.
    pub timestamp: i64,
    /// WAL durability.
    pub durability: Durability,
    /// The markers' own TTL in milliseconds (HBase's `Mutation.setTTL` on a Delete: its
    /// markers carry the TTL tag as a put's cells do, and an expired marker deletes nothing).
    pub ttl_ms: Option<i64>,
}

impl Delete {
    /// A delete of `row` at the current time.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Delete {
            row: Bytes::from(row.into()),
            cells: Vec::new(),
            timestamp: LATEST_TIMESTAMP,
            durability: Durability::UseDefault,
            ttl_ms: None,
        }
    }

    /// A delete whose entries default to `ts` (a whole-row delete of everything ≤ `ts`).
    pub fn with_timestamp(row: impl Into<Vec<u8>>, ts: i64) -> Self {
        Delete {
            timestamp: ts,
            ..Delete::new(row)
        }
    }

    fn push(mut self, family: Vec<u8>, qualifier: Vec<u8>, ts: i64, t: CellType) -> Self {
        self.cells.push(MutationCell {
            family: Bytes::from(family),
            qualifier: Bytes::from(qualifier),
            timestamp: ts,
            cell_type: t,
            value: Bytes::new(),
        });
        self
    }

    /// Every version of every column of `family` with timestamp ≤ the delete's timestamp.
    /// Replaces the entries of `family` added before it ([`Delete::add_family_ts`]).
    pub fn add_family(self, family: impl Into<Vec<u8>>) -> Self {
        let ts = self.timestamp;
        self.add_family_ts(family, ts)
    }

    /// Every version of every column of `family` with timestamp ≤ `ts`. As HBase's
    /// `Delete.addFamily`, the entries of `family` added before it are discarded (a column
    /// delete then a family delete writes the family marker alone); entries added after it
    /// stay.
    pub fn add_family_ts(mut self, family: impl Into<Vec<u8>>, ts: i64) -> Self {
        let family = family.into();
        self.cells.retain(|c| c.family != family);
        self.push(family, Vec::new(), ts, CellType::DeleteFamily)
    }

    /// Every column of `family` at exactly `ts`.
    pub fn add_family_version(self, family: impl Into<Vec<u8>>, ts: i64) -> Self {
        self.push(family.into(), Vec::new(), ts, CellType::DeleteFamilyVersion)
    }

    /// Every version of the column with timestamp ≤ the delete's timestamp.
    pub fn add_columns(self, family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Self {
        let ts = self.timestamp;
        self.push(family.into(), qualifier.into(), ts, CellType::DeleteColumn)
    }

    /// Every version of the column with timestamp ≤ `ts`.
    pub fn add_columns_ts(
        self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        ts: i64,
    ) -> Self {
        self.push(family.into(), qualifier.into(), ts, CellType::DeleteColumn)
    }

    /// The newest version of the column (resolved by the server when the delete has no
    /// explicit timestamp), or the version at the delete's timestamp.
    pub fn add_column(self, family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Self {
        let ts = self.timestamp;
        self.push(family.into(), qualifier.into(), ts, CellType::Delete)
    }

    /// The version of the column at exactly `ts`.
    pub fn add_column_ts(
        self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        ts: i64,
    ) -> Self {
        self.push(family.into(), qualifier.into(), ts, CellType::Delete)
    }

    /// Sets the durability.
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Gives the delete's markers their own TTL in milliseconds (see [`Put::ttl_ms`]): once
    /// `timestamp + ttl` is in the past the markers delete nothing, and flushes and
    /// compactions drop them.
    pub fn ttl_ms(mut self, ttl_ms: i64) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self
    }
}

/// Any single-row mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
}

impl Mutation {
    /// The row mutated.
    pub fn row(&self) -> &[u8] {
        match self {
            Mutation::Put(p) => &p.row,
            Mutation::Delete(d) => &d.row,
        }
    }

    /// The requested durability.
    pub fn durability(&self) -> Durability {
        match self {
            Mutation::Put(p) => p.durability,
            Mutation::Delete(d) => d.durability,
        }
    }
}

impl From<Put> for Mutation {
    fn from(p: Put) -> Self {
        Mutation::Put(p)
    }
}

impl From<Delete> for Mutation {
    fn from(d: Delete) -> Self {
        Mutation::Delete(d)
    }
}

/// The condition of a check-and-mutate ([`crate::Table::check_and_mutate_when`]; HBase's
/// `CheckAndMutate` condition).
#[derive(Debug, Clone)]
pub enum Check {
    /// The newest value of `family:qualifier` within `time_range` against `expected`
    /// (HBase's `ifEquals`, `ifMatches(family, qualifier, op, value)`, `ifNotExists`; the rule
    /// is [`crate::Table::check_and_mutate`]'s).
    Value {
        /// The checked column's family.
        family: Vec<u8>,
        /// The checked column's qualifier.
        qualifier: Vec<u8>,
        /// How `expected` compares with the stored value.
        op: crate::filter::CompareOp,
        /// The value compared, or `None` (or empty) for "absent or empty".
        expected: Option<Vec<u8>>,
        /// The versions looked at (HBase's `CheckAndMutate.Builder.timeRange`).
        time_range: crate::read::TimeRange,
    },
    /// The row as this `Get` reads it (its filter, time range and columns) holds a cell:
    /// HBase's `ifMatches(Filter)` with its `timeRange`, where the region reads the row with
    /// the filter and the condition holds when anything comes back. The `Get`'s row must be
    /// the mutated row.
    Read(crate::api::Get),
}

/// What a check-and-mutate writes when its check holds ([`crate::Table::check_and_write`]):
/// puts and deletes (a RowMutations), or an increment or append of the row's columns (HBase's
/// `CheckAndMutate.Builder.build(Increment)` and `build(Append)`, whose answer is the new cells).
#[derive(Debug, Clone)]
pub enum CheckedWrite {
    /// Puts and deletes of the row, applied together.
    Mutations(Vec<Mutation>),
    /// `(family, qualifier, amount)` added to each column (8-byte big-endian longs).
    Increment {
        /// The columns and amounts.
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        /// The new cells' TTL in milliseconds.
        ttl_ms: Option<i64>,
    },
    /// `(family, qualifier, suffix)` appended to each column's value.
    Append {
        /// The columns and suffixes.
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        /// The new cells' TTL in milliseconds.
        ttl_ms: Option<i64>,
    },
}
