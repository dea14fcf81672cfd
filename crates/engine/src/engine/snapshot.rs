//! Snapshots (HBase's `snapshot`, `list_snapshots`, `clone_snapshot`, `restore_snapshot` and
//! `delete_snapshot`): a table's schema, region boundaries and block files at a flush point.
//!
//! Block files never change once written, so a snapshot is a directory
//! `snapshots/<name>/` holding a hard link to each of the table's live files
//! (`<region>/<file>.blk`, the source's numbers) and a `MANIFEST` in the manifest's own format
//! naming one table: its descriptor, enabled state and regions with their files. A compaction
//! or drop of the source removes only its own links; the snapshot's keep the bytes. A clone or
//! restore links the snapshot's files into new regions of the data directory under new numbers
//! and commits them through the one catalog transaction, so the data directory never shares a
//! file name with a snapshot. Layout and crash rules: `docs/format/snapshot.md`.

use super::Inner;
use crate::error::{Error, IoContext, Result};
use crate::lock;
use crate::manifest::{self, ManifestData, RegionRecord, StoreRecord, TableRecord};
use crate::region::{CloseReason, Region, TableEntry};
use crate::schema::TableName;
use crate::store::Store;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The directory of snapshots, beside `data/`.
pub(crate) const SNAPSHOTS_DIR: &str = "snapshots";

/// The prefix of a snapshot directory being written or deleted (removed at the next open).
pub(crate) const TMP_PREFIX: &str = ".tmp-";

/// A stored snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// Its name.
    pub name: String,
    /// The table it was taken of.
    pub table: TableName,
    /// When it was taken, in milliseconds since the epoch (its manifest's modification time).
    pub created_ms: i64,
}

/// HBase's rule for snapshot names (`TableName.isLegalTableQualifierName`): word characters,
/// `-` and `.`, not beginning with `.` or `-`.
fn check_name(name: &str) -> Result<()> {
    let legal = !name.is_empty()
        && name.len() <= 255
        && !name.starts_with(['.', '-'])
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if legal {
        Ok(())
    } else {
        Err(Error::IllegalArgument(format!(
            "Illegal character code in snapshot name '{}': a snapshot name holds only \
             [a-zA-Z_0-9-.] and begins with neither '.' nor '-'",
            name.escape_default()
        )))
    }
}

/// Where file `number` of region `region` lies in the snapshot directory `dir`.
fn snapshot_file(dir: &Path, region: u64, number: u64) -> PathBuf {
    dir.join(region.to_string())
        .join(format!("{number:016}.blk"))
}

impl Inner {
    fn snapshots_dir(&self) -> PathBuf {
        self.dir.join(SNAPSHOTS_DIR)
    }

    /// Takes snapshot `name` of `table`: flushed first unless `skip_flush` (HBase's
    /// `SKIP_FLUSH`), then its files linked while the table's background jobs are paused.
    pub(crate) fn snapshot(&self, table: &TableName, name: &str, skip_flush: bool) -> Result<()> {
        let _op = self.enter()?;
        check_name(name)?;
        let _ddl = lock::lock(&self.ddl_lock);
        let fs = self.fs();
        let root = self.snapshots_dir();
        let dir = root.join(name);
        if fs.exists(&dir) {
            return Err(Error::SnapshotExists(name.to_string()));
        }
        let entry = self.table_entry(table)?;
        if !skip_flush && entry.enabled {
            let _why = crate::job_log::reason(crate::job_log::JobReason::Snapshot);
            for r in &entry.regions {
                self.flush_region(r)?;
            }
        }
        // Paused, no compaction removes a file and no split replaces a region until the links
        // are made.
        let (entry, _paused) = self.pause_table(table)?;
        let tmp = root.join(format!("{TMP_PREFIX}{name}"));
        let _ = fs.remove_dir_all(&tmp);
        let written = self.write_snapshot(&entry, &tmp);
        if let Err(e) = written {
            let _ = fs.remove_dir_all(&tmp);
            return Err(e);
        }
        fs.rename(&tmp, &dir).at(&dir)?;
        self.sync_dir(&root)?;
        Ok(())
    }

