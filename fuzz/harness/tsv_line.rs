//! ImportTsv's parsers never panic: the first line of the input as `importtsv.columns`
//! (`ColumnSpec::parse`), every other line split as ImportTsv splits it (`split_tsv`, tab) and as
//! CSV (`split_csv`, `,`), then made a Put (`ColumnSpec::put`): ImportTsv's reasons or a row.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/tsv_line/`, `fuzz/regressions/tsv_line/`).

use ferrobase_tools::import_tsv::{split_csv, split_tsv, ColumnSpec};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let mut lines = data.split(|&b| b == b'\n');
    let spec = String::from_utf8_lossy(lines.next().unwrap_or_default());
    let Ok(spec) = ColumnSpec::parse(&spec) else {
        return;
    };
    for line in lines {
        if let Ok(fields) = split_tsv(line, b'\t') {
            if let Ok(put) = spec.put(&fields, 1, false) {
                assert!(!put.row.is_empty());
                assert!(put.cells.len() <= fields.len());
            }
        }
        if let Ok(Some(fields)) = split_csv(line, b',') {
            let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
            let _ = std::hint::black_box(spec.put(&refs, 1, true));
        }
    }
}
