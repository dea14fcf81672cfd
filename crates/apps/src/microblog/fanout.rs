//! The fan-out worker: delivers each queued post into the inbox of every fan of its author,
//! exactly once even when killed at any point and restarted.
//!
//! State, all in the database:
//! - `mb_fanout` holds one row per post not yet fully delivered, keyed by post time (oldest
//!   first): `q:post` (the post id), `q:content`, and `q:cursor`, the uid of the last fan
//!   delivered to.
//! - A delivery is the put of `mb_inbox` row `fan`, cell `cf1:id`, **timestamp = the post's
//!   time**, value = the post id.
//!
//! The worker, for each queue row in key order: writes the post row (in case the poster died
//! before it), reads the author's fans (ascending uid), and for each fan above the cursor
//! delivers and then advances the cursor; after the last fan it deletes the queue row.
//!
//! Why exactly once:
//! - *At least once.* The queue row is deleted only after every fan was delivered to, and the
//!   cursor only advances past a fan after that fan's delivery was acknowledged (acknowledged
//!   writes survive a process kill: the WAL record is written before the put returns). A
//!   restarted worker resumes at the cursor, so no fan is skipped.
//! - *At most once.* A delivery is idempotent: the same post to the same fan is always the
//!   same cell coordinates `(fan, cf1:id, post time)` with the same value, and a put at the
//!   coordinates of an existing version replaces it rather than adding a version. Post times
//!   are unique across posts (the `mb_meta` clock), so two different posts are never the same
//!   version. A kill between a delivery and its cursor update (or between the last delivery and
//!   the queue row's delete) repeats that delivery; the repetition is invisible.
//!
//! The inbox therefore holds each post once per fan, and its versions are ordered by post time:
//! a read of `cf1:id` with `VERSIONS => 1000` is the home timeline, newest first.
//!
//! Fans are read when the post is delivered, so a fan who unfollows before then does not get
//! it, and one who follows before then does (unless their uid is below the cursor of a post
//! already being delivered).

use super::{Microblog, Post, FANOUT_TABLE};
use crate::clock::now_millis;
use crate::error::{AppError, Result};
use crate::scan_plan::ScanPlan;
use ferrobase_engine::{Delete, Put, RowResult};
use ferrobase_rowkey::Value;
use std::time::Duration;

/// One delivery, reported to the worker's observer after the inbox write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The post id.
    pub post: String,
    /// The fan whose inbox received it.
    pub fan: u64,
}

/// How [`Microblog::run_worker`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerOptions {
    /// Return once the queue is empty (default `false`: poll forever).
    pub exit_when_idle: bool,
    /// Sleep between polls of an empty queue (default 200 ms).
    pub poll_interval: Duration,
    /// Queue rows read per scan (default 64).
    pub batch: usize,
}

impl Default for WorkerOptions {
    fn default() -> Self {
        WorkerOptions {
            exit_when_idle: false,
            poll_interval: Duration::from_millis(200),
            batch: 64,
        }
    }
}

impl Microblog {
    /// Runs the fan-out worker; `observe` sees every delivery after its inbox write. Returns
    /// the number of posts completed when the queue is empty and
    /// [`WorkerOptions::exit_when_idle`] is set; otherwise runs until an error.
    pub fn run_worker(
        &self,
        opts: &WorkerOptions,
        observe: &mut dyn FnMut(&Delivery),
    ) -> Result<usize> {
        let mut completed = 0;
        loop {
            let n = self.drain_fanout(opts.batch, observe)?;
            completed += n;
            if n == 0 {
                if opts.exit_when_idle {
                    return Ok(completed);
                }
                std::thread::sleep(opts.poll_interval);
            }
        }
    }

    /// One pass over the queue: delivers up to `batch` queued posts completely. Returns how
    /// many were completed (0 when the queue was empty).
    pub fn drain_fanout(&self, batch: usize, observe: &mut dyn FnMut(&Delivery)) -> Result<usize> {
        let plan = ScanPlan {
            limit: Some(batch.max(1)),
            ..ScanPlan::default()
        };
        let rows = plan.run(&self.fanout)?;
        for row in &rows {
            self.fan_out(row, observe)?;
        }
        Ok(rows.len())
    }

    /// Delivers one queued post to every fan above its cursor, then deletes the queue row.
    fn fan_out(&self, row: &RowResult, observe: &mut dyn FnMut(&Delivery)) -> Result<()> {
        let queue_row = row.row().to_vec();
        let Some(id) = row.value(b"q", b"post") else {
            // A row with only a cursor: left by a second worker that advanced the cursor of a
            // post this one had already completed. Nothing to deliver.
            self.fanout.delete(Delete::new(queue_row))?;
            return Ok(());
        };
        let id = String::from_utf8_lossy(id).into_owned();
        let (time, uid) = match self.fanout_key.decode(&queue_row)?.as_slice() {
            [Value::U64(t), Value::U64(u)] => (*t as i64, *u),
            _ => return Err(AppError::corrupt(FANOUT_TABLE, &queue_row, "bad queue key")),
        };
        let content = row.value(b"q", b"content").unwrap_or_default();
        self.write_post_row(&Post {
            id: id.clone(),
            uid,
            time,
            content: String::from_utf8_lossy(content).into_owned(),
        })?;
        let cursor = match row.value(b"q", b"cursor") {
            Some(c) => Some(self.user_of(FANOUT_TABLE, c)?),
            None => None,
        };
        for fan in self.fans(uid)? {
            if cursor.is_some_and(|c| fan <= c) {
                continue;
            }
            let fan_row = self.user_row(fan)?;
            self.inbox.put(Put::new(fan_row.clone()).add_column_ts(
                "cf1",
                "id",
                time,
                id.as_bytes(),
            ))?;
            observe(&Delivery {
                post: id.clone(),
                fan,
            });
            self.fanout
                .put(Put::new(queue_row.clone()).add_column("q", "cursor", fan_row))?;
        }
        // Delete at the newest timestamp read (or now, if later) so the delete covers every
        // cell of the row, even one written with a client timestamp ahead of this clock.
        let newest = row.cells.iter().map(|c| c.timestamp()).max().unwrap_or(0);
        self.fanout
            .delete(Delete::with_timestamp(queue_row, newest.max(now_millis())))?;
        Ok(())
    }
}
