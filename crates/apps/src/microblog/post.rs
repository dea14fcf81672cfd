//! Posting: a unique post time from the `mb_meta` clock, a fan-out queue row, then the post
//! row; and reading one user's own posts, newest first.

use super::{Microblog, Post, POST_TABLE};
use crate::clock::now_millis;
use crate::error::{AppError, Result};
use crate::scan_plan::ScanPlan;
use ferrobase_engine::{Get, Put, RowResult};
use ferrobase_rowkey::Value;

/// The row of the post clock in `mb_meta`.
const CLOCK_ROW: &[u8] = b"clock";

impl Microblog {
    /// Publishes a post by `uid` and queues its fan-out; returns it.
    ///
    /// Order: the queue row (holding the content) first, then the post row. A crash between
    /// the two leaves a queue row whose post row the worker writes before delivering it; a
    /// crash before the queue row leaves nothing.
    pub fn post(&self, uid: u64, content: &str) -> Result<Post> {
        let time = self.next_post_time()?;
        let id = self.post_id(uid, time)?;
        let queue_row = self
            .fanout_key
            .encode(&[Value::U64(time as u64), Value::U64(uid)])?;
        self.fanout.put(
            Put::new(queue_row)
                .add_column("q", "post", id.as_bytes())
                .add_column("q", "content", content.as_bytes()),
        )?;
        let post = Post {
            id,
            uid,
            time,
            content: content.to_string(),
        };
        self.write_post_row(&post)?;
        Ok(post)
    }

    /// Writes the post row (idempotent: the cell's timestamp is the post time).
    pub(crate) fn write_post_row(&self, post: &Post) -> Result<()> {
        self.posts.put(Put::new(post.id.as_bytes()).add_column_ts(
            "cf1",
            "content",
            post.time,
            post.content.as_bytes(),
        ))?;
        Ok(())
    }

    /// The post id (row key) of `uid`'s post at `time`.
    pub fn post_id(&self, uid: u64, time: i64) -> Result<String> {
        let key = self.post_key.encode(&[Value::U64(uid), Value::I64(time)])?;
        String::from_utf8(key).map_err(|_| AppError::invalid("post key", "not ASCII"))
    }

    /// Reads one post; `None` when absent.
    pub fn read_post(&self, id: &str) -> Result<Option<Post>> {
        let r = self.posts.get(Get::new(id.as_bytes()), None)?;
        if r.is_empty() {
            return Ok(None);
        }
        self.decode_post(&r).map(Some)
    }

    /// The scan of [`Microblog::own_posts`]: `uid`'s key prefix, newest first by the key.
    pub fn plan_own_posts(&self, uid: u64, limit: usize) -> Result<ScanPlan> {
        let range = self.post_key.prefix_ranges(&[Value::U64(uid)])?.remove(0);
        let mut plan = ScanPlan::range(range.start, range.stop);
        plan.limit = Some(limit);
        Ok(plan)
    }

    /// `uid`'s newest `limit` posts, newest first.
    pub fn own_posts(&self, uid: u64, limit: usize) -> Result<Vec<Post>> {
        self.plan_own_posts(uid, limit)?
            .run(&self.posts)?
            .iter()
            .map(|r| self.decode_post(r))
            .collect()
    }

    fn decode_post(&self, r: &RowResult) -> Result<Post> {
        let fields = self.post_key.decode(r.row())?;
        let (uid, time) = match fields.as_slice() {
            [Value::U64(u), Value::I64(t)] => (*u, *t),
            _ => return Err(AppError::corrupt(POST_TABLE, r.row(), "bad post key")),
        };
        let content = r
            .value(b"cf1", b"content")
            .ok_or_else(|| AppError::corrupt(POST_TABLE, r.row(), "no cf1:content"))?;
        Ok(Post {
            id: String::from_utf8_lossy(r.row()).into_owned(),
            uid,
            time,
            content: String::from_utf8_lossy(content).into_owned(),
        })
    }

    /// Hands out a post time: `max(now, last + 1)`, committed with check-and-put on the
    /// `mb_meta` clock row, so post times are unique and increasing across all clients. Unique
    /// times make each post its own version of an inbox cell.
    fn next_post_time(&self) -> Result<i64> {
        loop {
            let r = self
                .meta
                .get(Get::new(CLOCK_ROW).add_column("m", "last"), None)?;
            let last = r.value(b"m", b"last").map(<[u8]>::to_vec);
            let last_time = match &last {
                None => i64::MIN,
                Some(v) => i64::from_be_bytes(v.as_slice().try_into().map_err(|_| {
                    AppError::corrupt(super::META_TABLE, CLOCK_ROW, "m:last is not 8 bytes")
                })?),
            };
            let time = now_millis().max(last_time.saturating_add(1));
            let put = Put::new(CLOCK_ROW).add_column("m", "last", time.to_be_bytes().to_vec());
            if self
                .meta
                .check_and_put(CLOCK_ROW, b"m", b"last", last.as_deref(), put)?
            {
                return Ok(time);
            }
        }
    }

    /// Posts waiting in the fan-out queue.
    pub fn pending_fanout(&self) -> Result<usize> {
        Ok(ScanPlan::default().run(&self.fanout)?.len())
    }
}
