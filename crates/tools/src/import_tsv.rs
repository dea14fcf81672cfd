//! `ferrobase import tsv`: delimited text loaded into a table as HBase's `ImportTsv`
//! (`org.apache.hadoop.hbase.mapreduce.ImportTsv`, its `TsvParser` and `TsvImporterMapper`) loads
//! it: `importtsv.columns` maps each field to `HBASE_ROW_KEY`, `HBASE_TS_KEY`, `HBASE_CELL_TTL`,
//! `family` or `family:qualifier`; one Put a line, every cell at the line's timestamp; a bad line
//! is counted and skipped (or, with `importtsv.skip.bad.lines=false`, stops the load), reported
//! with its file, line number and byte offset.
//!
//! Lines end at `\n`, `\r\n` or `\r`, as Hadoop's `LineRecordReader` ends them. As ImportTsv,
//! fields are not quoted; with [`TsvOptions::csv`] (a ferrobase extension) a field may be quoted
//! as RFC 4180 says (`"a,b"`, `""` for a quote, line breaks inside quotes).

use crate::error::{Error, Result};
use crate::stop::StopFlag;
use ferrobase_client::{Connection, Table};
use ferrobase_engine::Put;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// `HBASE_ROW_KEY`: the field holding the row key (exactly one).
pub const ROW_KEY: &str = "HBASE_ROW_KEY";
/// `HBASE_TS_KEY`: the field holding the line's timestamp in ms (at most one).
pub const TS_KEY: &str = "HBASE_TS_KEY";
/// `HBASE_CELL_TTL`: the field holding the cells' TTL in ms, 8 bytes big-endian as HBase reads it.
pub const CELL_TTL: &str = "HBASE_CELL_TTL";
/// `HBASE_CELL_VISIBILITY`: visibility labels, which ferrobase does not have (refused).
pub const CELL_VISIBILITY: &str = "HBASE_CELL_VISIBILITY";
/// `HBASE_ATTRIBUTES_KEY`: operation attributes per line, which ferrobase's Put has not (refused).
pub const ATTRIBUTES_KEY: &str = "HBASE_ATTRIBUTES_KEY";

/// What each field of a line is (`importtsv.columns`, parsed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    fields: Vec<Field>,
    row_key: usize,
    timestamp: Option<usize>,
    ttl: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    RowKey,
    Timestamp,
    Ttl,
    Column { family: Vec<u8>, qualifier: Vec<u8> },
}

impl ColumnSpec {
    /// Parses `importtsv.columns` (comma-separated, each trimmed) with ImportTsv's rules:
    /// exactly one `HBASE_ROW_KEY`, at most one `HBASE_TS_KEY`, at least one column besides.
    pub fn parse(spec: &str) -> Result<ColumnSpec> {
        let bad = |m: String| Error::Invalid(format!("importtsv.columns: {m}"));
        let mut fields = Vec::new();
        let (mut row_key, mut timestamp, mut ttl) = (Vec::new(), Vec::new(), Vec::new());
        for (i, s) in spec.split(',').map(str::trim).enumerate() {
            fields.push(match s {
                ROW_KEY => {
                    row_key.push(i);
                    Field::RowKey
                }
                TS_KEY => {
                    timestamp.push(i);
                    Field::Timestamp
                }
                CELL_TTL => {
                    ttl.push(i);
                    Field::Ttl
                }
                CELL_VISIBILITY => {
                    return Err(bad(format!(
                        "{CELL_VISIBILITY}: ferrobase has no visibility labels (HBase's \
                         VisibilityController); load without that field"
                    )))
                }
                ATTRIBUTES_KEY => {
                    return Err(bad(format!(
                        "{ATTRIBUTES_KEY}: ferrobase's Put carries no operation attributes; \
                         load without that field"
                    )))
                }
                _ => {
                    let (f, q) = s.split_once(':').unwrap_or((s, ""));
                    if f.is_empty() {
                        return Err(bad(format!("column {s:?} has no family")));
                    }
                    Field::Column {
                        family: f.as_bytes().to_vec(),
                        qualifier: q.as_bytes().to_vec(),
                    }
                }
            });
        }
        let [row_key] = row_key[..] else {
            return Err(bad(format!("must specify exactly one column as {ROW_KEY}")));
        };
        if timestamp.len() > 1 {
            return Err(bad(format!("must specify at most one column as {TS_KEY}")));
        }
        if ttl.len() > 1 {
            return Err(bad(format!(
                "must specify at most one column as {CELL_TTL}"
            )));
        }
        if !fields.iter().any(|f| matches!(f, Field::Column { .. })) {
            return Err(bad(
                "one or more columns in addition to the row key and timestamp are required".into(),
            ));
        }
        Ok(ColumnSpec {
            fields,
            row_key,
            timestamp: timestamp.first().copied(),
            ttl: ttl.first().copied(),
        })
    }

