//! The manifest: which tables, regions and block files are live. `MANIFEST` is a snapshot
//! (written whole to `MANIFEST.tmp`, fsynced, renamed over `MANIFEST`) naming the generation
//! of its edit log (`manifest_log.rs`); a structural change (create, alter, flush,
//! compaction, split, drop) appends one record to that log, and the log is rolled into a new
//! snapshot once it grows past the snapshot's size. Layout and the commit protocol (what is
//! synced before what) in `docs/format/manifest.md`.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::checksum::masked_crc;
use crate::error::{Error, IoContext, Result};
use crate::fs::FileSystem;
use crate::manifest_log::{self, LogRead};
use crate::schema::TableDescriptor;
use std::path::Path;

/// Magic at the start of the manifest.
pub const MANIFEST_MAGIC: &[u8; 8] = b"FRBSMAN1";
/// Manifest format version written (versions 1 to 3 are still read): 4 puts the edit log's
/// generation before the payload of version 3.
pub const MANIFEST_VERSION: u32 = 4;
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
            let mut d = Vec::new();
            t.descriptor.encode(&mut d, version);
            manifest_log::put_table_body(&mut out, &d, t.enabled, &t.regions);
        }
        out
    }

    /// Decodes a payload of the current version; a description of the problem when malformed.
    pub fn decode(buf: &[u8]) -> std::result::Result<ManifestData, String> {
        Self::decode_version(buf, MANIFEST_VERSION)
    }

    /// Decodes a payload of format `version` (1 to 4; version 4's generation taken off
    /// before). A version 1 manifest has no namespace
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
            tables.push(manifest_log::read_table(&mut r, version)?);
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

/// Writes `data` as the new manifest of `dir`, atomically and durably, with no edit log
/// (generation 0; a snapshot directory, a bulk-built data directory): written to
/// `MANIFEST.tmp`, synced, renamed over `MANIFEST`, and the directory synced ("Commit
/// protocol" in `docs/format/manifest.md`). Every block file `data` names must already be
/// durable, entry included.
pub fn write(fs: &dyn FileSystem, dir: &Path, data: &ManifestData) -> Result<()> {
    write_encoded(fs, dir, 0, &data.encode())
}

/// Writes a snapshot naming log `generation` whose body (the version 3 payload) is `body`,
/// as [`write`] does.
pub(crate) fn write_encoded(
    fs: &dyn FileSystem,
    dir: &Path,
    generation: u64,
    body: &[u8],
) -> Result<()> {
    let mut payload = Vec::with_capacity(body.len() + 10);
    put_varint(&mut payload, generation);
    payload.extend_from_slice(body);
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

/// Reads the manifest of `dir` (the snapshot with its log applied); `None` when the
/// directory has none yet.
pub fn read(fs: &dyn FileSystem, dir: &Path) -> Result<Option<ManifestData>> {
    Ok(read_full(fs, dir)?.map(|l| l.data))
}

/// A manifest as read: the state, and where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The snapshot with every whole record of its log applied.
    pub data: ManifestData,
    /// The snapshot's format version.
    pub version: u32,
    /// The snapshot's bytes.
    pub snapshot_bytes: u64,
    /// The log generation the snapshot names (0: none, as before version 4).
    pub generation: u64,
    /// The log, when the snapshot names one and it exists.
    pub log: Option<LogRead>,
}

/// Reads the manifest of `dir`: the snapshot `MANIFEST`, then the records of the log it
/// names. Damage in either (magic, version, length, checksum, a record that does not
/// decode or names a table or region not there) is [`Error::Corruption`] naming the file and
/// offset; a torn last record of the log is dropped ([`manifest_log::LogEnd::TornAt`]).
pub fn read_full(fs: &dyn FileSystem, dir: &Path) -> Result<Option<Loaded>> {
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
    let mut body = ByteReader::new(payload);
    let generation = if version >= 4 {
        body.varint()
            .ok_or_else(|| corrupt(20, "truncated log generation"))?
    } else {
        0
    };
    let body = payload.get(body.position()..).unwrap_or_default();
    let mut data = ManifestData::decode_version(body, version).map_err(|why| corrupt(20, &why))?;
    let mut log = None;
    if generation > 0 {
        let log_path = dir.join(manifest_log::log_file_name(generation));
        match fs.read(&log_path) {
            Ok(bytes) => {
                let read = manifest_log::parse(&log_path, &bytes, generation)?;
                if let Err((i, why)) = manifest_log::apply(&mut data, &read.edits) {
                    let offset = record_offset(&bytes, i);
                    return Err(Error::corruption(&log_path, offset, why));
                }
                log = Some(read);
            }
            // The roll that named it was cut before the log's entry was durable: no record
            // was ever appended to it.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&log_path, e)),
        }
    }
    Ok(Some(Loaded {
        data,
        version,
        snapshot_bytes: buf.len() as u64,
        generation,
        log,
    }))
}

/// The offset of record `i` of a log (whose records up to it are whole).
fn record_offset(log: &[u8], i: usize) -> u64 {
    let mut off = manifest_log::LOG_HEADER_LEN;
    for _ in 0..i {
        let len = log
            .get(off..off + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_be_bytes);
        off += 8 + len as usize;
    }
    off as u64
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
