//! Article 1's two designs on the embedded engine: the data, the load, and each query as the
//! article issues it.
//!
//! | design | row key | qualifier |
//! |--------|---------|-----------|
//! | tall-narrow | `uid:u64dec10, ts:revts` (18 bytes) | empty |
//! | wide row | `uid:u64dec10` (10 bytes) | `ts:revts` (8 bytes) |
//!
//! The key schemas are the behaviour-log application's (`ferrobase_apps::behaviour_log`).

use anyhow::{ensure, Result};
use ferrobase_apps::behaviour_log::{TALL_KEY, WIDE_KEY, WIDE_QUALIFIER};
use ferrobase_engine::filter::{ColumnCountGetFilter, ColumnPaginationFilter, ColumnRangeFilter};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, Get, Put, RowResult, Scan, Table, TableDescriptor, TableName,
};
use ferrobase_rowkey::{Schema, Value};
use std::ops::Bound;
use std::time::{Duration, Instant};

/// The family of both tables.
pub const FAMILY: &str = "cf";
/// Timestamp of every user's first record (ms); records follow one a minute.
const BASE_TS: i64 = 1_700_000_000_000;
const STEP_MS: i64 = 60_000;
/// Puts per `put_all` call while loading.
const LOAD_BATCH: usize = 1000;

/// Which of the article's two designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// One row per record: `uid + (Long.MAX_VALUE - ts)`.
    Tall,
    /// One row per user, one column per record.
    Wide,
}

impl Design {
    /// Both, tall first.
    pub const BOTH: [Design; 2] = [Design::Tall, Design::Wide];

    /// The table's name.
    pub fn table(self) -> &'static str {
        match self {
            Design::Tall => "tall",
            Design::Wide => "wide",
        }
    }
}

/// The keys of both designs.
pub struct Keys {
    tall: Schema,
    wide: Schema,
    qualifier: Schema,
}

impl Keys {
    /// The behaviour log's schemas.
    pub fn new() -> Result<Keys> {
        Ok(Keys {
            tall: TALL_KEY.parse()?,
            wide: WIDE_KEY.parse()?,
            qualifier: WIDE_QUALIFIER.parse()?,
        })
    }

    fn tall_row(&self, uid: u64, ts: i64) -> Result<Vec<u8>> {
        Ok(self.tall.encode(&[Value::U64(uid), Value::I64(ts)])?)
    }

    fn user_row(&self, uid: u64) -> Result<Vec<u8>> {
        Ok(self.wide.encode(&[Value::U64(uid)])?)
    }

    fn qualifier(&self, ts: i64) -> Result<Vec<u8>> {
        Ok(self.qualifier.encode(&[Value::I64(ts)])?)
    }
}

/// The timestamp of record `j` (0 = oldest) of any user.
pub fn record_ts(j: u64) -> i64 {
    BASE_TS + j as i64 * STEP_MS
}

/// The value of record `j` of user `uid`: a URL of 38 bytes, as the article's "items viewed".
fn record_value(uid: u64, j: u64) -> Vec<u8> {
    format!(
        "https://shop.example.com/item/{:08}",
        (uid * 7919 + j) % 100_000_000
    )
    .into_bytes()
}

/// Creates `design`'s table with the family at HBase's defaults (64 KiB blocks, ROW bloom, no
/// compression or encoding, 1 version).
pub fn create_table(engine: &Engine, design: Design) -> Result<Table> {
    let desc = TableDescriptor::new(TableName::parse(design.table())?)
        .with_family(ColumnFamilyDescriptor::new(FAMILY));
    engine.admin().create_table(desc)?;
    Ok(engine.table(design.table())?)
}

/// Writes `records` records for each of `users` users in time order (every user's record
/// `j` before anyone's `j + 1`), in batches of 1000 puts. Returns the time the puts took.
pub fn load(t: &Table, keys: &Keys, design: Design, users: u64, records: u64) -> Result<Duration> {
    let start = Instant::now();
    let mut batch = Vec::with_capacity(LOAD_BATCH);
    for j in 0..records {
        let ts = record_ts(j);
        for uid in 0..users {
            let value = record_value(uid, j);
            batch.push(match design {
                Design::Tall => {
                    Put::with_timestamp(keys.tall_row(uid, ts)?, ts).add_column(FAMILY, "", value)
                }
                Design::Wide => Put::with_timestamp(keys.user_row(uid)?, ts).add_column(
                    FAMILY,
                    keys.qualifier(ts)?,
                    value,
                ),
            });
            if batch.len() == LOAD_BATCH {
                t.put_all(std::mem::replace(
                    &mut batch,
                    Vec::with_capacity(LOAD_BATCH),
                ))?;
            }
        }
    }
    t.put_all(batch)?;
    Ok(start.elapsed())
}

