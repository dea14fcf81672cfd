//! The records of HBase's Export files (docs/format/sequencefile.md, "HBase Export records"):
//! the key an `ImmutableBytesWritable` of the row (`Writable`: a 4-byte big-endian length and the
//! bytes), the value a `Result` as `ResultSerialization` writes it (`ClientProtos.Result`,
//! protobuf, preceded by its length as a varint: `writeDelimitedTo`), every cell inline.

use ferrobase_engine::{Cell, CellType};
use ferrobase_native::proto::{cell as pb_cell, client as pb_client};
use prost::Message;

/// The key class of HBase's Export files.
pub const KEY_CLASS: &str = "org.apache.hadoop.hbase.io.ImmutableBytesWritable";
/// The value class of HBase's Export files.
pub const VALUE_CLASS: &str = "org.apache.hadoop.hbase.client.Result";

/// The serialized key of `row`.
pub fn encode_key(row: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + row.len());
    out.extend_from_slice(&(row.len() as u32).to_be_bytes());
    out.extend_from_slice(row);
    out
}

/// The row of a serialized key, or why it is not one.
pub fn decode_key(key: &[u8]) -> Result<&[u8], String> {
    let (len, row) = key
        .split_first_chunk::<4>()
        .ok_or_else(|| format!("key of {} bytes has no length", key.len()))?;
    let len = i32::from_be_bytes(*len);
    if usize::try_from(len).ok() != Some(row.len()) {
        return Err(format!("key says {len} bytes of row, holds {}", row.len()));
    }
    Ok(row)
}

/// The serialized value of a row's cells, as HBase's `ProtobufUtil.toResult(result, true)`
/// builds it: every cell with row, family, qualifier, timestamp, type, value and (empty) tags,
/// then `stale` and `partial` false. An empty row is the empty message.
pub fn encode_result(cells: &[Cell]) -> Vec<u8> {
    let msg = pb_client::Result {
        cell: cells
            .iter()
            .map(|c| pb_cell::Cell {
                row: Some(c.row().to_vec()),
                family: Some(c.family().to_vec()),
                qualifier: Some(c.qualifier().to_vec()),
                timestamp: Some(c.timestamp() as u64),
                cell_type: Some(i32::from(c.cell_type().code())),
                value: Some(c.value().to_vec()),
                tags: Some(Vec::new()),
            })
            .collect(),
        associated_cell_count: None,
        exists: None,
        stale: (!cells.is_empty()).then_some(false),
        partial: (!cells.is_empty()).then_some(false),
    };
    msg.encode_length_delimited_to_vec()
}

/// The cells of a serialized value, each checked to be of `row`; or why they are not.
pub fn decode_result(row: &[u8], value: &[u8]) -> Result<Vec<Cell>, String> {
    let mut buf = value;
    let msg = pb_client::Result::decode_length_delimited(&mut buf)
        .map_err(|e| format!("value is not a length-delimited HBase Result: {e}"))?;
    if !buf.is_empty() {
        return Err(format!(
            "{} bytes follow the Result in the value",
            buf.len()
        ));
    }
    if msg.exists.is_some() || msg.associated_cell_count.unwrap_or(0) != 0 {
        return Err("Result is an existence answer or refers to a cell block, not cells".into());
    }
    let mut out = Vec::with_capacity(msg.cell.len());
    for (i, c) in msg.cell.into_iter().enumerate() {
        let cell_row = c.row.unwrap_or_default();
        if cell_row != row {
            return Err(format!(
                "cell {i} is of row {:?}, not the record's {:?}",
                String::from_utf8_lossy(&cell_row),
                String::from_utf8_lossy(row)
            ));
        }
        let family = c.family.unwrap_or_default();
        if family.is_empty() {
            return Err(format!("cell {i} has no family"));
        }
        let code = c.cell_type.unwrap_or(i32::from(CellType::Put.code()));
        let cell_type = u8::try_from(code)
            .ok()
            .and_then(CellType::from_code)
            .ok_or_else(|| format!("cell {i} has type code {code}, not a cell type"))?;
        let ts = c.timestamp.unwrap_or(i64::MAX as u64);
        let timestamp =
            i64::try_from(ts).map_err(|_| format!("cell {i} has timestamp {ts}, past i64"))?;
        out.push(Cell::new(
            cell_row,
            family,
            c.qualifier.unwrap_or_default(),
            timestamp,
            cell_type,
            c.value.unwrap_or_default(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_round_trips_and_checks_its_length() {
        assert_eq!(decode_key(&encode_key(b"row-1")).unwrap(), b"row-1");
        assert_eq!(decode_key(&encode_key(b"")).unwrap(), b"");
        assert!(decode_key(b"\0\0\0\x05abc").is_err());
        assert!(decode_key(b"\0\0").is_err());
    }

    #[test]
    fn result_round_trips_every_type() {
        let cells: Vec<Cell> = [
            CellType::Put,
            CellType::Delete,
            CellType::DeleteColumn,
            CellType::DeleteFamily,
            CellType::DeleteFamilyVersion,
        ]
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            Cell::new(
                &b"r"[..],
                &b"cf"[..],
                format!("q{i}"),
                10 + i as i64,
                t,
                format!("v{i}"),
            )
        })
        .collect();
        let enc = encode_result(&cells);
        assert_eq!(decode_result(b"r", &enc).unwrap(), cells);
        assert!(decode_result(b"other", &enc).is_err());
        assert!(decode_result(b"r", &enc[..enc.len() - 1]).is_err());
        assert_eq!(decode_result(b"r", &encode_result(&[])).unwrap(), vec![]);
    }
}
