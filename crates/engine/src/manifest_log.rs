//! The manifest's edit log: a structural change appends one small framed record naming what
//! it changed (a region's stores, a table, the namespaces) instead of rewriting the whole
//! manifest. `MANIFEST` is then the snapshot the log starts from, and names the log's
//! generation; the state is the snapshot with every record of `MANIFEST-<generation>.log`
//! applied in order. Layout, roll protocol and recovery rules in `docs/format/manifest.md`.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::byte_reader::{put_len_prefixed, put_varint, ByteReader};
use crate::checksum::masked_crc;
use crate::error::{Error, Result};
use crate::manifest::{ManifestData, RegionRecord, StoreRecord, TableRecord};
use crate::schema::{TableDescriptor, TableName};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Magic at the start of a manifest log.
pub const LOG_MAGIC: &[u8; 8] = b"FRBSMLG1";
/// Bytes of a log's header: the magic and the generation.
pub const LOG_HEADER_LEN: usize = 16;
/// A record longer than this is damage (no change writes one: the largest is one table's
/// whole region list).
pub const MAX_RECORD: u32 = 1 << 30;
/// Sector size assumed by the zero-filled-tail rule (as the WAL's).
const SECTOR: usize = 512;

const OP_NAMESPACES: u8 = 1;
const OP_TABLE: u8 = 2;
const OP_DROP_TABLE: u8 = 3;
const OP_REGION: u8 = 4;

/// File name of the log of generation `generation`.
pub fn log_file_name(generation: u64) -> String {
    format!("MANIFEST-{generation:016}.log")
}

/// The generation of a log file name, `None` for any other name.
pub fn log_generation_of(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("MANIFEST-")?.strip_suffix(".log")?;
    if digits.len() != 16 {
        return None;
    }
    digits.parse().ok()
}

/// The header of a new log of `generation`.
pub fn log_header(generation: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(LOG_HEADER_LEN);
    out.extend_from_slice(LOG_MAGIC);
    out.extend_from_slice(&generation.to_be_bytes());
    out
}

/// `payload` framed as a log record: `len:u32 crc:u32 payload` (the WAL's framing).
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 8);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(&masked_crc(payload).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// One change a record carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogOp {
    /// The namespaces created by `create_namespace`, all of them.
    Namespaces(Vec<String>),
    /// A table created or changed: its whole record replaces any of the same name.
    Table(TableRecord),
    /// A table dropped.
    DropTable(TableName),
    /// One region's stores changed (flush, compaction): replaces the region of that id.
    Region(TableName, RegionRecord),
}

/// One record: the counters as of the change, and what changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogEdit {
    /// Largest sequence id known to be used.
    pub last_seq: u64,
    /// Next region id to hand out.
    pub next_region_id: u64,
    /// Next block file number to hand out.
    pub next_file_number: u64,
    /// The changes, applied in order.
    pub ops: Vec<LogOp>,
}

/// Starts a record's payload: the counters.
pub fn put_edit_header(out: &mut Vec<u8>, last_seq: u64, next_region_id: u64, next_file: u64) {
    put_varint(out, last_seq);
    put_varint(out, next_region_id);
    put_varint(out, next_file);
}

/// Appends a namespaces op.
pub fn put_namespaces<'a>(
    out: &mut Vec<u8>,
    namespaces: impl ExactSizeIterator<Item = &'a String>,
) {
    out.push(OP_NAMESPACES);
    put_varint(out, namespaces.len() as u64);
    for ns in namespaces {
        put_len_prefixed(out, ns.as_bytes());
    }
}

/// Appends a table op: `descriptor` is the table's descriptor already encoded
/// ([`TableDescriptor::encode`] at the manifest's version).
pub fn put_table(out: &mut Vec<u8>, descriptor: &[u8], enabled: bool, regions: &[RegionRecord]) {
    out.push(OP_TABLE);
    put_table_body(out, descriptor, enabled, regions);
}

