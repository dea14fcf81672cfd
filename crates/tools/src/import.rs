//! `ferrobase import`: the files of HBase's `Export` (or of `ferrobase export`) applied to a
//! table as HBase's `Import` (`org.apache.hadoop.hbase.mapreduce.Import.Importer`) applies them:
//! per row, every `DeleteFamily` marker its own Delete, the other markers one Delete, the cells
//! one Put, each at the cell's own timestamp.
//!
//! Every file is read and checked first (headers, sync markers, records, the table's
//! families), so a corrupt or foreign file fails the import before anything is written. A
//! write the database refuses afterwards stops the import, and the error says what had been
//! applied.

use crate::error::{Error, Result};
use crate::result_codec::{decode_key, decode_result, KEY_CLASS, VALUE_CLASS};
use crate::sequence_file::{Record, SequenceFileReader};
use crate::stop::StopFlag;
use ferrobase_client::{Connection, Table};

use ferrobase_engine::{Cell, CellType, Delete, MutationCell, Put};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What an import read or applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Files read.
    pub files: u64,
    /// Rows (records) read.
    pub rows: u64,
    /// Cells read (delete markers included).
    pub cells: u64,
    /// Of them, delete markers.
    pub delete_markers: u64,
    /// Bytes of the input files read so far (those finished, and the current one up to the
    /// record being applied); not in the summary's text.
    pub bytes_read: u64,
}

impl std::fmt::Display for ImportSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} files, {} rows, {} cells ({} delete markers)",
            self.files, self.rows, self.cells, self.delete_markers
        )
    }
}

/// The files of an Export directory, in name order: every regular file except those Hadoop's
/// `FileInputFormat` hides (names starting with `_` or `.`: `_SUCCESS`, `.crc` checksums, files
/// in progress). `dir` may also be one file.
pub fn input_files(dir: &Path) -> Result<Vec<PathBuf>> {
    if dir.is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).map_err(Error::io(dir))? {
        let e = e.map_err(Error::io(dir))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('_') || name.starts_with('.') {
            continue;
        }
        if e.file_type().map_err(Error::io(e.path()))?.is_file() {
            files.push(e.path());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::Invalid(format!(
            "{} holds no export files (part-m-*)",
            dir.display()
        )));
    }
    Ok(files)
}

/// What [`read_export_file`] calls for each record: the record, its row and its cells.
pub type EachRecord<'a> = dyn FnMut(&Record, &[u8], Vec<Cell>) -> Result<()> + 'a;

/// Reads every record of `path`, checking that the file is an HBase Export file, calling
/// `each` with the record's row and cells.
pub fn read_export_file(path: &Path, each: &mut EachRecord<'_>) -> Result<()> {
    let mut r = SequenceFileReader::open(path)?;
    let h = r.header();
    if h.key_class != KEY_CLASS || h.value_class != VALUE_CLASS {
        return Err(Error::NotAnExport {
            path: path.to_path_buf(),
            key: h.key_class.clone(),
            value: h.value_class.clone(),
        });
    }
    while let Some(rec) = r.next_record()? {
        let corrupt = |what: String| Error::Corrupt {
            path: path.to_path_buf(),
            offset: rec.offset,
            what,
        };
        let row = decode_key(&rec.key).map_err(corrupt)?;
        let cells = decode_result(row, &rec.value).map_err(corrupt)?;
        each(&rec, row, cells)?;
    }
    Ok(())
}

/// Checks every file of `dir` without writing anything: what [`import_dir`] would apply, and
/// the families the cells name.
pub fn verify_dir(dir: &Path) -> Result<(ImportSummary, BTreeSet<Vec<u8>>)> {
    let mut s = ImportSummary::default();
    let mut families = BTreeSet::new();
    for path in input_files(dir)? {
        read_export_file(&path, &mut |_, _, cells| {
            s.rows += 1;
            for c in &cells {
                s.cells += 1;
                s.delete_markers += u64::from(c.cell_type().is_delete());
                if !families.contains(c.family()) {
                    families.insert(c.family().to_vec());
                }
            }
            Ok(())
        })?;
        s.files += 1;
    }
    Ok((s, families))
}

/// Puts buffered before a write: at most this many rows...
const BATCH_ROWS: usize = 1000;
/// ...or about this many bytes.
const BATCH_BYTES: usize = 4 << 20;

/// Writes mutations in order, puts in batches.
struct Applier<'a> {
    table: &'a Table,
    puts: Vec<Put>,
    bytes: usize,
    /// What has been written.
    applied: ImportSummary,
    /// What the buffered puts hold, and the rows handed over since the last write (a row
    /// counts as applied once everything before it and its puts are written).
    buffered: ImportSummary,
}

