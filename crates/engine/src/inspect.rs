//! The inspectors and the check of a data directory (`ferrobase inspect`, `ferrobase check`;
//! issue 47): what a block file, a WAL segment or the manifest holds, printed as text, and
//! every checksum of a data directory verified, without changing a byte and without taking
//! the directory's lock (a running server's directory can be checked; what it writes meanwhile
//! may show as a tear or an orphan). [`repair`] (`ferrobase check --repair`) takes the lock and
//! moves only what no manifest names into `lost+found/`.
//!
//! Each reads through the same decoders the engine opens its files with, so a file the engine
//! would refuse is refused here with the same error (`Error::Corruption`, naming the file and
//! the offset).

use crate::block_cache::BlockCache;
use crate::block_file::{BlockFileReader, CacheMode, FileScanner};
use crate::cell::{CellKey, KeyValue};
use crate::error::{Error, IoContext, Result};
use crate::file_handles::FileHandles;
use crate::fs::FileSystem;
use crate::manifest::{self, ManifestData};
use crate::metrics::Metrics;
use crate::wal;
pub use crate::wal::SegmentEnd;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to print of a block file.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockFilePrint {
    /// Every cell, as HBase's `hfile -p` prints them (`K: row/family:qualifier/ts/Type/vlen=N/seqid=S V: value`).
    pub cells: bool,
    /// The trailer and the meta section (HBase's `hfile -m`).
    pub meta: bool,
}

/// What a block file holds, all its checksums verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockFileSummary {
    /// Cells read (equal to the meta section's count, or the file is corrupt).
    pub cells: u64,
    /// Data blocks.
    pub blocks: usize,
    /// Whether it has a bloom filter.
    pub bloom: bool,
}

/// Reads the block file at `path` whole (trailer, meta, index, bloom and every data block,
/// each checksum verified), printing what `print` asks to `out`.
pub fn block_file(
    fs: Arc<dyn FileSystem>,
    path: &Path,
    print: BlockFilePrint,
    out: &mut dyn Write,
) -> Result<BlockFileSummary> {
    let metrics = Arc::new(Metrics::default());
    let reader = Arc::new(BlockFileReader::open(
        &FileHandles::new(fs, 4),
        path,
        1,
        Arc::new(BlockCache::new(1 << 20, metrics.clone())),
        metrics,
    )?);
    let (blocks, bloom) = reader.read_sections()?;
    let meta = reader.meta().clone();
    let w = |e: std::io::Error| Error::io(path, e);
    if print.meta {
        let t = reader.trailer();
        writeln!(out, "Trailer:").map_err(w)?;
        writeln!(out, "    format version={}", t.version).map_err(w)?;
        for (name, s) in [("bloom", t.bloom), ("index", t.index), ("meta", t.meta)] {
            writeln!(
                out,
                "    {name} section: offset={} length={}",
                s.offset, s.len
            )
            .map_err(w)?;
        }
        writeln!(out, "Meta:").map_err(w)?;
        writeln!(out, "    family={}", binary(&meta.family)).map_err(w)?;
        writeln!(
            out,
            "    cells={} deletes={} raw data bytes={}",
            meta.cell_count, meta.delete_count, meta.raw_data_bytes
        )
        .map_err(w)?;
        writeln!(
            out,
            "    timestamps={}..{} max seqid={} major compacted={}",
            meta.min_ts, meta.max_ts, meta.max_seq, meta.major_compacted
        )
        .map_err(w)?;
        let key = |k: &Option<CellKey>| {
            k.as_ref()
                .map_or_else(|| "none".to_string(), |k| key_text(k, &meta.family))
        };
        writeln!(out, "    first key={}", key(&meta.first_key)).map_err(w)?;
        writeln!(out, "    last key={}", key(&meta.last_key)).map_err(w)?;
        writeln!(
            out,
            "    bloom={} ({}) data blocks={blocks}",
            meta.bloom.name(),
            if bloom { "present" } else { "none" }
        )
        .map_err(w)?;
    }
    let mut scanner = FileScanner::new(reader, CacheMode::whole_file());
    scanner.seek(&CellKey::first_on_row(b""))?;
    let mut cells = 0u64;
    while let Some(kv) = scanner.take()? {
        cells += 1;
        if print.cells {
            writeln!(out, "{}", cell_text(&kv, &meta.family)).map_err(w)?;
        }
    }
    if cells != meta.cell_count {
        return Err(Error::corruption(
            path,
            0,
            format!(
                "the meta section counts {} cells, the data blocks hold {cells}",
                meta.cell_count
            ),
        ));
    }
    writeln!(
        out,
        "Scanned {cells} cells in {blocks} blocks of {}: every checksum verified",
        path.display()
    )
    .map_err(w)?;
    Ok(BlockFileSummary {
        cells,
        blocks,
        bloom,
    })
}

