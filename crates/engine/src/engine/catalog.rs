//! The in-memory catalog of tables and their regions, and its persistence to the manifest.

use super::Inner;
use crate::cell::cmp_bytes;
use crate::error::{Error, Result};
use crate::health::{is_transient_write_error, StallCause};
use crate::lock;
use crate::manifest::{self, ManifestData, RegionRecord, StoreRecord, TableRecord};
use crate::region::Region;
use crate::schema::{TableDescriptor, TableName};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A table's live state.
#[derive(Debug, Clone)]
pub(crate) struct TableEntry {
    pub descriptor: TableDescriptor,
    pub enabled: bool,
    /// Regions in row order, covering every row exactly once.
    pub regions: Vec<Arc<Region>>,
}

impl TableEntry {
    /// The region holding `row`.
    pub fn region_for(&self, row: &[u8]) -> Arc<Region> {
        let i = self
            .regions
            .partition_point(|r| cmp_bytes(&r.start, row).is_le())
            .saturating_sub(1);
        self.regions[i].clone()
    }

    /// The last region whose start is < `row` (the region holding the rows just below `row`).
    pub fn region_before(&self, row: &[u8]) -> Option<Arc<Region>> {
        let i = self
            .regions
            .partition_point(|r| cmp_bytes(&r.start, row).is_lt());
        i.checked_sub(1).map(|i| self.regions[i].clone())
    }
}

/// Every table. Entries are shared by `Arc`: a read or write takes its table's entry without
/// copying the descriptor and region list; a change replaces the entry (copy on write).
/// A DDL changes a clone (cheap: entries are shared), writes it as the manifest and only then
/// publishes it ([`Inner::persist_ddl`]).
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
                if is_transient_write_error(&source)
                    && path.ends_with(manifest::MANIFEST_TMP_FILE) =>
            {
                // The part-written file holds space the retry needs.
                let _ = self.fs().remove_file(&path);
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

    /// Writes the catalog `next`, a DDL's change not yet published, as the manifest. Callers
    /// hold `manifest_lock` (so `next` is the live catalog plus the change) and publish `next`
    /// only when this returns `Ok`. A full disk (`ENOSPC`, `EDQUOT`) while writing
    /// `MANIFEST.tmp` leaves the previous manifest in place and nothing published: the
    /// part-written file is removed and [`Error::DdlNotApplied`] (naming `MANIFEST.tmp` and
    /// the OS error) returned, with the engine healthy and the catalog as before; the same DDL
    /// can be retried once space is back. Any other failure, a failed sync or rename included, poisons as
    /// `persist_job` does ("Errors from the disk" in `docs/design/durability.md`).
    pub(crate) fn persist_ddl(&self, next: &Catalog) -> Result<()> {
        self.poison.check()?;
        match manifest::write(self.fs(), &self.dir, &self.manifest_data(next)) {
            Ok(()) => Ok(()),
            Err(Error::Io { path, source })
                if is_transient_write_error(&source)
                    && path.ends_with(manifest::MANIFEST_TMP_FILE) =>
            {
                let _ = self.fs().remove_file(&path);
                Err(Error::DdlNotApplied { path, source })
            }
            Err(e) => {
                self.poison(&format!("manifest write failed: {e}"));
                Err(e)
            }
        }
    }

    /// Writes the current catalog as the manifest ("Commit protocol" in
    /// `docs/format/manifest.md`); a poisoned engine writes none: what memory holds may be
    /// half-updated.
    fn write_manifest(&self) -> Result<()> {
        self.poison.check()?;
        let data = self.manifest_data(&lock::read(&self.catalog));
        manifest::write(self.fs(), &self.dir, &data)
    }

    /// The manifest of catalog `cat`. Each region's stores are those of its table's
    /// descriptor: a family a DDL is adding (in `cat`, not yet in the region) is recorded
    /// empty, flushed up to the last allocated sequence id; one it is deleting is left out.
    fn manifest_data(&self, cat: &Catalog) -> ManifestData {
        let seq = self.mvcc.last_allocated();
        ManifestData {
            last_seq: seq,
            next_region_id: self.next_region.load(Ordering::Acquire),
            next_file_number: self.next_file.load(Ordering::Acquire),
            namespaces: cat.namespaces.iter().cloned().collect(),
            tables: cat
                .tables
                .values()
                .map(|t| TableRecord {
                    descriptor: t.descriptor.clone(),
                    enabled: t.enabled,
                    regions: t
                        .regions
                        .iter()
                        .map(|r| {
                            let mut rec = region_record(r);
                            rec.stores
                                .retain(|s| t.descriptor.family(&s.family).is_some());
                            for f in &t.descriptor.families {
                                if !rec.stores.iter().any(|s| s.family == f.name) {
                                    rec.stores.push(StoreRecord {
                                        family: f.name.clone(),
                                        flushed_seq: seq,
                                        files: Vec::new(),
                                    });
                                }
                            }
                            rec.stores.sort_by(|a, b| a.family.cmp(&b.family));
                            rec
                        })
                        .collect(),
                })
                .collect(),
        }
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

pub(crate) fn region_record(r: &Region) -> RegionRecord {
    RegionRecord {
        id: r.id,
        start: r.start.clone(),
        end: r.end.clone(),
        stores: r
            .stores()
            .iter()
            .map(|(f, s)| StoreRecord {
                family: f.clone(),
                flushed_seq: s.flushed_seq(),
                files: s.state().files.iter().map(|f| f.number).collect(),
            })
            .collect(),
    }
}
