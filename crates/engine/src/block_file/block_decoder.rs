//! Decodes the cells of one raw data block, never panicking on malformed bytes.

use crate::byte_reader::ByteReader;
use crate::cell::{CellKey, CellType, KeyValue};
use std::sync::Arc;

/// A cursor over the cells of a raw data block. Shares the block with the block cache.
#[derive(Debug, Clone)]
pub struct BlockDecoder {
    block: Arc<Vec<u8>>,
    pos: usize,
    prev_row: Vec<u8>,
}

impl BlockDecoder {
    /// A cursor at the block's first cell.
    pub fn new(block: Arc<Vec<u8>>) -> Self {
        BlockDecoder {
            block,
            pos: 0,
            prev_row: Vec::new(),
        }
    }

    /// Skips to the first cell ≥ `target` and returns it (`Ok(None)` when the block ends
    /// first). Cells before it are compared in place, without copying their values.
    pub fn seek(&mut self, target: &CellKey) -> Result<Option<KeyValue>, usize> {
        let block = self.block.clone();
        loop {
            if self.pos >= block.len() {
                return Ok(None);
            }
            let start = self.pos;
            let mut r = ByteReader::new(&block[self.pos..]);
            let parsed = (|| {
                let shared = usize::try_from(r.varint()?).ok()?;
                if shared > self.prev_row.len() {
                    return None;
                }
                let suffix = r.len_prefixed()?;
                self.prev_row.truncate(shared);
                self.prev_row.extend_from_slice(suffix);
                let qualifier = r.len_prefixed()?;
                let timestamp = r.i64()?;
                let cell_type = CellType::from_code(r.u8()?)?;
                let seq = r.varint()?;
                let value = r.len_prefixed()?;
                Some((qualifier, timestamp, cell_type, seq, value))
            })();
            let Some((qualifier, timestamp, cell_type, seq, value)) = parsed else {
                return Err(start);
            };
            self.pos += r.position();
            let ord = self.prev_row[..]
                .cmp(&target.row[..])
                .then_with(|| qualifier.cmp(&target.qualifier[..]))
                .then_with(|| target.timestamp.cmp(&timestamp))
                .then_with(|| target.cell_type.cmp(&cell_type))
                .then_with(|| target.seq.cmp(&seq));
            if ord != std::cmp::Ordering::Less {
                return Ok(Some(KeyValue {
                    key: CellKey {
                        row: self.prev_row.clone(),
                        qualifier: qualifier.to_vec(),
                        timestamp,
                        cell_type,
                        seq,
                    },
                    value: value.to_vec(),
                }));
            }
        }
    }

    /// The next cell, `Ok(None)` at the end, or `Err(offset_in_block)` when malformed.
    pub fn next_cell(&mut self) -> Result<Option<KeyValue>, usize> {
        if self.pos >= self.block.len() {
            return Ok(None);
        }
        let start = self.pos;
        let mut r = ByteReader::new(&self.block[self.pos..]);
        let kv = (|| {
            let shared = usize::try_from(r.varint()?).ok()?;
            if shared > self.prev_row.len() {
                return None;
            }
            let suffix = r.len_prefixed()?;
            let mut row = Vec::with_capacity(shared + suffix.len());
            row.extend_from_slice(&self.prev_row[..shared]);
            row.extend_from_slice(suffix);
            let qualifier = r.len_prefixed()?.to_vec();
            let timestamp = r.i64()?;
            let cell_type = CellType::from_code(r.u8()?)?;
            let seq = r.varint()?;
            let value = r.len_prefixed()?.to_vec();
            Some(KeyValue {
                key: CellKey {
                    row,
                    qualifier,
                    timestamp,
                    cell_type,
                    seq,
                },
                value,
            })
        })()
        .ok_or(start)?;
        self.pos += r.position();
        self.prev_row.clear();
        self.prev_row.extend_from_slice(&kv.key.row);
        Ok(Some(kv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_file::BlockBuilder;
    use crate::schema::DataBlockEncoding;

    fn kv(row: &str, q: &str, ts: i64) -> KeyValue {
        KeyValue {
            key: CellKey {
                row: row.into(),
                qualifier: q.into(),
                timestamp: ts,
                cell_type: CellType::Put,
                seq: 3,
            },
            value: format!("v-{row}-{q}-{ts}").into(),
        }
    }

    #[test]
    fn both_encodings_round_trip_and_prefix_is_smaller() {
        let cells: Vec<KeyValue> = (0..100)
            .map(|i| kv(&format!("user0000{:04}", i / 3), &format!("q{i}"), i))
            .collect();
        let mut sizes = Vec::new();
        for enc in [DataBlockEncoding::None, DataBlockEncoding::Prefix] {
            let mut b = BlockBuilder::new(enc);
            for c in &cells {
                b.add(c);
            }
            let raw = b.take();
            sizes.push(raw.len());
            let mut d = BlockDecoder::new(Arc::new(raw));
            for c in &cells {
                assert_eq!(d.next_cell().unwrap().as_ref(), Some(c));
            }
            assert_eq!(d.next_cell().unwrap(), None);
        }
        assert!(sizes[1] < sizes[0]);
    }

    #[test]
    fn seek_finds_the_first_cell_at_or_after_the_target() {
        let cells: Vec<KeyValue> = (0..60)
            .map(|i| kv(&format!("row{:03}", i / 4), &format!("q{}", i % 4), 100 - i))
            .collect();
        let mut sorted = cells.clone();
        sorted.sort_by(|a, b| a.key.cmp(&b.key));
        let mut b = BlockBuilder::new(DataBlockEncoding::Prefix);
        for c in &sorted {
            b.add(c);
        }
        let block = Arc::new(b.take());
        let mut targets: Vec<CellKey> = sorted.iter().map(|c| c.key.clone()).collect();
        targets.push(CellKey::first_on_row(b"row007"));
        targets.push(CellKey::after_row(b"row007"));
        targets.push(CellKey::after_column(b"row003", b"q1"));
        targets.push(CellKey::first_on_row(b"zzz"));
        targets.push(CellKey::first_on_row(b""));
        for t in targets {
            let want = sorted.iter().find(|c| c.key >= t).cloned();
            let mut d = BlockDecoder::new(block.clone());
            assert_eq!(d.seek(&t).unwrap(), want, "target {t:?}");
            // Decoding continues correctly after a seek.
            if want.is_some() {
                let next = sorted
                    .iter()
                    .find(|c| c.key > want.as_ref().unwrap().key)
                    .cloned();
                assert_eq!(d.next_cell().unwrap(), next);
            }
        }
    }

    #[test]
    fn truncated_block_is_an_error_with_offset() {
        let mut b = BlockBuilder::new(DataBlockEncoding::Prefix);
        b.add(&kv("a", "q", 1));
        b.add(&kv("ab", "q", 1));
        let raw = b.take();
        let mut one = BlockBuilder::new(DataBlockEncoding::Prefix);
        one.add(&kv("a", "q", 1));
        let boundary = one.size();
        for cut in (1..raw.len()).filter(|&c| c != boundary) {
            let mut d = BlockDecoder::new(Arc::new(raw[..cut].to_vec()));
            let mut saw_err = false;
            for _ in 0..3 {
                match d.next_cell() {
                    Err(_) => {
                        saw_err = true;
                        break;
                    }
                    Ok(None) => break,
                    Ok(Some(_)) => {}
                }
            }
            assert!(saw_err, "cut at {cut} not detected");
        }
    }
}