/// Reads the WAL segment at `path`, printing each record (sequence id, region, cells) when
/// `records`, then how it ends: whole, a torn tail (cut off at the next open), or damage
/// (refused at the next open). `last`: read it as the newest segment (a tear is allowed only
/// there).
pub fn wal_segment(
    fs: &dyn FileSystem,
    path: &Path,
    last: bool,
    records: bool,
    out: &mut dyn Write,
) -> Result<SegmentEnd> {
    let mut failed = None;
    let mut count = 0u64;
    let end = wal::read_segment(fs, path, last, |edit| {
        count += 1;
        if records && failed.is_none() {
            let mut text = format!(
                "seqid={} region={} cells={}\n",
                edit.seq,
                edit.region_id,
                edit.cells.len()
            );
            for c in &edit.cells {
                let ttl = c.ttl_ms.map(|t| format!("/ttl={t}")).unwrap_or_default();
                text.push_str(&format!(
                    "    {}/{}:{}/{}/{}/vlen={}{ttl} V: {}\n",
                    binary(&c.row),
                    binary(&c.family),
                    binary(&c.qualifier),
                    c.timestamp,
                    c.cell_type.name(),
                    c.value.len(),
                    binary(&c.value)
                ));
            }
            failed = out.write_all(text.as_bytes()).err();
        }
        Ok(())
    })?;
    let w = |e: std::io::Error| Error::io(path, e);
    if let Some(e) = failed {
        return Err(w(e));
    }
    match &end {
        SegmentEnd::Clean => writeln!(out, "{count} records; the segment ends whole"),
        SegmentEnd::TornAt { offset, reason } => writeln!(
            out,
            "{count} records; a torn tail at offset {offset} ({reason}): cut off at the next open"
        ),
        SegmentEnd::DamagedAt { offset, reason } => writeln!(
            out,
            "{count} records; DAMAGE at offset {offset} ({reason}): the next open refuses \
             (point-in-time recovery opens without what follows)"
        ),
    }
    .map_err(w)?;
    Ok(end)
}

/// Prints the manifest of data directory `dir`: sequence ids, namespaces, and every table's
/// regions and their stores' files.
pub fn manifest(fs: &dyn FileSystem, dir: &Path, out: &mut dyn Write) -> Result<ManifestData> {
    let loaded = read_loaded(fs, dir)?;
    let path = dir.join(manifest::MANIFEST_FILE);
    let w = |e: std::io::Error| Error::io(&path, e);
    writeln!(out, "{}", describe_log(&loaded)).map_err(w)?;
    let data = loaded.data;
    writeln!(
        out,
        "last seqid={} next region id={} next file number={}",
        data.last_seq, data.next_region_id, data.next_file_number
    )
    .map_err(w)?;
    writeln!(out, "namespaces: {}", data.namespaces.join(", ")).map_err(w)?;
    for t in &data.tables {
        writeln!(
            out,
            "table {} ({}; families {})",
            t.descriptor.name,
            if t.enabled { "enabled" } else { "disabled" },
            t.descriptor
                .families
                .iter()
                .map(|f| binary(&f.name))
                .collect::<Vec<_>>()
                .join(", ")
        )
        .map_err(w)?;
        for r in &t.regions {
            writeln!(
                out,
                "    region {} [{}, {})",
                r.id,
                binary(&r.start),
                binary(&r.end)
            )
            .map_err(w)?;
            for s in &r.stores {
                let files: Vec<String> = s.files.iter().map(|n| format!("{n:016}.blk")).collect();
                writeln!(
                    out,
                    "        {}: flushed seqid={} files [{}]",
                    binary(&s.family),
                    s.flushed_seq,
                    files.join(", ")
                )
                .map_err(w)?;
            }
        }
    }
    Ok(data)
}

/// One line on where the manifest came from: the snapshot's version, and its edit log (file,
/// records, bytes, how it ends).
fn describe_log(l: &manifest::Loaded) -> String {
    let mut line = format!(
        "snapshot MANIFEST (version {}, {} bytes)",
        l.version, l.snapshot_bytes
    );
    match (&l.log, l.generation) {
        (_, 0) => line += "; no edit log",
        (None, g) => {
            line += &format!(
                "; edit log {} missing (no change was appended to it)",
                crate::manifest_log::log_file_name(g)
            )
        }
        (Some(log), _) => {
            let name = log
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            line += &format!(
                "; edit log {name}: {} records, {} bytes",
                log.edits.len(),
                log.valid_len
            );
            if let crate::manifest_log::LogEnd::TornAt { offset, reason } = &log.end {
                line += &format!(
                    "; a torn last record at offset {offset} ({reason}): dropped, the next change writes a snapshot"
                );
            }
        }
    }
    line
}

