//! The WAL's record of how far each segment was synced (`wal/SYNCED`, `docs/format/wal.md`,
//! "Synced marks"): after a sync of the active segment (at most every [`MARK_EVERY`]) and at
//! every segment roll, the log appends a mark "segment N holds at least M synced bytes". A
//! segment found shorter at open than its mark says lost bytes that were on disk and
//! acknowledged: a truncation (by hand, or by a file system), not a tear, which the segment
//! alone cannot tell apart from one.
//!
//! A mark is 24 bytes: `FSYN`, the segment number and the offset (both u64 big-endian, as every WAL integer), the
//! masked CRC-32C of those 20 bytes (u32 big-endian). Reading stops at the first mark that is
//! short or fails its checksum (a power cut tearing the last append): the marks before it hold.
//! The file is written fresh at each open (the marks of the run before were checked) and
//! appended to after; a failed append stops the marks for the run (a torn mark in the middle
//! would hide the ones after it), never a write.

use super::SegmentEnd;
use crate::checksum::masked_crc;
use crate::error::{IoContext, Result};
use crate::fs::{FileSystem, WritableFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The marks' file in the WAL directory.
pub const SYNCED_FILE: &str = "SYNCED";

/// The temporary file a fresh marks' file is written to (one left by a crash is removed at open).
const SYNCED_TMP: &str = "SYNCED.tmp";

const MARK_MAGIC: &[u8; 4] = b"FSYN";
const MARK_LEN: usize = 24;

/// How often, at most, a sync of the active segment is marked (a roll always is).
pub const MARK_EVERY: Duration = Duration::from_secs(1);

/// The largest synced offset marked for each segment in `dir`'s marks' file (none when it is
/// missing).
pub fn read_marks(fs: &dyn FileSystem, dir: &Path) -> Result<BTreeMap<u64, u64>> {
    let path = dir.join(SYNCED_FILE);
    let mut marks = BTreeMap::new();
    if !fs.exists(&path) {
        return Ok(marks);
    }
    let data = fs.read(&path).at(&path)?;
    for mark in data.chunks_exact(MARK_LEN) {
        let Some((segment, offset)) = decode(mark) else {
            break;
        };
        let m = marks.entry(segment).or_insert(0);
        *m = offset.max(*m);
    }
    Ok(marks)
}

fn decode(mark: &[u8]) -> Option<(u64, u64)> {
    let (body, crc) = mark.split_at_checked(20)?;
    let crc = u32::from_be_bytes(crc.try_into().ok()?);
    if !body.starts_with(MARK_MAGIC) || masked_crc(body) != crc {
        return None;
    }
    let segment = u64::from_be_bytes(body.get(4..12)?.try_into().ok()?);
    let offset = u64::from_be_bytes(body.get(12..20)?.try_into().ok()?);
    Some((segment, offset))
}

fn encode(segment: u64, offset: u64) -> [u8; MARK_LEN] {
    let mut mark = [0u8; MARK_LEN];
    mark[..4].copy_from_slice(MARK_MAGIC);
    mark[4..12].copy_from_slice(&segment.to_be_bytes());
    mark[12..20].copy_from_slice(&offset.to_be_bytes());
    let crc = masked_crc(&mark[..20]);
    mark[20..].copy_from_slice(&crc.to_be_bytes());
    mark
}

/// The marks' file of a running log.
pub struct SyncedMarks {
    path: PathBuf,
    file: Option<Box<dyn WritableFile>>,
    last: Option<Instant>,
}

impl std::fmt::Debug for SyncedMarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncedMarks")
            .field("path", &self.path)
            .field("on", &self.file.is_some())
            .finish()
    }
}

impl SyncedMarks {
    /// Starts `dir`'s marks' file afresh (written to a temporary file, synced and renamed over
    /// the old one, the directory synced), open for the run's marks.
    pub fn start(fs: &dyn FileSystem, dir: &Path) -> Result<SyncedMarks> {
        let path = dir.join(SYNCED_FILE);
        let tmp = dir.join(SYNCED_TMP);
        let f = fs.create(&tmp).at(&tmp)?;
        f.sync_all().synced(&tmp)?;
        drop(f);
        fs.rename(&tmp, &path).at(&path)?;
        fs.sync_dir(dir).synced(dir)?;
        let file = fs.open_append(&path).at(&path)?;
        Ok(SyncedMarks {
            path,
            file: Some(file),
            last: None,
        })
    }

