//! Article 3's game log: a customer-service lookup of a player's actions, keyed
//! `account_actiontype_time` (text, `_`-separated, time as `yyyy-MM-dd HH:mm:ss`) in table
//! `hbase_gameCenter_log`, family `oneline`. The article's query:
//!
//! ```text
//! scan 'hbase_gameCenter_log', {COLUMNS => ['oneline:guid','oneline:report'], LIMIT => 10,
//!   STARTROW => 'u52fa532aae9dc_login_2013-04-01 00:00:00',
//!   STOPROW => 'u52fa532aae9dc_login_2016-04-01 00:00:00'}
//! ```
//!
//! The key is the article's text, not a `ferrobase-rowkey` encoding, so the shell statement
//! runs as written; the rules that keep it one range per account and action are checked on
//! every write: account and action hold no `_`, and the time is exactly 19 characters.

use crate::error::{AppError, Result};
use crate::scan_plan::ScanPlan;
use crate::table_setup::{ensure_tables, TableSpec};
use ferrobase_client::{Connection, Table};
use ferrobase_engine::Put;

/// The article's table.
pub const TABLE: &str = "hbase_gameCenter_log";
/// Its family.
pub const FAMILY: &str = "oneline";
/// The key `account_action_time` as a rowkey schema, stored on the table so the shell and the
/// console decode its keys (the app itself writes the text as the article does).
pub const KEY_SCHEMA: &str = "account:word/_, action:word/_, time:str19";
/// The article's row limit.
pub const ARTICLE_LIMIT: usize = 10;

/// One logged action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The pass account (`u52fa532aae9dc`).
    pub account: String,
    /// The action type (`login`).
    pub action: String,
    /// `yyyy-MM-dd HH:mm:ss`.
    pub time: String,
    /// `oneline:guid`.
    pub guid: String,
    /// `oneline:report`.
    pub report: String,
}

/// One account's actions of one type from `from` (inclusive) to `to` (exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogQuery {
    /// The account.
    pub account: String,
    /// The action type.
    pub action: String,
    /// The first time, `yyyy-MM-dd HH:mm:ss`, inclusive.
    pub from: String,
    /// The stop time, exclusive.
    pub to: String,
    /// At most this many rows (the article: [`ARTICLE_LIMIT`]).
    pub limit: usize,
}

/// The game log on one connection.
#[derive(Debug, Clone)]
pub struct GameLog {
    table: Table,
}

impl GameLog {
    /// Opens the log, creating its table if absent.
    pub fn open(conn: &Connection) -> Result<GameLog> {
        ensure_tables(conn, &[TableSpec::new(TABLE, &[FAMILY]).rowkey(KEY_SCHEMA)])?;
        Ok(GameLog {
            table: conn.table(TABLE),
        })
    }

    /// The row key `account_action_time`.
    pub fn key(account: &str, action: &str, time: &str) -> Result<Vec<u8>> {
        for (what, v) in [("account", account), ("action type", action)] {
            if v.is_empty() || v.contains('_') {
                return Err(AppError::invalid(what, format!("{v:?}: non-empty, no '_'")));
            }
        }
        let t = time.as_bytes();
        let shape_ok = t.len() == 19
            && t.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b' ',
                13 | 16 => *c == b':',
                _ => c.is_ascii_digit(),
            });
        if !shape_ok {
            return Err(AppError::invalid(
                "time",
                format!("{time:?}: yyyy-MM-dd HH:mm:ss"),
            ));
        }
        Ok(format!("{account}_{action}_{time}").into_bytes())
    }

    /// Logs one action.
    pub fn log(&self, a: &Action) -> Result<()> {
        self.table.put(
            Put::new(Self::key(&a.account, &a.action, &a.time)?)
                .add_column(FAMILY, "guid", a.guid.as_bytes())
                .add_column(FAMILY, "report", a.report.as_bytes()),
        )?;
        Ok(())
    }

    /// The article's scan for `q`: columns `oneline:guid` and `oneline:report`, `STARTROW` and
    /// `STOPROW` built from the account, action and times, `LIMIT`.
    pub fn plan_query(&self, q: &LogQuery) -> Result<ScanPlan> {
        let mut plan = ScanPlan::range(
            Self::key(&q.account, &q.action, &q.from)?,
            Self::key(&q.account, &q.action, &q.to)?,
        );
        plan.columns = vec![
            (FAMILY.to_string(), Some(b"guid".to_vec())),
            (FAMILY.to_string(), Some(b"report".to_vec())),
        ];
        plan.limit = Some(q.limit);
        Ok(plan)
    }

    /// Runs [`GameLog::plan_query`]: the actions in time order.
    pub fn query(&self, q: &LogQuery) -> Result<Vec<Action>> {
        self.plan_query(q)?
            .run(&self.table)?
            .iter()
            .map(|r| {
                let key = String::from_utf8_lossy(r.row()).into_owned();
                let mut parts = key.splitn(3, '_');
                let (Some(account), Some(action), Some(time)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    return Err(AppError::corrupt(TABLE, r.row(), "not account_action_time"));
                };
                let text = |q: &[u8]| {
                    String::from_utf8_lossy(r.value(FAMILY.as_bytes(), q).unwrap_or_default())
                        .into_owned()
                };
                Ok(Action {
                    account: account.to_string(),
                    action: action.to_string(),
                    time: time.to_string(),
                    guid: text(b"guid"),
                    report: text(b"report"),
                })
            })
            .collect()
    }

    /// Logs a sample: for account `u52fa532aae9dc` (the article's), one `login` and one
    /// `logout` on the first day of each month from 2012-10 to 2016-09 (48 of each), and the
    /// same for a second account `u0000000000001`. Returns the rows written.
    pub fn load_sample(&self) -> Result<usize> {
        let mut n = 0;
        for account in ["u52fa532aae9dc", "u0000000000001"] {
            for m in 0..48 {
                let (year, month) = (2012 + (m + 9) / 12, (m + 9) % 12 + 1);
                for action in ["login", "logout"] {
                    let hour = if action == "login" { 8 } else { 20 };
                    self.log(&Action {
                        account: account.to_string(),
                        action: action.to_string(),
                        time: format!("{year:04}-{month:02}-01 {hour:02}:00:00"),
                        guid: format!("g-{account}-{m}"),
                        report: format!("{action} {year:04}-{month:02}"),
                    })?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}
