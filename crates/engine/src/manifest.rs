//! The manifest: the one file that says which tables, regions and block files are live.
//! Every structural change (create, alter, flush, compaction, split, drop) writes a complete
//! new manifest to `MANIFEST.tmp`, fsyncs it and renames it over `MANIFEST`, so the live set
//! changes atomically. Layout and the commit protocol (what is synced before what) in
//! `docs/format/manifest.md`.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::checksum::masked_crc;
use crate::error::{Error, IoContext, Result};
use crate::fs::FileSystem;
use crate::schema::TableDescriptor;
use std::path::Path;

/// Magic at the start of the manifest.
pub const MANIFEST_MAGIC: &[u8; 8] = b"FRBSMAN1";
/// Manifest format version written (versions 1 and 2 are still read).
pub const MANIFEST_VERSION: u32 = 3;
/// File name of the manifest in the data directory.
pub const MANIFEST_FILE: &str = "MANIFEST";

/// One store's live state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreRecord {
    /// Family name.
    pub family: Vec<u8>,
    /// Every WAL edit with sequence id ≤ this is in the store's files.
    pub flushed_seq: u64,
    /// Live block file numbers, newest first.
    pub files: Vec<u64>,
}

/// One region's live state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionRecord {
    /// Region id, unique for the life of the data directory.
    pub id: u64,
    /// Inclusive start row (empty = the beginning).
    pub start: Vec<u8>,
    /// Exclusive end row (empty = the end).
    pub end: Vec<u8>,
    /// One store per family.
    pub stores: Vec<StoreRecord>,
}

/// One table's live state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    /// The schema.
    pub descriptor: TableDescriptor,
    /// Whether the table is enabled.
    pub enabled: bool,
    /// Regions in row order.
    pub regions: Vec<RegionRecord>,
}

/// Everything the manifest holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ManifestData {
    /// Largest sequence id known to be used.
    pub last_seq: u64,
    /// Next region id to hand out.
    pub next_region_id: u64,
    /// Next block file number to hand out.
    pub next_file_number: u64,
    /// Namespaces created by `create_namespace`, sorted; `default` and `hbase` always exist and
    /// are not listed.
    pub namespaces: Vec<String>,
    /// The tables.
    pub tables: Vec<TableRecord>,
}

impl ManifestData {
    /// Encodes the payload ("Payload" in the format document).
    pub fn encode(&self) -> Vec<u8> {
        self.encode_version(MANIFEST_VERSION)
    }

