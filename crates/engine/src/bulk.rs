//! Building a data directory of many tables, regions and files in one pass, for benchmarks and
//! tests of large catalogs (`ferrobase bench regions`, `scripts/many-regions-test.sh`). Not
//! part of the supported API: hidden from the documentation.
//!
//! Going through the engine, each flush rewrites the whole manifest and syncs three times, so
//! 5,000 regions of three files each take minutes; here every block file is written with the
//! engine's own writer and the manifest once, and nothing is synced (the directory is durable
//! once the page cache is written back, or after `sync`). The result is a data directory like
//! any other: `Engine::open` reads it.

use crate::block_file::{BlockFileWriter, FileOptions};
use crate::cell::{CellKey, CellType, KeyValue};
use crate::error::{IoContext, Result};
use crate::fs::{DirEntry, FileLock, FileSystem, ReadableFile, Space, WritableFile};
use crate::manifest::{self, ManifestData, RegionRecord, StoreRecord, TableRecord};
use crate::schema::TableDescriptor;
use bytes::Bytes;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

/// A table to build: its schema and the split keys of its regions (none: one region).
#[derive(Debug, Clone)]
pub struct BulkTable {
    /// The schema.
    pub descriptor: TableDescriptor,
    /// Split keys, sorted.
    pub split_keys: Vec<Vec<u8>>,
}

/// Writes a data directory at `dir` (which must not hold one) with `tables`, each region
/// holding `files_per_region` files per family of `rows_per_file` rows each. Rows are the
/// region's start key followed by `-f<file>-r<row>` (so they fall inside the region); file `f`
/// of a region holds the cells of sequence id `f + 1`, qualifier `q`, value `v<f>-<row>`.
/// Returns the number of block files written.
pub fn build_data_dir(
    dir: &Path,
    tables: &[BulkTable],
    files_per_region: usize,
    rows_per_file: usize,
) -> Result<u64> {
    let fs = NoSync;
    let data_dir = dir.join("data");
    fs.create_dir_all(&data_dir).at(&data_dir)?;
    let wal_dir = dir.join("wal");
    fs.create_dir_all(&wal_dir).at(&wal_dir)?;
    let mut next_region = 1u64;
    let mut next_file = 1u64;
    let mut records = Vec::new();
    for t in tables {
        let mut bounds: Vec<Vec<u8>> = vec![Vec::new()];
        bounds.extend(t.split_keys.iter().cloned());
        let mut regions = Vec::new();
        for (i, start) in bounds.iter().enumerate() {
            let end = bounds.get(i + 1).cloned().unwrap_or_default();
            let id = next_region;
            next_region += 1;
            let region_dir = data_dir.join(id.to_string());
            fs.create_dir_all(&region_dir).at(&region_dir)?;
            let mut stores = Vec::new();
            for family in &t.descriptor.families {
                let mut files = Vec::new();
                for f in 0..files_per_region {
                    let number = next_file;
                    next_file += 1;
                    let path = region_dir.join(format!("{number:016}.blk"));
                    let mut w =
                        BlockFileWriter::create(&fs, &path, FileOptions::of_family(family, false))?;
                    // Sorted: the zero-padded row numbers keep the order.
                    for r in 0..rows_per_file {
                        let mut row = start.clone();
                        row.extend_from_slice(format!("-f{f}-r{r:06}").as_bytes());
                        w.add(&KeyValue {
                            key: CellKey {
                                row: Bytes::from(row),
                                qualifier: Bytes::from_static(b"q"),
                                timestamp: 1,
                                cell_type: CellType::Put,
                                seq: f as u64 + 1,
                            },
                            value: Bytes::from(format!("v{f}-{r}")),
                            ttl_ms: None,
                        })?;
                    }
                    w.finish()?;
                    files.push(number);
                }
                files.reverse();
                stores.push(StoreRecord {
                    family: family.name.to_vec(),
                    flushed_seq: files_per_region as u64,
                    files,
                });
            }
            regions.push(RegionRecord {
                id,
                start: start.clone(),
                end,
                stores,
            });
        }
        records.push(TableRecord {
            descriptor: t.descriptor.clone(),
            enabled: true,
            regions,
        });
    }
    let data = ManifestData {
        last_seq: files_per_region as u64,
        next_region_id: next_region,
        next_file_number: next_file,
        namespaces: Vec::new(),
        tables: records,
    };
    manifest::write(&fs, dir, &data)?;
    Ok(next_file - 1)
}

/// The operating system's file system with every sync left out.
#[derive(Debug)]
struct NoSync;

struct NoSyncFile(Box<dyn WritableFile>);

impl WritableFile for NoSyncFile {
    fn append(&self, data: &[u8]) -> io::Result<()> {
        self.0.append(data)
    }
    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }
    fn truncate(&self, len: u64) -> io::Result<()> {
        self.0.truncate(len)
    }
}

impl FileSystem for NoSync {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(NoSyncFile(crate::fs::OsFileSystem.create(path)?)))
    }
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(NoSyncFile(
            crate::fs::OsFileSystem.create_new(path)?,
        )))
    }
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(NoSyncFile(
            crate::fs::OsFileSystem.open_append(path)?,
        )))
    }
    fn open_overwrite(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(NoSyncFile(
            crate::fs::OsFileSystem.open_overwrite(path)?,
        )))
    }
    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        crate::fs::OsFileSystem.open(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        crate::fs::OsFileSystem.rename(from, to)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        crate::fs::OsFileSystem.remove_file(path)
    }
    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        crate::fs::OsFileSystem.remove_dir_all(path)
    }
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        crate::fs::OsFileSystem.create_dir_all(path)
    }
    fn exists(&self, path: &Path) -> bool {
        crate::fs::OsFileSystem.exists(path)
    }
    fn list_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        crate::fs::OsFileSystem.list_dir(path)
    }
    fn sync_dir(&self, _path: &Path) -> io::Result<()> {
        Ok(())
    }
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        crate::fs::OsFileSystem.lock(path)
    }
    fn modified(&self, path: &Path) -> io::Result<SystemTime> {
        crate::fs::OsFileSystem.modified(path)
    }
    fn space(&self, path: &Path) -> io::Result<Space> {
        crate::fs::OsFileSystem.space(path)
    }
}
