//! Administrative operations of an embedded engine (HBase's `Admin`).

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::lock;
use crate::schema::{ColumnFamilyDescriptor, TableDescriptor, TableName};

/// How `create_table_pre_split` chooses split keys (HBase's `RegionSplitter` algorithms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitAlgorithm {
    /// Rows are 8-character lowercase hex strings (`00000000`..`ffffffff`), e.g. hashed keys.
    HexStringSplit,
    /// Rows are uniformly distributed raw bytes; keys are 8 bytes.
    UniformSplit,
}

impl SplitAlgorithm {
    /// Parses HBase's name (`HexStringSplit`, `UniformSplit`).
    pub fn parse(s: &str) -> Result<SplitAlgorithm> {
        match s {
            "HexStringSplit" => Ok(SplitAlgorithm::HexStringSplit),
            "UniformSplit" => Ok(SplitAlgorithm::UniformSplit),
            _ => Err(Error::IllegalArgument(format!(
                "unknown split algorithm {s:?}; expected HexStringSplit or UniformSplit"
            ))),
        }
    }

    /// The `regions - 1` split keys HBase computes for this algorithm.
    pub fn split_keys(self, regions: usize) -> Result<Vec<Vec<u8>>> {
        if regions < 2 {
            return Err(Error::IllegalArgument(format!(
                "a pre-split table needs at least 2 regions, got {regions}"
            )));
        }
        let n = regions as u128;
        Ok(match self {
            SplitAlgorithm::HexStringSplit => {
                let size = 0xffff_ffffu128 / n;
                (1..n)
                    .map(|i| format!("{:08x}", size * i).into_bytes())
                    .collect()
            }
            SplitAlgorithm::UniformSplit => {
                let size = (1u128 << 64) / n;
                (1..n)
                    .map(|i| ((size * i) as u64).to_be_bytes().to_vec())
                    .collect()
            }
        })
    }
}

/// A region as listed by `regions` (HBase's `RegionInfo` plus load figures).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    /// Region id.
    pub id: u64,
    /// Inclusive start row (empty = beginning).
    pub start: Vec<u8>,
    /// Exclusive end row (empty = end).
    pub end: Vec<u8>,
    /// Bytes in memstores.
    pub memstore_bytes: usize,
    /// Bytes in block files.
    pub file_bytes: u64,
    /// Number of block files.
    pub file_count: usize,
}

/// Administers tables. Cheap to clone; thread-safe.
#[derive(Debug, Clone)]
pub struct Admin {
    engine: Engine,
}

impl Admin {
    pub(crate) fn new(engine: Engine) -> Admin {
        Admin { engine }
    }

    fn name(&self, table: &str) -> Result<TableName> {
        TableName::parse(table)
    }

    /// Creates a table with one region.
    pub fn create_table(&self, desc: TableDescriptor) -> Result<()> {
        self.engine.inner.create_table(desc, &[])
    }

    /// Creates a table with regions split at `split_keys`.
    pub fn create_table_with_splits(
        &self,
        desc: TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<()> {
        self.engine.inner.create_table(desc, split_keys)
    }

    /// Creates a table pre-split into `regions` regions by `algo`.
    pub fn create_table_pre_split(
        &self,
        desc: TableDescriptor,
        regions: usize,
        algo: SplitAlgorithm,
    ) -> Result<()> {
        let keys = algo.split_keys(regions)?;
        self.engine.inner.create_table(desc, &keys)
    }

    /// The table's schema.
    pub fn describe(&self, table: &str) -> Result<TableDescriptor> {
        Ok(self
            .engine
            .inner
            .table_entry(&self.name(table)?)?
            .descriptor
            .clone())
    }

    /// Creates namespace `ns` (HBase's `createNamespace`); tables `ns:t` can then be created.
    pub fn create_namespace(&self, ns: &str) -> Result<()> {
        self.engine.inner.create_namespace(ns)
    }

    /// Drops an empty namespace other than `default` and `hbase`.
    pub fn drop_namespace(&self, ns: &str) -> Result<()> {
        self.engine.inner.drop_namespace(ns)
    }

    /// Every namespace, sorted; `default` and `hbase` always among them.
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        self.engine.inner.namespaces()
    }

