//! Writing the manifest incrementally: what changed since the last commit, and whether a
//! commit appends a record to the edit log or writes a snapshot ("Commit protocol" in
//! `docs/format/manifest.md`).
//!
//! A flush or compaction marks its region changed, a split its table; a DDL's changed tables
//! are found by comparing its catalog with the one in force (entries are shared until
//! changed). The commit then encodes only those: one region's stores, one table. Snapshots
//! encode every table, each table's descriptor from a cache kept while its entry is the same
//! allocation (a flush does not re-encode the catalog's descriptors and family attributes).

use super::catalog::Catalog;
use super::Inner;
use crate::byte_reader::{put_len_prefixed, put_varint};
use crate::error::{Error, IoContext, Result};
use crate::fs::WritableFile;
use crate::lock;
use crate::manifest::{self, Loaded, RegionRecord, StoreRecord};
use crate::manifest_log::{self, LogEnd};
use crate::region::{Region, TableEntry};
use crate::schema::TableName;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// The manifest as written, and what changed since the last commit.
#[derive(Default)]
pub(crate) struct ManifestWriter {
    /// Generation of the log the snapshot in force names (0: none).
    generation: u64,
    /// The highest generation this process has used or seen (a roll takes the next).
    last_generation: u64,
    /// The log in force, open for appending; `None` when the next commit must write a
    /// snapshot (no log yet, a torn or missing log, an append that failed part way).
    log: Option<Box<dyn WritableFile>>,
    /// Bytes in the log in force (header included).
    log_bytes: u64,
    /// Records in the log in force.
    records: u64,
    /// Bytes of the snapshot in force.
    snapshot_bytes: u64,
    /// Regions whose stores changed since the last commit (flush, compaction), by table.
    dirty_regions: BTreeMap<u64, TableName>,
    /// Tables whose region list changed since the last commit (split).
    dirty_tables: BTreeSet<TableName>,
    /// Encoded descriptors, valid while the table's entry is the same allocation (the weak
    /// reference keeps the address from being reused).
    descriptors: HashMap<TableName, (Weak<TableEntry>, Arc<[u8]>)>,
    /// Snapshots and records written by this process.
    snapshots_written: u64,
    records_written: u64,
}

/// What the manifest's writer holds, for tests and benchmarks.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ManifestStats {
    /// Generation of the log in force (0: none, the snapshot is the whole manifest).
    pub generation: u64,
    /// Records in the log in force.
    pub log_records: u64,
    /// Bytes of the log in force.
    pub log_bytes: u64,
    /// Bytes of the snapshot in force.
    pub snapshot_bytes: u64,
    /// Snapshots this process wrote.
    pub snapshots_written: u64,
    /// Log records this process appended.
    pub records_written: u64,
}

impl ManifestWriter {
    /// The writer for a manifest read at open. The log in force is continued when it ends
    /// whole; a torn or missing log, or a manifest of an older version, makes the first
    /// commit write a snapshot (the upgrade in place).
    pub(crate) fn opened(
        fs: &dyn crate::fs::FileSystem,
        loaded: Option<&Loaded>,
    ) -> Result<ManifestWriter> {
        let mut w = ManifestWriter::default();
        let Some(loaded) = loaded else {
            return Ok(w);
        };
        w.snapshot_bytes = loaded.snapshot_bytes;
        if loaded.version < manifest::MANIFEST_VERSION {
            // No log: the first commit (the open's own) writes a snapshot of this version.
            return Ok(w);
        }
        w.generation = loaded.generation;
        w.last_generation = loaded.generation;
        if let Some(log) = &loaded.log {
            w.log_bytes = log.valid_len;
            w.records = log.edits.len() as u64;
            if log.end == LogEnd::Clean {
                w.log = Some(fs.open_append(&log.path).at(&log.path)?);
            }
        }
        Ok(w)
    }

    pub(crate) fn stats(&self) -> ManifestStats {
        ManifestStats {
            generation: self.generation,
            log_records: self.records,
            log_bytes: self.log_bytes,
            snapshot_bytes: self.snapshot_bytes,
            snapshots_written: self.snapshots_written,
            records_written: self.records_written,
        }
    }