fn read_loaded(fs: &dyn FileSystem, dir: &Path) -> Result<manifest::Loaded> {
    manifest::read_full(fs, dir)?.ok_or_else(|| {
        Error::corruption(
            dir.join(manifest::MANIFEST_FILE),
            0,
            "no manifest: not a ferrobase data directory".to_string(),
        )
    })
}

/// What [`check`] found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Block files read whole.
    pub files: usize,
    /// WAL segments read.
    pub segments: usize,
    /// What is wrong, one line each (empty: nothing).
    pub problems: Vec<String>,
    /// What is not wrong but worth knowing (a torn WAL tail, files no manifest names).
    pub notes: Vec<String>,
    /// Files and region directories under `data/` the manifest does not name (the next open
    /// removes them; `--repair` moves them to `lost+found/`).
    pub orphans: Vec<PathBuf>,
    /// Temporary files and directories an interrupted write left (`MANIFEST.tmp`, stale
    /// manifest logs, `wal/*.wal.tmp`, `snapshots/.tmp-*`): removed at the next open.
    pub leftovers: Vec<PathBuf>,
}

/// Checks data directory `dir` without changing it: the manifest, every block file it names
/// (each checksum, the cell count), files it does not name (orphans, removed at the next open),
/// every WAL segment (torn tails, damage, segments shorter than their synced marks), printing
/// a line per finding and a summary.
pub fn check(fs: Arc<dyn FileSystem>, dir: &Path, out: &mut dyn Write) -> Result<CheckReport> {
    let mut report = CheckReport::default();
    let w = |e: std::io::Error| Error::io(dir, e);
    let mut generation = None;
    let data = match read_loaded(&*fs, dir) {
        Ok(l) => {
            generation = Some(l.generation);
            if let Some(crate::manifest_log::LogEnd::TornAt { offset, reason }) =
                l.log.as_ref().map(|log| &log.end)
            {
                report.notes.push(format!(
                    "manifest log: a torn last record at offset {offset} ({reason}): a change never acknowledged, dropped at the next open"
                ));
            }
            Some(l.data)
        }
        Err(e) => {
            report.problems.push(format!("manifest: {e}"));
            None
        }
    };
    let data_dir = dir.join("data");
    let mut named: BTreeSet<PathBuf> = BTreeSet::new();
    for t in data.iter().flat_map(|d| &d.tables) {
        for r in &t.regions {
            for s in &r.stores {
                for &n in &s.files {
                    let path = data_dir.join(r.id.to_string()).join(format!("{n:016}.blk"));
                    named.insert(path.clone());
                    report.files += 1;
                    if !fs.exists(&path) {
                        report.problems.push(format!(
                            "{}: named by the manifest (table {}, region {}, family {}) but missing",
                            path.display(),
                            t.descriptor.name,
                            r.id,
                            binary(&s.family)
                        ));
                        continue;
                    }
                    if let Err(e) = block_file(
                        fs.clone(),
                        &path,
                        BlockFilePrint::default(),
                        &mut Vec::new(),
                    ) {
                        report.problems.push(e.to_string());
                    }
                }
            }
        }
    }
    if let Some(data) = &data {
        let live: BTreeSet<u64> = data
            .tables
            .iter()
            .flat_map(|t| t.regions.iter().map(|r| r.id))
            .collect();
        if fs.exists(&data_dir) {
            // As the open's clean-up: only region directories (numbers) are the engine's.
            for region in fs.list_dir(&data_dir).at(&data_dir)? {
                let Some(id) = region.name.to_str().and_then(|s| s.parse::<u64>().ok()) else {
                    continue;
                };
                let rdir = data_dir.join(&region.name);
                if !live.contains(&id) {
                    report.notes.push(format!(
                        "{}: a region directory not named by the manifest (left by an \
                         interrupted split, clone, restore or drop; removed at the next open)",
                        rdir.display()
                    ));
                    report.orphans.push(rdir);
                    continue;
                }
                for f in fs.list_dir(&rdir).unwrap_or_default() {
                    let p = rdir.join(&f.name);
                    if !named.contains(&p) {
                        report.notes.push(format!(
                            "{}: not named by the manifest (left by an interrupted flush, \
                             compaction or drop; removed at the next open)",
                            p.display()
                        ));
                        report.orphans.push(p);
                    }
                }
            }
        }
    }
    leftovers(&*fs, dir, generation, &mut report)?;
    let wal_dir = dir.join("wal");
    if fs.exists(&wal_dir) {
        let segments = wal::list_segments(&*fs, &wal_dir)?;
        let marks: BTreeMap<u64, u64> = wal::read_marks(&*fs, &wal_dir)?;
        for (i, &n) in segments.iter().enumerate() {
            let path = wal::segment_path(&wal_dir, n);
            report.segments += 1;
            let last = i + 1 == segments.len();
            let end = wal_segment(&*fs, &path, last, false, &mut Vec::new())
                .and_then(|end| wal::against_mark(&*fs, &path, end, marks.get(&n).copied()));
            match end {
                Err(e) => report.problems.push(e.to_string()),
                Ok(SegmentEnd::DamagedAt { offset, reason }) => report.problems.push(format!(
                    "{}: damaged record at offset {offset} ({reason}): the next open refuses",
                    path.display()
                )),
                Ok(SegmentEnd::TornAt { offset, reason }) => report.notes.push(format!(
                    "{}: torn tail at offset {offset} ({reason}), never acknowledged at \
                     FSYNC_WAL; cut off at the next open",
                    path.display()
                )),
                Ok(SegmentEnd::Clean) => {}
            }
        }
    }
    for p in &report.problems {
        writeln!(out, "PROBLEM {p}").map_err(w)?;
    }
    for n in &report.notes {
        writeln!(out, "note {n}").map_err(w)?;
    }
    writeln!(
        out,
        "{}: {} block files and {} WAL segments read, {} problems, {} notes",
        dir.display(),
        report.files,
        report.segments,
        report.problems.len(),
        report.notes.len()
    )
    .map_err(w)?;
    Ok(report)
}

