//! What a power cut may do to a file's unsynced bytes beyond keeping a prefix of them, and what
//! a disk that lies about a sync does to synced ones: the options of [`FaultModel`] and the
//! per-file choice a cut makes under them.
//!
//! Every option is off by default, which keeps the simple model: a file's bytes after a cut
//! are its synced bytes plus a random prefix of what was appended since.

use ferrobase_testkit::Rng;

/// How the bytes of a block a power cut left allocated but never wrote read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailFill {
    /// Zeros (ext4 `data=ordered` after a delayed-allocation race, XFS: the file size was
    /// logged, the data never written).
    Zeros,
    /// Whatever the block held before: bytes of a file removed earlier (ext4
    /// `data=writeback`).
    Stale,
    /// Either, chosen per block.
    Either,
}

/// A disk that acknowledges a sync without writing everything (firmware bugs, a volatile
/// write cache that ignores flushes): each sync of a matching file damages, with probability
/// `1 / one_in`, one of the pages it should have made durable. The page cache keeps serving the
/// right bytes until the next power cut; then the damage is what is on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LyingDisk {
    /// One sync in how many lies (1: every sync).
    pub one_in: u64,
    /// Whether a lie may misdirect the page (written over another page of the file, its own
    /// place keeping the old bytes) rather than only lose it.
    pub misdirect: bool,
    /// Only files whose path contains this lie (empty: every file).
    pub path_contains: String,
}

/// The failures a [`super::FaultFileSystem`] simulates beyond the prefix model, each an
/// option a test turns on with [`super::FaultFileSystem::set_model`]. The cut options apply to
/// [`super::CutMode::KeepRandom`] cuts ([`super::CutMode::DropUnsynced`] keeps exactly the
/// synced state, lies included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultModel {
    /// The unit in which unsynced bytes persist or are lost, in bytes (default 4096, a page).
    pub page_size: usize,
    /// (a) Unsynced pages persist independently: a later page may survive while an earlier
    /// one is lost; a lost page inside the surviving length reads as [`FaultModel::tail_fill`]
    /// (zeros when that is `None`).
    pub non_prefix: bool,
    /// (b) A grown file's length may survive a cut while its last blocks' data does not: they
    /// read as this.
    pub tail_fill: Option<TailFill>,
    /// (c) An overwrite not yet synced (a file truncated, or created over an old one, and
    /// written again) may survive torn: old and new bytes mixed, per sector inside a page and
    /// per page across the file.
    pub torn_overwrites: bool,
    /// (d) Syncs that lie.
    pub lying_disk: Option<LyingDisk>,
    /// (e) `remove_dir_all` removes one entry at a time and `create_dir_all` creates one
    /// directory at a time, each a separate mutating operation a power cut or a fault can fall
    /// between (the real calls are loops of `unlink`/`rmdir`/`mkdir`).
    pub non_atomic_dirs: bool,
    /// (f) Bytes each file or directory created uses of the simulated free space (an inode, a
    /// directory block); creating fails with `ENOSPC` when they do not fit. When non-zero,
    /// removing a file gives back its bytes and this. 0 (the default): creating is free.
    pub metadata_bytes: u64,
}

impl Default for FaultModel {
    fn default() -> Self {
        FaultModel {
            page_size: 4096,
            non_prefix: false,
            tail_fill: None,
            torn_overwrites: false,
            lying_disk: None,
            non_atomic_dirs: false,
            metadata_bytes: 0,
        }
    }
}

impl FaultModel {
    /// Every option on (lies on one sync in `lie_one_in`, none when 0), with `page_size`.
    pub fn everything(page_size: usize, lie_one_in: u64) -> FaultModel {
        FaultModel {
            page_size,
            non_prefix: true,
            tail_fill: Some(TailFill::Either),
            torn_overwrites: true,
            lying_disk: (lie_one_in > 0).then(|| LyingDisk {
                one_in: lie_one_in,
                misdirect: true,
                path_contains: String::new(),
            }),
            non_atomic_dirs: true,
            metadata_bytes: 4096,
        }
    }

    fn reshapes_cuts(&self) -> bool {
        self.non_prefix || self.tail_fill.is_some() || self.torn_overwrites
    }

    fn page(&self) -> usize {
        self.page_size.max(1)
    }

    /// The unit inside a page that a torn overwrite tears at: an eighth of a page.
    fn sector(&self) -> usize {
        (self.page() / 8).max(1)
    }