/// A table as the snapshot lists it: descriptor, enabled flag, regions.
pub fn put_table_body(
    out: &mut Vec<u8>,
    descriptor: &[u8],
    enabled: bool,
    regions: &[RegionRecord],
) {
    out.extend_from_slice(descriptor);
    out.push(u8::from(enabled));
    put_varint(out, regions.len() as u64);
    for r in regions {
        put_region(out, r);
    }
}

/// Appends a drop-table op.
pub fn put_drop_table(out: &mut Vec<u8>, name: &TableName) {
    out.push(OP_DROP_TABLE);
    put_len_prefixed(out, name.to_string().as_bytes());
}

/// Appends a region op.
pub fn put_region_op(out: &mut Vec<u8>, table: &TableName, region: &RegionRecord) {
    out.push(OP_REGION);
    put_len_prefixed(out, table.to_string().as_bytes());
    put_region(out, region);
}

/// A region as the manifest lists it.
pub fn put_region(out: &mut Vec<u8>, r: &RegionRecord) {
    put_varint(out, r.id);
    put_len_prefixed(out, &r.start);
    put_len_prefixed(out, &r.end);
    put_varint(out, r.stores.len() as u64);
    for s in &r.stores {
        put_len_prefixed(out, &s.family);
        put_varint(out, s.flushed_seq);
        put_varint(out, s.files.len() as u64);
        for f in &s.files {
            put_varint(out, *f);
        }
    }
}

/// Reads a region as [`put_region`] wrote it.
pub fn read_region(r: &mut ByteReader<'_>) -> std::result::Result<RegionRecord, String> {
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
    Ok(RegionRecord {
        id,
        start,
        end,
        stores,
    })
}

/// Reads a table as [`put_table_body`] wrote it, at manifest format `version`.
pub fn read_table(
    r: &mut ByteReader<'_>,
    version: u32,
) -> std::result::Result<TableRecord, String> {
    let descriptor = TableDescriptor::decode(r, version)?;
    let enabled = r.u8().ok_or("truncated enabled flag")? != 0;
    let nregions = r.varint().ok_or("truncated region count")?;
    let mut regions = Vec::new();
    for _ in 0..nregions {
        regions.push(read_region(r)?);
    }
    Ok(TableRecord {
        descriptor,
        enabled,
        regions,
    })
}

fn read_table_name(r: &mut ByteReader<'_>) -> std::result::Result<TableName, String> {
    let name = r.len_prefixed().ok_or("truncated table name")?;
    let name = std::str::from_utf8(name).map_err(|_| "table name not UTF-8")?;
    TableName::parse(name).map_err(|e| e.to_string())
}

impl LogEdit {
    /// Encodes the record's payload (the engine writes its records from the catalog
    /// directly, `engine/manifest_writer.rs`; this is for tests and tools).
    #[cfg_attr(not(test), allow(dead_code, reason = "used by the tests"))]
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_edit_header(
            &mut out,
            self.last_seq,
            self.next_region_id,
            self.next_file_number,
        );
        for op in &self.ops {
            match op {
                LogOp::Namespaces(ns) => put_namespaces(&mut out, ns.iter()),
                LogOp::Table(t) => {
                    let mut d = Vec::new();
                    t.descriptor
                        .encode(&mut d, crate::manifest::MANIFEST_VERSION);
                    put_table(&mut out, &d, t.enabled, &t.regions);
                }
                LogOp::DropTable(name) => put_drop_table(&mut out, name),
                LogOp::Region(t, r) => put_region_op(&mut out, t, r),
            }
        }
        out
    }

    /// Decodes a record's payload; a description of the problem when malformed.
    pub fn decode(buf: &[u8]) -> std::result::Result<LogEdit, String> {
        let mut r = ByteReader::new(buf);
        let last_seq = r.varint().ok_or("truncated last seq")?;
        let next_region_id = r.varint().ok_or("truncated next region id")?;
        let next_file_number = r.varint().ok_or("truncated next file number")?;
        let mut ops = Vec::new();
        while !r.is_empty() {
            let op = match r.u8().ok_or("truncated op")? {
                OP_NAMESPACES => {
                    let n = r.varint().ok_or("truncated namespace count")?;
                    let mut list = Vec::new();
                    for _ in 0..n {
                        let ns = r.len_prefixed().ok_or("truncated namespace")?;
                        let ns = std::str::from_utf8(ns).map_err(|_| "namespace not UTF-8")?;
                        list.push(ns.to_string());
                    }
                    LogOp::Namespaces(list)
                }
                OP_TABLE => LogOp::Table(read_table(&mut r, crate::manifest::MANIFEST_VERSION)?),
                OP_DROP_TABLE => LogOp::DropTable(read_table_name(&mut r)?),
                OP_REGION => {
                    let t = read_table_name(&mut r)?;
                    LogOp::Region(t, read_region(&mut r)?)
                }
                other => return Err(format!("unknown op {other}")),
            };
            ops.push(op);
        }
        Ok(LogEdit {
            last_seq,
            next_region_id,
            next_file_number,
            ops,
        })
    }
}

