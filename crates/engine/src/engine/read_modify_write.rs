//! Read-modify-write operations on one row (HBase's Increment, Append, CheckAndMutate): the row
//! is locked, read at a read point that includes every earlier such operation, and written
//! back atomically before the lock is released. [`crate::Table::increment`],
//! [`crate::Table::append`] and [`crate::Table::check_and_mutate`] are their public face.

use super::Inner;
use crate::api::{Check, CheckedWrite, Get, Mutation, Put, RowResult};
use crate::cell::{Cell, CellType};
use crate::error::{Error, Result};
use crate::filter::CompareOp;
use crate::schema::TableName;
use bytes::Bytes;

/// The timestamp of an increment's or append's new cell over a cell at `old`: HBase's
/// `max(old + 1, now)` (`HRegion.reckonDelta`), so the previous value stays readable as an older
/// version, except for an old cell of this very millisecond, which is replaced as before
/// HBase 2. HBase's calls take longer than a millisecond, so its clients never see a
/// same-millisecond chain of increments run ahead of the clock; ferrobase's take microseconds,
/// and `max(old + 1, now)` there would put a counter ahead of every later put of that cell
/// (happybase's own `test_atomic_counters` sets a counter right after incrementing it).
fn delta_timestamp(old: Option<i64>, now: i64) -> i64 {
    match old {
        Some(t) if t != now => t.saturating_add(1).max(now),
        _ => now,
    }
}

/// The condition of a check-and-mutate: the newest value of `family:qualifier` against
/// `expected` (the rule is [`crate::Table::check_and_mutate`]'s).
#[derive(Debug, Clone, Copy)]
struct RowCheck<'a> {
    /// The checked column's family.
    family: &'a [u8],
    /// The checked column's qualifier.
    qualifier: &'a [u8],
    /// How `expected` compares with the stored value.
    op: CompareOp,
    /// The value compared, or `None` for "absent (or empty)".
    expected: Option<&'a [u8]>,
}

impl RowCheck<'_> {
    /// Whether the check holds on `current`, the row as read. An empty expected value is no
    /// value (HBase's `HRegion.checkAndMutateInternal`: `valueIsNull` is null or empty): the
    /// column must be absent or empty, or with `NotEqual` present and not empty.
    fn holds(&self, current: &RowResult) -> bool {
        let expected = self.expected.filter(|e| !e.is_empty());
        match (expected, current.value(self.family, self.qualifier)) {
            (None, None) => self.op != CompareOp::NotEqual,
            (None, Some(a)) => a.is_empty() == (self.op != CompareOp::NotEqual),
            (Some(_), None) => false,
            (Some(e), Some(a)) => self.op.holds(e.cmp(a)),
        }
    }
}

/// A `Get` of `row` reading each `(family, qualifier, _)` of `columns`.
fn columns_get<T>(row: &[u8], columns: &[(&[u8], &[u8], T)]) -> Get {
    columns
        .iter()
        .fold(Get::new(row), |get, (f, q, _)| get.add_column(*f, *q))
}

impl Inner {
    /// Adds `amount` to each `(family, qualifier, amount)` column of `row` of `table` (a missing
    /// cell counts as 0) and returns the new cells, in `columns`' order (values 8-byte
    /// big-endian); they get `ttl_ms` if given.
    pub(crate) fn increment(
        &self,
        table: &TableName,
        row: &[u8],
        columns: &[(&[u8], &[u8], i64)],
        ttl_ms: Option<i64>,
    ) -> Result<RowResult> {
        let get = columns_get(row, columns);
        let now = self.now_ms();
        self.read_modify_write(table, &get, None, |current, _| {
            let (put, result) = incremented(row, columns, ttl_ms, now, current)?;
            Ok((vec![Mutation::Put(put)], result))
        })
    }
}