    /// Every table, by name.
    pub fn list_tables(&self) -> Result<Vec<TableName>> {
        let _op = self.engine.inner.enter()?;
        let cat = lock::read(&self.engine.inner.catalog);
        Ok(cat.tables.keys().cloned().collect())
    }

    /// True when the table exists.
    pub fn table_exists(&self, table: &str) -> Result<bool> {
        let name = self.name(table)?;
        match self.engine.inner.table_entry(&name) {
            Ok(_) => Ok(true),
            Err(Error::TableNotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// True when the table is enabled.
    pub fn is_enabled(&self, table: &str) -> Result<bool> {
        Ok(self.engine.inner.table_entry(&self.name(table)?)?.enabled)
    }

    /// Disables a table (flushing it); reads and writes then fail.
    pub fn disable(&self, table: &str) -> Result<()> {
        self.engine.inner.set_enabled(&self.name(table)?, false)
    }

    /// Enables a disabled table.
    pub fn enable(&self, table: &str) -> Result<()> {
        self.engine.inner.set_enabled(&self.name(table)?, true)
    }

    /// Drops a disabled table with all its data.
    pub fn delete_table(&self, table: &str) -> Result<()> {
        self.engine.inner.drop_table(&self.name(table)?)
    }

    /// Takes snapshot `name` of `table` (HBase's `snapshot`): its schema, region boundaries and
    /// data as of a flush made first (`skip_flush`: HBase's `SKIP_FLUSH`, the data already in
    /// files only). Cheap: the snapshot holds links to the table's immutable block files, so
    /// later compactions, truncates and drops of the table leave it whole.
    pub fn snapshot(&self, table: &str, name: &str, skip_flush: bool) -> Result<()> {
        self.engine
            .inner
            .snapshot(&self.name(table)?, name, skip_flush)
    }

    /// The stored snapshots, by name (HBase's `list_snapshots`).
    pub fn list_snapshots(&self) -> Result<Vec<crate::SnapshotInfo>> {
        self.engine.inner.list_snapshots()
    }

    /// Snapshot `name` as [`Admin::list_snapshots`] lists it; `SnapshotNotFound` when there is
    /// none.
    pub fn snapshot_info(&self, name: &str) -> Result<crate::SnapshotInfo> {
        self.engine.inner.snapshot_info(name)
    }

    /// Deletes snapshot `name`; tables cloned or restored from it keep their data.
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.engine.inner.delete_snapshot(name)
    }

    /// Creates table `table` (enabled) with the schema, regions and data of snapshot `name`
    /// (HBase's `clone_snapshot`).
    pub fn clone_snapshot(&self, name: &str, table: &str) -> Result<()> {
        self.engine.inner.clone_snapshot(name, &self.name(table)?)
    }

    /// Puts snapshot `name`'s schema, regions and data back into its table, which must be
    /// disabled and stays disabled (HBase's `restore_snapshot`); a table dropped since the
    /// snapshot is created again.
    pub fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.engine.inner.restore_snapshot(name)
    }

    /// Empties a disabled table and enables it; `preserve_splits` keeps its region boundaries.
    pub fn truncate(&self, table: &str, preserve_splits: bool) -> Result<()> {
        self.engine
            .inner
            .truncate_table(&self.name(table)?, preserve_splits)
    }

    /// Adds a column family, online.
    pub fn add_family(&self, table: &str, family: ColumnFamilyDescriptor) -> Result<()> {
        self.engine
            .inner
            .put_family(&self.name(table)?, family, Some(false))
    }

    /// Changes an existing family's attributes, online.
    pub fn modify_family(&self, table: &str, family: ColumnFamilyDescriptor) -> Result<()> {
        self.engine
            .inner
            .put_family(&self.name(table)?, family, Some(true))
    }

    /// Sets and unsets table attributes (`DURABILITY`, `MAX_FILESIZE`, `READONLY`, metadata
    /// keys, ...), online; all are checked before any applies. Unsetting an attribute that is
    /// not set fails with HBase's `Could not find attribute: KEY`.
    pub fn alter_table_attributes(
        &self,
        table: &str,
        set: &[(String, String)],
        unset: &[String],
    ) -> Result<()> {
        self.engine
            .inner
            .alter_table_attributes(&self.name(table)?, set, unset)
    }

    /// Removes a family and its data, online.
    pub fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        self.engine.inner.delete_family(&self.name(table)?, family)
    }

