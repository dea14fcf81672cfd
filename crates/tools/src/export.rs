//! `ferrobase export`: a table (or a row range, time range, some families) written as HBase's
//! `Export` (`org.apache.hadoop.hbase.mapreduce.Export`) writes it: one SequenceFile per region,
//! `part-m-00000`, `part-m-00001`, ... (the map tasks' files of a job without reducers), of
//! `ImmutableBytesWritable` row keys and `Result` values, then an empty `_SUCCESS`.

use crate::error::{Error, Result};
use crate::result_codec::{encode_key, encode_result, KEY_CLASS, VALUE_CLASS};
use crate::sequence_file::{Compression, SequenceFileWriter};
use crate::stop::StopFlag;
use ferrobase_client::Connection;
use ferrobase_engine::{Scan, TimeRange};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// What to export (HBase Export's arguments and `-D` properties), with Export's defaults.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Versions per column (Export's `<versions>`; default 1).
    pub versions: u32,
    /// Timestamps exported (Export's `<starttime>` inclusive, `<endtime>` exclusive; default
    /// every timestamp).
    pub time_range: TimeRange,
    /// Delete markers and the cells they mask too (`hbase.mapreduce.include.deleted.rows`;
    /// default false).
    pub raw: bool,
    /// First row (`hbase.mapreduce.scan.row.start`; empty: the table's first).
    pub start_row: Vec<u8>,
    /// Row to stop before (`hbase.mapreduce.scan.row.stop`; empty: the table's end).
    pub stop_row: Vec<u8>,
    /// Families exported (`hbase.mapreduce.scan.column.family`; empty: all).
    pub families: Vec<Vec<u8>>,
    /// The files' compression (`mapreduce.output.fileoutputformat.compress*`; default none).
    pub compression: Compression,
    /// Stops the export between two batches when requested ([`Error::Interrupted`]): the
    /// file being written is removed, the completed ones stay, and no `_SUCCESS` is written.
    pub stop: StopFlag,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            versions: 1,
            time_range: TimeRange::ALL,
            raw: false,
            start_row: Vec::new(),
            stop_row: Vec::new(),
            families: Vec::new(),
            compression: Compression::None,
            stop: StopFlag::new(),
        }
    }
}

/// What an export wrote so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Files completed.
    pub files: Vec<PathBuf>,
    /// Rows (records) written.
    pub rows: u64,
    /// Cells written (delete markers included).
    pub cells: u64,
    /// Bytes of the completed files.
    pub bytes: u64,
}

/// Rows fetched per scanner call.
const BATCH_ROWS: usize = 500;

/// The intersection of [a_start, a_end) and [b_start, b_end) (empty end: unbounded); `None`
/// when empty.
fn intersect(a: (&[u8], &[u8]), b: (&[u8], &[u8])) -> Option<(Vec<u8>, Vec<u8>)> {
    let start = a.0.max(b.0).to_vec();
    let end = match (a.1.is_empty(), b.1.is_empty()) {
        (true, _) => b.1.to_vec(),
        (_, true) => a.1.to_vec(),
        _ => a.1.min(b.1).to_vec(),
    };
    (end.is_empty() || start < end).then_some((start, end))
}

