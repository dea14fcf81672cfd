//! What follows a change that ran, on every door (the request executor calls these): HBase's
//! `postCompletedCreateTableAction` and `postModifyTable` (the table's owner, else the user who
//! made or changed it, is granted every action on it), `postDeleteTable` and
//! `postDeleteNamespace` (their grants go with them). Never an owner grant on a table of the
//! system namespace: only superusers make or change those.

use super::checker::{namespace_of, AccessChecker};
use super::SYSTEM_NAMESPACE;
use ferrobase_engine::{Engine, Error};
use ferrobase_security::acl::{Actions, Scope};

impl AccessChecker {
    /// `user` created `table` (canonical) or changed its descriptor (families included): its
    /// `OWNER` attribute, else `user`, is granted every action on it (HBase's
    /// `postCompletedCreateTableAction` and `postModifyTable`).
    pub fn table_modified(&self, engine: &Engine, user: &str, table: &str) -> Result<(), Error> {
        if namespace_of(table) == SYSTEM_NAMESPACE {
            return Ok(());
        }
        let desc = engine.admin().describe(table)?;
        let owner = desc
            .attributes
            .get("OWNER")
            .filter(|o| !o.is_empty() && !o.contains(','))
            .map_or(user, |o| o);
        self.store()
            .grant(owner, &Scope::table(table.to_string()), Actions::all())
    }

    /// `table` (canonical) was deleted: its grants go with it.
    pub fn table_deleted(&self, table: &str) -> Result<(), Error> {
        self.store().remove_table(table)
    }

    /// Namespace `ns` was deleted: its grants go with it.
    pub fn namespace_deleted(&self, ns: &str) -> Result<(), Error> {
        self.store().remove_namespace(ns)
    }
}
