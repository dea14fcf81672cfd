//! Article 4's microblog: a follow table (`cf1` = whom I follow, `cf2` = my fans), a post
//! table keyed `uid_(Long.MAX_VALUE - time)` so a user's posts are one scan, newest first, and
//! an inbox table — row `uid`, one cell `cf1:id` with `VERSIONS => 1000` — that the fan-out
//! worker fills with the ids of the posts of everyone the user follows, so the home timeline
//! is one read of one row, newest first.
//!
//! Fan-out happens in a background worker ([`fanout`]) whose progress is stored in the database
//! (the `mb_fanout` queue table), so a worker killed at any point and restarted delivers every
//! post to every fan exactly once. The argument is in [`fanout`] and `docs/apps/microblog.md`.
//!
//! | table | row key | cells |
//! |-------|---------|-------|
//! | `mb_follow` | `uid:u64dec10` | `cf1:<followee uid>` = since (ms), `cf2:<fan uid>` = since |
//! | `mb_post` | `uid:u64dec10, ts:revtsdec` | `cf1:content` at timestamp = post time |
//! | `mb_inbox` | `uid:u64dec10` | `cf1:id` = post id, timestamp = post time, `VERSIONS => 1000` |
//! | `mb_fanout` | `ts:dec19, uid:u64dec10` | `q:post`, `q:content`, `q:cursor` (last fan delivered) |
//! | `mb_meta` | `clock` | `m:last`: the last post time handed out (8-byte big-endian) |

pub mod fanout;
pub mod follow;
pub mod post;
pub mod timeline;

use crate::error::{AppError, Result};
use crate::table_setup::{ensure_tables, TableSpec};
use ferrobase_client::{Connection, Table};
use ferrobase_rowkey::{Schema, Value};

/// The follow table.
pub const FOLLOW_TABLE: &str = "mb_follow";
/// The post table.
pub const POST_TABLE: &str = "mb_post";
/// The inbox table.
pub const INBOX_TABLE: &str = "mb_inbox";
/// The fan-out queue: one row per post not yet delivered to every fan.
pub const FANOUT_TABLE: &str = "mb_fanout";
/// The post clock.
pub const META_TABLE: &str = "mb_meta";
/// Versions the inbox keeps: its cell holds the newest 1000 post ids (article 4).
pub const INBOX_VERSIONS: u32 = 1000;

/// The user key schema (follow and inbox rows).
pub const USER_KEY: &str = "uid:u64dec10";
/// The post key schema: article 4's `uid_(Long.MAX_VALUE - time)` with a fixed-width uid in
/// place of the `_` (a fixed width keeps one user's posts one range without a separator).
pub const POST_KEY: &str = "uid:u64dec10, ts:revtsdec";
/// The fan-out queue's key schema: post time, then author, oldest first.
pub const FANOUT_KEY: &str = "ts:dec19, uid:u64dec10";

/// One post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Post {
    /// The post id: its row key in `mb_post` (ASCII).
    pub id: String,
    /// The author.
    pub uid: u64,
    /// The post time in ms since the epoch; unique among all posts.
    pub time: i64,
    /// The text.
    pub content: String,
}

impl Post {
    /// `time=T uid=U id=ID content` for the command line.
    pub fn to_line(&self) -> String {
        format!(
            "time={} uid={} id={} {}",
            self.time, self.uid, self.id, self.content
        )
    }
}

/// The microblog on one connection.
#[derive(Debug, Clone)]
pub struct Microblog {
    follow: Table,
    posts: Table,
    inbox: Table,
    fanout: Table,
    meta: Table,
    user_key: Schema,
    post_key: Schema,
    fanout_key: Schema,
}

impl Microblog {
    /// Opens the microblog on `conn`, creating its tables if absent.
    pub fn open(conn: &Connection) -> Result<Microblog> {
        ensure_tables(
            conn,
            &[
                TableSpec::new(FOLLOW_TABLE, &["cf1", "cf2"]).rowkey(USER_KEY),
                TableSpec::new(POST_TABLE, &["cf1"]).rowkey(POST_KEY),
                TableSpec::new(INBOX_TABLE, &["cf1"])
                    .versions("cf1", INBOX_VERSIONS)
                    .rowkey(USER_KEY),
                TableSpec::new(FANOUT_TABLE, &["q"]).rowkey(FANOUT_KEY),
                TableSpec::new(META_TABLE, &["m"]),
            ],
        )?;
        Ok(Microblog {
            follow: conn.table(FOLLOW_TABLE),
            posts: conn.table(POST_TABLE),
            inbox: conn.table(INBOX_TABLE),
            fanout: conn.table(FANOUT_TABLE),
            meta: conn.table(META_TABLE),
            user_key: USER_KEY.parse()?,
            post_key: POST_KEY.parse()?,
            fanout_key: FANOUT_KEY.parse()?,
        })
    }

    /// The row key of user `uid` (ten zero-padded digits).
    pub fn user_row(&self, uid: u64) -> Result<Vec<u8>> {
        Ok(self.user_key.encode(&[Value::U64(uid)])?)
    }

    /// Decodes a user row key or qualifier.
    fn user_of(&self, table: &str, key: &[u8]) -> Result<u64> {
        match self.user_key.decode(key)?.first() {
            Some(Value::U64(u)) => Ok(*u),
            _ => Err(AppError::corrupt(table, key, "not a user id")),
        }
    }
}