    /// Encodes the payload as format `version` wrote it (for the tests of older versions):
    /// no namespace list before 2, no table attributes before 3.
    pub(crate) fn encode_version(&self, version: u32) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.last_seq);
        put_varint(&mut out, self.next_region_id);
        put_varint(&mut out, self.next_file_number);
        if version >= 2 {
            put_varint(&mut out, self.namespaces.len() as u64);
            for ns in &self.namespaces {
                put_len_prefixed(&mut out, ns.as_bytes());
            }
        }
        put_varint(&mut out, self.tables.len() as u64);
        for t in &self.tables {
            t.descriptor.encode(&mut out, version);
            out.push(u8::from(t.enabled));
            put_varint(&mut out, t.regions.len() as u64);
            for r in &t.regions {
                put_varint(&mut out, r.id);
                put_len_prefixed(&mut out, &r.start);
                put_len_prefixed(&mut out, &r.end);
                put_varint(&mut out, r.stores.len() as u64);
                for s in &r.stores {
                    put_len_prefixed(&mut out, &s.family);
                    put_varint(&mut out, s.flushed_seq);
                    put_varint(&mut out, s.files.len() as u64);
                    for f in &s.files {
                        put_varint(&mut out, *f);
                    }
                }
            }
        }
        out
    }

    /// Decodes a payload of the current version; a description of the problem when malformed.
    pub fn decode(buf: &[u8]) -> std::result::Result<ManifestData, String> {
        Self::decode_version(buf, MANIFEST_VERSION)
    }

    /// Decodes a payload of format `version` (1 to 3). A version 1 manifest has no namespace
    /// list: the namespaces of its tables are taken as created; before version 3 tables have
    /// no attributes.
    pub fn decode_version(buf: &[u8], version: u32) -> std::result::Result<ManifestData, String> {
        let mut r = ByteReader::new(buf);
        let mut v = || r.varint().ok_or_else(|| "truncated".to_string());
        let last_seq = v()?;
        let next_region_id = v()?;
        let next_file_number = v()?;
        let mut namespaces = Vec::new();
        if version >= 2 {
            let n = r.varint().ok_or("truncated namespace count")?;
            for _ in 0..n {
                let ns = r.len_prefixed().ok_or("truncated namespace")?;
                let ns = std::str::from_utf8(ns).map_err(|_| "namespace not UTF-8")?;
                namespaces.push(ns.to_string());
            }
        }
        let ntables = r.varint().ok_or("truncated table count")?;
        let mut tables = Vec::new();
        for _ in 0..ntables {
            let descriptor = TableDescriptor::decode(&mut r, version)?;
            let enabled = r.u8().ok_or("truncated enabled flag")? != 0;
            let nregions = r.varint().ok_or("truncated region count")?;
            let mut regions = Vec::new();
            for _ in 0..nregions {
                let id = r.varint().ok_or("truncated region id")?;
                let start = r.len_prefixed().ok_or("truncated start key")?.to_vec();
                let end = r.len_prefixed().ok_or("truncated end key")?.to_vec();
                let nstores = r.varint().ok_or("truncated store count")?;
                let mut stores = Vec::new();
                for _ in 0..nstores {
                    let family = r.len_prefixed().ok_or("truncated family")?.to_vec();
                    let flushed_seq = r.varint().ok_or("truncated flushed seq")?;
                    let nfiles = r.varint().ok_or("truncated file count")?;
                    let mut files = Vec::new();
                    for _ in 0..nfiles {
                        files.push(r.varint().ok_or("truncated file number")?);
                    }
                    stores.push(StoreRecord {
                        family,
                        flushed_seq,
                        files,
                    });
                }
                regions.push(RegionRecord {
                    id,
                    start,
                    end,
                    stores,
                });
            }
            tables.push(TableRecord {
                descriptor,
                enabled,
                regions,
            });
        }
        if !r.is_empty() {
            return Err("trailing bytes after the last table".into());
        }
        if version < 2 {
            namespaces = tables
                .iter()
                .map(|t| t.descriptor.name.namespace().to_string())
                .filter(|ns| !crate::schema::is_builtin_namespace(ns))
                .collect();
            namespaces.sort();
            namespaces.dedup();
        }
        Ok(ManifestData {
            last_seq,
            next_region_id,
            next_file_number,
            namespaces,
            tables,
        })
    }
}

/// File name of the manifest being written, renamed over [`MANIFEST_FILE`] once synced.
pub const MANIFEST_TMP_FILE: &str = "MANIFEST.tmp";

/// Writes `data` as the new manifest of `dir`, atomically and durably: written to
/// `MANIFEST.tmp`, synced, renamed over `MANIFEST`, and the directory synced ("Commit
/// protocol" in `docs/format/manifest.md`). Every block file `data` names must already be
/// durable, entry included.
pub fn write(fs: &dyn FileSystem, dir: &Path, data: &ManifestData) -> Result<()> {
    let payload = data.encode();
    let mut buf = Vec::with_capacity(payload.len() + 24);
    buf.extend_from_slice(MANIFEST_MAGIC);
    buf.extend_from_slice(&MANIFEST_VERSION.to_be_bytes());
    buf.extend_from_slice(&(payload.len() as u64).to_be_bytes());
    buf.extend_from_slice(&payload);
    buf.extend_from_slice(&checksum(MANIFEST_VERSION, &payload).to_be_bytes());
    let tmp = dir.join(MANIFEST_TMP_FILE);
    let f = fs.create(&tmp).at(&tmp)?;
    f.append(&buf).at(&tmp)?;
    f.sync_all().synced(&tmp)?;
    drop(f);
    let path = dir.join(MANIFEST_FILE);
    fs.rename(&tmp, &path).at(&path)?;
    fs.sync_dir(dir).synced(dir)?;
    Ok(())
}

