//! The memstore's skip list and chunks (`crates/engine/src/memstore/`, unsafe code of our own)
//! answer as a sorted map does: the input is a program of batch inserts (equal keys replace the
//! cells before them, as in HBase), seeks with scans, and `last_row_before` lookups, on chunks
//! of four sizes (none, tiny, small, the default) and with cells too large for a chunk. Under
//! AddressSanitizer a wrong offset or a node read past its end fails the run.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/memstore_ops/`, `fuzz/regressions/memstore_ops/`).

use bytes::Bytes;
use ferrobase_engine::fuzzing::{
    CellKey, CellType, ChunkPool, KeyValue, Memstore, MemstoreScanner,
};
use std::collections::BTreeMap;

/// Reads the program's bytes; zeros once they run out.
struct Input<'a>(std::slice::Iter<'a, u8>);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        self.0.next().copied().unwrap_or(0)
    }

    /// A short row or qualifier over a four-letter alphabet, so keys meet often.
    fn bytes(&mut self, max_len: u8) -> Vec<u8> {
        let len = self.byte() % (max_len + 1);
        (0..len).map(|_| self.byte() % 4).collect()
    }

    fn key(&mut self) -> CellKey {
        const TYPES: [CellType; 5] = [
            CellType::Put,
            CellType::Delete,
            CellType::DeleteColumn,
            CellType::DeleteFamily,
            CellType::DeleteFamilyVersion,
        ];
        CellKey {
            row: self.bytes(20).into(),
            qualifier: self.bytes(3).into(),
            timestamp: i64::from(self.byte() % 4),
            cell_type: TYPES[usize::from(self.byte()) % TYPES.len()],
            seq: u64::from(self.byte() % 3),
        }
    }

    fn cell(&mut self) -> KeyValue {
        let key = self.key();
        let len = match self.byte() {
            0..=199 => usize::from(self.byte()),
            200..=253 => usize::from(self.byte()) * 40,
            _ => 300 << 10, // over 256 KiB: a buffer of its own
        };
        let fill = self.byte();
        let ttl = self.byte();
        KeyValue {
            key,
            value: Bytes::from(vec![fill; len]),
            ttl_ms: (ttl > 200).then_some(i64::from(ttl)),
        }
    }
}

/// Runs one program; panics on a wrong answer.
pub fn run(data: &[u8]) {
    let mut input = Input(data.iter());
    let chunk = [0, 256, 4096, 2 << 20][usize::from(input.byte() % 4)];
    let memstore = Memstore::new(ChunkPool::new(chunk, 1 << 20));
    let mut model: BTreeMap<CellKey, KeyValue> = BTreeMap::new();
    for _ in 0..64 {
        if input.0.len() == 0 {
            break;
        }
        match input.byte() % 4 {
            0 | 1 => {
                let batch: Vec<KeyValue> =
                    (0..1 + input.byte() % 8).map(|_| input.cell()).collect();
                for kv in &batch {
                    model.insert(kv.key.clone(), kv.clone());
                }
                memstore.insert_all(batch);
            }
            2 => {
                let target = input.key();
                let mut scanner = MemstoreScanner::new(memstore.clone());
                scanner.seek(&target);
                let want = model.range(target..).take(usize::from(input.byte() % 16));
                for (_, kv) in want {
                    assert_eq!(
                        scanner.peek().map(|c| c.cmp_cell_key(&kv.key)),
                        Some(std::cmp::Ordering::Equal)
                    );
                    assert_eq!(scanner.take().as_ref(), Some(kv));
                }
            }
            _ => {
                let row = input.bytes(20);
                let scanner = MemstoreScanner::new(memstore.clone());
                let before = model
                    .range(..CellKey::first_on_row(&row))
                    .next_back()
                    .map(|(k, _)| k.row.to_vec());
                assert_eq!(scanner.last_row_before(&row), before);
            }
        }
    }
    let all: Vec<KeyValue> = memstore.iter().collect();
    assert!(
        all.iter().eq(model.values()),
        "the memstore's cells differ from the model's"
    );
}