/// How a log ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogEnd {
    /// After its last record.
    Clean,
    /// In a torn record at `offset` (a change never acknowledged: its append was not synced),
    /// dropped; the next change writes a snapshot instead of appending after it.
    TornAt {
        /// Where the torn record starts.
        offset: u64,
        /// Why it counts as torn.
        reason: String,
    },
}

/// A log read whole.
#[derive(Debug, Clone)]
pub struct LogRead {
    /// The log's path.
    pub path: PathBuf,
    /// Its records, in order.
    pub edits: Vec<LogEdit>,
    /// Bytes up to the end of the last whole record.
    pub valid_len: u64,
    /// How it ends.
    pub end: LogEnd,
}

/// Why a record at some offset is bad.
enum Bad {
    /// What a power cut leaves of an unsynced append: a tear, if nothing valid follows.
    Incomplete(String),
    /// What no crash produces.
    Damaged(String),
}

/// The record starting at `off` of `buf`: its payload and its end, or why it is bad.
fn record_at(buf: &[u8], off: usize, zero_tail: usize) -> std::result::Result<(&[u8], usize), Bad> {
    let rest = buf.get(off..).unwrap_or_default();
    if rest.iter().all(|&b| b == 0) {
        return Err(Bad::Incomplete("nothing but zero bytes to the end".into()));
    }
    let (Some(len), Some(crc)) = (rest.get(0..4), rest.get(4..8)) else {
        return Err(Bad::Incomplete("header cut short".into()));
    };
    let len = u32::from_be_bytes(len.try_into().unwrap_or_default());
    let crc = u32::from_be_bytes(crc.try_into().unwrap_or_default());
    if len > MAX_RECORD {
        return Err(Bad::Damaged(format!("record length {len} past any record")));
    }
    let end = off + 8 + len as usize;
    let Some(payload) = buf.get(off + 8..end) else {
        return Err(Bad::Incomplete(
            "record runs past the end of the file".into(),
        ));
    };
    if masked_crc(payload) != crc {
        if end > zero_tail {
            return Err(Bad::Incomplete(
                "record runs into zero bytes filling the file's last sectors".into(),
            ));
        }
        return Err(Bad::Damaged("record checksum mismatch".into()));
    }
    Ok((payload, end))
}

