//! The WAL's segment files: their names, the listing of a WAL directory, a new segment, and the
//! cut of a torn tail found at open (`docs/format/wal.md`, "Segments" and "Recovery rules").

use super::SEGMENT_MAGIC;
use crate::error::{IoContext, Result};
use crate::fs::{FileSystem, WritableFile};
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
