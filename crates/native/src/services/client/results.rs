//! Results as the client reads them: cells in the connection's cell block with their counts, or
//! inside each `Result` when the connection named no codec.

use crate::cellblock::{self, Codec};
use crate::proto::cell::{Cell as PbCell, CellType as PbCellType};
use crate::proto::client::Result as PbResult;
use ferrobase_engine::{Cell, CellType, RowResult};

/// Encodes `rows` for the connection: cells in the cell block with their counts (a codec), or
/// inside each `Result` (no codec).
pub(super) fn encode_results(codec: Codec, rows: &[RowResult], out: &mut Vec<u8>) -> Vec<PbResult> {
    if codec != Codec::None {
        out.reserve(
            rows.iter()
                .flat_map(|r| &r.cells)
                .map(|c| cellblock::encoded_len(c, codec))
                .sum(),
        );
    }
    rows.iter()
        .map(|r| encode_result(codec, &r.cells, out))
        .collect()
}

pub(super) fn encode_result(codec: Codec, cells: &[Cell], out: &mut Vec<u8>) -> PbResult {
    if codec == Codec::None {
        PbResult {
            cell: cells.iter().map(pb_cell).collect(),
            stale: Some(false),
            ..PbResult::default()
        }
    } else {
        for c in cells {
            cellblock::encode_cell(out, c, codec);
        }
        PbResult {
            associated_cell_count: Some(cells.len() as i32),
            stale: Some(false),
            ..PbResult::default()
        }
    }
}

pub(super) fn pb_cell(c: &Cell) -> PbCell {
    let t = match c.cell_type() {
        CellType::Put => PbCellType::Put,
        CellType::Delete => PbCellType::Delete,
        CellType::DeleteFamilyVersion => PbCellType::DeleteFamilyVersion,
        CellType::DeleteColumn => PbCellType::DeleteColumn,
        CellType::DeleteFamily => PbCellType::DeleteFamily,
        CellType::Minimum => PbCellType::Minimum,
        CellType::Maximum => PbCellType::Maximum,
    };
    let mut cell = PbCell {
        row: Some(c.row().to_vec()),
        family: Some(c.family().to_vec()),
        qualifier: Some(c.qualifier().to_vec()),
        timestamp: Some(c.timestamp() as u64),
        value: Some(c.value().to_vec()),
        ..PbCell::default()
    };
    cell.set_cell_type(t);
    cell
}