    /// Runs `f` on every region of the table, in row order, stopping at the first error.
    fn each_region(
        &self,
        table: &str,
        f: impl FnMut(&std::sync::Arc<crate::region::Region>) -> Result<()>,
    ) -> Result<()> {
        let _op = self.engine.inner.enter()?;
        let entry = self.engine.inner.table_entry(&self.name(table)?)?;
        entry.regions.iter().try_for_each(f)
    }

    /// Flushes every region of the table.
    pub fn flush(&self, table: &str) -> Result<()> {
        self.each_region(table, |r| self.engine.inner.flush_region(r))
    }

    /// Runs a minor compaction on every store of the table. Only flushed files take part:
    /// call [`Admin::flush`] first to include the memstores.
    pub fn compact(&self, table: &str) -> Result<()> {
        self.each_region(table, |r| self.engine.inner.compact_region(r, false))
    }

    /// Major-compacts every store of the table: its files become one, with delete markers and
    /// what they mask, expired cells and excess versions gone. As in HBase, the memstores are
    /// left alone (a marker still in a memstore goes on masking later puts, and puts there are
    /// not purged by markers in files): call [`Admin::flush`] first to include them.
    pub fn major_compact(&self, table: &str) -> Result<()> {
        self.each_region(table, |r| self.engine.inner.compact_region(r, true))
    }

    /// Splits the region holding `at` there, or, with `None`, every region at its midpoint.
    pub fn split(&self, table: &str, at: Option<&[u8]>) -> Result<()> {
        let _op = self.engine.inner.enter()?;
        let entry = self.engine.inner.enabled_table(&self.name(table)?)?;
        match at {
            Some(key) => {
                let r = entry.region_for(key);
                if r.start == key {
                    return Err(Error::IllegalArgument(format!(
                        "split key {:?} is already a region boundary",
                        String::from_utf8_lossy(key)
                    )));
                }
                self.engine.inner.split_region(&r, Some(key.to_vec()))?;
            }
            None => {
                for r in &entry.regions {
                    self.engine.inner.split_region(r, None)?;
                }
            }
        }
        Ok(())
    }

    /// Brings back region `region_id` of `table` after a background job failed on its files
    /// (its writes then fail with [`Error::RegionOffline`]): every file of the region is read
    /// whole, and when all read the region takes writes again and its memstores are flushed.
    /// Returns false when the region had not failed. Other regions are not affected either way.
    pub fn reopen_region(&self, table: &str, region_id: u64) -> Result<bool> {
        let name = self.name(table)?;
        let entry = self.engine.inner.table_entry(&name)?;
        let region = entry
            .regions
            .iter()
            .find(|r| r.id == region_id)
            .ok_or_else(|| {
                Error::IllegalArgument(format!("table {name} has no region {region_id}"))
            })?;
        self.engine.inner.reopen_region(region)
    }

    /// The failed regions of `table` and why each failed (see [`Admin::reopen_region`]).
    pub fn failed_regions(&self, table: &str) -> Result<Vec<(u64, String)>> {
        let entry = self.engine.inner.table_entry(&self.name(table)?)?;
        Ok(entry
            .regions
            .iter()
            .filter_map(|r| r.failure().map(|why| (r.id, why)))
            .collect())
    }

    /// The table's regions in row order.
    pub fn regions(&self, table: &str) -> Result<Vec<RegionInfo>> {
        let entry = self.engine.inner.table_entry(&self.name(table)?)?;
        Ok(entry
            .regions
            .iter()
            .map(|r| RegionInfo {
                id: r.id,
                start: r.start.clone(),
                end: r.end.clone(),
                memstore_bytes: r.memstore_size(),
                file_bytes: r.file_bytes(),
                file_count: r.stores().values().map(|s| s.state().files.len()).sum(),
            })
            .collect())
    }
}
