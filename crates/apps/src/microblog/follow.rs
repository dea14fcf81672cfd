//! Following and unfollowing: `mb_follow` row `A` holds `cf1:B` when A follows B, row `B`
//! holds `cf2:A` (B's fans). The fan column is written first and deleted first, because it is
//! what the fan-out worker reads: once `unfollow` returns, no later fan-out delivers B's posts
//! to A.

use super::{Microblog, FOLLOW_TABLE};
use crate::clock::now_millis;
use crate::error::Result;
use ferrobase_engine::{Delete, Get, Put};

impl Microblog {
    /// `fan` follows `star`.
    pub fn follow(&self, fan: u64, star: u64) -> Result<()> {
        let since = now_millis().to_string();
        let (fan_row, star_row) = (self.user_row(fan)?, self.user_row(star)?);
        self.follow.put(Put::new(star_row.clone()).add_column(
            "cf2",
            fan_row.clone(),
            since.as_bytes(),
        ))?;
        self.follow
            .put(Put::new(fan_row).add_column("cf1", star_row, since.as_bytes()))?;
        Ok(())
    }

    /// `fan` stops following `star`: later posts of `star` are not delivered to `fan`; posts
    /// already in `fan`'s inbox stay.
    pub fn unfollow(&self, fan: u64, star: u64) -> Result<()> {
        let (fan_row, star_row) = (self.user_row(fan)?, self.user_row(star)?);
        self.follow
            .delete(Delete::new(star_row.clone()).add_columns("cf2", fan_row.clone()))?;
        self.follow
            .delete(Delete::new(fan_row).add_columns("cf1", star_row))?;
        Ok(())
    }

    /// The users `uid` follows, ascending.
    pub fn following(&self, uid: u64) -> Result<Vec<u64>> {
        self.follow_family(uid, "cf1")
    }

    /// `uid`'s fans, ascending.
    pub fn fans(&self, uid: u64) -> Result<Vec<u64>> {
        self.follow_family(uid, "cf2")
    }

    fn follow_family(&self, uid: u64, family: &str) -> Result<Vec<u64>> {
        let r = self
            .follow
            .get(Get::new(self.user_row(uid)?).add_family(family), None)?;
        r.cells
            .iter()
            .map(|c| self.user_of(FOLLOW_TABLE, c.qualifier()))
            .collect()
    }
}
