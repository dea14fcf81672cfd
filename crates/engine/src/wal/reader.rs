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

/// The unit in which a power cut leaves a file's blocks written or not: a disk sector. Zeros
/// from a multiple of it to the end of a segment are blocks the file system allocated (the
/// file's length was logged) whose data never reached the disk.
pub const SECTOR: usize = 512;

/// The first sector-aligned offset from which every byte of `data` is zero, if that leaves
/// at least one byte (the segment ends in blocks a power cut left unwritten).
fn zero_filled_from(data: &[u8]) -> Option<usize> {
    let nonzero_end = data.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let from = nonzero_end.div_ceil(SECTOR) * SECTOR;
    (from < data.len()).then_some(from)
}

/// How reading one segment ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentEnd {
    /// Every byte was a whole, valid record.
    Clean,
    /// An incomplete record at `offset` ended the last segment: its header or payload runs
    /// past the end of the file, or every byte from there on is zero (blocks a power cut left
    /// allocated but unwritten). A write the process was making when it died, never
    /// acknowledged at `FSYNC_WAL`.
    TornAt {
        /// Offset of the incomplete record.
        offset: u64,
        /// What was wrong with it.
        reason: String,
    },
    /// A complete record at `offset` is damaged (its checksum fails, its payload does not
    /// decode, or its length is past any record ferrobase writes): not a tear but corruption,
    /// in any segment. Reading stopped there; the caller decides (refuse to start, or skip it
    /// under point-in-time recovery).
    DamagedAt {
        /// Offset of the damaged record.
        offset: u64,
        /// What was wrong with it.
        reason: String,
    },
}