    /// Table `t`'s descriptor encoded (cached while `t` is the same entry).
    fn descriptor(&mut self, name: &TableName, t: &Arc<TableEntry>) -> Arc<[u8]> {
        if let Some((weak, bytes)) = self.descriptors.get(name) {
            if std::ptr::eq(weak.as_ptr(), Arc::as_ptr(t)) {
                return bytes.clone();
            }
        }
        let mut out = Vec::new();
        t.descriptor.encode(&mut out, manifest::MANIFEST_VERSION);
        let bytes: Arc<[u8]> = out.into();
        self.descriptors
            .insert(name.clone(), (Arc::downgrade(t), bytes.clone()));
        bytes
    }

    fn clear_changes(&mut self) {
        self.dirty_regions.clear();
        self.dirty_tables.clear();
    }
}

/// True when `path` is a file a manifest commit writes (`MANIFEST.tmp` or a log).
pub(crate) fn is_manifest_write(path: &std::path::Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n == manifest::MANIFEST_TMP_FILE || manifest_log::log_generation_of(n).is_some()
    })
}

/// Region `r` of table `t` as the manifest records it: the stores of the table's descriptor
/// (a family a DDL is adding, not yet in the region, recorded empty and flushed up to `seq`;
/// one it is deleting left out), by family.
fn region_for(t: &TableEntry, r: &Region, seq: u64) -> RegionRecord {
    let mut stores = Vec::new();
    r.for_each_store(|f, s| {
        if t.descriptor.family(f).is_some() {
            stores.push(StoreRecord {
                family: f.to_vec(),
                flushed_seq: s.flushed_seq(),
                files: s.state().files.iter().map(|f| f.number).collect(),
            });
        }
    });
    for f in &t.descriptor.families {
        if !stores.iter().any(|s| s.family == f.name) {
            stores.push(StoreRecord {
                family: f.name.clone(),
                flushed_seq: seq,
                files: Vec::new(),
            });
        }
    }
    stores.sort_by(|a, b| a.family.cmp(&b.family));
    RegionRecord {
        id: r.id,
        start: r.start.clone(),
        end: r.end.clone(),
        stores,
    }
}

fn regions_of(t: &TableEntry, seq: u64) -> Vec<RegionRecord> {
    t.regions.iter().map(|r| region_for(t, r, seq)).collect()
}

impl Inner {
    /// Records that `region`'s stores changed (a flush or compaction installed in memory):
    /// the next commit writes them. Callers hold `manifest_lock`.
    pub(crate) fn manifest_region_changed(&self, region: &Region) {
        lock::lock(&self.manifest_writer)
            .dirty_regions
            .insert(region.id, region.table.clone());
    }

    /// Records that table `name`'s region list changed (a split installed in memory).
    /// Callers hold `manifest_lock`.
    pub(crate) fn manifest_table_changed(&self, name: &TableName) {
        lock::lock(&self.manifest_writer)
            .dirty_tables
            .insert(name.clone());
    }

    /// What the manifest's writer holds.
    pub(crate) fn manifest_stats(&self) -> ManifestStats {
        lock::lock(&self.manifest_writer).stats()
    }

