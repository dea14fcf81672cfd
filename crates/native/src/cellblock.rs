//! Cell blocks in `KeyValueCodec`'s encoding (`docs/design/native-protocol.md`, "Cell
//! blocks"): each cell is a 4-byte total length, then a `KeyValue` (key length, value length,
//! the key: row length (2), row, family length (1), family, qualifier, timestamp (8), type
//! (1); then the value). `KeyValueCodecWithTags` adds a 2-byte tags length and the tags after
//! the value. Java's `DataOutputStream` order: big-endian.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use ferrobase_engine::{Bytes, Cell, CellType};

/// `org.apache.hadoop.hbase.codec.KeyValueCodec`, the client's default.
pub const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";
/// `org.apache.hadoop.hbase.codec.KeyValueCodecWithTags`.
pub const KEY_VALUE_CODEC_WITH_TAGS: &str = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

/// The codec a connection asked for in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// No codec: cells travel inside the protobuf messages.
    None,
    /// `KeyValueCodec`.
    KeyValue,
    /// `KeyValueCodecWithTags` (tags are read and dropped; none are written).
    KeyValueWithTags,
}

impl Codec {
    /// The codec a connection header names; an error naming a codec ferrobase lacks.
    pub fn from_class(class: Option<&str>) -> Result<Codec, String> {
        match class.unwrap_or("") {
            "" => Ok(Codec::None),
            KEY_VALUE_CODEC => Ok(Codec::KeyValue),
            KEY_VALUE_CODEC_WITH_TAGS => Ok(Codec::KeyValueWithTags),
            other => Err(format!(
                "cell block codec {other} is not supported (only {KEY_VALUE_CODEC} and \
                 {KEY_VALUE_CODEC_WITH_TAGS})"
            )),
        }
    }
}

/// One cell of a client's cell block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockCell {
    /// Row.
    pub row: Bytes,
    /// Family.
    pub family: Bytes,
    /// Qualifier.
    pub qualifier: Bytes,
    /// Timestamp.
    pub timestamp: i64,
    /// Type code (4 Put, 8 Delete, 10 DeleteFamilyVersion, 12 DeleteColumn, 14 DeleteFamily).
    pub type_code: u8,
    /// Value.
    pub value: Bytes,
}

/// Appends `cell` to `out`.
pub fn encode_cell(out: &mut Vec<u8>, cell: &Cell, codec: Codec) {
    encode_parts(
        out,
        cell.row(),
        cell.family(),
        cell.qualifier(),
        cell.timestamp(),
        cell.cell_type().code(),
        cell.value(),
        codec,
    );
}

/// The bytes [`encode_cell`] appends for `cell` (to size a cell block once rather than let it
/// grow by doubling, a copy each time).
pub fn encoded_len(cell: &Cell, codec: Codec) -> usize {
    let key_len = 2 + cell.row().len() + 1 + cell.family().len() + cell.qualifier().len() + 8 + 1;
    let tags = if codec == Codec::KeyValueWithTags {
        2
    } else {
        0
    };
    4 + 8 + key_len + cell.value().len() + tags
}

/// Appends one cell given by its parts.
#[expect(
    clippy::too_many_arguments,
    reason = "the fields of one KeyValue, in order"
)]
pub fn encode_parts(
    out: &mut Vec<u8>,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    timestamp: i64,
    type_code: u8,
    value: &[u8],
    codec: Codec,
) {
    let key_len = 2 + row.len() + 1 + family.len() + qualifier.len() + 8 + 1;
    let tags = if codec == Codec::KeyValueWithTags {
        2
    } else {
        0
    };
    let total = 8 + key_len + value.len() + tags;
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(key_len as u32).to_be_bytes());
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(family.len() as u8);
    out.extend_from_slice(family);
    out.extend_from_slice(qualifier);
    out.extend_from_slice(&timestamp.to_be_bytes());
    out.push(type_code);
    out.extend_from_slice(value);
    if tags > 0 {
        out.extend_from_slice(&0u16.to_be_bytes());
    }
}

/// A reader over a cell block's bytes.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(s) = end.and_then(|e| self.data.get(self.pos..e)) else {
            return Err(format!(
                "cell block cut short: {n} bytes wanted at offset {}, {} left",
                self.pos,
                self.data.len().saturating_sub(self.pos)
            ));
        };
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let b = self.take(N)?;
        b.try_into().map_err(|_| format!("{N} bytes wanted"))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.array()?))
    }
}

