//! Reads WAL segments for replay ("Recovery rules" in `docs/format/wal.md`).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::record::WalEdit;
use super::{SEGMENT_MAGIC, SEGMENT_MAGIC_V1};
use crate::byte_reader::ByteReader;
use crate::checksum::masked_crc;
use crate::error::{Error, IoContext, Result};
use crate::fs::FileSystem;
use std::path::Path;

/// Largest record payload accepted when reading, in bytes.
pub const MAX_RECORD: usize = 512 * 1024 * 1024;

/// How reading one segment ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentEnd {
    /// Every byte was a whole, valid record.
    Clean,
    /// A torn or corrupt record at `offset` ended the segment (accepted only for the last one).
    TornAt {
        /// Offset of the first bad record.
        offset: u64,
        /// What was wrong with it.
        reason: String,
    },
}

/// Reads every record of the segment at `path`, calling `f` for each. In the last segment a
/// torn tail (a short or failing record) ends reading; in an earlier segment it is
/// [`Error::Corruption`] naming the offset.
pub fn read_segment(
    fs: &dyn FileSystem,
    path: &Path,
    is_last: bool,
    f: impl FnMut(WalEdit) -> Result<()>,
) -> Result<SegmentEnd> {
    let data = fs.read(path).at(path)?;
    decode_segment(path, &data, is_last, f)
}

/// Reads every record of a segment's bytes `data` as `read_segment` does, naming `path` in
/// errors. Never panics, whatever the bytes; allocates at most one record's cells at a time.
pub fn decode_segment(
    path: &Path,
    data: &[u8],
    is_last: bool,
    mut f: impl FnMut(WalEdit) -> Result<()>,
) -> Result<SegmentEnd> {
    if data.len() < SEGMENT_MAGIC.len() {
        return if is_last {
            Ok(SegmentEnd::TornAt {
                offset: 0,
                reason: "segment header is short".into(),
            })
        } else {
            Err(Error::corruption(path, 0, "segment header is short"))
        };
    }
    let version = match data.get(..SEGMENT_MAGIC.len()) {
        Some(m) if m == SEGMENT_MAGIC => 2,
        Some(m) if m == SEGMENT_MAGIC_V1 => 1,
        _ => return Err(Error::corruption(path, 0, "bad segment magic")),
    };
    let mut pos = SEGMENT_MAGIC.len();
    let mut last_seq = 0;
    while pos < data.len() {
        let bad = |reason: String| -> Result<SegmentEnd> {
            // A bad record followed by a good one is damage inside the log, not a torn tail:
            // never drop the acknowledged records after it silently. The good one is searched
            // for at every offset, since the damage may be in the length that says where the
            // next record starts.
            if is_last && valid_record_after(data, pos + 1, version, last_seq) {
                return Err(Error::corruption(
                    path,
                    pos as u64,
                    format!("{reason}, before further valid records"),
                ));
            }
            if is_last {
                Ok(SegmentEnd::TornAt {
                    offset: pos as u64,
                    reason,
                })
            } else {
                Err(Error::corruption(path, pos as u64, reason))
            }
        };
        let Some((len, crc)) = record_header(data, pos) else {
            return bad("record header is short".into());
        };
        if len > MAX_RECORD {
            return bad(format!("record length {len} exceeds the limit"));
        }
        let Some(payload) = data.get(pos + 8..pos + 8 + len) else {
            return bad(format!("record of {len} bytes is cut short"));
        };
        let edit = if masked_crc(payload) == crc {
            WalEdit::decode_version(payload, version)
        } else {
            None
        };
        let Some(edit) = edit else {
            return bad("record checksum mismatch or malformed payload".into());
        };
        last_seq = last_seq.max(edit.seq);
        f(edit)?;
        pos += 8 + len;
    }
    Ok(SegmentEnd::Clean)
}

/// The length and checksum of the record header at `pos` (`docs/format/wal.md`), or `None`
/// when fewer than 8 bytes are left.
fn record_header(data: &[u8], pos: usize) -> Option<(usize, u32)> {
    let mut r = ByteReader::new(data.get(pos..)?);
    let len = r.u32()? as usize;
    Some((len, r.u32()?))
}

/// Whether a valid record of a sequence id above `after_seq` starts anywhere at or past
/// `from`: a whole header, a payload within the data, its checksum and its decoding. Read at
/// recovery only, over the tail of the last segment past a bad record.
fn valid_record_after(data: &[u8], from: usize, version: u32, after_seq: u64) -> bool {
    (from..data.len().saturating_sub(8)).any(|pos| {
        record_header(data, pos).is_some_and(|(len, crc)| {
            len <= MAX_RECORD
                && data.get(pos + 8..pos + 8 + len).is_some_and(|p| {
                    masked_crc(p) == crc
                        && WalEdit::decode_version(p, version).is_some_and(|e| e.seq > after_seq)
                })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;
    use crate::wal::WalCell;
    use bytes::Bytes;

    fn segment(magic: &[u8], ttl_ms: Option<i64>) -> Vec<u8> {
        let edit = WalEdit {
            seq: 4,
            region_id: 1,
            cells: vec![WalCell {
                family: Bytes::from_static(b"x"),
                row: Bytes::from_static(b"r"),
                qualifier: Bytes::from_static(b"q"),
                timestamp: 9,
                cell_type: CellType::Put,
                value: Bytes::from_static(b"v"),
                ttl_ms,
            }],
        };
        let mut payload = Vec::new();
        edit.encode(&mut payload);
        let mut seg = magic.to_vec();
        seg.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        seg.extend_from_slice(&masked_crc(&payload).to_be_bytes());
        seg.extend_from_slice(&payload);
        seg
    }

    fn ttls(seg: &[u8], is_last: bool) -> Result<(Vec<Option<i64>>, SegmentEnd)> {
        let mut out = Vec::new();
        let end = decode_segment(Path::new("s.wal"), seg, is_last, |e| {
            out.extend(e.cells.iter().map(|c| c.ttl_ms));
            Ok(())
        })?;
        Ok((out, end))
    }

    #[test]
    fn version_1_segments_replay_and_never_carry_a_cell_ttl() {
        let v1 = segment(SEGMENT_MAGIC_V1, None);
        assert_eq!(ttls(&v1, false).unwrap(), (vec![None], SegmentEnd::Clean));
        let v2 = segment(SEGMENT_MAGIC, Some(1_000));
        assert_eq!(
            ttls(&v2, false).unwrap(),
            (vec![Some(1_000)], SegmentEnd::Clean)
        );
        // A TTL-flagged record behind a version-1 magic is damage, not a TTL.
        let mixed = segment(SEGMENT_MAGIC_V1, Some(1_000));
        assert!(matches!(ttls(&mixed, false), Err(Error::Corruption { .. })));
    }
}