/// Notes the temporary files and directories an interrupted write left, as the open finds
/// and removes them: `MANIFEST.tmp`, manifest logs other than the one in force (when the
/// manifest was read: `generation`), `wal/`'s temporary files, `snapshots/.tmp-*`.
fn leftovers(
    fs: &dyn FileSystem,
    dir: &Path,
    generation: Option<u64>,
    report: &mut CheckReport,
) -> Result<()> {
    let mut found = Vec::new();
    let tmp = dir.join(manifest::MANIFEST_TMP_FILE);
    if fs.exists(&tmp) {
        found.push((tmp, "a manifest being written when it stopped"));
    }
    if let Some(generation) = generation {
        for e in fs.list_dir(dir).at(dir)? {
            let stale = e
                .name
                .to_str()
                .and_then(crate::manifest_log::log_generation_of)
                .is_some_and(|g| g != generation);
            if stale {
                found.push((
                    dir.join(&e.name),
                    "a manifest log the manifest does not use",
                ));
            }
        }
    }
    let wal_dir = dir.join("wal");
    if fs.exists(&wal_dir) {
        for e in fs.list_dir(&wal_dir).at(&wal_dir)? {
            let name = e.name.to_string_lossy();
            if name.ends_with(wal::FREE_SUFFIX) {
                found.push((wal_dir.join(&e.name), "a WAL segment kept for reuse"));
            } else if wal::is_leftover(&name) {
                found.push((wal_dir.join(&e.name), "a temporary WAL file"));
            }
        }
    }
    let snapshots = dir.join(crate::engine::snapshot::SNAPSHOTS_DIR);
    if fs.exists(&snapshots) {
        for e in fs.list_dir(&snapshots).at(&snapshots)? {
            let unfinished = e
                .name
                .to_str()
                .is_some_and(|n| n.starts_with(crate::engine::snapshot::TMP_PREFIX));
            if unfinished {
                found.push((
                    snapshots.join(&e.name),
                    "a snapshot being written or deleted when it stopped",
                ));
            }
        }
    }
    for (path, what) in found {
        report.notes.push(format!(
            "{}: {what} (a leftover; removed at the next open)",
            path.display()
        ));
        report.leftovers.push(path);
    }
    Ok(())
}

/// What [`repair`] did.
#[derive(Debug)]
pub enum RepairOutcome {
    /// Nothing would lose acknowledged data: the orphans and leftovers (if any) are in
    /// `moved_to` (`None`: there were none), and the check after it.
    Repaired {
        /// `DATA_DIR/lost+found/<unix-ms>/`, holding what was moved.
        moved_to: Option<PathBuf>,
        /// Paths moved, each relative to the data directory.
        moved: Vec<PathBuf>,
        /// The check before the repair.
        before: CheckReport,
    },
    /// The check found damage whose repair could lose acknowledged data: nothing changed.
    Refused(CheckReport),
}

