//! Chooses which files a minor compaction merges (HBase's `ExploringCompactionPolicy`).

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

    #[test]
    fn window_is_capped_at_max_files() {
        let sizes = vec![5u64; 20];
        assert_eq!(select(&sizes, 3, 10, 1.2, 0).map(|r| r.len()), Some(10));
    }
}