    /// Links `entry`'s files into `tmp` and writes its manifest there, every name durable.
    fn write_snapshot(&self, entry: &TableEntry, tmp: &Path) -> Result<()> {
        let fs = self.fs();
        fs.create_dir_all(tmp).at(tmp)?;
        let mut regions = Vec::new();
        for r in &entry.regions {
            let rdir = tmp.join(r.id.to_string());
            fs.create_dir_all(&rdir).at(&rdir)?;
            let mut stores = Vec::new();
            for (family, store) in r.stores() {
                let state = store.state();
                let mut files = Vec::new();
                for f in &state.files {
                    let to = snapshot_file(tmp, r.id, f.number);
                    fs.hard_link(&self.file_path(r.id, f.number), &to).at(&to)?;
                    files.push(f.number);
                }
                stores.push(StoreRecord {
                    family,
                    flushed_seq: 0,
                    files,
                });
            }
            stores.sort_by(|a, b| a.family.cmp(&b.family));
            self.sync_dir(&rdir)?;
            regions.push(RegionRecord {
                id: r.id,
                start: r.start.clone(),
                end: r.end.clone(),
                stores,
            });
        }
        self.sync_dir(tmp)?;
        let data = ManifestData {
            tables: vec![TableRecord {
                descriptor: entry.descriptor.clone(),
                enabled: entry.enabled,
                regions,
            }],
            ..ManifestData::default()
        };
        manifest::write(fs, tmp, &data)
    }