    /// The unit a disk persists whole: a 512-byte sector (or the page, when a test's page is
    /// smaller). The WAL reader's zero-filled-tail rule counts in the same sectors
    /// (`wal::reader::SECTOR`).
    fn disk_sector(&self) -> usize {
        512.min(self.page())
    }
}

/// How a file changed since its last sync, beyond growing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Change {
    /// Truncated (or created over) since the last sync: the synced bytes are no longer a
    /// prefix of the current ones.
    pub diverged: bool,
    /// Synced bytes written over in place (a file opened for overwriting).
    pub overwritten: bool,
    /// The shortest length the file was cut to since the last sync (0 when created over):
    /// its bytes before it were never changed by the cut, so a power cut keeps at least them.
    pub kept: usize,
}

/// What a cut keeps of one file under the prefix model: its synced bytes plus a random prefix
/// of its unsynced tail; if it was cut back since its last sync, either its synced bytes or a
/// prefix of its current ones no shorter than it was cut to; if written over in place, the new
/// bytes up to a sector boundary and the synced ones after.
fn prefix_cut(
    durable: &[u8],
    data: &[u8],
    Change {
        diverged,
        overwritten,
        kept,
    }: Change,
    sector: usize,
    rng: &mut Rng,
) -> Vec<u8> {
    if overwritten && !diverged {
        // Written over in place: the new bytes persisted up to a sector boundary (a disk
        // writes a sector whole), the synced ones after it (the file no shorter than it was
        // synced).
        let n = (rng.below(data.len() as u64 + 1) as usize / sector * sector).min(data.len());
        let mut out = data[..n].to_vec();
        out.extend_from_slice(durable.get(n..).unwrap_or(&[]));
        return out;
    }
    if diverged {
        if rng.below(2) == 0 {
            durable.to_vec()
        } else {
            let kept = kept.min(data.len());
            let n = kept + rng.below((data.len() - kept) as u64 + 1) as usize;
            data[..n].to_vec()
        }
    } else {
        let tail = data.len().saturating_sub(durable.len());
        let n = durable.len() + rng.below(tail as u64 + 1) as usize;
        data[..n.min(data.len())].to_vec()
    }
}

/// Fills `out` as a block allocated but never written reads back.
fn fill(out: &mut [u8], how: Option<TailFill>, stale: &[u8], at: usize, rng: &mut Rng) {
    let stale_now = match how {
        None | Some(TailFill::Zeros) => false,
        Some(TailFill::Stale) => true,
        Some(TailFill::Either) => rng.below(2) == 0,
    };
    if stale_now && !stale.is_empty() {
        for (i, b) in out.iter_mut().enumerate() {
            *b = stale[(at + i) % stale.len()];
        }
    } else if stale_now {
        for b in out.iter_mut() {
            *b = rng.below(256) as u8;
        }
    } else {
        out.fill(0);
    }
}

/// What a [`super::CutMode::KeepRandom`] cut keeps of a file whose synced bytes are `durable`
/// and whose current bytes are `data`, changed since as `change` says. `stale` is what reused
/// blocks may hold.
pub(super) fn cut_file(
    model: &FaultModel,
    durable: &[u8],
    data: &[u8],
    change: Change,
    stale: &[u8],
    rng: &mut Rng,
) -> Vec<u8> {
    let Change {
        diverged,
        overwritten,
        kept,
    } = change;
    if !model.reshapes_cuts()
        || (!diverged && !overwritten && durable.len() >= data.len() && durable == data)
    {
        return prefix_cut(durable, data, change, model.disk_sector(), rng);
    }
    let page = model.page();
    // The length the file's metadata reached: anything between the synced and the current
    // length (a file cut back since its sync may keep either, but not less than it was cut to).
    let (lo, hi) = if diverged {
        (kept.min(data.len()), durable.len().max(data.len()))
    } else {
        (durable.len(), data.len().max(durable.len()))
    };
    let len = if diverged && rng.below(2) == 0 {
        durable.len()
    } else {
        lo + rng.below((hi - lo) as u64 + 1) as usize
    };
    // Without non-prefix persistence, the new pages that persisted are those before one point.
    let persisted_below = rng.below(len as u64 + 1) as usize;
    let sector = model.sector();
    let mut out = vec![0u8; len];
    let mut start = 0;
    while start < len {
        let end = (start + page).min(len);
        let old = durable.get(start..end.min(durable.len())).unwrap_or(&[]);
        let new = data.get(start..end.min(data.len())).unwrap_or(&[]);
        let persisted = if model.non_prefix {
            rng.below(2) == 0
        } else {
            start < persisted_below
        };
        let dst = &mut out[start..end];
        if persisted {
            // The new bytes where there are any, the old ones past them.
            let torn_at = if model.torn_overwrites && !old.is_empty() && rng.below(2) == 0 {
                // A page written part way: its first sectors new, the rest old.
                (rng.below((dst.len() / sector) as u64 + 1) as usize) * sector
            } else {
                dst.len()
            };
            for (i, b) in dst.iter_mut().enumerate() {
                *b = if i < torn_at && i < new.len() {
                    new[i]
                } else if i < old.len() {
                    old[i]
                } else if i < new.len() {
                    new[i]
                } else {
                    0
                };
            }
            if new.len().max(old.len()) < dst.len() {
                let from = new.len().max(old.len());
                fill(&mut dst[from..], model.tail_fill, stale, start + from, rng);
            }
        } else {
            dst[..old.len()].copy_from_slice(old);
            let from = old.len();
            fill(&mut dst[from..], model.tail_fill, stale, start + from, rng);
        }
        start = end;
    }
    if !model.non_prefix && model.tail_fill.is_none() {
        // Torn overwrites alone: no block past what persisted (new bytes up to the point, the
        // old ones as long as the file was).
        let keep = persisted_below.min(data.len()).max(durable.len());
        out.truncate(keep.min(out.len()));
    }
    out
}

