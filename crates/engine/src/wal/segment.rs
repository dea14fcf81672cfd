//! The WAL's segment files: their names, the listing of a WAL directory, a new segment, and the
//! cut of a torn tail found at open (`docs/format/wal.md`, "Segments" and "Recovery rules").

use super::SEGMENT_MAGIC;
use crate::error::{Error, IoContext, Result};
use crate::fs::{FileSystem, WritableFile};
use crate::health::is_transient_write_error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Path of segment `number` in `dir`.
pub fn segment_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:016}.wal"))
}

/// Segment numbers present in `dir`, ascending.
pub fn list_segments(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    for e in fs.list_dir(dir).at(dir)? {
        let name = e.name.to_string_lossy();
        if let Some(n) = name
            .strip_suffix(".wal")
            .and_then(|n| n.parse::<u64>().ok())
        {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Suffix of the temporary file [`cut_torn_tail`] writes; one left by a crash is removed at open.
pub const TMP_SUFFIX: &str = ".wal.tmp";

/// Rewrites segment `number` of `dir` to its first `valid_len` bytes (its records before a
/// torn tail found at open): the prefix goes to a synced temporary file renamed over the
/// segment, and the directory is synced. Once a newer segment exists this one is no longer the
/// last, and a torn tail there would be `Corruption` ("Recovery rules" in `docs/format/wal.md`).
pub fn cut_torn_tail(fs: &dyn FileSystem, dir: &Path, number: u64, valid_len: u64) -> Result<()> {
    let path = segment_path(dir, number);
    let data = fs.read(&path).at(&path)?;
    let keep = usize::try_from(valid_len)
        .ok()
        .and_then(|n| data.get(..n))
        .filter(|k| k.len() >= SEGMENT_MAGIC.len())
        .unwrap_or(SEGMENT_MAGIC);
    let tmp = dir.join(format!("{number:016}{TMP_SUFFIX}"));
    let f = fs.create(&tmp).at(&tmp)?;
    f.append(keep).at(&tmp)?;
    f.sync_all().synced(&tmp)?;
    drop(f);
    fs.rename(&tmp, &path).at(&path)?;
    fs.sync_dir(dir).synced(dir)
}

/// The segment the log appends to after an open, chosen by [`start_segment`].
pub struct StartSegment {
    pub(super) file: Arc<dyn WritableFile>,
    /// Its number.
    pub number: u64,
    /// Its length in bytes (where the next record goes).
    pub(super) len: u64,
    /// Whether this open created it (so a failed open removes it again).
    pub created: bool,
}

impl std::fmt::Debug for StartSegment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartSegment")
            .field("number", &self.number)
            .field("len", &self.len)
            .field("created", &self.created)
            .finish()
    }
}

/// Chooses the segment an open appends to, after replaying `segments` (ascending; the newest
/// one's torn tail, if any, already cut off), following "Starting after replay" in
/// `docs/format/wal.md`: the newest segment is continued when it holds no record
/// (`!last_holds_records`), so repeated starts that never write leave no new segment each;
/// otherwise a new segment is created, and if the disk has no room for it (`ENOSPC`,
/// `EDQUOT`) its partial file is removed and the newest segment is continued instead, so a
/// start on a full disk needs no free space for its log. Only a version-2 segment is
/// continued (records are written in version 2).
pub fn start_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    segments: &[u64],
    last_holds_records: bool,
) -> Result<StartSegment> {
    let continuable = match segments.last() {
        Some(&n) => {
            let path = segment_path(dir, n);
            let f = fs.open(&path).at(&path)?;
            let len = f.len().at(&path)?;
            let mut magic = [0u8; 8];
            let v2 = len >= SEGMENT_MAGIC.len() as u64
                && f.read_exact_at(&mut magic, 0).is_ok()
                && &magic == SEGMENT_MAGIC;
            v2.then_some((n, len))
        }
        None => None,
    };
    let continue_segment = |(number, len): (u64, u64)| -> Result<StartSegment> {
        let path = segment_path(dir, number);
        let file = fs.open_append(&path).at(&path)?;
        Ok(StartSegment {
            file: Arc::from(file),
            number,
            len,
            created: false,
        })
    };
    if let Some(last) = continuable.filter(|_| !last_holds_records) {
        return continue_segment(last);
    }
    let next = segments.last().map_or(1, |n| n + 1);
    match create_segment(fs, dir, next) {
        Ok(file) => Ok(StartSegment {
            file,
            number: next,
            len: SEGMENT_MAGIC.len() as u64,
            created: true,
        }),
        Err(Error::Io { source, .. })
            if is_transient_write_error(&source) && continuable.is_some() =>
        {
            let new = segment_path(dir, next);
            match fs.remove_file(&new) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&new, e))
                }
                _ => {}
            }
            fs.sync_dir(dir).synced(dir)?;
            let last = continuable.unwrap_or_default();
            eprintln!(
                "ferrobase: WAL segment {} not started ({source}); the log continues in segment {}",
                new.display(),
                last.0
            );
            continue_segment(last)
        }
        Err(e) => Err(e),
    }
}

