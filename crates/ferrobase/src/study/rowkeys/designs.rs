//! The four key designs of a time-ordered event stream (article 5's rowkey rules), declared
//! with the rowkey crate, and how each answers a time range and a point get.
//!
//! | design | key schema | a time range is |
//! |--------|------------|-----------------|
//! | sequential | `ts:u64, seq:u32` | one scan |
//! | salted | `b:salt:N, ts:u64, seq:u32` (bucket = hash of ts, seq mod N) | N scans, merged |
//! | hashed | `h:md5:1(ts,seq), ts:u64, seq:u32` | 256 scans (one per first hash byte), merged |
//! | reversed | `t:str13, seq:u32` (the 13-digit decimal timestamp, digits reversed) | a full scan, filtered |
//!
//! The rowkey crate's `rev` type reverses the labels of a dotted name (`www.example.com` ->
//! `com.example.www`), not characters: a timestamp has no dots, so `rev` would store it
//! unchanged and sequential. The reversed design reverses the digits itself.

use anyhow::{bail, Result};
use ferrobase_engine::{Get, RowResult, Scan, Table};
use ferrobase_rowkey::{Schema, Value};
use std::ops::Bound;

/// A key design.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// Timestamp first: every write lands at the end of the key space.
    Sequential,
    /// A salt bucket byte in front.
    Salted,
    /// The first byte of the MD5 of the key in front.
    Hashed,
    /// The timestamp's decimal digits reversed (fastest-changing digit first).
    Reversed,
}

impl Design {
    /// All four, in the order of the tables.
    pub const ALL: [Design; 4] = [
        Design::Sequential,
        Design::Salted,
        Design::Hashed,
        Design::Reversed,
    ];

    /// The design's name (also its table's).
    pub fn name(self) -> &'static str {
        match self {
            Design::Sequential => "sequential",
            Design::Salted => "salted",
            Design::Hashed => "hashed",
            Design::Reversed => "reversed",
        }
    }

    /// The key schema, for `buckets` salt buckets.
    pub fn schema_text(self, buckets: usize) -> String {
        match self {
            Design::Sequential => "ts:u64, seq:u32".into(),
            Design::Salted => format!("b:salt:{buckets}, ts:u64, seq:u32"),
            Design::Hashed => "h:md5:1(ts,seq), ts:u64, seq:u32".into(),
            Design::Reversed => "t:str13, seq:u32".into(),
        }
    }
}

/// A design's schema and the reads it issues.
pub struct Keys {
    /// Which design.
    pub design: Design,
    /// Its key schema.
    pub schema: Schema,
}

/// The timestamp as the reversed design writes it: 13 decimal digits, last digit first.
fn reversed_digits(ts: u64) -> String {
    format!("{ts:013}").chars().rev().collect()
}

impl Keys {
    /// The keys of `design` with `buckets` salt buckets.
    pub fn new(design: Design, buckets: usize) -> Result<Keys> {
        Ok(Keys {
            design,
            schema: design.schema_text(buckets).parse()?,
        })
    }

    /// The row of event `seq` at `ts`.
    pub fn row(&self, ts: u64, seq: u32) -> Result<Vec<u8>> {
        let seq = Value::U64(seq.into());
        Ok(match self.design {
            Design::Reversed => self
                .schema
                .encode(&[Value::Str(reversed_digits(ts)), seq])?,
            _ => self.schema.encode(&[Value::U64(ts), seq])?,
        })
    }

    /// The event's timestamp, from its row.
    fn ts_of(&self, row: &[u8]) -> Result<u64> {
        match self.schema.decode(row)?.first() {
            Some(Value::U64(ts)) => Ok(*ts),
            Some(Value::Str(s)) => Ok(s.chars().rev().collect::<String>().parse()?),
            other => bail!("unexpected first field {other:?}"),
        }
    }

    /// A point get of one event.
    pub fn get(&self, t: &Table, ts: u64, seq: u32) -> Result<RowResult> {
        Ok(t.get(&Get::new(self.row(ts, seq)?))?)
    }

    /// The events with `from <= ts <= to`, in time order, and the number of scans issued:
    /// the bucket ranges the rowkey crate computes, merged by its scatter-gather merge; for the
    /// reversed design, a full scan keeping the matching rows (then sorted).
    pub fn range(&self, t: &Table, from: u64, to: u64) -> Result<(Vec<RowResult>, usize)> {
        if self.design == Design::Reversed {
            let mut rows = Vec::new();
            for r in t.scanner(&Scan::new())? {
                let r = r?;
                if (from..=to).contains(&self.ts_of(r.row())?) {
                    rows.push(r);
                }
            }
            rows.sort_by_cached_key(|r| self.ts_of(r.row()).unwrap_or(0));
            return Ok((rows, 1));
        }
        let ranges = self.schema.field_ranges(
            &[],
            Bound::Included(Value::U64(from)),
            Bound::Included(Value::U64(to)),
        )?;
        let scans = ranges.len();
        let mut streams = Vec::with_capacity(scans);
        for r in &ranges {
            let scan = Scan::new()
                .with_start_row(r.start.clone())
                .with_stop_row(r.stop.clone());
            // Each bucket's rows as (key, result); an error (with an empty key) comes out of
            // the merge too, and fails the collect below.
            let rows = t.scanner(&scan)?.map(|r| match r {
                Ok(r) => (r.row().to_vec(), Ok(r)),
                Err(e) => (Vec::new(), Err(e)),
            });
            streams.push(rows);
        }
        let merged = self
            .schema
            .scatter_merge(streams, None)
            .map(|(_, r)| r)
            .collect::<Result<Vec<_>, _>>()?;
        Ok((merged, scans))
    }
}