/// Reads every record of the segment at `path`, calling `f` for each. In the last segment an
/// incomplete record ends reading ([`SegmentEnd::TornAt`]); in an earlier segment it is
/// [`Error::Corruption`] naming the offset. A complete but damaged record ends reading in any
/// segment ([`SegmentEnd::DamagedAt`]).
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
    let Some(version) = segment_version(data) else {
        if is_last && zero_filled_from(data) == Some(0) {
            // Created, its length on disk, its magic never written: a power cut before the new
            // segment's first sync (nothing was logged in it).
            return Ok(SegmentEnd::TornAt {
                offset: 0,
                reason: "segment is zero-filled".into(),
            });
        }
        if is_last {
            // Damage at the newest segment's first byte: refused under strict recovery;
            // point-in-time recovery keeps what precedes it (nothing of this segment), as for
            // a damaged record. (A power cut with stale or torn blocks can leave an unsynced
            // new segment's header so.)
            return Ok(SegmentEnd::DamagedAt {
                offset: 0,
                reason: "bad segment magic".into(),
            });
        }
        return Err(Error::corruption(path, 0, "bad segment magic"));
    };
    let mut pos = SEGMENT_MAGIC.len();
    let mut last_seq = 0;
    let zero_tail = zero_filled_from(data);
    while pos < data.len() {
        // An incomplete record: only the last segment may end in one (a write cut by a crash),
        // and nothing valid follows a tear. A record that only looks cut short (its length
        // damaged to reach past the end) with a valid record of a later sequence id after it is
        // damage: the records after it were acknowledged. The valid record is searched for at
        // every offset past the bad one's start, since the damage may be in the length.
        let torn = |reason: String| -> Result<SegmentEnd> {
            if records_past_damage(data, pos, version)
                .iter()
                .any(|e| e.seq > last_seq)
            {
                return Ok(SegmentEnd::DamagedAt {
                    offset: pos as u64,
                    reason: format!("{reason}, before further valid records"),
                });
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
        // A complete record that runs into the zero-filled blocks ending the segment is a
        // tear too: its last sectors were never written (a power cut after the file's length,
        // not its data, reached the disk: ext4's delayed allocation, XFS). A flipped byte
        // leaves no such blocks, and neither does anything acknowledged at FSYNC_WAL.
        let damaged = |reason: String, record_end: usize| -> Result<SegmentEnd> {
            if let Some(z) = zero_tail.filter(|&z| z > pos && z < record_end) {
                return torn(format!(
                    "{reason}: the record runs into zero-filled blocks from offset {z} to the end"
                ));
            }
            Ok(SegmentEnd::DamagedAt {
                offset: pos as u64,
                reason,
            })
        };
        if data
            .get(pos..)
            .is_some_and(|rest| rest.iter().all(|&b| b == 0))
        {
            return torn("zero-filled tail".into());
        }
        let Some((len, crc)) = record_header(data, pos) else {
            return torn("record header is short".into());
        };
        if len > MAX_RECORD {
            return damaged(format!("record length {len} exceeds the limit"), pos + 8);
        }
        let Some(payload) = data.get(pos + 8..pos + 8 + len) else {
            return torn(format!("record of {len} bytes is cut short"));
        };
        if masked_crc(payload) != crc {
            return damaged("record checksum mismatch".into(), pos + 8 + len);
        }
        let Some(edit) = WalEdit::decode_version(payload, version) else {
            return damaged("record payload is malformed".into(), pos + 8 + len);
        };
        last_seq = last_seq.max(edit.seq);
        f(edit)?;
        pos += 8 + len;
    }
    Ok(SegmentEnd::Clean)
}

/// What a damaged segment holds past the damage at `from`: the records found by searching
/// every later offset for a whole header, a payload within the data, a matching checksum and a
/// decodable payload, then reading on from each as a sequence. Reported when point-in-time
/// recovery skips them; a guess by construction (a record may be missed or, very rarely,
/// found in noise), never replayed.
pub fn records_past_damage(data: &[u8], from: usize, version: u32) -> Vec<WalEdit> {
    let mut found = Vec::new();
    let mut pos = from + 1;
    while pos + 8 <= data.len() {
        match record_at(data, pos, version) {
            Some((edit, next)) => {
                found.push(edit);
                pos = next;
            }
            None => pos += 1,
        }
    }
    found
}

/// The valid record at `pos` and the offset past it, or `None`.
fn record_at(data: &[u8], pos: usize, version: u32) -> Option<(WalEdit, usize)> {
    let (len, crc) = record_header(data, pos)?;
    if len > MAX_RECORD {
        return None;
    }
    let payload = data.get(pos + 8..pos + 8 + len)?;
    if masked_crc(payload) != crc {
        return None;
    }
    Some((WalEdit::decode_version(payload, version)?, pos + 8 + len))
}

/// The format version of a segment's bytes (1 or 2), `None` for a bad magic.
pub fn segment_version(data: &[u8]) -> Option<u32> {
    match data.get(..SEGMENT_MAGIC.len()) {
        Some(m) if m == SEGMENT_MAGIC => Some(2),
        Some(m) if m == SEGMENT_MAGIC_V1 => Some(1),
        _ => None,
    }
}

/// The length and checksum of the record header at `pos` (`docs/format/wal.md`), or `None`
/// when fewer than 8 bytes are left.
fn record_header(data: &[u8], pos: usize) -> Option<(usize, u32)> {
    let mut r = ByteReader::new(data.get(pos..)?);
    let len = r.u32()? as usize;
    Some((len, r.u32()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;
    use crate::wal::WalCell;
    use bytes::Bytes;

    fn segment(magic: &[u8], ttl_ms: Option<i64>) -> Vec<u8> {
        segment_of(magic, ttl_ms, b"v")
    }

    fn segment_of(magic: &[u8], ttl_ms: Option<i64>, value: &'static [u8]) -> Vec<u8> {
        let edit = WalEdit {
            seq: 4,
            region_id: 1,
            cells: vec![WalCell {
                family: Bytes::from_static(b"x"),
                row: Bytes::from_static(b"r"),
                qualifier: Bytes::from_static(b"q"),
                timestamp: 9,
                cell_type: CellType::Put,
                value: Bytes::from_static(value),
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
        assert!(matches!(
            ttls(&mixed, false),
            Ok((_, SegmentEnd::DamagedAt { .. }))
        ));
    }

    /// A power cut on a file system that logged a grown file's length before its data (ext4's
    /// delayed allocation, XFS) leaves the last record's later sectors zero: a tear, cut off,
    /// not damage (a server refusing to start after an honest power cut). A flipped byte is
    /// still damage, zeros after it or not.
    #[test]
    fn a_last_record_running_into_zero_filled_sectors_is_torn_but_a_flipped_byte_is_damage() {
        let full = segment_of(SEGMENT_MAGIC, None, &[7; 3 * SECTOR]);
        for z in [SECTOR, 2 * SECTOR, 3 * SECTOR] {
            let mut grown = full.clone();
            grown[z..].fill(0);
            let (cells, end) = ttls(&grown, true).unwrap();
            assert!(cells.is_empty());
            assert!(
                matches!(&end, SegmentEnd::TornAt { offset: 8, reason } if reason.contains("zero-filled")),
                "{end:?}"
            );
            // In a segment that is not the last, it is corruption as any tear is.
            assert!(ttls(&grown, false).is_err());
        }
        let mut flipped = full.clone();
        flipped[100] ^= 1;
        flipped.extend_from_slice(&[0; 2 * SECTOR]);
        assert!(matches!(
            ttls(&flipped, true),
            Ok((_, SegmentEnd::DamagedAt { offset: 8, .. }))
        ));
        // A new segment whose length reached the disk but not its magic: torn, if the last.
        assert!(matches!(
            ttls(&[0; 8], true),
            Ok((_, SegmentEnd::TornAt { offset: 0, .. }))
        ));
        assert!(ttls(&[0; 8], false).is_err());
        // Zeros that reach no sector boundary are not blocks left unwritten.
        assert_ne!(full.len() % SECTOR, 0);
        let mut odd = full.clone();
        let n = odd.len();
        odd[n - 3..].fill(0);
        assert!(matches!(
            ttls(&odd, true),
            Ok((_, SegmentEnd::DamagedAt { .. }))
        ));
    }
}
