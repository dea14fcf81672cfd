//! YCSB's Zipfian key chooser (Gray et al., "Quickly generating billion-record synthetic
//! databases"), constant 0.99, scrambled so the hot keys spread over the key space as YCSB's
//! `ScrambledZipfianGenerator` does. The one copy the benchmark programs share (`ferrobase bench
//! threads` and `bench gateway`, the peer program's YCSB workloads): their key streams are part of
//! their results, so a change here changes every YCSB figure.

use crate::Rng;

/// Draws keys in `[0, n)`, key rank `r` with probability proportional to `1 / r^0.99`.
#[derive(Debug, Clone)]
pub struct Zipf {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    rng: Rng,
}

impl Zipf {
    /// A chooser over `n` keys (at least 2) whose generator starts from the state `seed`
    /// ([`Rng::from_state`]).
    pub fn new(n: u64, seed: u64) -> Zipf {
        let n = n.max(2);
        let theta = 0.99;
        let zeta = |n: u64| (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum::<f64>();
        let zetan = zeta(n);
        Zipf {
            n,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta(2) / zetan),
            rng: Rng::from_state(seed),
        }
    }

    /// The next key.
    pub fn next_key(&mut self) -> u64 {
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let uz = u * self.zetan;
        let rank = if uz < 1.0 {
            0
        } else if uz < 1.0 + 0.5f64.powf(self.theta) {
            1
        } else {
            (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        };
        // FNV-like scramble of the rank, as YCSB's ScrambledZipfian hashes it.
        (rank.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7) % self.n
    }

    /// The same distribution from another generator state, for another thread (`zetan`, the
    /// costly part, is reused).
    pub fn fork(&self, seed: u64) -> Zipf {
        Zipf {
            rng: Rng::from_state(seed),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_stay_in_range_and_the_hottest_key_is_drawn_most() {
        let mut z = Zipf::new(1000, 11);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            counts[z.next_key() as usize] += 1;
        }
        let hottest = *counts.iter().max().unwrap();
        // Rank 0 has probability 1 / zeta(1000) ≈ 0.13 at theta 0.99.
        assert!(hottest > 10_000, "{hottest}");
        assert!(counts.iter().filter(|&&c| c > 0).count() > 500);
    }

    #[test]
    fn a_fork_replays_a_new_chooser_of_the_same_state() {
        let base = Zipf::new(5000, 3);
        let (mut a, mut b) = (base.fork(77), Zipf::new(5000, 77));
        for _ in 0..1000 {
            assert_eq!(a.next_key(), b.next_key());
        }
    }
}
