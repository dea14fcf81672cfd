//! Chooses which files a minor compaction merges (HBase's `ExploringCompactionPolicy`), with
//! one addition for data written in key order: adjacent files whose rows do not overlap form a
//! *sorted run*, which the policy weighs as one file, and an optional size-tiered choice that
//! merges only files of about the same size (`docs/design/compaction.md`).

use std::ops::Range;

/// A store file as the policy sees it.
#[derive(Clone, Copy, Debug)]
pub struct FileSpan<'a> {
    /// Its size in bytes.
    pub size: u64,
    /// Its first and last rows; `None` when it holds no cell.
    pub rows: Option<(&'a [u8], &'a [u8])>,
}

/// Groups `files` (oldest first) into sorted runs: each run is the longest sequence of
/// adjacent files in which every file's rows lie wholly before or wholly after the rows of the
/// run's files so far (files flushed from data written in ascending or descending key order,
/// time series). Merging the files of a run rewrites every byte and leaves the same cells in
/// the same order: no cell of one file can mask, shadow or out-version a cell of another, as
/// they share no row. A file without cells is a run of its own (it counts toward the minimum
/// of files as in HBase). Returns each run's index range, in order.
pub fn sorted_runs(files: &[FileSpan<'_>]) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    // The current run's lowest and highest row.
    let mut span: Option<(&[u8], &[u8])> = None;
    for (i, f) in files.iter().enumerate() {
        let joins = match (span, f.rows) {
            (Some((lo, hi)), Some((first, last))) => first > hi || last < lo,
            _ => false,
        };
        if joins {
            if let (Some((lo, hi)), Some((first, last))) = (span, f.rows) {
                span = Some((lo.min(first), hi.max(last)));
            }
            if let Some(r) = runs.last_mut() {
                r.end = i + 1;
            }
        } else {
            span = f.rows;
            runs.push(i..i + 1);
        }
    }
    runs
}

/// `choose` ([`select`] or [`select_tiered`]) over the sorted runs of `files` (oldest first):
/// each run counts as one file of its total size, so files flushed in key order are never
/// merged with each other only, and a store whose files all overlap is compacted exactly as
/// `choose` compacts single files. Returns the index range of the files to merge.
pub fn select_runs(
    files: &[FileSpan<'_>],
    choose: impl FnOnce(&[u64]) -> Option<Range<usize>>,
) -> Option<Range<usize>> {
    let runs = sorted_runs(files);
    let sizes: Vec<u64> = runs
        .iter()
        .map(|r| files[r.clone()].iter().map(|f| f.size).sum())
        .collect();
    let window = choose(&sizes)?;
    Some(runs[window.start].start..runs[window.end - 1].end)
}

/// The size-tiered choice (`CompactionOptions::tiers`), given file sizes ordered oldest first:
/// every window of `min_files..=max_files` adjacent files whose largest file is at most
/// `factor` times its smallest qualifies, a file below `floor` bytes counting as `floor` (so
/// small flushes join the files of the first tier instead of blocking them); the window with
/// the most files wins, then the one with the smallest total. A file is thus merged only with
/// files of about its own size, and each byte is rewritten about once per tier (log base
/// `min_files` of the store's size over a flush's), where [`select`] lets a large file join
/// any smaller ones that add up to it. When no window qualifies and the store holds at least
/// `2 * max_files` files, the `min_files` adjacent files of the smallest total are merged, as
/// HBase does for a store that might be stuck.
pub fn select_tiered(
    sizes: &[u64],
    min_files: usize,
    max_files: usize,
    factor: f64,
    floor: u64,
) -> Option<Range<usize>> {
    let min_files = min_files.max(2);
    let max_files = max_files.max(min_files);
    let mut best: Option<(usize, u64, Range<usize>)> = None;
    for start in 0..sizes.len() {
        let mut smallest = u64::MAX;
        let mut largest = 0;
        let mut total = 0;
        for end in (start + 1)..=sizes.len().min(start + max_files) {
            let size = sizes[end - 1].max(floor);
            smallest = smallest.min(size);
            largest = largest.max(size);
            total += sizes[end - 1];
            if largest as f64 > factor * smallest as f64 {
                break;
            }
            let n = end - start;
            if n < min_files {
                continue;
            }
            let better = match &best {
                None => true,
                Some((bn, bt, _)) => n > *bn || (n == *bn && total < *bt),
            };
            if better {
                best = Some((n, total, start..end));
            }
        }
    }
    if best.is_none() && sizes.len() >= 2 * max_files {
        best = (0..=sizes.len() - min_files)
            .map(|start| {
                let total = sizes[start..start + min_files].iter().sum();
                (min_files, total, start..start + min_files)
            })
            .min_by_key(|b| b.1);
    }
    best.map(|b| b.2)
}

/// Picks a run of adjacent files to merge, given file sizes ordered oldest first. Every window
/// of `min_files..=max_files` adjacent files is considered; a window qualifies when each of its
/// files is at most `ratio` times the sum of the others, or when its total size is below
/// `min_size` (HBase's `hbase.hstore.compaction.min.size`: `ExploringCompactionPolicy` skips
/// the ratio test for such a window). The qualifying window with the most files wins, then the
/// one with the smallest total size. Returns the window's index range.
pub fn select(
    sizes: &[u64],
    min_files: usize,
    max_files: usize,
    ratio: f64,
    min_size: u64,
) -> Option<std::ops::Range<usize>> {
    let min_files = min_files.max(2);
    let mut best: Option<(usize, u64, std::ops::Range<usize>)> = None;
    for start in 0..sizes.len() {
        for end in (start + min_files)..=(sizes.len().min(start + max_files)) {
            let window = &sizes[start..end];
            let total: u64 = window.iter().sum();
            let ok = total < min_size
                || window
                    .iter()
                    .all(|&s| s as f64 <= ratio * (total - s) as f64);
            if !ok {
                continue;
            }
            let n = window.len();
            let better = match &best {
                None => true,
                Some((bn, bt, _)) => n > *bn || (n == *bn && total < *bt),
            };
            if better {
                best = Some((n, total, start..end));
            }
        }
    }
    best.map(|b| b.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similar_sizes_are_merged_together() {
        assert_eq!(select(&[10, 10, 10], 3, 10, 1.2, 0), Some(0..3));
        assert_eq!(select(&[10, 10], 3, 10, 1.2, 0), None);
    }

    #[test]
    fn a_huge_old_file_is_left_alone() {
        assert_eq!(select(&[1000, 10, 11, 12], 3, 10, 1.2, 0), Some(1..4));
    }

    #[test]
    fn a_window_below_the_minimum_size_skips_the_ratio_test() {
        // HBase's ExploringCompactionPolicy: `size >= minCompactSize && !filesInRatio` only.
        assert_eq!(select(&[1000, 10, 11, 12], 3, 10, 1.2, 2000), Some(0..4));
        assert_eq!(select(&[1000, 10, 11, 12], 3, 10, 1.2, 1033), Some(1..4));
        assert_eq!(select(&[1000, 10, 11, 12], 3, 10, 1.2, 1034), Some(0..4));
    }

    fn span(size: u64, first: &'static str, last: &'static str) -> FileSpan<'static> {
        FileSpan {
            size,
            rows: Some((first.as_bytes(), last.as_bytes())),
        }
    }

    #[test]
    fn files_flushed_in_key_order_form_one_run_and_are_not_merged() {
        let ascending: Vec<_> = (0..12)
            .map(|i| {
                let first: &'static str = Box::leak(format!("row{:03}", i * 10).into_boxed_str());
                let last: &'static str =
                    Box::leak(format!("row{:03}", i * 10 + 9).into_boxed_str());
                span(10, first, last)
            })
            .collect();
        assert_eq!(sorted_runs(&ascending), vec![0..12]);
        assert_eq!(
            select_runs(&ascending, |s| select(s, 3, 10, 1.2, 1000)),
            None
        );
        let mut descending = ascending.clone();
        descending.reverse();
        assert_eq!(sorted_runs(&descending), vec![0..12]);
        assert_eq!(
            select_runs(&descending, |s| select(s, 3, 10, 1.2, 1000)),
            None
        );
    }

    #[test]
    fn overlapping_files_are_compacted_as_hbase_compacts_them() {
        let files = [span(10, "a", "z"), span(10, "b", "y"), span(10, "c", "x")];
        assert_eq!(sorted_runs(&files), vec![0..1, 1..2, 2..3]);
        assert_eq!(
            select_runs(&files, |s| select(s, 3, 10, 1.2, 0)),
            Some(0..3)
        );
        // A file that shares its last row with the next file's first row overlaps it.
        let touching = [span(10, "a", "c"), span(10, "c", "e"), span(10, "e", "g")];
        assert_eq!(sorted_runs(&touching).len(), 3);
        assert_eq!(
            select_runs(&touching, |s| select(s, 3, 10, 1.2, 0)),
            Some(0..3)
        );
    }

    #[test]
    fn a_run_weighs_as_one_file_of_its_total_size() {
        // A run of four ordered files, then three random-key flushes over its whole range: the
        // run is too large for the ratio, the three small files are merged alone.
        let files = [
            span(100, "a", "b"),
            span(100, "c", "d"),
            span(100, "e", "f"),
            span(100, "g", "h"),
            span(10, "a", "h"),
            span(10, "a", "h"),
            span(10, "a", "h"),
        ];
        assert_eq!(sorted_runs(&files), vec![0..4, 4..5, 5..6, 6..7]);
        assert_eq!(
            select_runs(&files, |s| select(s, 3, 10, 1.2, 0)),
            Some(4..7)
        );
        // Below the minimum size the ratio is not tested: the run is merged with the rest.
        assert_eq!(
            select_runs(&files, |s| select(s, 3, 10, 1.2, 1000)),
            Some(0..7)
        );
        // A file without cells is a run of its own.
        let empty = FileSpan {
            size: 0,
            rows: None,
        };
        let files = [span(10, "a", "b"), empty, span(10, "c", "d")];
        assert_eq!(sorted_runs(&files), vec![0..1, 1..2, 2..3]);
    }

    #[test]
    fn tiers_merge_files_of_about_one_size() {
        // Five flushes beside an old file five times their size: the flushes merge alone,
        // where HBase's ratio lets the old file join them.
        let sizes = [190, 38, 37, 39, 36, 38];
        assert_eq!(select(&sizes, 3, 10, 1.2, 0), Some(0..6));
        assert_eq!(select_tiered(&sizes, 5, 10, 2.0, 0), Some(1..6));
        // Four are too few; five merged outputs of the first tier make the second.
        assert_eq!(select_tiered(&[190, 38, 37, 39, 36], 5, 10, 2.0, 0), None);
        assert_eq!(
            select_tiered(&[900, 190, 185, 188, 192, 190, 38], 5, 10, 2.0, 0),
            Some(1..6)
        );
        // The most files win, then the smallest total; at most max_files.
        assert_eq!(select_tiered(&[40; 12], 5, 10, 2.0, 0), Some(0..10));
        assert_eq!(
            select_tiered(
                &[100, 100, 100, 100, 100, 10, 10, 10, 10, 10],
                5,
                10,
                2.0,
                0
            ),
            Some(5..10)
        );
    }

    #[test]
    fn tiers_count_a_small_file_as_the_floor() {
        // A small flush (a flush forced early) between full ones would split the tier.
        let sizes = [38, 1, 37, 39, 36];
        assert_eq!(select_tiered(&sizes, 5, 10, 2.0, 0), None);
        assert_eq!(select_tiered(&sizes, 5, 10, 2.0, 25), Some(0..5));
    }

    #[test]
    fn tiers_unstick_a_store_of_many_unlike_files() {
        // Sizes doubling and more: no two alike. Below twice max_files nothing is merged;
        // at twice max_files the min_files adjacent files of the smallest total are.
        let sizes: Vec<u64> = (0..20)
            .rev()
            .map(|i| 3u64.pow(i / 2 + 1) + i as u64)
            .collect();
        assert_eq!(select_tiered(&sizes[..19], 5, 10, 2.0, 0), None);
        assert_eq!(select_tiered(&sizes, 5, 10, 2.0, 0), Some(15..20));
    }

    #[test]
    fn window_is_capped_at_max_files() {
        let sizes = vec![5u64; 20];
        assert_eq!(select(&sizes, 3, 10, 1.2, 0).map(|r| r.len()), Some(10));
    }
}
