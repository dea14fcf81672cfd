//! `ferrobase import tsv`: delimited text loaded as HBase's ImportTsv loads it.

use super::{number, Common};
use crate::progress::{Counts, Progress};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::time::Instant;

pub(crate) const TSV_USAGE: &str = "usage: ferrobase import tsv [--data DIR | --connect thrift://HOST:PORT] -Dimporttsv.columns=HBASE_ROW_KEY,cf:a,...
         [-Dimporttsv.separator=C] [-Dimporttsv.timestamp=MS] [-Dimporttsv.skip.bad.lines=true|false]
         [-Dimporttsv.skip.empty.columns=true] [-Dimporttsv.dry.run=true] [-Dimporttsv.log.bad.lines=true]
         [--csv] TABLE INPUT
  Loads the lines of INPUT (a file, or every file of a directory) into TABLE as HBase's ImportTsv
  does: importtsv.columns names each field HBASE_ROW_KEY (exactly one), HBASE_TS_KEY (the line's
  timestamp), HBASE_CELL_TTL (8 bytes), family or family:qualifier; one row a line, its cells at the
  line's timestamp (importtsv.timestamp, default now). A bad line (no delimiter, excessive columns, no
  row key, an invalid timestamp, an empty row key) is reported with its file, line number and offset,
  counted and skipped; with importtsv.skip.bad.lines=false the first stops the load. Fields are not
  quoted (the separator defaults to tab); --csv (a ferrobase extension) reads RFC 4180 quotes and
  makes ',' the default separator. TABLE must exist with the columns' families.
";

/// `ferrobase import tsv`'s command line (ImportTsv's -D properties).
#[derive(clap::Args, Debug, Clone)]
pub struct TsvArgs {
    /// Where the table is: `--data DIR` or `--connect URL` with its TLS and login flags.
    #[command(flatten)]
    pub connect: ferrobase_client::flags::ConnectArgs,
    /// The table (it must exist with the columns' families).
    #[arg(value_name = "TABLE")]
    pub table: Option<String>,
    /// A file of lines, or a directory of them.
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// RFC 4180 quotes, ',' the default separator (a ferrobase extension).
    #[arg(long)]
    pub csv: bool,
    /// An ImportTsv property (repeatable): importtsv.columns (required), see below.
    #[arg(short = 'D', value_name = "PROPERTY=VALUE")]
    pub define: Vec<String>,
}

/// `ferrobase import tsv ...`.
pub(crate) fn import_tsv(args: TsvArgs) -> Result<()> {
    use ferrobase_tools::import_tsv::{ColumnSpec, TsvOptions, TsvSummary};
    let c = Common {
        url: super::existing_store(&args.connect)?,
        connect_flags: args.connect.flags(),
        positional: Vec::new(),
    };
    let mut opts = TsvOptions {
        csv: args.csv,
        ..TsvOptions::default()
    };
    let (mut columns, mut separator) = (None::<String>, None::<u8>);
    let mut log_bad_lines = false;
    for prop in &args.define {
        let (k, v) = prop
            .split_once('=')
            .with_context(|| format!("-D takes PROPERTY=VALUE (got {prop:?})"))?;
        match k {
            "importtsv.columns" => columns = Some(v.to_string()),
            "importtsv.separator" => match v.as_bytes() {
                [b] => separator = Some(*b),
                _ => bail!("importtsv.separator: TsvParser only supports single-byte separators (got {v:?})"),
            },
            "importtsv.timestamp" => opts.timestamp = Some(number(k, v)?),
            "importtsv.skip.bad.lines" => opts.skip_bad_lines = number(k, v)?,
            "importtsv.skip.empty.columns" => opts.skip_empty_columns = number(k, v)?,
            "importtsv.dry.run" => opts.dry_run = number(k, v)?,
            "importtsv.log.bad.lines" => log_bad_lines = number(k, v)?,
            "importtsv.bulk.output" => bail!(
                "importtsv.bulk.output: HBase writes HFiles for a bulk load there; ferrobase \
                 writes into the table directly (leave the property out)"
            ),
            "importtsv.mapper.class" => bail!(
                "importtsv.mapper.class: a Java mapper cannot run in ferrobase; the built-in \
                 TsvImporterMapper's behaviour is the only one"
            ),
            _ => {
                return Err(crate::cli::usage(format!(
                    "-D {k}: not a property ferrobase import tsv reads\n{TSV_USAGE}"
                )))
            }
        }
    }
    let columns = columns.ok_or_else(|| {
        crate::cli::usage(format!(
            "no columns specified: give -Dimporttsv.columns=HBASE_ROW_KEY,...\n{TSV_USAGE}"
        ))
    })?;
    let spec = ColumnSpec::parse(&columns)?;
    opts.separator = separator.unwrap_or(if opts.csv { b',' } else { b'\t' });
    let (Some(table), Some(input)) = (&args.table, &args.input) else {
        return Err(crate::cli::usage(format!(
            "import tsv needs TABLE and INPUT\n{TSV_USAGE}"
        )));
    };
    let conn = c.connect()?;
    let t0 = Instant::now();
    let input = PathBuf::from(input);
    let total = super::input_bytes(&input);
    let mut progress = Progress::start("import tsv", total);
    opts.stop = progress.stop_flag();
    let result = ferrobase_tools::import_tsv::import_tsv(
        &conn,
        table,
        &input,
        &spec,
        &opts,
        &mut |b| {
            eprintln!("bad line: {b}");
            if log_bad_lines {
                eprintln!("{}", String::from_utf8_lossy(&b.text));
            }
        },
        &mut |s: &TsvSummary| {
            progress.update(Counts {
                rows: s.rows,
                cells: s.cells,
                bytes: s.bytes_read,
            })
        },
    );
    progress.finish();
    let s = result?;
    println!(
        "imported into {table}{}: {s} in {:.1} s",
        if opts.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        },
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