/// Removes segment `number`, which this open created and no record was written to, durably:
/// a failed open leaves nothing behind.
pub fn remove_started_segment(fs: &dyn FileSystem, dir: &Path, number: u64) -> Result<()> {
    let path = segment_path(dir, number);
    fs.remove_file(&path).at(&path)?;
    fs.sync_dir(dir).synced(dir)
}

/// Creates segment `number` holding only the magic, synced, with its directory entry synced.
pub(super) fn create_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    number: u64,
) -> Result<Arc<dyn WritableFile>> {
    let path = segment_path(dir, number);
    let f = fs.create_new(&path).at(&path)?;
    f.append(SEGMENT_MAGIC).at(&path)?;
    f.sync_all().synced(&path)?;
    fs.sync_dir(dir).synced(dir)?;
    Ok(Arc::from(f))
}

/// Suffix of a closed segment kept for reuse ("Recycled segments" in `docs/format/wal.md`): not
/// a segment (a `.wal` name), so never read as part of the log; one left by a crash is removed
/// at open.
pub const FREE_SUFFIX: &str = ".wal.free";

/// Path of the recycled segment that was segment `number`.
fn free_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:016}{FREE_SUFFIX}"))
}

/// Zeros written over a recycled segment, a chunk at a time.
static ZEROS: [u8; 64 << 10] = [0; 64 << 10];

/// A closed segment made ready for reuse: every byte zero and synced, so whatever a crash
/// leaves of the next use reads as that use's records and a zero-filled tail, as a new
/// segment's would.
#[derive(Debug)]
pub(super) struct FreeSegment {
    path: PathBuf,
}

/// Takes segment `number` (every record flushed) out of the log and zeroes it for reuse: the
/// rename is made durable before its bytes change (a crash must not leave a segment name on
/// zeros), then zeros are written over its cached pages and synced. On failure the file is
/// removed.
pub(super) fn recycle_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    number: u64,
    len: u64,
) -> Result<FreeSegment> {
    let path = segment_path(dir, number);
    let free = free_path(dir, number);
    fs.rename(&path, &free).at(&path)?;
    fs.sync_dir(dir).synced(dir)?;
    let zeroed = (|| -> std::io::Result<()> {
        let f = fs.open_overwrite(&free)?;
        let mut left = len;
        while left > 0 {
            let n = left.min(ZEROS.len() as u64) as usize;
            f.append(&ZEROS[..n])?;
            left -= n as u64;
        }
        f.sync_data()
    })();
    match zeroed {
        Ok(()) => Ok(FreeSegment { path: free }),
        Err(e) => {
            let _ = fs.remove_file(&free);
            Err(Error::io(&free, e))
        }
    }
}

/// Makes `free` segment `number`: its magic written over the zeros and synced, then the
/// rename, its directory entry synced. Writes go over its cached pages from the magic on. An
/// error before the rename leaves `free` as it was (`Ok(Err(free))`: the caller starts a new
/// segment instead); one at or after it is returned.
pub(super) fn reuse_segment(
    fs: &dyn FileSystem,
    dir: &Path,
    free: FreeSegment,
    number: u64,
) -> Result<std::result::Result<Arc<dyn WritableFile>, FreeSegment>> {
    let path = segment_path(dir, number);
    let prepared = (|| -> std::io::Result<Box<dyn WritableFile>> {
        if fs.exists(&path) {
            return Err(std::io::ErrorKind::AlreadyExists.into());
        }
        let f = fs.open_overwrite(&free.path)?;
        f.append(SEGMENT_MAGIC)?;
        f.sync_data()?;
        Ok(f)
    })();
    let Ok(f) = prepared else {
        return Ok(Err(free));
    };
    if fs.rename(&free.path, &path).is_err() {
        return Ok(Err(free));
    }
    fs.sync_dir(dir).synced(dir)?;
    Ok(Ok(Arc::from(f)))
}

/// Removes a recycled segment no longer wanted.
pub(super) fn remove_free(fs: &dyn FileSystem, free: FreeSegment) -> Result<()> {
    fs.remove_file(&free.path).at(&free.path)
}