    /// The families the columns name.
    pub fn families(&self) -> BTreeSet<Vec<u8>> {
        self.fields
            .iter()
            .filter_map(|f| match f {
                Field::Column { family, .. } => Some(family.clone()),
                _ => None,
            })
            .collect()
    }

    /// The Put of one line's fields at `default_ts` (the line's own with `HBASE_TS_KEY`), or why
    /// the line is bad (ImportTsv's messages).
    pub fn put(&self, fields: &[&[u8]], default_ts: i64, skip_empty: bool) -> Result<Put, String> {
        if fields.len() > self.fields.len() {
            return Err("Excessive columns".into());
        }
        if fields.len() <= self.row_key {
            return Err("No row key".into());
        }
        let ts = match self.timestamp {
            None => default_ts,
            Some(i) => {
                let s = fields.get(i).ok_or("No timestamp")?;
                let s = String::from_utf8_lossy(s);
                s.parse::<i64>()
                    .map_err(|_| format!("Invalid timestamp {s}"))?
            }
        };
        let ttl = match self.ttl {
            None => None,
            Some(i) => {
                let b = fields.get(i).ok_or("No cell TTL specified")?;
                let b: [u8; 8] = (*b)
                    .try_into()
                    .map_err(|_| format!("cell TTL is {} bytes, not a long's 8", b.len()))?;
                Some(i64::from_be_bytes(b)).filter(|t| *t > 0)
            }
        };
        let row = fields[self.row_key];
        if row.is_empty() {
            return Err("Row length is 0".into());
        }
        if row.len() > i16::MAX as usize {
            return Err(format!("Row length {} is > {}", row.len(), i16::MAX));
        }
        let mut put = Put::with_timestamp(row.to_vec(), ts);
        for (spec, value) in self.fields.iter().zip(fields) {
            if let Field::Column { family, qualifier } = spec {
                if skip_empty && value.is_empty() {
                    continue;
                }
                put = put.add_column(family.clone(), qualifier.clone(), value.to_vec());
            }
        }
        if let Some(t) = ttl {
            put = put.ttl_ms(t);
        }
        Ok(put)
    }
}

/// ImportTsv's options (`-D` properties), with its defaults.
#[derive(Debug, Clone)]
pub struct TsvOptions {
    /// `importtsv.separator`: one byte (default tab; `,` in CSV mode).
    pub separator: u8,
    /// `importtsv.timestamp`: the cells' timestamp when no `HBASE_TS_KEY` (default: the time the
    /// load starts, the same for every line).
    pub timestamp: Option<i64>,
    /// `importtsv.skip.bad.lines` (default true): count and skip a bad line; false: stop there.
    pub skip_bad_lines: bool,
    /// `importtsv.skip.empty.columns` (default false): write no cell for an empty field.
    pub skip_empty_columns: bool,
    /// `importtsv.dry.run` (default false): parse and count, write nothing.
    pub dry_run: bool,
    /// A ferrobase extension: RFC 4180 quoting (`"..."`, `""`, line breaks inside quotes).
    pub csv: bool,
    /// Stops the load after the batch being written when requested ([`Error::Interrupted`]).
    pub stop: StopFlag,
}

impl Default for TsvOptions {
    fn default() -> Self {
        TsvOptions {
            separator: b'\t',
            timestamp: None,
            skip_bad_lines: true,
            skip_empty_columns: false,
            dry_run: false,
            csv: false,
            stop: StopFlag::new(),
        }
    }
}

/// A line that is not a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// The input file.
    pub path: PathBuf,
    /// Its line number, from 1 (a CSV record's first line).
    pub line: u64,
    /// Its byte offset in the file (HBase reports this).
    pub offset: u64,
    /// Why (ImportTsv's message).
    pub reason: String,
    /// The line's bytes (a CSV record's lines joined by `\n`).
    pub text: Vec<u8>,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} line {} (offset {}): {}",
            self.path.display(),
            self.line,
            self.offset,
            self.reason
        )
    }
}

