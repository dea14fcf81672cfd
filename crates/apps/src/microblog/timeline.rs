//! The home timeline: one read of the reader's inbox row.

use super::{Microblog, Post, INBOX_TABLE, INBOX_VERSIONS};
use crate::error::{AppError, Result};
use ferrobase_engine::Get;

/// One inbox entry: a post id at its post time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxEntry {
    /// The post time (the cell's timestamp).
    pub time: i64,
    /// The post id (the cell's value).
    pub post: String,
}

impl Microblog {
    /// The newest `limit` (at most 1000) entries of `uid`'s inbox, newest first: a Get of row
    /// `uid`, column `cf1:id`, `VERSIONS => limit`.
    pub fn inbox(&self, uid: u64, limit: usize) -> Result<Vec<InboxEntry>> {
        let versions = limit.clamp(1, INBOX_VERSIONS as usize) as u32;
        let r = self.inbox.get(
            Get::new(self.user_row(uid)?)
                .add_column("cf1", "id")
                .max_versions(versions),
            None,
        )?;
        Ok(r.versions(b"cf1", b"id")
            .into_iter()
            .map(|c| InboxEntry {
                time: c.timestamp(),
                post: String::from_utf8_lossy(c.value()).into_owned(),
            })
            .collect())
    }

    /// `uid`'s home timeline: the posts of the inbox, newest first, read from `mb_post`.
    pub fn home_timeline(&self, uid: u64, limit: usize) -> Result<Vec<Post>> {
        self.inbox(uid, limit)?
            .into_iter()
            .map(|e| {
                self.read_post(&e.post)?.ok_or_else(|| {
                    AppError::corrupt(
                        INBOX_TABLE,
                        e.post.as_bytes(),
                        "inbox names a post that does not exist",
                    )
                })
            })
            .collect()
    }
}