/// The put of an increment of `columns` over `current` (the row as read), and its answer.
fn incremented(
    row: &[u8],
    columns: &[(&[u8], &[u8], i64)],
    ttl_ms: Option<i64>,
    now: i64,
    current: &RowResult,
) -> Result<(Put, RowResult)> {
    let mut put = Put::new(row);
    let mut out = Vec::with_capacity(columns.len());
    for (f, q, amount) in columns {
        let old = current.versions(f, q).into_iter().next();
        let base = match old {
            None => 0,
            Some(c) => {
                let bytes: [u8; 8] = c.value().try_into().map_err(|_| Error::NotALong {
                    column: format!(
                        "{}:{}",
                        String::from_utf8_lossy(f),
                        String::from_utf8_lossy(q)
                    ),
                    width: c.value().len(),
                })?;
                i64::from_be_bytes(bytes)
            }
        };
        let new = base.wrapping_add(*amount);
        let ts = delta_timestamp(old.map(|c| c.timestamp()), now);
        put = put.add_column_ts(*f, *q, ts, new.to_be_bytes().to_vec());
        out.push(Cell::new(
            Bytes::copy_from_slice(row),
            Bytes::copy_from_slice(f),
            Bytes::copy_from_slice(q),
            ts,
            CellType::Put,
            Bytes::copy_from_slice(&new.to_be_bytes()),
        ));
    }
    put.ttl_ms = ttl_ms;
    Ok((put, RowResult::new(Bytes::copy_from_slice(row), out)))
}

impl Inner {
    /// Appends each `(family, qualifier, suffix)` to the current value of `row` of `table`
    /// (empty when absent) and returns the new cells; they get `ttl_ms` if given.
    pub(crate) fn append(
        &self,
        table: &TableName,
        row: &[u8],
        columns: &[(&[u8], &[u8], &[u8])],
        ttl_ms: Option<i64>,
    ) -> Result<RowResult> {
        let get = columns_get(row, columns);
        let now = self.now_ms();
        self.read_modify_write(table, &get, None, |current, _| {
            let (put, result) = appended(row, columns, ttl_ms, now, current);
            Ok((vec![Mutation::Put(put)], result))
        })
    }
}

/// The put of an append to `columns` over `current` (the row as read), and its answer.
fn appended(
    row: &[u8],
    columns: &[(&[u8], &[u8], &[u8])],
    ttl_ms: Option<i64>,
    now: i64,
    current: &RowResult,
) -> (Put, RowResult) {
    let mut put = Put::new(row);
    let mut cells = Vec::new();
    for (f, q, suffix) in columns {
        let old = current.versions(f, q).into_iter().next();
        let mut value = old.map(|c| c.value().to_vec()).unwrap_or_default();
        value.extend_from_slice(suffix);
        let ts = delta_timestamp(old.map(|c| c.timestamp()), now);
        put = put.add_column_ts(*f, *q, ts, value.clone());
        cells.push(Cell::new(
            Bytes::copy_from_slice(row),
            Bytes::copy_from_slice(f),
            Bytes::copy_from_slice(q),
            ts,
            CellType::Put,
            Bytes::from(value),
        ));
    }
    put.ttl_ms = ttl_ms;
    // The answer is in column order, as HBase's `Result` (stable: a column appended
    // twice keeps its request order).
    cells.sort_by(|a, b| {
        a.family()
            .cmp(b.family())
            .then_with(|| a.qualifier().cmp(b.qualifier()))
    });
    (put, RowResult::new(Bytes::copy_from_slice(row), cells))
}

