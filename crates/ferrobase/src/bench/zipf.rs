//! YCSB's Zipfian key chooser (Gray et al., "Quickly generating billion-record synthetic
//! databases"), constant 0.99, scrambled so the hot keys spread over the key space as YCSB's
//! `ScrambledZipfianGenerator` does.

use super::Rng;

/// Draws keys in `[0, n)`, key rank `r` with probability proportional to `1 / r^0.99`.
pub struct Zipf {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    rng: Rng,
}

impl Zipf {
    /// A chooser over `n` keys (at least 2) seeded with `seed` (not 0).
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
            rng: Rng(seed | 1),
        }
    }

    /// The next key.
    pub fn next(&mut self) -> u64 {
        let u = (self.rng.next() >> 11) as f64 / (1u64 << 53) as f64;
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

    /// The same distribution with another seed, for another thread (`zetan`, the costly part,
    /// is reused).
    pub fn fork(&self, seed: u64) -> Zipf {
        Zipf {
            rng: Rng(seed | 1),
            ..*self
        }
    }
}