/// What a load read and wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TsvSummary {
    /// Files read.
    pub files: u64,
    /// Lines read (CSV: records).
    pub lines: u64,
    /// Rows written (one Put a good line).
    pub rows: u64,
    /// Cells written.
    pub cells: u64,
    /// Bad lines (ImportTsv's `Bad Lines` counter).
    pub bad_lines: u64,
    /// Bytes of the input read so far (every file before this one, and this one up to the
    /// current line): with the inputs' total size, the load's progress.
    pub bytes_read: u64,
}

impl std::fmt::Display for TsvSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} files, {} lines, {} rows, {} cells, {} bad lines",
            self.files, self.lines, self.rows, self.cells, self.bad_lines
        )
    }
}

/// Reads lines as Hadoop's `LineRecordReader` cuts them: at `\n`, `\r\n` or `\r`.
struct Lines<R> {
    input: R,
    /// Bytes consumed so far.
    offset: u64,
    /// Lines returned so far.
    number: u64,
    /// The last line ended at `\r`: a `\n` right after it belongs to that ending.
    skip_lf: bool,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Self {
        Lines {
            input,
            offset: 0,
            number: 0,
            skip_lf: false,
        }
    }

    /// The next line (without its ending), its number from 1 and its offset; `None` at the end.
    fn next_line(&mut self) -> std::io::Result<Option<(Vec<u8>, u64, u64)>> {
        if std::mem::take(&mut self.skip_lf) && self.input.fill_buf()?.first() == Some(&b'\n') {
            self.input.consume(1);
            self.offset += 1;
        }
        let start = self.offset;
        let mut line = Vec::new();
        let mut any = false;
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            match buf.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    line.extend_from_slice(&buf[..i]);
                    self.skip_lf = buf[i] == b'\r';
                    self.input.consume(i + 1);
                    self.offset += i as u64 + 1;
                    break;
                }
                None => {
                    let n = buf.len();
                    line.extend_from_slice(buf);
                    self.input.consume(n);
                    self.offset += n as u64;
                }
            }
        }
        self.number += 1;
        Ok(Some((line, self.number, start)))
    }
}

/// Splits a delimited line at every `sep` (ImportTsv: no quoting); a line without one is bad
/// ("No delimiter").
pub fn split_tsv(line: &[u8], sep: u8) -> Result<Vec<&[u8]>, String> {
    if !line.contains(&sep) {
        return Err("No delimiter".into());
    }
    Ok(line.split(|&b| b == sep).collect())
}

/// Splits an RFC 4180 record: fields separated by `sep`, a field in double quotes may hold the
/// separator, line breaks and `""` for a quote. `None` when a quote is still open at the end (the
/// record goes on in the next line); an error for text after a closing quote.
pub fn split_csv(record: &[u8], sep: u8) -> Result<Option<Vec<Vec<u8>>>, String> {
    let mut fields = Vec::new();
    let mut field = Vec::new();
    let mut i = 0;
    let mut at_start = true;
    while i < record.len() {
        let b = record[i];
        if at_start && b == b'"' {
            // A quoted field: up to the closing quote, then the separator or the end.
            i += 1;
            loop {
                match record.get(i) {
                    None => return Ok(None),
                    Some(b'"') if record.get(i + 1) == Some(&b'"') => {
                        field.push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(&c) => {
                        field.push(c);
                        i += 1;
                    }
                }
            }
            match record.get(i) {
                None => {}
                Some(&c) if c == sep => {}
                Some(_) => return Err(format!("text after a closing quote at byte {i}")),
            }
            at_start = false;
            continue;
        }
        if b == sep {
            fields.push(std::mem::take(&mut field));
            at_start = true;
        } else {
            field.push(b);
            at_start = false;
        }
        i += 1;
    }
    fields.push(field);
    Ok(Some(fields))
}

/// The input files of `input`: the file itself, or every regular file of the directory whose
/// name does not start with `_` or `.` (Hadoop's `FileInputFormat`), in name order.
fn input_files(input: &Path) -> Result<Vec<PathBuf>> {
    if input.is_file() {
        return Ok(vec![input.to_path_buf()]);
    }
    let mut files = Vec::new();
    for e in std::fs::read_dir(input).map_err(Error::io(input))? {
        let e = e.map_err(Error::io(input))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with('_')
            && !name.starts_with('.')
            && e.file_type().map_err(Error::io(e.path()))?.is_file()
        {
            files.push(e.path());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(Error::Invalid(format!(
            "{} holds no input files",
            input.display()
        )));
    }
    Ok(files)
}

/// Puts buffered before a write.
const BATCH_ROWS: usize = 1000;

struct Writer<'a> {
    table: &'a Table,
    puts: Vec<Put>,
    cells: u64,
    written: TsvSummary,
    dry_run: bool,
}

impl Writer<'_> {
    fn flush(&mut self) -> ferrobase_client::Result<()> {
        let puts = std::mem::take(&mut self.puts);
        let rows = puts.len() as u64;
        if !puts.is_empty() && !self.dry_run {
            self.table.put_all(puts)?;
        }
        self.written.rows += rows;
        self.written.cells += std::mem::take(&mut self.cells);
        Ok(())
    }
}