/// Decodes every cell of a block. Never panics; a malformed block is an error naming the
/// offset. Each cell's fields are slices of one shared buffer.
pub fn decode_block(block: &[u8], codec: Codec) -> Result<Vec<BlockCell>, String> {
    let shared = Bytes::copy_from_slice(block);
    let mut r = Reader {
        data: block,
        pos: 0,
    };
    let mut cells = Vec::new();
    while r.pos < block.len() {
        let start = r.pos;
        let total = r.u32()? as usize;
        let body_start = r.pos;
        let key_len = r.u32()? as usize;
        let value_len = r.u32()? as usize;
        let key_start = r.pos;
        let row_len = u16::from_be_bytes(r.array()?) as usize;
        let row_at = r.pos;
        r.take(row_len)?;
        let [fam_len] = r.array::<1>()?;
        let fam_len = fam_len as usize;
        let fam_at = r.pos;
        r.take(fam_len)?;
        let fixed = 2 + row_len + 1 + fam_len + 8 + 1;
        let Some(qual_len) = key_len.checked_sub(fixed) else {
            return Err(format!(
                "cell at offset {start}: key length {key_len} is shorter than its parts ({fixed})"
            ));
        };
        let qual_at = r.pos;
        r.take(qual_len)?;
        let ts = i64::from_be_bytes(r.array()?);
        let [type_code] = r.array::<1>()?;
        debug_assert_eq!(r.pos - key_start, key_len);
        let value_at = r.pos;
        r.take(value_len)?;
        if codec == Codec::KeyValueWithTags {
            let tags = u16::from_be_bytes(r.array()?) as usize;
            r.take(tags)?;
        }
        if r.pos - body_start != total {
            return Err(format!(
                "cell at offset {start}: its length says {total} bytes, its parts make {}",
                r.pos - body_start
            ));
        }
        cells.push(BlockCell {
            row: shared.slice(row_at..row_at + row_len),
            family: shared.slice(fam_at..fam_at + fam_len),
            qualifier: shared.slice(qual_at..qual_at + qual_len),
            timestamp: ts,
            type_code,
            value: shared.slice(value_at..value_at + value_len),
        });
    }
    Ok(cells)
}

/// Whether `code` is a type a client may send in a mutation.
pub fn cell_type(code: u8) -> Option<CellType> {
    CellType::from_code(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_in_both_codecs() {
        for codec in [Codec::KeyValue, Codec::KeyValueWithTags] {
            let cell = Cell::new(
                b"row".to_vec(),
                b"cf".to_vec(),
                b"q".to_vec(),
                7,
                CellType::Put,
                b"value".to_vec(),
            );
            let mut out = Vec::new();
            encode_cell(&mut out, &cell, codec);
            assert_eq!(out.len(), encoded_len(&cell, codec));
        }
        for codec in [Codec::KeyValue, Codec::KeyValueWithTags] {
            let mut block = Vec::new();
            encode_parts(&mut block, b"row1", b"cf", b"q", 42, 4, b"value", codec);
            encode_parts(&mut block, b"r", b"f", b"", -1, 14, b"", codec);
            let cells = decode_block(&block, codec).unwrap();
            assert_eq!(cells.len(), 2);
            assert_eq!(&cells[0].row[..], b"row1");
            assert_eq!(&cells[0].qualifier[..], b"q");
            assert_eq!(&cells[0].value[..], b"value");
            assert_eq!(cells[0].timestamp, 42);
            assert_eq!(cells[1].type_code, 14);
        }
    }

    #[test]
    fn a_key_value_as_java_writes_it() {
        let mut block = Vec::new();
        encode_parts(&mut block, b"r", b"f", b"q", 1, 4, b"v", Codec::KeyValue);
        // total 4+4+ key(2+1+1+1+1+8+1=15) + value 1 = 24
        assert_eq!(
            block,
            b"\x00\x00\x00\x18\x00\x00\x00\x0f\x00\x00\x00\x01\x00\x01r\x01fq\x00\x00\x00\x00\x00\x00\x00\x01\x04v"
        );
    }

    #[test]
    fn malformed_blocks_are_errors() {
        let mut block = Vec::new();
        encode_parts(
            &mut block,
            b"row1",
            b"cf",
            b"q",
            42,
            4,
            b"value",
            Codec::KeyValue,
        );
        for cut in 0..block.len() {
            if cut > 0 {
                assert!(
                    decode_block(&block[..cut], Codec::KeyValue).is_err(),
                    "{cut}"
                );
            }
        }
        let mut bad = block.clone();
        bad[7] = 2; // key length shorter than its parts
        assert!(decode_block(&bad, Codec::KeyValue).is_err());
    }
}