/// What one read returned: records and the largest single result it was handed (cells'
/// heap size in bytes) — what a client and a region server hold at once for it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOutcome {
    /// Records returned.
    pub records: usize,
    /// The largest result, in bytes.
    pub largest_result: usize,
}

impl ReadOutcome {
    fn of(results: &[RowResult]) -> ReadOutcome {
        results
            .iter()
            .fold(ReadOutcome::default(), |acc, r| ReadOutcome {
                records: acc.records + r.cells.len(),
                largest_result: acc
                    .largest_result
                    .max(r.cells.iter().map(|c| c.heap_size()).sum()),
            })
    }
}

/// The queries of article 1, on one design.
pub struct Queries<'a> {
    /// The table read.
    pub table: &'a Table,
    /// The key schemas.
    pub keys: &'a Keys,
    /// The design the table holds.
    pub design: Design,
}

impl Queries<'_> {
    /// The newest `n` records of `uid`: tall, a scan of the user's prefix with a limit of `n`
    /// (the article's `setCaching(N)` + `next(N)`); wide, a Get with `ColumnCountGetFilter(n)`,
    /// or with `ColumnPaginationFilter(n, 0)` when `pagination`.
    pub fn newest(&self, uid: u64, n: usize, pagination: bool) -> Result<ReadOutcome> {
        let results = match self.design {
            Design::Tall => {
                let scan = Scan::new()
                    .with_row_prefix(self.keys.user_row(uid)?)
                    .caching(n)
                    .limit(n);
                self.table.scanner(&scan)?.next_batch(n)?
            }
            Design::Wide => {
                let get = Get::new(self.keys.user_row(uid)?);
                let get = if pagination {
                    get.filter(Box::new(ColumnPaginationFilter::new(n as u64, 0)))
                } else {
                    get.filter(Box::new(ColumnCountGetFilter::new(n as u64)))
                };
                vec![self.table.get(&get)?]
            }
        };
        Ok(ReadOutcome::of(&results))
    }

    /// The record of `uid` at `ts`: tall, a Get of its row; wide, a Get of the user's row
    /// restricted to the column `cf:(MAX - ts)`.
    pub fn at(&self, uid: u64, ts: i64) -> Result<ReadOutcome> {
        let get = match self.design {
            Design::Tall => Get::new(self.keys.tall_row(uid, ts)?),
            Design::Wide => {
                Get::new(self.keys.user_row(uid)?).add_column(FAMILY, self.keys.qualifier(ts)?)
            }
        };
        Ok(ReadOutcome::of(&[self.table.get(&get)?]))
    }

    /// `uid`'s records with `from <= ts <= to`: tall, a scan of the key range the rowkey crate
    /// computes; wide, a Get with `ColumnRangeFilter(MAX - to, true, MAX - from, true)`.
    pub fn range(&self, uid: u64, from: i64, to: i64) -> Result<ReadOutcome> {
        let results = match self.design {
            Design::Tall => {
                let r = self
                    .keys
                    .tall
                    .field_ranges(
                        &[Value::U64(uid)],
                        Bound::Included(Value::I64(from)),
                        Bound::Included(Value::I64(to)),
                    )?
                    .remove(0);
                let scan = Scan::new().with_start_row(r.start).with_stop_row(r.stop);
                self.table.scan_all(&scan)?
            }
            Design::Wide => {
                let filter = ColumnRangeFilter::new(
                    self.keys.qualifier(to)?,
                    true,
                    self.keys.qualifier(from)?,
                    true,
                );
                vec![self
                    .table
                    .get(&Get::new(self.keys.user_row(uid)?).filter(Box::new(filter)))?]
            }
        };
        Ok(ReadOutcome::of(&results))
    }

    /// Every record of `uid`: tall, a scan of the user's prefix; wide, a Get of the whole row,
    /// or with `batch` a scan of the row returning at most `batch` cells per result.
    pub fn history(&self, uid: u64, batch: Option<usize>) -> Result<ReadOutcome> {
        let prefix = self.keys.user_row(uid)?;
        let outcome = match (self.design, batch) {
            (Design::Wide, None) => ReadOutcome::of(&[self.table.get(&Get::new(prefix))?]),
            (_, batch) => {
                let mut scan = Scan::new().with_row_prefix(prefix);
                scan.batch = batch;
                let mut acc = ReadOutcome::default();
                for r in self.table.scanner(&scan)? {
                    let one = ReadOutcome::of(&[r?]);
                    acc.records += one.records;
                    acc.largest_result = acc.largest_result.max(one.largest_result);
                }
                acc
            }
        };
        Ok(outcome)
    }
}

/// Checks a read returned `expected` records.
pub fn expect(what: &str, got: ReadOutcome, expected: usize) -> Result<()> {
    ensure!(
        got.records == expected,
        "{what} returned {} records, expected {expected}",
        got.records
    );
    Ok(())
}
