//! The tests' one random generator: xorshift64, seeded by the test, so every run of a seed
//! replays the same sequence.
#![allow(
    dead_code,
    reason = "each test file uses the part of the support it needs"
)]

/// A xorshift64 generator; the state must not be 0.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// One element of `v`.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}
