//! Article 1's behaviour log: time-related records of a user (items viewed, URLs visited)
//! stored two ways.
//!
//! | scheme | table | row key | cell |
//! |--------|-------|---------|------|
//! | tall-narrow | `behaviour_tall` | `uid:u64dec10, ts:revts` (`uid + (Long.MAX_VALUE - ts)`) | `cf:` = item |
//! | wide row | `behaviour_wide` | `uid:u64dec10` | `cf:<Long.MAX_VALUE - ts, 8 bytes>` = item |
//!
//! Both sort a user's records newest first. The queries, as the article issues them:
//!
//! | query | tall-narrow | wide row |
//! |-------|-------------|----------|
//! | one record by timestamp | Get `uid + (MAX - ts)` | Get `uid`, column `cf:(MAX - ts)` |
//! | a time range `[from, to]` | Scan `[uid + (MAX - to), succ(uid + (MAX - from)))` | Get `uid` with `ColumnRangeFilter(MAX - to, true, MAX - from, true)` |
//! | the newest N | Scan `[uid, uid+1)` with `LIMIT => N` (the article's `setCaching(N)` + `next(N)`) | Get `uid` with `ColumnCountGetFilter(N)` |

use crate::error::{AppError, Result};
use crate::filter_text::quote;
use crate::scan_plan::ScanPlan;
use crate::table_setup::{ensure_tables, TableSpec};
use ferrobase_client::{Connection, Table};
use ferrobase_engine::{Get, Put, RowResult};
use ferrobase_rowkey::{Schema, Value};
use std::ops::Bound;

/// The tall-narrow table.
pub const TALL_TABLE: &str = "behaviour_tall";
/// The wide-row table.
pub const WIDE_TABLE: &str = "behaviour_wide";
/// The family of both tables.
pub const FAMILY: &str = "cf";
/// The tall-narrow key schema.
pub const TALL_KEY: &str = "uid:u64dec10, ts:revts";
/// The wide row's key schema.
pub const WIDE_KEY: &str = "uid:u64dec10";
/// The wide row's qualifier schema.
pub const WIDE_QUALIFIER: &str = "ts:revts";

/// Which of article 1's two designs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// One row per record: `uid + (MAX - ts)`.
    Tall,
    /// One row per user, one column per record.
    Wide,
}

impl std::str::FromStr for Scheme {
    type Err = AppError;

    fn from_str(s: &str) -> Result<Scheme> {
        match s {
            "tall" => Ok(Scheme::Tall),
            "wide" => Ok(Scheme::Wide),
            _ => Err(AppError::invalid("scheme", format!("{s:?}: tall or wide"))),
        }
    }
}

/// One record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The user.
    pub uid: u64,
    /// When, in ms since the epoch.
    pub ts: i64,
    /// What (an item id, a URL).
    pub item: String,
}

/// A read as issued: a Get (row, optional column, filter) or a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// `get 'TABLE', ROW, {COLUMN => ..., FILTER => ...}`.
    Get {
        /// The row.
        row: Vec<u8>,
        /// One column's qualifier, or the whole family.
        qualifier: Option<Vec<u8>>,
        /// A filter-language string.
        filter: Option<Vec<u8>>,
    },
    /// A scan.
    Scan(ScanPlan),
}

/// The behaviour log in one scheme on one connection.
#[derive(Debug, Clone)]
pub struct BehaviourLog {
    scheme: Scheme,
    table: Table,
    tall_key: Schema,
    wide_key: Schema,
    qualifier: Schema,
}

impl BehaviourLog {
    /// Opens the log, creating its table if absent.
    pub fn open(conn: &Connection, scheme: Scheme) -> Result<BehaviourLog> {
        let name = match scheme {
            Scheme::Tall => TALL_TABLE,
            Scheme::Wide => WIDE_TABLE,
        };
        let key = match scheme {
            Scheme::Tall => TALL_KEY,
            Scheme::Wide => WIDE_KEY,
        };
        ensure_tables(conn, &[TableSpec::new(name, &[FAMILY]).rowkey(key)])?;
        Ok(BehaviourLog {
            scheme,
            table: conn.table(name),
            tall_key: TALL_KEY.parse()?,
            wide_key: WIDE_KEY.parse()?,
            qualifier: WIDE_QUALIFIER.parse()?,
        })
    }

    /// Records that `uid` did `item` at `ts` (ms, ≥ 0).
    pub fn record(&self, uid: u64, ts: i64, item: &str) -> Result<()> {
        let put = match self.scheme {
            Scheme::Tall => Put::new(self.tall_row(uid, ts)?).add_column(FAMILY, "", item),
            Scheme::Wide => Put::new(self.user_row(uid)?).add_column(
                FAMILY,
                self.qualifier.encode(&[Value::I64(ts)])?,
                item,
            ),
        };
        self.table.put(put)?;
        Ok(())
    }

    /// The read [`BehaviourLog::get`] issues.
    pub fn plan_get(&self, uid: u64, ts: i64) -> Result<Read> {
        Ok(match self.scheme {
            Scheme::Tall => Read::Get {
                row: self.tall_row(uid, ts)?,
                qualifier: Some(Vec::new()),
                filter: None,
            },
            Scheme::Wide => Read::Get {
                row: self.user_row(uid)?,
                qualifier: Some(self.qualifier.encode(&[Value::I64(ts)])?),
                filter: None,
            },
        })
    }

