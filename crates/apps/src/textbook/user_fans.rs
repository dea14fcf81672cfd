//! Users and fans (article 5, 1.4.4.4): `tb_user` row `user_id` with
//! `info:nickname|gender|dob|address` and `fans:<user_id>=type` — one table instead of the
//! RDBMS's user table plus user-fan table; a user's fans are one Get of the `fans` family.

use super::Textbook;
use crate::error::Result;
use ferrobase_engine::{Get, Put};

/// The table.
pub const TABLE: &str = "tb_user";

/// A fan relation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fan {
    /// The fan's user id.
    pub id: u64,
    /// The fan's nickname (a second Get of the fan's row).
    pub nickname: String,
    /// `fans:<id>`'s value, the relation type (article: 互粉类型).
    pub kind: String,
}

impl Textbook {
    /// Writes user `id`'s `info`.
    pub fn add_user(
        &self,
        id: u64,
        nickname: &str,
        gender: &str,
        dob: &str,
        address: &str,
    ) -> Result<()> {
        self.user.put(
            Put::new(self.id(id)?)
                .add_column("info", "nickname", nickname)
                .add_column("info", "gender", gender)
                .add_column("info", "dob", dob)
                .add_column("info", "address", address),
        )?;
        Ok(())
    }

    /// Records `fan` as a fan of `user` with relation `kind`.
    pub fn add_fan(&self, user: u64, fan: u64, kind: &str) -> Result<()> {
        self.user
            .put(Put::new(self.id(user)?).add_column("fans", self.id(fan)?, kind))?;
        Ok(())
    }

    /// `user`'s fans, by id.
    pub fn fans_of(&self, user: u64) -> Result<Vec<Fan>> {
        let r = self
            .user
            .get(Get::new(self.id(user)?).add_family("fans"), None)?;
        let mut out = Vec::new();
        for c in &r.cells {
            let id = self.id_of(TABLE, c.qualifier())?;
            let info = self
                .user
                .get(Get::new(self.id(id)?).add_column("info", "nickname"), None)?;
            out.push(Fan {
                id,
                nickname: super::text(&info, "info", "nickname"),
                kind: String::from_utf8_lossy(c.value()).into_owned(),
            });
        }
        Ok(out)
    }

    /// Three users; 2 and 3 are fans of 1 (2 mutual), 1 is a fan of 2.
    pub(crate) fn load_users(&self) -> Result<()> {
        self.add_user(1, "alice", "F", "1990-01-01", "Beijing")?;
        self.add_user(2, "bob", "M", "1991-02-02", "Shanghai")?;
        self.add_user(3, "carol", "F", "1992-03-03", "Hangzhou")?;
        self.add_fan(1, 2, "mutual")?;
        self.add_fan(1, 3, "one-way")?;
        self.add_fan(2, 1, "mutual")
    }
}