impl Applier<'_> {
    fn flush(&mut self) -> ferrobase_client::Result<()> {
        if !self.puts.is_empty() {
            self.table.put_all(std::mem::take(&mut self.puts))?;
            self.bytes = 0;
        }
        self.applied.cells += self.buffered.cells;
        self.applied.rows += self.buffered.rows;
        self.buffered = ImportSummary::default();
        Ok(())
    }

    fn put(&mut self, p: Put) -> ferrobase_client::Result<()> {
        self.buffered.cells += p.cells.len() as u64;
        self.bytes += p.row.len()
            + p.cells
                .iter()
                .map(|c| c.value.len() + c.qualifier.len() + 24)
                .sum::<usize>();
        self.puts.push(p);
        if self.puts.len() >= BATCH_ROWS || self.bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn delete(&mut self, d: Delete) -> ferrobase_client::Result<()> {
        self.flush()?;
        let n = d.cells.len() as u64;
        self.table.delete(d)?;
        self.applied.cells += n;
        self.applied.delete_markers += n;
        Ok(())
    }
}

fn mutation_cell(c: &Cell) -> MutationCell {
    MutationCell {
        family: c.family().to_vec().into(),
        qualifier: c.qualifier().to_vec().into(),
        timestamp: c.timestamp(),
        cell_type: c.cell_type(),
        value: c.value().to_vec().into(),
    }
}

/// Applies the Export files of `dir` to `table` of `conn` (which must exist with every family
/// the files name), after checking every file. `progress` is called after every record with what
/// has been written so far (rows, cells and markers; `files` counts the files finished). Returns what was applied.
pub fn import_dir(
    conn: &Connection,
    table: &str,
    dir: &Path,
    progress: &mut dyn FnMut(&ImportSummary),
) -> Result<ImportSummary> {
    import_dir_until(conn, table, dir, &StopFlag::new(), progress)
}

/// [`import_dir`] that stops at a record boundary, after writing what it holds, when `stop` is
/// requested ([`Error::Interrupted`], saying what had been applied).
pub fn import_dir_until(
    conn: &Connection,
    table: &str,
    dir: &Path,
    stop: &StopFlag,
    progress: &mut dyn FnMut(&ImportSummary),
) -> Result<ImportSummary> {
    let client = |context: String| move |source| Error::Client { context, source };
    let (_, families) = verify_dir(dir)?;
    let have: BTreeSet<Vec<u8>> = conn
        .describe_table(table)
        .map_err(client(format!("describing {table}")))?
        .into_iter()
        .map(|f| f.name.to_vec())
        .collect();
    let missing: Vec<String> = families
        .difference(&have)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    if !missing.is_empty() {
        return Err(Error::Invalid(format!(
            "table {table} has no famil{} {}: nothing was imported",
            if missing.len() == 1 { "y" } else { "ies" },
            missing.join(", ")
        )));
    }
    let t = conn.table(table);
    let mut a = Applier {
        table: &t,
        puts: Vec::new(),
        bytes: 0,
        applied: ImportSummary::default(),
        buffered: ImportSummary::default(),
    };
    let mut done_bytes = 0;
    for path in input_files(dir)? {
        let size = std::fs::metadata(&path).map_err(Error::io(&path))?.len();
        let result = read_export_file(&path, &mut |rec, row, cells| {
            let fail = |source, a: &Applier<'_>| Error::Client {
                context: format!(
                    "applying the record at offset {} of {} (applied before it: {})",
                    rec.offset,
                    path.display(),
                    a.applied
                ),
                source,
            };
            let mut put: Option<Put> = None;
            let mut delete: Option<Delete> = None;
            for c in &cells {
                if c.cell_type() == CellType::DeleteFamily {
                    let mut d = Delete::new(row.to_vec());
                    d.cells.push(mutation_cell(c));
                    a.delete(d).map_err(|e| fail(e, &a))?;
                } else if c.cell_type().is_delete() {
                    delete
                        .get_or_insert_with(|| Delete::new(row.to_vec()))
                        .cells
                        .push(mutation_cell(c));
                } else {
                    put.get_or_insert_with(|| Put::new(row.to_vec()))
                        .cells
                        .push(mutation_cell(c));
                }
            }
            if let Some(p) = put {
                a.put(p).map_err(|e| fail(e, &a))?;
            }
            if let Some(d) = delete {
                a.delete(d).map_err(|e| fail(e, &a))?;
            }
            a.buffered.rows += 1;
            a.applied.bytes_read = done_bytes + rec.offset;
            progress(&a.applied);
            if stop.is_requested() {
                a.flush().map_err(|e| fail(e, &a))?;
                return Err(Error::Interrupted {
                    done: format!(
                        "applied {} (up to offset {} of {})",
                        a.applied,
                        rec.offset,
                        path.display()
                    ),
                });
            }
            Ok(())
        });
        result?;
        a.flush().map_err(client(format!(
            "applying the last rows of {} (applied before them: {})",
            path.display(),
            a.applied
        )))?;
        a.applied.files += 1;
        done_bytes += size;
        a.applied.bytes_read = done_bytes;
        progress(&a.applied);
    }
    Ok(a.applied)
}