/// Parses a log of `generation` read whole from `path`. A tear (an incomplete last record
/// with nothing valid after it) ends the log; damage anywhere (a complete record whose
/// checksum fails or whose payload does not decode, a bad header, a record that only looks
/// cut short with a valid one after it) is [`Error::Corruption`] naming the file and offset.
pub fn parse(path: &Path, buf: &[u8], generation: u64) -> Result<LogRead> {
    let corrupt = |off: usize, why: String| Error::corruption(path, off as u64, why);
    // The header was synced before the snapshot naming this log was renamed into place: a
    // header cut short or zeroed is damage (a disk that lost synced bytes), not a tear.
    let Some(header) = buf.get(..LOG_HEADER_LEN) else {
        return Err(corrupt(0, "manifest log header cut short".into()));
    };
    if header.get(..8) != Some(&LOG_MAGIC[..]) {
        return Err(corrupt(0, "bad manifest log magic".into()));
    }
    let found = u64::from_be_bytes(
        header
            .get(8..16)
            .and_then(|g| g.try_into().ok())
            .unwrap_or_default(),
    );
    if found != generation {
        return Err(corrupt(
            8,
            format!("log of generation {found} where the manifest names {generation}"),
        ));
    }
    // Zeros from a sector boundary to the end: blocks allocated and never written.
    let last_nonzero = buf.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    let zero_tail = last_nonzero.div_ceil(SECTOR) * SECTOR;
    let zero_tail = if zero_tail < buf.len() {
        zero_tail
    } else {
        buf.len()
    };
    let mut off = LOG_HEADER_LEN;
    let mut edits = Vec::new();
    loop {
        if off >= buf.len() {
            return Ok(LogRead {
                path: path.to_path_buf(),
                edits,
                valid_len: off as u64,
                end: LogEnd::Clean,
            });
        }
        match record_at(buf, off, zero_tail) {
            Ok((payload, end)) => {
                let edit = LogEdit::decode(payload)
                    .map_err(|why| corrupt(off, format!("record does not decode: {why}")))?;
                edits.push(edit);
                off = end;
            }
            Err(Bad::Damaged(why)) => return Err(corrupt(off, why)),
            Err(Bad::Incomplete(why)) => {
                // Nothing valid follows a tear: a whole record with a matching checksum at
                // any later offset means this one is damage (its length may be what is
                // damaged).
                let later = (off + 1..buf.len()).find(|&p| {
                    record_at(buf, p, buf.len())
                        .ok()
                        .is_some_and(|(payload, _)| LogEdit::decode(payload).is_ok())
                });
                if let Some(p) = later {
                    return Err(corrupt(
                        off,
                        format!("{why}, with a whole record after it at offset {p}"),
                    ));
                }
                return Ok(LogRead {
                    path: path.to_path_buf(),
                    edits,
                    valid_len: off as u64,
                    end: LogEnd::TornAt {
                        offset: off as u64,
                        reason: why,
                    },
                });
            }
        }
    }
}