/// `ferrobase check --repair`: checks data directory `dir` under its lock (as
/// [`crate::Engine::open`] takes it; [`Error::Locked`] when a server has it open) and repairs
/// only what cannot lose acknowledged data: every file and region directory the manifest does
/// not name and every leftover temporary file is moved, keeping its path, into
/// `lost+found/<unix-ms>/` (nothing is deleted); a torn WAL or manifest-log tail (never
/// acknowledged) is left for the next open, which cuts it. When the check finds a problem (a
/// missing or corrupt file the manifest names, damage inside the WAL, a segment shorter than
/// its synced mark) it changes nothing and returns [`RepairOutcome::Refused`].
pub fn repair(fs: Arc<dyn FileSystem>, dir: &Path, out: &mut dyn Write) -> Result<RepairOutcome> {
    let w = |e: std::io::Error| Error::io(dir, e);
    if !fs.exists(&dir.join(manifest::MANIFEST_FILE)) {
        return Err(Error::corruption(
            dir.join(manifest::MANIFEST_FILE),
            0,
            "no manifest: not a ferrobase data directory".to_string(),
        ));
    }
    let lock_path = dir.join("LOCK");
    let _lock = match fs.lock(&lock_path) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            return Err(Error::Locked(dir.to_path_buf()))
        }
        Err(e) => return Err(Error::io(&lock_path, e)),
    };
    let report = check(fs.clone(), dir, out)?;
    if !report.problems.is_empty() {
        return Ok(RepairOutcome::Refused(report));
    }
    for n in &report.notes {
        if n.contains("torn") {
            writeln!(
                out,
                "repair: left for the next open, which cuts it (never acknowledged): {n}"
            )
            .map_err(w)?;
        }
    }
    let mut targets: Vec<&PathBuf> = report.orphans.iter().chain(&report.leftovers).collect();
    targets.sort();
    if targets.is_empty() {
        writeln!(out, "repair: nothing to move").map_err(w)?;
        return Ok(RepairOutcome::Repaired {
            moved_to: None,
            moved: Vec::new(),
            before: report,
        });
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let found = dir.join("lost+found").join(stamp.to_string());
    let mut moved = Vec::new();
    let mut synced = BTreeSet::new();
    for from in targets {
        let rel = from.strip_prefix(dir).unwrap_or(from).to_path_buf();
        let to = found.join(&rel);
        if let Some(parent) = to.parent() {
            fs.create_dir_all(parent).at(parent)?;
            synced.insert(parent.to_path_buf());
        }
        fs.rename(from, &to).at(from)?;
        if let Some(parent) = from.parent() {
            synced.insert(parent.to_path_buf());
        }
        writeln!(out, "repair: moved {} to {}", from.display(), to.display()).map_err(w)?;
        moved.push(rel);
    }
    // Deepest first, so a directory's entry is durable after its contents'.
    for d in synced
        .iter()
        .rev()
        .chain([&found, &dir.join("lost+found"), &dir.to_path_buf()])
    {
        fs.sync_dir(d).at(d)?;
    }
    writeln!(
        out,
        "repair: {} moved to {}; nothing deleted",
        moved.len(),
        found.display()
    )
    .map_err(w)?;
    Ok(RepairOutcome::Repaired {
        moved_to: Some(found),
        moved,
        before: report,
    })
}

/// HBase's `Bytes.toStringBinary`: printable ASCII as is (but `\`), every other byte `\xNN`.
fn binary(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if (b' '..=b'~').contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02X}"));
        }
    }
    s
}

fn key_text(k: &CellKey, family: &[u8]) -> String {
    format!(
        "{}/{}:{}/{}/{}/seqid={}",
        binary(&k.row),
        binary(family),
        binary(&k.qualifier),
        k.timestamp,
        k.cell_type.name(),
        k.seq
    )
}

fn cell_text(kv: &KeyValue, family: &[u8]) -> String {
    let ttl = kv.ttl_ms.map(|t| format!("/ttl={t}")).unwrap_or_default();
    format!(
        "K: {}/{}:{}/{}/{}/vlen={}/seqid={}{ttl} V: {}",
        binary(&kv.key.row),
        binary(family),
        binary(&kv.key.qualifier),
        kv.key.timestamp,
        kv.key.cell_type.name(),
        kv.value.len(),
        kv.key.seq,
        binary(&kv.value)
    )
}
