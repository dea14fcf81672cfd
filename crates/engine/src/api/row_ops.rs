//! Atomic single-row operations on a [`Table`]: increment, append and check-and-mutate.

use super::{Get, Mutation, Put, RowResult, Table};
use crate::error::{Error, Result};
use crate::filter::CompareOp;
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

impl Table {
    /// Adds `amount` to each `(family, qualifier, amount)` column of `row`, treating a missing
    /// cell as 0, and returns the new values. Values are 8-byte big-endian signed longs, as in
    /// HBase; a cell of another length is an [`Error::IllegalArgument`]. Atomic for the row;
    /// concurrent increments never lose an update.
    pub fn increment(&self, row: &[u8], columns: &[(&[u8], &[u8], i64)]) -> Result<Vec<i64>> {
        self.increment_with_ttl(row, columns, None)
    }

    /// [`Table::increment`] whose new cells get their own TTL in milliseconds (HBase's
    /// `Increment.setTTL`, see [`Put::ttl`]): once it passes, the counter reads as absent, and
    /// the next increment starts again from 0.
    pub fn increment_with_ttl(
        &self,
        row: &[u8],
        columns: &[(&[u8], &[u8], i64)],
        ttl_ms: Option<i64>,
    ) -> Result<Vec<i64>> {
        let mut get = Get::new(row);
        for (f, q, _) in columns {
            get = get.add_column(*f, *q);
        }
        let now = self.engine.inner.now_ms();
        self.engine
            .inner
            .read_modify_write(&self.name, &get, |current| {
                let mut put = Put::new(row);
                let mut out = Vec::with_capacity(columns.len());
                for (f, q, amount) in columns {
                    let old = current.versions(f, q).into_iter().next();
                    let base = match old {
                        None => 0,
                        Some(c) => {
                            let bytes: [u8; 8] =
                                c.value().try_into().map_err(|_| Error::NotALong {
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
                    out.push(new);
                }
                put.ttl_ms = ttl_ms;
                Ok((vec![Mutation::Put(put)], out))
            })
    }

    /// Appends each `(family, qualifier, suffix)` to the current value (empty when absent) and
    /// returns the new cells, written at `max(old timestamp + 1, now)` as increments are.
    /// Atomic for the row.
    pub fn append(&self, row: &[u8], columns: &[(&[u8], &[u8], &[u8])]) -> Result<RowResult> {
        self.append_with_ttl(row, columns, None)
    }

    /// [`Table::append`] whose new cells get their own TTL in milliseconds (HBase's
    /// `Append.setTTL`, see [`Put::ttl`]).
    pub fn append_with_ttl(
        &self,
        row: &[u8],
        columns: &[(&[u8], &[u8], &[u8])],
        ttl_ms: Option<i64>,
    ) -> Result<RowResult> {
        let mut get = Get::new(row);
        for (f, q, _) in columns {
            get = get.add_column(*f, *q);
        }
        let now = self.engine.inner.now_ms();
        self.engine
            .inner
            .read_modify_write(&self.name, &get, |current| {
                let mut put = Put::new(row);
                let mut cells = Vec::new();
                for (f, q, suffix) in columns {
                    let old = current.versions(f, q).into_iter().next();
                    let mut value = old.map(|c| c.value().to_vec()).unwrap_or_default();
                    value.extend_from_slice(suffix);
                    let ts = delta_timestamp(old.map(|c| c.timestamp()), now);
                    put = put.add_column_ts(*f, *q, ts, value.clone());
                    cells.push(crate::cell::Cell::new(
                        Bytes::copy_from_slice(row),
                        Bytes::copy_from_slice(f),
                        Bytes::copy_from_slice(q),
                        ts,
                        crate::cell::CellType::Put,
                        Bytes::from(value),
                    ));
                }
                put.ttl_ms = ttl_ms;
                Ok((
                    vec![Mutation::Put(put)],
                    RowResult::new(Bytes::copy_from_slice(row), cells),
                ))
            })
    }

    /// Applies `mutations` (all on `row`: puts and deletes, as a RowMutations) only if the
    /// check holds, and returns whether they were applied. Atomic for the row.
    ///
    /// The check is HBase's: with `expected = Some(v)`, the newest value `actual` of
    /// `family:qualifier` must exist and satisfy `v OP actual` (so `Less` means the expected
    /// value is less than the stored one); with `None`, the column must be absent (or empty,
    /// unless `op` is `NotEqual`).
    pub fn check_and_mutate(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        op: CompareOp,
        expected: Option<&[u8]>,
        mutations: Vec<Mutation>,
    ) -> Result<bool> {
        let get = Get::new(row).add_column(family, qualifier);
        self.engine
            .inner
            .read_modify_write(&self.name, &get, |current| {
                let actual = current.value(family, qualifier);
                let holds = match (expected, actual) {
                    (None, None) => true,
                    (None, Some(a)) => a.is_empty() && op != CompareOp::NotEqual,
                    (Some(_), None) => false,
                    (Some(e), Some(a)) => op.holds(e.cmp(a)),
                };
                if !holds {
                    return Ok((Vec::new(), false));
                }
                Ok((mutations.clone(), true))
            })
    }
}
