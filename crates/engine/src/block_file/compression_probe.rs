//! Whether a data block is worth handing to the family's codec.
//!
//! A block the codec cannot shrink by an eighth is stored raw ("Block framing" in
//! `docs/format/block-file.md`), so on incompressible data (already-compressed or encrypted
//! values, random identifiers) every compression attempt is work thrown away: a fifth of the CPU
//! of a flush or compaction of such data went to LZ4 passes whose output was discarded. After
//! a run of failed blocks the writer stops trying on every block and probes instead: one block
//! in `interval` is tried, the interval doubling while probes keep failing, up to
//! `MAX_PROBE_INTERVAL`. One block that compresses brings back compression of every block. The
//! file format is unchanged: skipped blocks are ordinary codec-0 blocks.

/// Failed blocks in a row before the writer starts skipping.
const FAILURES_BEFORE_PROBING: u32 = 4;

/// The largest gap between two attempts, in blocks: at most this many compressible blocks are
/// stored raw after incompressible data turns compressible.
pub(crate) const MAX_PROBE_INTERVAL: u32 = 16;

/// The state of one file writer's attempts.
#[derive(Debug, Default)]
pub(crate) struct CompressionProbe {
    failures: u32,
    interval: u32,
    until_probe: u32,
}

impl CompressionProbe {
    /// True when the next block should be tried with the codec.
    pub(crate) fn should_try(&mut self) -> bool {
        if self.until_probe == 0 {
            return true;
        }
        self.until_probe -= 1;
        false
    }

    /// Records the outcome of a tried block: `saved` when the codec shrank it enough to be kept.
    pub(crate) fn record(&mut self, saved: bool) {
        if saved {
            *self = CompressionProbe::default();
            return;
        }
        self.failures = self.failures.saturating_add(1);
        if self.failures >= FAILURES_BEFORE_PROBING {
            self.interval = (self.interval * 2).clamp(2, MAX_PROBE_INTERVAL);
            self.until_probe = self.interval - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `blocks` blocks whose compressibility `saves` gives, returning which were tried.
    fn run(blocks: usize, saves: impl Fn(usize) -> bool) -> Vec<bool> {
        let mut p = CompressionProbe::default();
        (0..blocks)
            .map(|i| {
                let tried = p.should_try();
                if tried {
                    p.record(saves(i));
                }
                tried
            })
            .collect()
    }

    #[test]
    fn compressible_blocks_are_all_tried() {
        assert!(run(1000, |_| true).iter().all(|&t| t));
    }

    #[test]
    fn incompressible_blocks_are_probed_ever_more_rarely() {
        let tried = run(1000, |_| false);
        assert!(
            tried[..4].iter().all(|&t| t),
            "the first failures are all tried"
        );
        let attempts = tried.iter().filter(|&&t| t).count();
        // 4 + probes at gaps 2, 4, 8 and then every 16 blocks.
        assert!(attempts < 1000 / 16 + 8, "{attempts} attempts");
        assert!(attempts > 1000 / 16, "{attempts} attempts: probes stopped");
        let gaps: Vec<usize> = tried
            .iter()
            .enumerate()
            .filter(|(_, &t)| t)
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| w[1] - w[0])
            .collect();
        assert!(gaps.iter().all(|&g| g <= MAX_PROBE_INTERVAL as usize));
    }

    #[test]
    fn data_turning_compressible_is_caught_within_one_interval() {
        let turn = 500;
        let tried = run(1000, |i| i >= turn);
        let first = (turn..1000)
            .find(|&i| tried[i])
            .expect("a probe after the turn");
        assert!(first - turn < MAX_PROBE_INTERVAL as usize);
        assert!(
            tried[first..].iter().all(|&t| t),
            "every block is tried again once one compresses"
        );
    }
}