/// What a lying sync leaves on disk instead of `data`, given what was on disk before
/// (`durable`), or `None` when this sync tells the truth. Returns the bytes and what went wrong.
pub(super) fn lie(
    disk: &LyingDisk,
    page: usize,
    durable: &[u8],
    data: &[u8],
    rng: &mut Rng,
) -> Option<(Vec<u8>, String)> {
    if disk.one_in == 0 || !rng.one_in(disk.one_in.max(1)) {
        return None;
    }
    let page = page.max(1);
    // The pages this sync had to write: those that differ from what the disk holds.
    let pages = data.len().div_ceil(page);
    let changed: Vec<usize> = (0..pages)
        .filter(|&p| {
            let (s, e) = (p * page, ((p + 1) * page).min(data.len()));
            durable.get(s..e) != data.get(s..e)
        })
        .collect();
    if changed.is_empty() {
        return None;
    }
    let p = changed[rng.index(changed.len())];
    let (s, e) = (p * page, ((p + 1) * page).min(data.len()));
    let mut out = data.to_vec();
    // The page's place keeps what the disk held there (zeros past the old end).
    for (i, b) in out[s..e].iter_mut().enumerate() {
        *b = durable.get(s + i).copied().unwrap_or(0);
    }
    if disk.misdirect && pages > 1 && rng.below(2) == 0 {
        let mut q = rng.index(pages - 1);
        if q >= p {
            q += 1;
        }
        let qs = q * page;
        let n = (e - s).min(out.len() - qs);
        out[qs..qs + n].copy_from_slice(&data[s..s + n]);
        Some((
            out,
            format!("page {p} (bytes {s}..{e}) lost, written over page {q} instead"),
        ))
    } else {
        Some((out, format!("page {p} (bytes {s}..{e}) lost")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that only grew since its sync.
    const GREW: Change = Change {
        diverged: false,
        overwritten: false,
        kept: usize::MAX,
    };

    /// A file cut back since its sync keeps its bytes before the cut: its synced length, or a
    /// length from the cut on (a shrink never loses the synced bytes below the new end).
    #[test]
    fn a_cut_back_file_keeps_its_bytes_before_the_cut() {
        let durable = b"0123456789abcdef";
        let data = b"01234567xyz";
        let cut = Change {
            diverged: true,
            overwritten: false,
            kept: 8,
        };
        for seed in 1..300 {
            let mut rng = Rng::new(seed);
            for model in [FaultModel::default(), FaultModel::everything(8, 0)] {
                let got = cut_file(&model, durable, data, cut, &[], &mut rng);
                assert!(got.len() >= 8, "{got:?}");
                assert_eq!(&got[..8], b"01234567", "{got:?}");
            }
        }
    }

    #[test]
    fn non_prefix_cuts_keep_a_later_page_while_losing_an_earlier_one() {
        let model = FaultModel {
            page_size: 4,
            non_prefix: true,
            ..FaultModel::default()
        };
        let data = b"0000111122223333".to_vec();
        let mut seen_hole = false;
        for seed in 1..200 {
            let mut rng = Rng::new(seed);
            let got = cut_file(&model, b"0000", &data, GREW, &[], &mut rng);
            assert!(got.len() >= 4 && got.starts_with(b"0000"), "{got:?}");
            for (i, chunk) in got.chunks(4).enumerate() {
                let want = &data[i * 4..i * 4 + chunk.len()];
                assert!(chunk == want || chunk.iter().all(|&b| b == 0), "{got:?}");
            }
            let hole = got.chunks(4).position(|c| c.iter().all(|&b| b == 0));
            if hole.is_some_and(|h| got.len() > (h + 1) * 4 && got[(h + 1) * 4] != 0) {
                seen_hole = true;
            }
        }
        assert!(seen_hole, "a later page never outlived an earlier one");
    }

    #[test]
    fn a_grown_file_can_keep_its_length_with_zero_or_stale_blocks() {
        let model = FaultModel {
            page_size: 4,
            tail_fill: Some(TailFill::Either),
            ..FaultModel::default()
        };
        let (mut zeros, mut stale) = (false, false);
        for seed in 1..200 {
            let mut rng = Rng::new(seed);
            let got = cut_file(&model, b"", b"abcdefgh", GREW, b"STALE!", &mut rng);
            zeros |= got.len() == 8 && got.ends_with(&[0, 0, 0, 0]);
            stale |= got.windows(2).any(|w| w == b"E!" || w == b"ST");
        }
        assert!(zeros && stale);
    }

    #[test]
    fn a_torn_overwrite_mixes_old_and_new_bytes() {
        let model = FaultModel {
            page_size: 8,
            torn_overwrites: true,
            ..FaultModel::default()
        };
        let mut mixed = false;
        for seed in 1..300 {
            let mut rng = Rng::new(seed);
            let got = cut_file(
                &model,
                b"oooooooo",
                b"nnnnnnnn",
                Change {
                    diverged: true,
                    overwritten: false,
                    kept: 0,
                },
                &[],
                &mut rng,
            );
            mixed |= got.contains(&b'o') && got.contains(&b'n');
        }
        assert!(mixed);
    }

    /// A file written over in place since its sync (a recycled WAL segment) keeps its synced
    /// length; each page is old or new, under the prefix model new ones only before a point.
    #[test]
    fn an_overwrite_in_place_keeps_the_synced_length_and_old_or_new_pages() {
        let old = b"0000000000000000";
        let new = b"nnnnnnnnnnnnnnnnmm";
        let (mut some_old, mut some_new) = (false, false);
        for seed in 1..300 {
            let mut rng = Rng::new(seed);
            for model in [
                FaultModel {
                    page_size: 4,
                    ..FaultModel::default()
                },
                FaultModel {
                    page_size: 4,
                    non_prefix: true,
                    ..FaultModel::default()
                },
            ] {
                let overwritten = Change {
                    diverged: false,
                    overwritten: true,
                    kept: usize::MAX,
                };
                let got = cut_file(&model, old, new, overwritten, &[], &mut rng);
                assert!(got.len() >= old.len(), "{got:?}");
                for (i, b) in got.iter().enumerate() {
                    // A page past the synced length that did not persist reads as zeros.
                    assert!(
                        *b == new[i] || old.get(i) == Some(b) || (i >= old.len() && *b == 0),
                        "{got:?}"
                    );
                }
                if !model.non_prefix {
                    // New bytes, then old ones: never a new page after an old one.
                    let first_old = got.iter().position(|&b| b == b'0').unwrap_or(got.len());
                    assert!(got[first_old..].iter().all(|&b| b == b'0'), "{got:?}");
                }
                some_old |= got.contains(&b'0');
                some_new |= got.contains(&b'n');
            }
        }
        assert!(some_old && some_new);
    }

    #[test]
    fn a_lying_sync_loses_or_misdirects_one_page() {
        let disk = LyingDisk {
            one_in: 1,
            misdirect: true,
            path_contains: String::new(),
        };
        let (mut lost, mut moved) = (false, false);
        for seed in 1..100 {
            let mut rng = Rng::new(seed);
            let (got, what) = lie(&disk, 4, b"", b"aaaabbbbcccc", &mut rng).unwrap();
            assert_eq!(got.len(), 12);
            assert_ne!(got, b"aaaabbbbcccc", "{what}");
            lost |= what.ends_with("lost");
            moved |= what.contains("instead");
        }
        assert!(lost && moved);
    }
}