/// The manifest's checksum: of the payload before version 3, of the version and the payload
/// from 3 on (so a damaged version number cannot read a payload as another version's).
fn checksum(version: u32, payload: &[u8]) -> u32 {
    if version < 3 {
        return masked_crc(payload);
    }
    let mut covered = Vec::with_capacity(4 + payload.len());
    covered.extend_from_slice(&version.to_be_bytes());
    covered.extend_from_slice(payload);
    masked_crc(&covered)
}

/// Reads the manifest of `dir`; `None` when the directory has none yet.
pub fn read(fs: &dyn FileSystem, dir: &Path) -> Result<Option<ManifestData>> {
    let path = dir.join(MANIFEST_FILE);
    let buf = match fs.read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let corrupt = |off: u64, why: &str| Error::corruption(&path, off, why.to_string());
    let mut r = ByteReader::new(&buf);
    if r.bytes(8) != Some(&MANIFEST_MAGIC[..]) {
        return Err(corrupt(0, "bad manifest magic"));
    }
    let version = r.u32().ok_or_else(|| corrupt(8, "truncated header"))?;
    if !(1..=MANIFEST_VERSION).contains(&version) {
        return Err(corrupt(
            8,
            &format!("unsupported manifest version {version}"),
        ));
    }
    let len = r.u64().ok_or_else(|| corrupt(12, "truncated header"))?;
    let payload = usize::try_from(len)
        .ok()
        .and_then(|l| r.bytes(l))
        .ok_or_else(|| corrupt(20, "payload cut short"))?;
    let crc = r
        .u32()
        .ok_or_else(|| corrupt(20 + len, "checksum missing"))?;
    if checksum(version, payload) != crc {
        return Err(corrupt(20, "manifest checksum mismatch"));
    }
    ManifestData::decode_version(payload, version)
        .map(Some)
        .map_err(|why| corrupt(20, &why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ColumnFamilyDescriptor, TableName};

    fn sample() -> ManifestData {
        ManifestData {
            last_seq: 99,
            next_region_id: 3,
            next_file_number: 17,
            namespaces: vec!["ns1".into()],
            tables: vec![TableRecord {
                descriptor: TableDescriptor::new(TableName::parse("t").unwrap())
                    .with_family(ColumnFamilyDescriptor::new("cf")),
                enabled: true,
                regions: vec![RegionRecord {
                    id: 1,
                    start: vec![],
                    end: b"m".to_vec(),
                    stores: vec![StoreRecord {
                        family: b"cf".to_vec(),
                        flushed_seq: 42,
                        files: vec![16, 9],
                    }],
                }],
            }],
        }
    }

    #[test]
    fn version_1_payloads_still_read_with_their_tables_namespaces() {
        let mut data = sample();
        data.namespaces.clear();
        data.tables[0].descriptor.name = TableName::parse("ns1:t").unwrap();
        let v1 = data.encode_version(1);
        let back = ManifestData::decode_version(&v1, 1).unwrap();
        assert_eq!(back.namespaces, ["ns1"]);
        assert_eq!(back.tables, data.tables);
        assert!(ManifestData::decode_version(&v1, 2).is_err());
    }

    #[test]
    fn manifest_round_trips_and_detects_damage() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(&crate::fs::OsFileSystem, dir.path()).unwrap(), None);
        write(&crate::fs::OsFileSystem, dir.path(), &sample()).unwrap();
        assert_eq!(
            read(&crate::fs::OsFileSystem, dir.path()).unwrap(),
            Some(sample())
        );
        let path = dir.path().join(MANIFEST_FILE);
        let good = std::fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 1;
            std::fs::write(&path, &bad).unwrap();
            assert!(
                matches!(
                    read(&crate::fs::OsFileSystem, dir.path()),
                    Err(Error::Corruption { .. })
                ),
                "flip at {i}"
            );
        }
    }
}