    /// The stored snapshots, by name.
    pub(crate) fn list_snapshots(&self) -> Result<Vec<SnapshotInfo>> {
        let _op = self.enter()?;
        let fs = self.fs();
        let root = self.snapshots_dir();
        if !fs.exists(&root) {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for e in fs.list_dir(&root).at(&root)? {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            if name.starts_with(TMP_PREFIX) {
                continue;
            }
            out.push(self.info(&root.join(name), name)?);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Snapshot `name` as listed; [`Error::SnapshotNotFound`] when there is none.
    pub(crate) fn snapshot_info(&self, name: &str) -> Result<SnapshotInfo> {
        let _op = self.enter()?;
        check_name(name)?;
        let dir = self.snapshots_dir().join(name);
        if !self.fs().exists(&dir) {
            return Err(Error::SnapshotNotFound(name.to_string()));
        }
        self.info(&dir, name)
    }

    /// The listing of the snapshot in `dir`: its table, and its manifest's modification time.
    fn info(&self, dir: &Path, name: &str) -> Result<SnapshotInfo> {
        let table = self.read_snapshot(dir, name)?;
        let created_ms = self
            .fs()
            .modified(&dir.join(manifest::MANIFEST_FILE))
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        Ok(SnapshotInfo {
            name: name.to_string(),
            table: table.descriptor.name,
            created_ms,
        })
    }

    /// The table record of the snapshot in `dir`.
    fn read_snapshot(&self, dir: &Path, name: &str) -> Result<TableRecord> {
        let data = manifest::read(self.fs(), dir)?
            .ok_or_else(|| Error::SnapshotNotFound(name.to_string()))?;
        let mut tables = data.tables;
        match (tables.pop(), tables.is_empty()) {
            (Some(t), true) => Ok(t),
            _ => Err(Error::Corruption {
                path: dir.join(manifest::MANIFEST_FILE),
                offset: 0,
                reason: "a snapshot's manifest names exactly one table".into(),
            }),
        }
    }

    /// The snapshot `name`'s directory and table record.
    fn snapshot_named(&self, name: &str) -> Result<(PathBuf, TableRecord)> {
        check_name(name)?;
        let dir = self.snapshots_dir().join(name);
        if !self.fs().exists(&dir) {
            return Err(Error::SnapshotNotFound(name.to_string()));
        }
        let table = self.read_snapshot(&dir, name)?;
        Ok((dir, table))
    }

    /// Deletes snapshot `name`: renamed aside first (one step), then removed.
    pub(crate) fn delete_snapshot(&self, name: &str) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let (dir, _) = self.snapshot_named(name)?;
        let root = self.snapshots_dir();
        let aside = root.join(format!("{TMP_PREFIX}{name}"));
        let fs = self.fs();
        let _ = fs.remove_dir_all(&aside);
        fs.rename(&dir, &aside).at(&dir)?;
        self.sync_dir(&root)?;
        fs.remove_dir_all(&aside).at(&aside)?;
        Ok(())
    }

    /// Creates table `table` from snapshot `name` (HBase's `clone_snapshot`): the snapshot's
    /// schema, regions and data, enabled.
    pub(crate) fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let (dir, record) = self.snapshot_named(name)?;
        self.clone_locked(&dir, &record, table)
    }

    fn clone_locked(&self, dir: &Path, record: &TableRecord, table: &TableName) -> Result<()> {
        if self.table_entry(table).is_ok() {
            return Err(Error::TableExists(table.to_string()));
        }
        let mut descriptor = record.descriptor.clone();
        descriptor.name = table.clone();
        let regions = self.regions_from_snapshot(dir, record, table)?;
        let made = self.change_catalog(|cat| {
            if !cat.has_namespace(table.namespace()) {
                return Err(Error::NamespaceNotFound(table.namespace().to_string()));
            }
            if cat.tables.contains_key(table) {
                return Err(Error::TableExists(table.to_string()));
            }
            cat.tables.insert(
                table.clone(),
                Arc::new(TableEntry {
                    descriptor: descriptor.clone(),
                    enabled: true,
                    regions: regions.clone(),
                }),
            );
            Ok(())
        });
        if made.is_err() {
            self.remove_region_dirs(&regions);
        }
        made
    }

    /// Puts snapshot `name`'s schema, regions and data back into its table (HBase's
    /// `restore_snapshot`), which must be disabled and stays so; a table dropped since is
    /// created again, as HBase's restore of a missing table clones it.
    pub(crate) fn restore_snapshot(&self, name: &str) -> Result<()> {
        let _op = self.enter()?;
        let _ddl = lock::lock(&self.ddl_lock);
        let (dir, record) = self.snapshot_named(name)?;
        let table = record.descriptor.name.clone();
        if self.table_entry(&table).is_err() {
            return self.clone_locked(&dir, &record, &table);
        }
        let (entry, _paused) = self.pause_table(&table)?;
        if entry.enabled {
            return Err(Error::TableNotDisabled(table.to_string()));
        }
        let regions = self.regions_from_snapshot(&dir, &record, &table)?;
        let replaced = self.change_catalog(|cat| {
            let t = cat.table_mut(&table)?;
            if t.enabled {
                return Err(Error::TableNotDisabled(table.to_string()));
            }
            t.descriptor = record.descriptor.clone();
            Ok(std::mem::replace(&mut t.regions, regions.clone()))
        });
        match replaced {
            Ok(old) => {
                self.release_regions(&old, CloseReason::Truncated);
                Ok(())
            }
            Err(e) => {
                self.remove_region_dirs(&regions);
                Err(e)
            }
        }
    }

    /// New regions of `table` holding links to the snapshot's files under new numbers, every
    /// name durable, each file opened.
    fn regions_from_snapshot(
        &self,
        dir: &Path,
        record: &TableRecord,
        table: &TableName,
    ) -> Result<Vec<Arc<Region>>> {
        let fs = self.fs();
        let mut made: Vec<u64> = Vec::new();
        let linked = (|| {
            let mut regions = Vec::new();
            for rr in &record.regions {
                let id = self.next_region.fetch_add(1, Ordering::AcqRel);
                made.push(id);
                let rdir = self.region_dir(id);
                fs.create_dir_all(&rdir).at(&rdir)?;
                let mut linked_files = Vec::new();
                for sr in &rr.stores {
                    let mut numbers = Vec::new();
                    for &n in &sr.files {
                        let number = self.next_file.fetch_add(1, Ordering::AcqRel);
                        let to = self.file_path(id, number);
                        fs.hard_link(&snapshot_file(dir, rr.id, n), &to).at(&to)?;
                        numbers.push(number);
                    }
                    linked_files.push((sr.family.clone(), numbers));
                }
                self.sync_dir(&rdir)?;
                regions.push((id, rr, linked_files));
            }
            self.sync_dir(&self.data_dir())?;
            let mut opened = Vec::new();
            for (id, rr, linked_files) in regions {
                let mut families = Vec::new();
                for family in &record.descriptor.families {
                    let numbers = linked_files
                        .iter()
                        .find(|(f, _)| *f == family.name)
                        .map(|(_, n)| n.as_slice())
                        .unwrap_or_default();
                    let files = numbers
                        .iter()
                        .map(|&number| self.open_store_file(&self.file_path(id, number), number))
                        .collect::<Result<Vec<_>>>()?;
                    families.push((family, files));
                }
                opened.push((id, rr, families));
            }
            // A snapshot imported from another data directory (`ferrobase snapshot import`)
            // holds cells with that engine's sequence ids: this one's moves past them, so the
            // clone's cells are visible (and the manifest the clone commits records it).
            let newest = opened
                .iter()
                .flat_map(|(_, _, families)| families.iter().flat_map(|(_, files)| files))
                .map(|f| f.reader.meta().max_seq)
                .max()
                .unwrap_or(0);
            self.mvcc.advance_past(newest);
            let seq = self.mvcc.last_allocated();
            let mut out = Vec::new();
            for (id, rr, families) in opened {
                let mut stores = BTreeMap::new();
                for (family, files) in families {
                    stores.insert(
                        family.name.clone(),
                        Arc::new(Store::new(
                            family.clone(),
                            files,
                            seq,
                            self.memstore_chunks.clone(),
                        )),
                    );
                }
                out.push(Arc::new(Region::new(
                    id,
                    table.clone(),
                    rr.start.clone(),
                    rr.end.clone(),
                    stores,
                )));
            }
            Ok(out)
        })();
        if linked.is_err() {
            for id in made {
                let _ = fs.remove_dir_all(&self.region_dir(id));
            }
        }
        linked
    }

    fn remove_region_dirs(&self, regions: &[Arc<Region>]) {
        for r in regions {
            let _ = self.fs().remove_dir_all(&self.region_dir(r.id));
        }
    }
}

/// Removes what an interrupted snapshot or deletion left (`snapshots/.tmp-*`); called at open.
pub(crate) fn remove_unfinished(fs: &dyn crate::fs::FileSystem, dir: &Path) -> Result<()> {
    let root = dir.join(SNAPSHOTS_DIR);
    if !fs.exists(&root) {
        return Ok(());
    }
    for e in fs.list_dir(&root).at(&root)? {
        if e.name.to_str().is_some_and(|n| n.starts_with(TMP_PREFIX)) {
            let p = root.join(&e.name);
            fs.remove_dir_all(&p).at(&p)?;
        }
    }
    Ok(())
}

/// Checks `name` against HBase's rule for snapshot names (`[a-zA-Z_0-9-.]`, not beginning with
/// `.` or `-`): [`Error::IllegalArgument`] when it breaks it.
pub fn check_snapshot_name(name: &str) -> Result<()> {
    check_name(name)
}

/// The snapshot held in directory `dir` (`DATA_DIR/snapshots/<name>/`, or a copy of one made
/// by `ferrobase snapshot export`): its table and its files, relative to `dir`, the `MANIFEST`
/// first, then each block file it names (`<region>/<file>.blk`). Reads only the manifest;
/// [`Error::Corruption`] when it does not name exactly one table, [`Error::SnapshotNotFound`]
/// when `dir` holds none.
pub fn snapshot_dir_files(
    fs: &dyn crate::fs::FileSystem,
    dir: &Path,
) -> Result<(TableName, Vec<PathBuf>)> {
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let data = manifest::read(fs, dir)?.ok_or(Error::SnapshotNotFound(name))?;
    let mut tables = data.tables;
    let table = match (tables.pop(), tables.is_empty()) {
        (Some(t), true) => t,
        _ => {
            return Err(Error::Corruption {
                path: dir.join(manifest::MANIFEST_FILE),
                offset: 0,
                reason: "a snapshot's manifest names exactly one table".into(),
            })
        }
    };
    let mut files = vec![PathBuf::from(manifest::MANIFEST_FILE)];
    for r in &table.regions {
        for s in &r.stores {
            for &n in &s.files {
                files.push(snapshot_file(Path::new(""), r.id, n));
            }
        }
    }
    Ok((table.descriptor.name, files))
}