    /// Commits catalog `cat` (every change marked since the last commit, and for a DDL the
    /// tables and namespaces where `cat` differs from `before`, the catalog in force):
    /// appends one record to the log, or writes a snapshot when the manifest is small, the
    /// log has grown past the snapshot, or there is no log to append to. Durable when this
    /// returns `Ok`. A failed append leaves the log unused from then on (its tail may hold
    /// part of the record: a tear), so the next commit writes a snapshot. Callers hold
    /// `manifest_lock`.
    pub(crate) fn commit_manifest(&self, cat: &Catalog, before: Option<&Catalog>) -> Result<()> {
        let mut guard = lock::lock(&self.manifest_writer);
        let w = &mut *guard;
        let threshold = self.opts.manifest_log_threshold;
        if w.snapshot_bytes < threshold {
            return self.write_manifest_snapshot(w, cat, false);
        }
        if w.log.is_none() || w.log_bytes >= w.snapshot_bytes.max(threshold) {
            return self.write_manifest_snapshot(w, cat, true);
        }
        let seq = self.mvcc.last_allocated();
        let mut payload = Vec::new();
        manifest_log::put_edit_header(
            &mut payload,
            seq,
            self.next_region.load(Ordering::Acquire),
            self.next_file.load(Ordering::Acquire),
        );
        let mut tables = std::mem::take(&mut w.dirty_tables);
        if let Some(before) = before {
            if before.namespaces != cat.namespaces {
                manifest_log::put_namespaces(&mut payload, cat.namespaces.iter());
            }
            for name in before.tables.keys() {
                if !cat.tables.contains_key(name) {
                    manifest_log::put_drop_table(&mut payload, name);
                }
            }
            for (name, t) in &cat.tables {
                if before.tables.get(name).is_none_or(|b| !Arc::ptr_eq(b, t)) {
                    tables.insert(name.clone());
                }
            }
        }
        for name in &tables {
            if let Some(t) = cat.tables.get(name) {
                let d = w.descriptor(name, t);
                manifest_log::put_table(&mut payload, &d, t.enabled, &regions_of(t, seq));
            }
        }
        for (id, name) in &w.dirty_regions {
            if tables.contains(name) {
                continue;
            }
            // A region gone since (split, dropped) is recorded by the change that removed it.
            let found = cat
                .tables
                .get(name)
                .and_then(|t| t.regions.iter().find(|r| r.id == *id).map(|r| (t, r)));
            if let Some((t, r)) = found {
                manifest_log::put_region_op(&mut payload, name, &region_for(t, r, seq));
            }
        }
        // Kept until the append is durable: a failed one writes them in the snapshot.
        w.dirty_tables = tables;
        let record = manifest_log::frame(&payload);
        let path = self.dir.join(manifest_log::log_file_name(w.generation));
        let Some(log) = w.log.as_ref() else {
            return Err(Error::corruption(&path, 0, "no manifest log open"));
        };
        if let Err(e) = log.append(&record) {
            w.log = None;
            return Err(Error::io(&path, e));
        }
        if let Err(source) = log.sync_data() {
            w.log = None;
            return Err(Error::SyncFailed { path, source });
        }
        w.log_bytes += record.len() as u64;
        w.records += 1;
        w.records_written += 1;
        w.clear_changes();
        Ok(())
    }

    /// Writes catalog `cat` whole: with `with_log`, as the snapshot of a new log (created,
    /// its header synced, before the snapshot naming it is renamed into place; the old log
    /// removed after), else as a manifest without a log.
    fn write_manifest_snapshot(
        &self,
        w: &mut ManifestWriter,
        cat: &Catalog,
        with_log: bool,
    ) -> Result<()> {
        let seq = self.mvcc.last_allocated();
        let mut body = Vec::new();
        put_varint(&mut body, seq);
        put_varint(&mut body, self.next_region.load(Ordering::Acquire));
        put_varint(&mut body, self.next_file.load(Ordering::Acquire));
        put_varint(&mut body, cat.namespaces.len() as u64);
        for ns in &cat.namespaces {
            put_len_prefixed(&mut body, ns.as_bytes());
        }
        put_varint(&mut body, cat.tables.len() as u64);
        w.descriptors
            .retain(|name, _| cat.tables.contains_key(name));
        for (name, t) in &cat.tables {
            let d = w.descriptor(name, t);
            manifest_log::put_table_body(&mut body, &d, t.enabled, &regions_of(t, seq));
        }
        let fs = self.fs();
        let mut new_log = None;
        let generation = if with_log {
            let generation = w.last_generation + 1;
            let path = self.dir.join(manifest_log::log_file_name(generation));
            let f = fs.create(&path).at(&path)?;
            let header = manifest_log::log_header(generation);
            if let Err(e) = f.append(&header) {
                drop(f);
                let _ = fs.remove_file(&path);
                return Err(Error::io(&path, e));
            }
            f.sync_all().synced(&path)?;
            w.last_generation = generation;
            new_log = Some((f, path, header.len() as u64));
            generation
        } else {
            0
        };
        if let Err(e) = manifest::write_encoded(fs, &self.dir, generation, &body) {
            if let Some((f, path, _)) = new_log {
                drop(f);
                let _ = fs.remove_file(&path);
            }
            // The log in force may have been retired by nothing: it stays usable only if no
            // append failed (unchanged here).
            return Err(e);
        }
        let old = w.generation;
        if old > 0 && old != generation {
            let _ = fs.remove_file(&self.dir.join(manifest_log::log_file_name(old)));
        }
        w.generation = generation;
        w.snapshot_bytes = body.len() as u64 + 30;
        match new_log {
            Some((f, _, len)) => {
                w.log = Some(f);
                w.log_bytes = len;
            }
            None => {
                w.log = None;
                w.log_bytes = 0;
            }
        }
        w.records = 0;
        w.snapshots_written += 1;
        w.clear_changes();
        Ok(())
    }
}
