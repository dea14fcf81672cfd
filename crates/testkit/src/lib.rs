//! What ferrobase's tests share. One seeded random generator, [`Rng`], used by every
//! randomized test, fuzz-style unit test and the fault-injecting file system's random power
//! cuts, so a failing seed replays the same sequence everywhere and there is one generator to
//! read instead of a copy per file.
//!
//! Test and benchmark code only: nothing here is meant for production paths (RandomRowFilter
//! keeps its own generator, whose stream is part of its behaviour). The benchmark programs share
//! YCSB's key chooser, [`Zipf`].

#![forbid(unsafe_code)]

mod zipf;

pub use zipf::Zipf;

/// A xorshift64 generator (Marsaglia's 13/7/17 triple): fast, deterministic, no dependencies.
/// Not cryptographic, and not for statistics beyond picking test inputs.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for any `seed` (0 included): the state is splitmix64 of the seed, so
    /// neighbouring seeds start far apart.
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng::from_state(z ^ (z >> 31))
    }

    /// A generator whose state is `state` itself (0, which xorshift never leaves, is replaced
    /// by 1): the sequence the hand-copied generators produced from the same number, so tests
    /// keep the inputs they were written against.
    pub fn from_state(state: u64) -> Rng {
        Rng(if state == 0 { 1 } else { state })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// An index in `0..n`; 0 when `n` is 0.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// One element of `v` (which must not be empty).
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.index(v.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_state_replays_the_xorshift64_sequence() {
        let mut r = Rng::from_state(7);
        let mut x = 7u64;
        for _ in 0..100 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(r.next_u64(), x);
        }
    }

    #[test]
    fn seeds_never_stall_and_below_stays_in_range() {
        for seed in [0, 1, u64::MAX] {
            let mut r = Rng::new(seed);
            assert_ne!(r.next_u64(), 0);
            assert!((0..1000).all(|_| r.below(10) < 10));
        }
        assert_eq!(Rng::from_state(0).below(0), 0);
    }
}
