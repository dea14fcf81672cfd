//! What follows a change that ran, on every door: HBase's `postCompletedCreateTableAction` (the
//! creator owns a new table), `postModifyTable` (the table's owner is granted every action on
//! it), `postDeleteTable` and `postDeleteNamespace` (their grants go with them). Never an owner
//! grant on a table of the system namespace: only superusers make or change those.

use super::checker::{namespace_of, AccessChecker};
use super::SYSTEM_NAMESPACE;
use ferrobase_engine::{Engine, Error};
use ferrobase_security::acl::{Actions, Scope};

impl AccessChecker {
    /// `user` created `table` (canonical): the creator owns it.
    pub fn table_created(&self, user: &str, table: &str) -> Result<(), Error> {
        if namespace_of(table) == SYSTEM_NAMESPACE {
            return Ok(());
        }
        self.store()
            .grant(user, &Scope::table(table.to_string()), Actions::all())
    }

    /// `user` changed `table`'s descriptor (canonical; families included): its `OWNER`
    /// attribute, else `user`, is granted every action on it.
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