    /// The record of `uid` at exactly `ts`.
    pub fn get(&self, uid: u64, ts: i64) -> Result<Option<Event>> {
        Ok(self.run(&self.plan_get(uid, ts)?)?.into_iter().next())
    }

    /// The read [`BehaviourLog::range`] issues.
    pub fn plan_range(&self, uid: u64, from: i64, to: i64) -> Result<Read> {
        if from > to {
            return Err(AppError::invalid(
                "range",
                format!("--from {from} is after --to {to}"),
            ));
        }
        Ok(match self.scheme {
            Scheme::Tall => {
                let r = self
                    .tall_key
                    .field_ranges(
                        &[Value::U64(uid)],
                        Bound::Included(Value::I64(from)),
                        Bound::Included(Value::I64(to)),
                    )?
                    .remove(0);
                Read::Scan(ScanPlan::range(r.start, r.stop))
            }
            Scheme::Wide => {
                // Reversed timestamps: the newest bound is the smallest qualifier.
                let lo = self.qualifier.encode(&[Value::I64(to)])?;
                let hi = self.qualifier.encode(&[Value::I64(from)])?;
                let mut f = b"ColumnRangeFilter(".to_vec();
                f.extend(quote(&lo));
                f.extend(b", true, ");
                f.extend(quote(&hi));
                f.extend(b", true)");
                Read::Get {
                    row: self.user_row(uid)?,
                    qualifier: None,
                    filter: Some(f),
                }
            }
        })
    }

    /// `uid`'s records from `from` to `to` (inclusive), newest first; `from` after `to` is an
    /// [`AppError::Invalid`] naming both.
    pub fn range(&self, uid: u64, from: i64, to: i64) -> Result<Vec<Event>> {
        self.run(&self.plan_range(uid, from, to)?)
    }

    /// The read [`BehaviourLog::newest`] issues.
    pub fn plan_newest(&self, uid: u64, n: usize) -> Result<Read> {
        Ok(match self.scheme {
            Scheme::Tall => {
                let r = self.tall_key.prefix_ranges(&[Value::U64(uid)])?.remove(0);
                let mut plan = ScanPlan::range(r.start, r.stop);
                plan.limit = Some(n);
                Read::Scan(plan)
            }
            Scheme::Wide => Read::Get {
                row: self.user_row(uid)?,
                qualifier: None,
                filter: Some(format!("ColumnCountGetFilter({n})").into_bytes()),
            },
        })
    }

    /// `uid`'s newest `n` records, newest first.
    pub fn newest(&self, uid: u64, n: usize) -> Result<Vec<Event>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        self.run(&self.plan_newest(uid, n)?)
    }

    fn tall_row(&self, uid: u64, ts: i64) -> Result<Vec<u8>> {
        Ok(self.tall_key.encode(&[Value::U64(uid), Value::I64(ts)])?)
    }

    fn user_row(&self, uid: u64) -> Result<Vec<u8>> {
        Ok(self.wide_key.encode(&[Value::U64(uid)])?)
    }

    /// Runs a read and decodes its cells into events, in the order read (newest first).
    fn run(&self, read: &Read) -> Result<Vec<Event>> {
        let rows: Vec<RowResult> = match read {
            Read::Scan(plan) => plan.run(&self.table)?,
            Read::Get {
                row,
                qualifier,
                filter,
            } => {
                let get = match qualifier {
                    Some(q) => Get::new(row.clone()).add_column(FAMILY, q.clone()),
                    None => Get::new(row.clone()).add_family(FAMILY),
                };
                vec![self.table.get(get, filter.as_deref())?]
            }
        };
        let mut out = Vec::new();
        for r in &rows {
            for c in &r.cells {
                let (uid, ts) = match self.scheme {
                    Scheme::Tall => match self.tall_key.decode(c.row())?.as_slice() {
                        [Value::U64(u), Value::I64(t)] => (*u, *t),
                        _ => return Err(AppError::corrupt(self.table.name(), c.row(), "bad key")),
                    },
                    Scheme::Wide => {
                        let uid = match self.wide_key.decode(c.row())?.as_slice() {
                            [Value::U64(u)] => *u,
                            _ => {
                                return Err(AppError::corrupt(
                                    self.table.name(),
                                    c.row(),
                                    "bad key",
                                ))
                            }
                        };
                        match self.qualifier.decode(c.qualifier())?.as_slice() {
                            [Value::I64(t)] => (uid, *t),
                            _ => {
                                return Err(AppError::corrupt(
                                    self.table.name(),
                                    c.row(),
                                    "bad qualifier",
                                ))
                            }
                        }
                    }
                };
                out.push(Event {
                    uid,
                    ts,
                    item: String::from_utf8_lossy(c.value()).into_owned(),
                });
            }
        }
        Ok(out)
    }
}

impl Read {
    /// The read in the HBase shell's syntax.
    pub fn shell(&self, table: &str) -> String {
        use crate::bytes_text::escape;
        match self {
            Read::Scan(plan) => plan.shell(table),
            Read::Get {
                row,
                qualifier,
                filter,
            } => {
                let mut parts = Vec::new();
                match qualifier {
                    Some(q) => parts.push(format!("COLUMN => \"{FAMILY}:{}\"", escape(q))),
                    None => parts.push(format!("COLUMN => '{FAMILY}'")),
                }
                if let Some(f) = filter {
                    parts.push(format!("FILTER => \"{}\"", escape(f)));
                }
                format!(
                    "get '{table}', \"{}\", {{{}}}",
                    escape(row),
                    parts.join(", ")
                )
            }
        }
    }
}
