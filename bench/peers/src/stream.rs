//! The deterministic cell stream every engine receives: keys, values and access patterns.

use crate::store::CellIn;

/// xorshift64: cheap, deterministic, good enough to pick keys.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Text-like value of `len` bytes (16 symbols, so LZ4 gains a little, as on real text).
pub fn value(i: u64, len: usize) -> Vec<u8> {
    let mut r = Rng(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    (0..len)
        .map(|_| b"abcdefghijklmnop"[(r.next() % 16) as usize])
        .collect()
}

/// Milliseconds of the first record.
pub const BASE_TS: i64 = 1_600_000_000_000;

/// The tall-narrow data set of the seed article: `users` users, record `i` of user `i % users`
/// at time `BASE_TS + (i / users) s`, row = uid (8 digits) + (i64::MAX - ts), empty qualifier.
#[derive(Clone, Copy)]
pub struct TallNarrow {
    pub cells: u64,
    pub users: u64,
    pub value_len: usize,
}

impl TallNarrow {
    pub fn new(cells: u64, value_len: usize) -> TallNarrow {
        TallNarrow {
            cells,
            users: (cells / 1000).max(1),
            value_len,
        }
    }

    /// Row and timestamp of record `i`.
    pub fn key(&self, i: u64) -> (Vec<u8>, i64) {
        let ts = BASE_TS + (i / self.users) as i64 * 1000;
        (self.row_at(i % self.users, ts), ts)
    }

    /// The row of user `u` at `ts`.
    pub fn row_at(&self, u: u64, ts: i64) -> Vec<u8> {
        let mut row = format!("{u:08}").into_bytes();
        row.extend_from_slice(&(i64::MAX - ts).to_be_bytes());
        row
    }

    /// A row inside the key range that holds nothing (a timestamp between two records).
    pub fn absent_row(&self, i: u64) -> Vec<u8> {
        let (_, ts) = self.key(i);
        self.row_at(i % self.users, ts + 1)
    }

    /// Record `i` as a cell.
    pub fn cell(&self, i: u64) -> CellIn {
        let (row, ts) = self.key(i);
        CellIn {
            row,
            qualifier: Vec::new(),
            ts,
            value: value(i, self.value_len),
        }
    }

    /// The record written at position `pos` when loading in random order: a fixed bijection
    /// of [0, cells) (multiplication by a prime that does not divide `cells`).
    pub fn random_order(&self, pos: u64) -> u64 {
        const P: u64 = 2_654_435_761;
        let p = if self.cells.is_multiple_of(P) {
            1_000_000_007
        } else {
            P
        };
        ((pos as u128 * p as u128) % self.cells as u128) as u64
    }

    /// The record written at position `pos` when loading in key order.
    pub fn key_order(&self, pos: u64) -> u64 {
        let per_user = self.cells.div_ceil(self.users);
        let (u, j) = (pos / per_user, pos % per_user);
        // Reversed timestamps: a user's newest record sorts first.
        let newest_first = per_user - 1 - j;
        let i = newest_first * self.users + u;
        if i < self.cells {
            i
        } else {
            // The last, partial column of records: fall back to a valid record.
            pos
        }
    }

    /// Logical bytes of one record: row + family + value.
    pub fn logical_bytes(&self) -> u64 {
        (16 + 2 + self.value_len) as u64
    }
}

/// Wide rows for the second seed query: `rows` rows of `columns` columns of 100 bytes, the
/// qualifier the reversed timestamp (newest column first).
pub fn wide_row(r: u64, columns: i64) -> Vec<CellIn> {
    (0..columns)
        .map(|j| CellIn {
            row: wide_row_key(r),
            qualifier: (i64::MAX - (BASE_TS + j)).to_be_bytes().to_vec(),
            ts: BASE_TS + j,
            value: value(j as u64, 100),
        })
        .collect()
}

/// Row key of wide row `r`. It sorts before every tall-narrow row, so a scan that starts at a
/// tall-narrow row never runs into the wide rows.
pub fn wide_row_key(r: u64) -> Vec<u8> {
    format!("#{r:07}").into_bytes()
}