/// Applies `edits` in order to `data` (the snapshot). A record naming a region or table the
/// state does not hold is damage: the error says which (the caller names file and offset).
pub fn apply(
    data: &mut ManifestData,
    edits: &[LogEdit],
) -> std::result::Result<(), (usize, String)> {
    let mut tables: BTreeMap<TableName, TableRecord> = std::mem::take(&mut data.tables)
        .into_iter()
        .map(|t| (t.descriptor.name.clone(), t))
        .collect();
    for (i, e) in edits.iter().enumerate() {
        data.last_seq = e.last_seq;
        data.next_region_id = e.next_region_id;
        data.next_file_number = e.next_file_number;
        for op in &e.ops {
            match op {
                LogOp::Namespaces(ns) => data.namespaces = ns.clone(),
                LogOp::Table(t) => {
                    tables.insert(t.descriptor.name.clone(), t.clone());
                }
                LogOp::DropTable(name) => {
                    if tables.remove(name).is_none() {
                        return Err((i, format!("record drops table {name}, which is not there")));
                    }
                }
                LogOp::Region(name, r) => {
                    let slot = tables
                        .get_mut(name)
                        .and_then(|t| t.regions.iter_mut().find(|x| x.id == r.id));
                    match slot {
                        Some(slot) => *slot = r.clone(),
                        None => {
                            return Err((
                                i,
                                format!(
                                    "record changes region {} of table {name}, which is not there",
                                    r.id
                                ),
                            ))
                        }
                    }
                }
            }
        }
    }
    data.tables = tables.into_values().collect();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ColumnFamilyDescriptor;

    fn table(name: &str) -> TableRecord {
        TableRecord {
            descriptor: TableDescriptor::new(TableName::parse(name).unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
            enabled: true,
            regions: vec![RegionRecord {
                id: 7,
                start: vec![],
                end: vec![],
                stores: vec![StoreRecord {
                    family: b"cf".to_vec(),
                    flushed_seq: 1,
                    files: vec![3],
                }],
            }],
        }
    }

    fn edits() -> Vec<LogEdit> {
        let mut r = table("t").regions[0].clone();
        r.stores[0].files = vec![9, 3];
        r.stores[0].flushed_seq = 20;
        vec![
            LogEdit {
                last_seq: 5,
                next_region_id: 8,
                next_file_number: 4,
                ops: vec![
                    LogOp::Namespaces(vec!["ns".into()]),
                    LogOp::Table(table("t")),
                ],
            },
            LogEdit {
                last_seq: 20,
                next_region_id: 8,
                next_file_number: 10,
                ops: vec![LogOp::Region(TableName::parse("t").unwrap(), r)],
            },
            LogEdit {
                last_seq: 21,
                next_region_id: 8,
                next_file_number: 10,
                ops: vec![
                    LogOp::Table(table("ns:u")),
                    LogOp::DropTable(TableName::parse("ns:u").unwrap()),
                ],
            },
        ]
    }

    fn log_bytes() -> Vec<u8> {
        let mut buf = log_header(3);
        for e in edits() {
            buf.extend_from_slice(&frame(&e.encode()));
        }
        buf
    }

    #[test]
    fn records_round_trip_and_apply() {
        let buf = log_bytes();
        let read = parse(Path::new("l"), &buf, 3).unwrap();
        assert_eq!(read.edits, edits());
        assert_eq!(read.end, LogEnd::Clean);
        let mut data = ManifestData::default();
        apply(&mut data, &read.edits).unwrap();
        assert_eq!(data.last_seq, 21);
        assert_eq!(data.namespaces, ["ns"]);
        assert_eq!(data.tables.len(), 1);
        assert_eq!(data.tables[0].regions[0].stores[0].files, [9, 3]);
    }

    #[test]
    fn every_cut_is_a_tear_and_every_flip_is_damage_or_a_tear_at_the_end() {
        let buf = log_bytes();
        let mut bounds = vec![LOG_HEADER_LEN];
        for e in edits() {
            bounds.push(bounds.last().unwrap() + frame(&e.encode()).len());
        }
        for cut in 0..LOG_HEADER_LEN {
            assert!(matches!(
                parse(Path::new("l"), &buf[..cut], 3),
                Err(Error::Corruption { offset: 0, .. })
            ));
        }
        for cut in LOG_HEADER_LEN..buf.len() {
            let read = parse(Path::new("l"), &buf[..cut], 3).unwrap();
            let whole = bounds
                .iter()
                .filter(|&&b| b <= cut)
                .count()
                .saturating_sub(1);
            assert_eq!(read.edits.len(), whole, "cut at {cut}");
            assert_eq!(
                matches!(read.end, LogEnd::Clean),
                bounds.contains(&cut),
                "cut at {cut}"
            );
        }
        let last = buf.len() - frame(&edits()[2].encode()).len();
        for i in 0..buf.len() {
            let mut bad = buf.clone();
            bad[i] ^= 0x40;
            match parse(Path::new("l"), &bad, 3) {
                Err(Error::Corruption { .. }) => {}
                Ok(read) => {
                    // Only the last record's length can make it look cut short.
                    assert!(i >= last, "flip at {i} read as {:?}", read.end);
                    assert_eq!(read.edits.len(), 2);
                }
                Err(e) => panic!("{e}"),
            }
        }
        // A zero-filled tail after the records is a tear.
        let mut padded = buf.clone();
        padded.resize(buf.len().div_ceil(SECTOR) * SECTOR + SECTOR, 0);
        let read = parse(Path::new("l"), &padded, 3).unwrap();
        assert_eq!(read.edits.len(), 3);
        assert!(matches!(read.end, LogEnd::TornAt { .. }));
    }

    #[test]
    fn generation_and_names() {
        assert_eq!(log_generation_of(&log_file_name(42)), Some(42));
        assert_eq!(log_generation_of("MANIFEST"), None);
        assert!(matches!(
            parse(Path::new("l"), &log_bytes(), 4),
            Err(Error::Corruption { offset: 8, .. })
        ));
    }
}
