//! The in-memory catalog of tables and their regions, and its persistence to the manifest.

use super::manifest_writer::is_manifest_write;
use super::Inner;
use crate::error::{Error, Result, StallCause};
use crate::health::is_transient_write_error;
use crate::lock;
use crate::manifest;
use crate::region::{Region, TableEntry};
use crate::schema::TableName;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Every table. Entries are shared by `Arc`: a read or write takes its table's entry without
/// copying the descriptor and region list; a change replaces the entry (copy on write).
/// A DDL changes a clone (cheap: entries are shared), writes it as the manifest and only then
/// publishes it ([`Inner::change_catalog`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Catalog {
    pub tables: BTreeMap<TableName, Arc<TableEntry>>,
    /// Namespaces created by `create_namespace` (`default` and `hbase` always exist).
    pub namespaces: BTreeSet<String>,
}

impl Catalog {
    /// True when namespace `ns` exists.
    pub fn has_namespace(&self, ns: &str) -> bool {
        crate::schema::is_builtin_namespace(ns) || self.namespaces.contains(ns)
    }

    pub fn table(&self, name: &TableName) -> Result<&Arc<TableEntry>> {
        self.tables
            .get(name)
            .ok_or_else(|| Error::TableNotFound(name.to_string()))
    }

    /// Table `name`'s entry to change: the catalog's own copy once this returns (an entry
    /// shared with the published catalog is copied first).
    pub fn table_mut(&mut self, name: &TableName) -> Result<&mut TableEntry> {
        self.tables
            .get_mut(name)
            .map(Arc::make_mut)
            .ok_or_else(|| Error::TableNotFound(name.to_string()))
    }

    pub fn all_regions(&self) -> impl Iterator<Item = &Arc<Region>> {
        self.tables.values().flat_map(|t| t.regions.iter())
    }

    pub fn region_by_id(&self, id: u64) -> Option<Arc<Region>> {
        self.all_regions().find(|r| r.id == id).cloned()
    }
}

impl Inner {
    /// Writes the current catalog as the manifest, for a flush, compaction or split (whose
    /// change is installed in memory and whose files are durable) or the open. A full disk
    /// (`ENOSPC`, `EDQUOT`) while writing `MANIFEST.tmp` leaves the previous manifest in place,
    /// and with it the WAL segments and the files that manifest names (nothing is deleted until
    /// a manifest that no longer needs them is written): every acknowledged write is still on
    /// disk. So it suspends writes (cause [`StallCause::ManifestWrite`]) instead of poisoning,
    /// and the retry writes the manifest again (`resume.rs`). Any other failure, a failed sync
    /// or rename included, poisons the engine: memory may now be ahead of disk. Callers hold
    /// `manifest_lock`.
    pub(crate) fn persist_job(&self) -> Result<()> {
        match self.write_manifest() {
            Ok(()) => Ok(()),
            Err(Error::Io { path, source })
                if is_transient_write_error(&source) && is_manifest_write(&path) =>
            {
                // The part-written file holds space the retry needs (a log's torn tail is
                // retired by the snapshot the retry writes).
                if path.ends_with(manifest::MANIFEST_TMP_FILE) {
                    let _ = self.fs().remove_file(&path);
                }
                let e = Error::Io { path, source };
                Err(self.gate.suspend(
                    StallCause::ManifestWrite,
                    format!("manifest write failed: {e}"),
                ))
            }
            Err(e) => {
                self.poison(&format!("manifest write failed: {e}"));
                Err(e)
            }
        }
    }

    /// The catalog transaction of every DDL ("Commit protocol" in `docs/format/manifest.md`):
    /// under `manifest_lock`, `edit` changes a clone of the live catalog (cheap: table entries
    /// are shared until [`Catalog::table_mut`] copies one) or refuses with an error, which
    /// changes nothing; the clone is written as the manifest ([`Inner::persist_ddl`]) and only
    /// then published. A failed write publishes nothing: the running engine keeps the old
    /// catalog, and so does the disk after a full disk. Callers hold `ddl_lock`. Returns what
    /// `edit` returned.
    pub(crate) fn change_catalog<T>(
        &self,
        edit: impl FnOnce(&mut Catalog) -> Result<T>,
    ) -> Result<T> {
        self.change_catalog_then(edit, |out| out)
    }

    /// [`Inner::change_catalog`], whose `install` runs on what `edit` returned while the new
    /// catalog is published, under the catalog's write lock: no reader sees the new catalog
    /// before `install` has made the regions match it (a family's store added or removed).
    /// Returns what `install` returned.
    pub(crate) fn change_catalog_then<T, U>(
        &self,
        edit: impl FnOnce(&mut Catalog) -> Result<T>,
        install: impl FnOnce(T) -> U,
    ) -> Result<U> {
        let _m = lock::lock(&self.manifest_lock);
        let mut next = lock::read(&self.catalog).clone();
        let edited = edit(&mut next)?;
        self.persist_ddl(&next)?;
        let mut live = lock::write(&self.catalog);
        *live = next;
        Ok(install(edited))
    }

    /// Writes the catalog `next`, a DDL's change not yet published, as the manifest. Callers
    /// hold `manifest_lock` (so `next` is the live catalog plus the change) and publish `next`
    /// only when this returns `Ok`. A full disk (`ENOSPC`, `EDQUOT`) while writing
    /// `MANIFEST.tmp` leaves the previous manifest in place and nothing published: the
    /// part-written file is removed and [`Error::DdlNotApplied`] (naming `MANIFEST.tmp` and
    /// the OS error) returned, with the engine healthy and the catalog as before; the same DDL
    /// can be retried once space is back. Any other failure, a failed sync or rename included, poisons as
    /// `persist_job` does ("Errors from the disk" in `docs/design/durability.md`).
    fn persist_ddl(&self, next: &Catalog) -> Result<()> {
        self.poison.check()?;
        let live = lock::read(&self.catalog);
        match self.commit_manifest(next, Some(&live)) {
            Ok(()) => Ok(()),
            Err(Error::Io { path, source })
                if is_transient_write_error(&source) && is_manifest_write(&path) =>
            {
                if path.ends_with(manifest::MANIFEST_TMP_FILE) {
                    let _ = self.fs().remove_file(&path);
                }
                Err(Error::DdlNotApplied { path, source })
            }
            Err(e) => {
                self.poison(&format!("manifest write failed: {e}"));
                Err(e)
            }
        }
    }

    /// Commits the current catalog's changes to the manifest ("Commit protocol" in
    /// `docs/format/manifest.md`); a poisoned engine writes none: what memory holds may be
    /// half-updated.
    fn write_manifest(&self) -> Result<()> {
        self.poison.check()?;
        let cat = lock::read(&self.catalog);
        self.commit_manifest(&cat, None)
    }

    /// The table entry of `name` (shared, not copied).
    pub(crate) fn table_entry(&self, name: &TableName) -> Result<Arc<TableEntry>> {
        let cat = lock::read(&self.catalog);
        cat.table(name).cloned()
    }

    /// Like `table_entry`, but fails for a disabled table.
    pub(crate) fn enabled_table(&self, name: &TableName) -> Result<Arc<TableEntry>> {
        let t = self.table_entry(name)?;
        if !t.enabled {
            return Err(Error::TableDisabled(name.to_string()));
        }
        Ok(t)
    }

    pub(crate) fn region_by_id(&self, id: u64) -> Option<Arc<Region>> {
        lock::read(&self.catalog).region_by_id(id)
    }

    pub(crate) fn all_regions(&self) -> Vec<Arc<Region>> {
        lock::read(&self.catalog).all_regions().cloned().collect()
    }
}