    /// No marks for this run: the file could not be started (a full disk at open, say). The
    /// last run's marks are removed when the directory lets us (they were checked; left, they
    /// could meet segments renumbered since), and the open goes on.
    pub fn off(fs: &dyn FileSystem, dir: &Path, why: &crate::error::Error) -> SyncedMarks {
        let path = dir.join(SYNCED_FILE);
        eprintln!(
            "ferrobase: WAL synced marks off for this run ({why}): a truncated segment is then \
             seen only as a tear"
        );
        let _ = fs.remove_file(&path);
        let _ = fs.remove_file(&dir.join(SYNCED_TMP));
        SyncedMarks {
            path,
            file: None,
            last: None,
        }
    }

    /// Marks `segment` synced through `offset`: always when `force` (a roll), otherwise at most
    /// every [`MARK_EVERY`]. A failure stops the marks for the run (logged once).
    pub fn mark(&mut self, segment: u64, offset: u64, force: bool) {
        if !force && self.last.is_some_and(|t| t.elapsed() < MARK_EVERY) {
            return;
        }
        let Some(file) = &self.file else {
            return;
        };
        let written = file
            .append(&encode(segment, offset))
            .and_then(|()| file.sync_data());
        match written {
            Ok(()) => self.last = Some(Instant::now()),
            Err(e) => {
                eprintln!(
                    "ferrobase: WAL synced marks in {} stopped for this run ({e}): a \
                     truncated segment is then seen only as a tear",
                    self.path.display()
                );
                self.file = None;
            }
        }
    }
}

/// `end` of segment `path` (as [`super::read_segment`] found it), or damage where the segment
/// ends when it is shorter than the `mark` the last run wrote for it: a segment truncated by hand
/// or by a file system, which its own bytes cannot tell from a tear. Used by the open and by
/// `ferrobase check`.
pub fn against_mark(
    fs: &dyn FileSystem,
    path: &Path,
    end: SegmentEnd,
    mark: Option<u64>,
) -> Result<SegmentEnd> {
    let Some(mark) = mark else {
        return Ok(end);
    };
    let valid = match &end {
        SegmentEnd::Clean => fs.open(path).and_then(|f| f.len()).at(path)?,
        SegmentEnd::TornAt { offset, .. } => *offset,
        SegmentEnd::DamagedAt { .. } => return Ok(end),
    };
    if valid >= mark {
        return Ok(end);
    }
    Ok(SegmentEnd::DamagedAt {
        offset: valid,
        reason: format!(
            "the segment ends at byte {valid}, but the log had synced it through byte {mark} \
             (wal/{SYNCED_FILE}): it was truncated, losing acknowledged records"
        ),
    })
}

/// Whether `name` in the WAL directory is a leftover of [`SyncedMarks::start`].
pub fn is_leftover(name: &str) -> bool {
    name == SYNCED_TMP
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::OsFileSystem;

    #[test]
    fn marks_read_back_and_a_torn_last_mark_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let fs = OsFileSystem;
        assert!(read_marks(&fs, dir.path()).unwrap().is_empty(), "no file");
        let mut marks = SyncedMarks::start(&fs, dir.path()).unwrap();
        marks.mark(3, 100, true);
        marks.mark(3, 200, false);
        assert_eq!(
            read_marks(&fs, dir.path()).unwrap(),
            BTreeMap::from([(3, 100)]),
            "a second sync within MARK_EVERY is not marked"
        );
        marks.mark(4, 8, true);
        marks.mark(3, 300, true);
        let path = dir.path().join(SYNCED_FILE);
        let mut data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 3 * MARK_LEN);
        assert_eq!(
            read_marks(&fs, dir.path()).unwrap(),
            BTreeMap::from([(3, 300), (4, 8)])
        );
        // A torn last mark, then a damaged one: the marks before hold.
        data.truncate(2 * MARK_LEN + 10);
        std::fs::write(&path, &data).unwrap();
        assert_eq!(
            read_marks(&fs, dir.path()).unwrap(),
            BTreeMap::from([(3, 100), (4, 8)])
        );
        data[MARK_LEN + 13] ^= 1;
        std::fs::write(&path, &data).unwrap();
        assert_eq!(
            read_marks(&fs, dir.path()).unwrap(),
            BTreeMap::from([(3, 100)])
        );
        // A fresh start forgets the run before.
        drop(marks);
        let _marks = SyncedMarks::start(&fs, dir.path()).unwrap();
        assert!(read_marks(&fs, dir.path()).unwrap().is_empty());
    }
}