/// Exports `table` of `conn` into `out_dir` (created; it must not exist or be empty, as
/// Hadoop's `FileOutputFormat` requires). `progress` is called after every batch of rows with
/// the totals so far. A file is written under a hidden name and renamed when complete, so a
/// failed export leaves no `part-m-*` file that looks whole, and no `_SUCCESS`.
pub fn export_table(
    conn: &Connection,
    table: &str,
    out_dir: &Path,
    opts: &ExportOptions,
    progress: &mut dyn FnMut(&ExportSummary),
) -> Result<ExportSummary> {
    let client = |context: String| move |source| Error::Client { context, source };
    if out_dir.exists() {
        let mut entries = std::fs::read_dir(out_dir).map_err(Error::io(out_dir))?;
        if entries.next().is_some() {
            return Err(Error::Invalid(format!(
                "output directory {} already exists and is not empty",
                out_dir.display()
            )));
        }
    }
    std::fs::create_dir_all(out_dir).map_err(Error::io(out_dir))?;
    let regions = conn
        .regions(table)
        .map_err(client(format!("listing the regions of {table}")))?;
    let mut summary = ExportSummary::default();
    for (i, region) in regions.iter().enumerate() {
        let name = format!("part-m-{i:05}");
        let path = out_dir.join(&name);
        let tmp = out_dir.join(format!(".{name}.inprogress"));
        let file = std::fs::File::create(&tmp).map_err(Error::io(&tmp))?;
        let mut w = SequenceFileWriter::new(
            BufWriter::with_capacity(1 << 20, file),
            KEY_CLASS,
            VALUE_CLASS,
            opts.compression,
            Vec::new(),
        )
        .map_err(Error::io(&tmp))?;
        let range = intersect(
            (&region.start, &region.end),
            (&opts.start_row, &opts.stop_row),
        );
        if let Some((start, stop)) = range {
            let mut scan = Scan::new()
                .with_start_row(start)
                .time_range(opts.time_range)
                .max_versions(opts.versions)
                .raw(opts.raw);
            if !stop.is_empty() {
                scan = scan.with_stop_row(stop);
            }
            for f in &opts.families {
                scan = scan.add_family(f.clone());
            }
            scan.caching = BATCH_ROWS;
            let mut scanner = conn
                .table(table)
                .scanner(scan, None)
                .map_err(client(format!("scanning {table}")))?;
            loop {
                let rows = scanner.next_batch(BATCH_ROWS).map_err(client(format!(
                    "scanning {table} after {} rows",
                    summary.rows
                )))?;
                if rows.is_empty() {
                    break;
                }
                for r in &rows {
                    if r.cells.is_empty() {
                        continue;
                    }
                    w.append(&encode_key(r.row()), &encode_result(&r.cells))
                        .map_err(Error::io(&tmp))?;
                    summary.rows += 1;
                    summary.cells += r.cells.len() as u64;
                }
                progress(&summary);
                if opts.stop.is_requested() {
                    drop(w);
                    let _ = std::fs::remove_file(&tmp);
                    return Err(Error::Interrupted {
                        done: format!(
                            "exported {} rows, {} cells into {} complete files; {} removed, no \
                             _SUCCESS written",
                            summary.rows,
                            summary.cells,
                            summary.files.len(),
                            tmp.display()
                        ),
                    });
                }
            }
        }
        let out = w.finish().map_err(Error::io(&tmp))?;
        let file = out.into_inner().map_err(|e| Error::Io {
            path: tmp.clone(),
            source: e.into_error(),
        })?;
        file.sync_all().map_err(Error::io(&tmp))?;
        summary.bytes += file.metadata().map_err(Error::io(&tmp))?.len();
        std::fs::rename(&tmp, &path).map_err(Error::io(&path))?;
        summary.files.push(path);
    }
    let success = out_dir.join("_SUCCESS");
    std::fs::File::create(&success).map_err(Error::io(&success))?;
    progress(&summary);
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::intersect;

    #[test]
    fn ranges_intersect() {
        let e: &[u8] = b"";
        assert_eq!(intersect((e, e), (e, e)), Some((vec![], vec![])));
        assert_eq!(
            intersect((b"b", b"d"), (e, e)),
            Some((b"b".to_vec(), b"d".to_vec()))
        );
        assert_eq!(
            intersect((b"b", b"d"), (b"c", e)),
            Some((b"c".to_vec(), b"d".to_vec()))
        );
        assert_eq!(
            intersect((b"b", e), (e, b"c")),
            Some((b"b".to_vec(), b"c".to_vec()))
        );
        assert_eq!(intersect((b"b", b"d"), (b"d", e)), None);
        assert_eq!(intersect((e, b"b"), (b"c", b"e")), None);
    }
}
