//! Table administration: create, alter, enable/disable, drop, truncate.
//!
//! Every operation holds `ddl_lock` (one at a time, as HBase's table lock orders procedures);
//! those that change or remove regions first pause them (`RegionJobs::pause`: running
//! compactions stop, flushes and splits finish) and keep them paused until the change is
//! durable, so no background job reads or writes files they remove
//! (`docs/design/background-work.md`). Each changes the catalog through the one catalog
//! transaction, [`Inner::change_catalog`] (`catalog.rs`).

use super::Inner;
use crate::error::{Error, Result};
use crate::hook::HookPoint;
use crate::lock;
use crate::region::{CloseReason, Region, TableEntry};
use crate::region_jobs::PauseGuard;
use crate::schema::{ColumnFamilyDescriptor, Durability, TableDescriptor, TableName};
use crate::store::Store;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Inner {
    fn new_region(
        &self,
        table: &TableName,
        desc: &TableDescriptor,
        start: Vec<u8>,
        end: Vec<u8>,
    ) -> Arc<Region> {
        let id = self.next_region.fetch_add(1, Ordering::AcqRel);
        let seq = self.mvcc.last_allocated();
        let stores = desc
            .families
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    Arc::new(Store::new(
                        f.clone(),
                        Vec::new(),
                        seq,
                        self.memstore_chunks.clone(),
                    )),
                )
            })
            .collect::<BTreeMap<_, _>>();
        Arc::new(Region::new(id, table.clone(), start, end, stores))
    }

    /// Creates a table with regions split at `split_keys`.
    pub(crate) fn create_table(&self, desc: TableDescriptor, split_keys: &[Vec<u8>]) -> Result<()> {
        let _op = self.enter()?;
        desc.validate()?;
        let mut keys: Vec<Vec<u8>> = split_keys.to_vec();
        keys.sort();
        keys.dedup();
        if keys.iter().any(|k| k.is_empty()) {
            return Err(Error::IllegalArgument(
                "split keys must not be empty".into(),
            ));
        }
        let _ddl = lock::lock(&self.ddl_lock);
        self.change_catalog(|cat| {
            if !cat.has_namespace(desc.name.namespace()) {
                return Err(Error::NamespaceNotFound(desc.name.namespace().to_string()));
            }
            if cat.tables.contains_key(&desc.name) {
                return Err(Error::TableExists(desc.name.to_string()));
            }
            let mut bounds = vec![Vec::new()];
            bounds.extend(keys.iter().cloned());
            let mut regions = Vec::new();
            for (i, start) in bounds.iter().enumerate() {
                let end = bounds.get(i + 1).cloned().unwrap_or_default();
                regions.push(self.new_region(&desc.name, &desc, start.clone(), end));
            }
            cat.tables.insert(
                desc.name.clone(),
                Arc::new(TableEntry {
                    descriptor: desc,
                    enabled: true,
                    regions,
                }),
            );
            Ok(())
        })
    }

    /// Pauses background work on every region of `name` and returns the table's entry with
    /// the pauses. Retries while a split that was running replaces regions; callers hold
    /// `ddl_lock`, and no split starts on a paused region, so the entry's regions stay the
    /// table's until the guards drop.
    pub(super) fn pause_table(
        &self,
        name: &TableName,
    ) -> Result<(Arc<TableEntry>, Vec<PauseGuard>)> {
        loop {
            let entry = self.table_entry(name)?;
            let paused: Vec<PauseGuard> = entry
                .regions
                .iter()
                .map(|r| {
                    r.jobs
                        .pause_then(|| self.hook(HookPoint::PauseWaiting { region: r.id }))
                })
                .collect();
            let now = self.table_entry(name)?;
            let same = now.regions.len() == entry.regions.len()
                && now
                    .regions
                    .iter()
                    .zip(&entry.regions)
                    .all(|(a, b)| Arc::ptr_eq(a, b));
            if same {
                return Ok((now, paused));
            }
        }
    }

    pub(crate) fn set_enabled(&self, name: &TableName, enabled: bool) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let entry = self.table_entry(name)?;
        if entry.enabled == enabled {
            return Err(if enabled {
                Error::TableNotDisabled(name.to_string())
            } else {
                Error::TableDisabled(name.to_string())
            });
        }
        if !enabled {
            // Disabling flushes, as HBase closes the regions. A failed region keeps its
            // memstore (the WAL holds it) and is disabled like the others.
            let _why = crate::job_log::reason(crate::job_log::JobReason::Ddl);
            for r in &entry.regions {
                match self.flush_region(r) {
                    Err(Error::RegionOffline { .. }) => {}
                    other => other?,
                }
            }
        }
        let (entry, _paused) = self.pause_table(name)?;
        self.change_catalog(|cat| {
            cat.table_mut(name)?.enabled = enabled;
            Ok(())
        })?;
        for r in &entry.regions {
            r.jobs.set_offline(!enabled);
        }
        Ok(())
    }

    /// Drops a disabled table and its files. Open scanners of the table end with
    /// [`Error::TableNotFound`]; the files' bytes stay readable through descriptors already
    /// open until their last reader closes.
    pub(crate) fn drop_table(&self, name: &TableName) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let (entry, _paused) = self.pause_table(name)?;
        if entry.enabled {
            return Err(Error::TableNotDisabled(name.to_string()));
        }
        self.heat.forget(name);
        self.change_catalog(|cat| {
            cat.tables.remove(name);
            Ok(())
        })?;
        self.release_regions(&entry.regions, CloseReason::Dropped);
        Ok(())
    }

    /// Closes `regions` (paused by the caller, and no longer in the catalog) and removes their
    /// memstores and files.
    pub(super) fn release_regions(&self, regions: &[Arc<Region>], reason: CloseReason) {
        // Under the manifest lock, so a concurrent flush either installed first or finds the
        // region closed: each memstore byte is released once.
        let _m = lock::lock(&self.manifest_lock);
        for r in regions {
            let _w = lock::write(&r.updates);
            r.close(reason);
            let mut bytes = 0;
            for s in r.stores().values() {
                bytes += s.memstore_size();
                for f in &s.state().files {
                    self.cache.evict_file(f.number);
                }
            }
            self.release_memstore(bytes);
            let _ = self.fs().remove_dir_all(&self.region_dir(r.id));
        }
        self.memstore_drained.notify_all();
    }

    /// Empties a table, keeping its schema and (when `preserve_splits`) its region boundaries.
    /// Like HBase, the table must be disabled first; it is enabled afterwards.
    pub(crate) fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let (_entry, _paused) = self.pause_table(name)?;
        let old = self.change_catalog(|cat| {
            let t = cat.table_mut(name)?;
            if t.enabled {
                return Err(Error::TableNotDisabled(name.to_string()));
            }
            let mut bounds = vec![Vec::new()];
            if preserve_splits {
                bounds.extend(t.regions.iter().skip(1).map(|r| r.start.clone()));
            }
            let regions = bounds
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let end = bounds.get(i + 1).cloned().unwrap_or_default();
                    self.new_region(name, &t.descriptor, s.clone(), end)
                })
                .collect();
            t.enabled = true;
            Ok(std::mem::replace(&mut t.regions, regions))
        })?;
        self.release_regions(&old, CloseReason::Truncated);
        Ok(())
    }

    /// Adds a family, or replaces an existing family's attributes, online.
    pub(crate) fn put_family(
        &self,
        name: &TableName,
        family: ColumnFamilyDescriptor,
        must_exist: Option<bool>,
    ) -> Result<()> {
        let _op = self.enter()?;
        family.validate()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let entry = self.table_entry(name)?;
        let exists = entry.descriptor.family(&family.name).is_some();
        match must_exist {
            Some(true) if !exists => {
                return Err(Error::NoSuchColumnFamily {
                    table: name.to_string(),
                    family: family.name_str(),
                })
            }
            Some(false) if exists => {
                return Err(Error::IllegalArgument(format!(
                    "family {} already exists in table {name}",
                    family.name_str()
                )))
            }
            _ => {}
        }
        self.change_catalog_then(
            |cat| {
                let t = cat.table_mut(name)?;
                t.descriptor.families.retain(|f| f.name != family.name);
                t.descriptor.families.push(family.clone());
                t.descriptor.families.sort_by(|a, b| a.name.cmp(&b.name));
                Ok(t.regions.clone())
            },
            |regions| {
                let seq = self.mvcc.last_allocated();
                for r in regions {
                    match r.store(&family.name) {
                        Some(s) => s.set_descriptor(family.clone()),
                        None => r.set_store(
                            &family.name,
                            Some(Arc::new(Store::new(
                                family.clone(),
                                Vec::new(),
                                seq,
                                self.memstore_chunks.clone(),
                            ))),
                        ),
                    }
                }
            },
        )?;
        Ok(())
    }

    /// Sets and unsets table attributes, online (HBase's `modifyTable` of table attributes):
    /// every change is checked before any applies. `DURABILITY` sets the descriptor's
    /// durability (unset: `USE_DEFAULT`); unsetting an attribute that is not set fails with
    /// HBase's `Could not find attribute: KEY`. Writes, flushes and splits started after it see
    /// the new values.
    pub(crate) fn alter_table_attributes(
        &self,
        name: &TableName,
        set: &[(String, String)],
        unset: &[String],
    ) -> Result<()> {
        self.check_open()?;
        let _ddl = self.ddl_lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut desc = self.table_entry(name)?.descriptor.clone();
        for (k, v) in set {
            if k.eq_ignore_ascii_case("DURABILITY") {
                desc.durability = Durability::parse(v)?;
            } else {
                desc.attributes.set(k, v)?;
            }
        }
        for k in unset {
            let found = if k.eq_ignore_ascii_case("DURABILITY") {
                let was = desc.durability != Durability::UseDefault;
                desc.durability = Durability::UseDefault;
                was
            } else {
                desc.attributes.remove(k).is_some()
            };
            if !found {
                return Err(Error::IllegalArgument(format!(
                    "Could not find attribute: {k}"
                )));
            }
        }
        self.change_catalog(|cat| {
            let t = cat.table_mut(name)?;
            t.descriptor.durability = desc.durability;
            t.descriptor.attributes = desc.attributes;
            Ok(())
        })
    }

    /// Removes a family and its data, online. The table's regions are paused meanwhile, so no
    /// flush or compaction of the family runs while its files go.
    pub(crate) fn delete_family(&self, name: &TableName, family: &[u8]) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let (entry, _paused) = self.pause_table(name)?;
        if entry.descriptor.family(family).is_none() {
            return Err(Error::NoSuchColumnFamily {
                table: name.to_string(),
                family: String::from_utf8_lossy(family).into_owned(),
            });
        }
        if entry.descriptor.families.len() == 1 {
            return Err(Error::IllegalArgument(format!(
                "cannot delete the only family of table {name}"
            )));
        }
        let removed = self.change_catalog_then(
            |cat| {
                let t = cat.table_mut(name)?;
                t.descriptor.families.retain(|f| f.name != family);
                Ok(t.regions.clone())
            },
            |regions| {
                let mut removed = Vec::new();
                for r in regions {
                    let _w = lock::write(&r.updates);
                    if let Some(s) = r.store(family) {
                        self.release_memstore(s.memstore_size());
                        removed.push(s);
                    }
                    r.set_store(family, None);
                }
                removed
            },
        )?;
        for s in removed {
            for f in &s.state().files {
                self.cache.evict_file(f.number);
                f.reader.remove_when_unused();
            }
        }
        self.memstore_drained.notify_all();
        Ok(())
    }
}