impl Inner {
    /// Applies `write` to `row` of `table` if `check` holds; returns whether it did and, for an
    /// increment or append, its answer.
    pub(crate) fn check_and_write(
        &self,
        table: &TableName,
        row: &[u8],
        check: &Check,
        write: &CheckedWrite,
    ) -> Result<(bool, Option<RowResult>)> {
        let (get, value) = match check {
            Check::Value {
                family,
                qualifier,
                op,
                expected,
                time_range,
            } => (
                Get::new(row)
                    .add_column(family.clone(), qualifier.clone())
                    .time_range(*time_range),
                Some(RowCheck {
                    family,
                    qualifier,
                    op: *op,
                    expected: expected.as_deref(),
                }),
            ),
            Check::Read(get) => {
                if get.row != row {
                    return Err(Error::IllegalArgument(format!(
                        "Action's getRow must match: the condition reads row '{}', the \
                         mutation writes row '{}'",
                        get.row.escape_ascii(),
                        row.escape_ascii()
                    )));
                }
                (get.clone(), None)
            }
        };
        // An increment or append also reads the columns it changes (their newest versions, at
        // the condition's read point).
        let increments: Vec<(&[u8], &[u8], i64)> = match write {
            CheckedWrite::Increment { columns, .. } => columns
                .iter()
                .map(|(f, q, a)| (&f[..], &q[..], *a))
                .collect(),
            _ => Vec::new(),
        };
        let appends: Vec<(&[u8], &[u8], &[u8])> = match write {
            CheckedWrite::Append { columns, .. } => columns
                .iter()
                .map(|(f, q, v)| (&f[..], &q[..], &v[..]))
                .collect(),
            _ => Vec::new(),
        };
        let extra = match write {
            CheckedWrite::Mutations(_) => None,
            CheckedWrite::Increment { .. } => Some(columns_get(row, &increments)),
            CheckedWrite::Append { .. } => Some(columns_get(row, &appends)),
        };
        let now = self.now_ms();
        self.read_modify_write(table, &get, extra.as_ref(), |current, columns| {
            // A filter condition holds when the read returns anything (HBase's
            // `HRegion.checkAndMutateInternal`: `matches = !result.isEmpty()`).
            let holds = value
                .as_ref()
                .map_or(!current.is_empty(), |c| c.holds(current));
            if !holds {
                return Ok((Vec::new(), (false, None)));
            }
            let empty = RowResult::new(Bytes::copy_from_slice(row), Vec::new());
            let columns = columns.unwrap_or(&empty);
            Ok(match write {
                CheckedWrite::Mutations(m) => (m.clone(), (true, None)),
                CheckedWrite::Increment { ttl_ms, .. } => {
                    let (put, result) = incremented(row, &increments, *ttl_ms, now, columns)?;
                    (vec![Mutation::Put(put)], (true, Some(result)))
                }
                CheckedWrite::Append { ttl_ms, .. } => {
                    let (put, result) = appended(row, &appends, *ttl_ms, now, columns);
                    (vec![Mutation::Put(put)], (true, Some(result)))
                }
            })
        })
    }

    /// Locks `row`, reads it with `get` (and `extra`, at the same read point), and applies the
    /// mutations `decide` returns (if any). Returns what `decide` returned alongside.
    fn read_modify_write<T>(
        &self,
        table: &TableName,
        get: &Get,
        extra: Option<&Get>,
        mut decide: impl FnMut(&RowResult, Option<&RowResult>) -> Result<(Vec<Mutation>, T)>,
    ) -> Result<T> {
        let _op = self.enter()?;
        loop {
            let entry = crate::read::checked_table(self, table, &get.spec)?;
            let region = entry.region_for(&get.row);
            let _row = region.lock_rows(&[&get.row[..]]);
            if region.is_closed() {
                continue;
            }
            let read_point = self.mvcc.read_point();
            let current = crate::read::get_in_region(self, &region, get, read_point)?;
            let more = match extra {
                Some(g) => Some(crate::read::get_in_region(self, &region, g, read_point)?),
                None => None,
            };
            let (muts, out) = decide(&current, more.as_ref())?;
            if muts.is_empty() {
                return Ok(out);
            }
            for m in &muts {
                if m.row() != get.row {
                    // HBase's HRegion.checkAndMutate: "Action's getRow must match".
                    return Err(Error::IllegalArgument(format!(
                        "Action's getRow must match: a checked or atomic mutation must stay on \
                         its row ('{}'), not row '{}'",
                        get.row.escape_ascii(),
                        m.row().escape_ascii()
                    )));
                }
                self.validate(&entry.descriptor, m)?;
            }
            match self.apply_locked(&entry.descriptor, &region, muts)? {
                None => return Ok(out),
                Some(_) => continue, // the region split under us: read again
            }
        }
    }
}