/// Loads the delimited text of `input` (a file, or a directory's files) into `table` of `conn`
/// (which must exist with the columns' families) as ImportTsv does. `bad` is called for every
/// bad line; `progress` after every line with what has been written so far. With
/// `skip_bad_lines` false the first bad line stops the load with an error saying what was
/// written before it.
pub fn import_tsv(
    conn: &Connection,
    table: &str,
    input: &Path,
    spec: &ColumnSpec,
    opts: &TsvOptions,
    bad: &mut dyn FnMut(&BadLine),
    progress: &mut dyn FnMut(&TsvSummary),
) -> Result<TsvSummary> {
    let client = |context: String| move |source| Error::Client { context, source };
    let have: BTreeSet<Vec<u8>> = conn
        .describe_table(table)
        .map_err(client(format!("describing {table}")))?
        .into_iter()
        .map(|f| f.name.to_vec())
        .collect();
    let missing: Vec<String> = spec
        .families()
        .difference(&have)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    if !missing.is_empty() {
        return Err(Error::Invalid(format!(
            "column families {missing:?} do not exist in {table}: nothing was imported"
        )));
    }
    let files = input_files(input)?;
    let default_ts = opts.timestamp.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or_default()
    });
    let t = conn.table(table);
    let mut w = Writer {
        table: &t,
        puts: Vec::new(),
        cells: 0,
        written: TsvSummary::default(),
        dry_run: opts.dry_run,
    };
    let mut done_bytes = 0;
    for path in files {
        let f = std::fs::File::open(&path).map_err(Error::io(&path))?;
        let mut lines = Lines::new(BufReader::with_capacity(1 << 20, f));
        while let Some((mut line, number, offset)) = lines.next_line().map_err(Error::io(&path))? {
            w.written.lines += 1;
            let parsed = if opts.csv {
                loop {
                    match split_csv(&line, opts.separator) {
                        Ok(Some(fields)) => break Ok(fields),
                        Ok(None) => match lines.next_line().map_err(Error::io(&path))? {
                            Some((more, _, _)) => {
                                line.push(b'\n');
                                line.extend_from_slice(&more);
                            }
                            None => {
                                break Err(
                                    "a quote is not closed before the end of the file".to_string()
                                )
                            }
                        },
                        Err(e) => break Err(e),
                    }
                }
            } else {
                split_tsv(&line, opts.separator)
                    .map(|f| f.into_iter().map(<[u8]>::to_vec).collect())
            };
            let put = parsed.and_then(|fields| {
                let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
                spec.put(&refs, default_ts, opts.skip_empty_columns)
            });
            match put {
                Ok(p) => {
                    w.cells += p.cells.len() as u64;
                    w.puts.push(p);
                    if w.puts.len() >= BATCH_ROWS {
                        let before = w.written.clone();
                        w.flush().map_err(client(format!(
                            "writing the rows before {} line {number} (written before them: {before})",
                            path.display()
                        )))?;
                        if opts.stop.is_requested() {
                            return Err(Error::Interrupted {
                                done: format!(
                                    "loaded {} up to {} line {number}",
                                    w.written,
                                    path.display()
                                ),
                            });
                        }
                    }
                }
                Err(reason) => {
                    let b = BadLine {
                        path: path.clone(),
                        line: number,
                        offset,
                        reason,
                        text: line.clone(),
                    };
                    bad(&b);
                    w.written.bad_lines += 1;
                    if !opts.skip_bad_lines {
                        let before = w.written.clone();
                        w.flush().map_err(client(format!(
                            "writing the rows before {} line {number} (written before them: {before})",
                            path.display()
                        )))?;
                        return Err(Error::Invalid(format!(
                            "bad line {b} (importtsv.skip.bad.lines=false); written before it: {}",
                            w.written
                        )));
                    }
                }
            }
            w.written.bytes_read = done_bytes + lines.offset;
            progress(&w.written);
        }
        done_bytes += lines.offset;
        w.written.bytes_read = done_bytes;
        let before = w.written.clone();
        w.flush().map_err(client(format!(
            "writing the last rows of {} (written before them: {before})",
            path.display()
        )))?;
        w.written.files += 1;
        progress(&w.written);
    }
    Ok(w.written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(Vec<u8>, u64, u64)> {
        let mut l = Lines::new(input);
        let mut out = Vec::new();
        while let Some(x) = l.next_line().unwrap() {
            out.push(x);
        }
        out
    }

    #[test]
    fn lines_end_as_hadoop_ends_them() {
        let got = lines(b"a\nb\r\nc\rd\n\ne");
        let want: Vec<(Vec<u8>, u64, u64)> = vec![
            (b"a".to_vec(), 1, 0),
            (b"b".to_vec(), 2, 2),
            (b"c".to_vec(), 3, 5),
            (b"d".to_vec(), 4, 7),
            (b"".to_vec(), 5, 9),
            (b"e".to_vec(), 6, 10),
        ];
        assert_eq!(got, want);
        assert_eq!(lines(b"").len(), 0);
        assert_eq!(lines(b"x\n").len(), 1);
        assert_eq!(lines(b"x\r").len(), 1);
        assert_eq!(lines(b"x\r\n").len(), 1);
    }

    #[test]
    fn columns_follow_importtsvs_rules() {
        let s = ColumnSpec::parse("HBASE_ROW_KEY, cf:a ,cf,HBASE_TS_KEY").unwrap();
        assert_eq!(s.families(), BTreeSet::from([b"cf".to_vec()]));
        for bad in [
            "cf:a",
            "HBASE_ROW_KEY,HBASE_ROW_KEY,cf:a",
            "HBASE_ROW_KEY,HBASE_TS_KEY,HBASE_TS_KEY,cf:a",
            "HBASE_ROW_KEY,HBASE_TS_KEY",
            "HBASE_ROW_KEY,:q",
        ] {
            assert!(ColumnSpec::parse(bad).is_err(), "{bad}");
        }
        let e = ColumnSpec::parse("HBASE_ROW_KEY,HBASE_CELL_VISIBILITY,cf:a").unwrap_err();
        assert!(e.to_string().contains("no visibility labels"), "{e}");
        let e = ColumnSpec::parse("HBASE_ROW_KEY,HBASE_ATTRIBUTES_KEY,cf:a").unwrap_err();
        assert!(e.to_string().contains("operation attributes"), "{e}");
    }

    #[test]
    fn bad_lines_have_importtsvs_reasons() {
        let s = ColumnSpec::parse("HBASE_ROW_KEY,cf:a,HBASE_TS_KEY,cf:b").unwrap();
        let put = |line: &[u8]| split_tsv(line, b'\t').and_then(|f| s.put(&f, 7, false));
        assert_eq!(put(b"r").unwrap_err(), "No delimiter");
        assert_eq!(put(b"r\ta\t1\tb\tx").unwrap_err(), "Excessive columns");
        assert_eq!(put(b"r\ta").unwrap_err(), "No timestamp");
        assert_eq!(put(b"r\ta\tnope").unwrap_err(), "Invalid timestamp nope");
        assert_eq!(put(b"\ta\t1").unwrap_err(), "Row length is 0");
        let p = put(b"r\t\t12").unwrap();
        assert_eq!(
            (&p.row[..], p.cells.len(), p.cells[0].timestamp),
            (&b"r"[..], 1, 12)
        );
        assert!(p.cells[0].value.is_empty());
        let p = split_tsv(b"r\t\t12", b'\t')
            .and_then(|f| s.put(&f, 7, true))
            .unwrap();
        assert!(p.cells.is_empty());
        let s = ColumnSpec::parse("cf:a,HBASE_ROW_KEY").unwrap();
        assert_eq!(
            split_tsv(b"a\tr", b'\t')
                .and_then(|f| s.put(&f, 7, false))
                .unwrap()
                .cells[0]
                .timestamp,
            7
        );
    }

    #[test]
    fn csv_quotes() {
        let f = |r: &[u8]| split_csv(r, b',');
        assert_eq!(
            f(b"a,b").unwrap().unwrap(),
            vec![b"a".to_vec(), b"b".to_vec()]
        );
        assert_eq!(
            f(b"\"a,\"\"x\"\"\",,\"\"").unwrap().unwrap(),
            vec![b"a,\"x\"".to_vec(), Vec::new(), Vec::new()]
        );
        assert_eq!(f(b"\"open,").unwrap(), None);
        assert!(f(b"\"a\"b,c").is_err());
        assert_eq!(
            f(b"a\"b,c").unwrap().unwrap(),
            vec![b"a\"b".to_vec(), b"c".to_vec()]
        );
    }
}
