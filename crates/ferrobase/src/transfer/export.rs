//! `ferrobase export`: a table into the files HBase's Export writes.

use super::{number, to_bytes_binary, Common};
use crate::progress::{Counts, Progress};
use anyhow::{bail, Context, Result};
use ferrobase_engine::TimeRange;
use ferrobase_tools::sequence_file::{Codec, Compression};
use ferrobase_tools::{ExportOptions, ExportSummary};
use std::path::PathBuf;
use std::time::Instant;

pub(crate) const EXPORT_USAGE: &str = "usage: ferrobase export [--data DIR | --connect thrift://HOST:PORT] TABLE OUTDIR [VERSIONS [STARTTIME [ENDTIME]]]
         [--versions N] [--starttime MS] [--endtime MS] [--raw] [--compress none|record|block]
         [--codec default|gzip|snappy] [-D PROPERTY=VALUE]...
  Writes TABLE as HBase's Export does: OUTDIR/part-m-NNNNN (one Hadoop SequenceFile per region of
  ImmutableBytesWritable row keys and Result values) and OUTDIR/_SUCCESS. VERSIONS defaults to 1,
  the time range to every timestamp ([STARTTIME, ENDTIME) in ms). --raw (HBase:
  -D hbase.mapreduce.include.deleted.rows=true) exports delete markers and the cells they mask.
  -D properties as HBase's Export reads them: hbase.mapreduce.include.deleted.rows,
  hbase.mapreduce.scan.row.start, hbase.mapreduce.scan.row.stop, hbase.mapreduce.scan.column.family,
  mapreduce.output.fileoutputformat.compress, mapreduce.output.fileoutputformat.compress.type
  (RECORD|BLOCK), mapreduce.output.fileoutputformat.compress.codec (a codec class name).
";

/// `ferrobase export`'s command line (HBase Export's argument order and -D properties).
#[derive(clap::Args, Debug, Clone)]
pub struct ExportArgs {
    /// Where the table is: `--data DIR` or `--connect URL` with its TLS and login flags.
    #[command(flatten)]
    pub connect: ferrobase_client::flags::ConnectArgs,
    /// TABLE OUTDIR [VERSIONS [STARTTIME [ENDTIME]]], as HBase's Export takes them.
    #[arg(value_name = "TABLE OUTDIR [VERSIONS [STARTTIME [ENDTIME]]]")]
    pub positional: Vec<String>,
    /// Delete markers and the cells they mask too (HBase: -D hbase.mapreduce.include.deleted.rows=true).
    #[arg(long)]
    pub raw: bool,
    /// Versions per column [default: 1].
    #[arg(long, value_name = "N")]
    pub versions: Option<u32>,
    /// Timestamps from MS (inclusive) [default: 0].
    #[arg(long, value_name = "MS")]
    pub starttime: Option<i64>,
    /// Timestamps up to MS (exclusive) [default: no end].
    #[arg(long, value_name = "MS")]
    pub endtime: Option<i64>,
    /// The SequenceFiles' compression.
    #[arg(long, value_name = "none|record|block", value_parser = compress_kind)]
    pub compress: Option<String>,
    /// The compression codec.
    #[arg(long, value_name = "default|gzip|snappy", value_parser = codec_name)]
    pub codec: Option<Codec>,
    /// A property as HBase's Export reads it (repeatable): see below.
    #[arg(short = 'D', value_name = "PROPERTY=VALUE")]
    pub define: Vec<String>,
}

fn compress_kind(v: &str) -> Result<String, String> {
    match v.to_ascii_lowercase().as_str() {
        t @ ("none" | "record" | "block") => Ok(t.to_string()),
        other => Err(format!(
            "--compress takes none, record or block (got {other:?})"
        )),
    }
}

fn codec_name(v: &str) -> Result<Codec, String> {
    match v.to_ascii_lowercase().as_str() {
        "default" | "zlib" | "deflate" => Ok(Codec::Default),
        "gzip" => Ok(Codec::Gzip),
        "snappy" => Ok(Codec::Snappy),
        other => Err(format!(
            "--codec takes default, gzip or snappy (got {other:?})"
        )),
    }
}

/// `ferrobase export ...`.
pub fn export(args: ExportArgs) -> Result<()> {
    let c = Common {
        url: super::existing_store(&args.connect)?,
        connect_flags: args.connect.flags(),
        positional: args.positional,
    };
    let mut opts = ExportOptions {
        raw: args.raw,
        ..ExportOptions::default()
    };
    let (mut start, mut end) = (args.starttime, args.endtime);
    let mut versions = args.versions;
    let (mut compress, mut ctype) = match args.compress.as_deref() {
        None => (None, None),
        Some("none") => (Some(false), None),
        Some(t) => (Some(true), Some(t.to_string())),
    };
    let mut codec = args.codec;
    for prop in &args.define {
        let (k, v) = prop
            .split_once('=')
            .with_context(|| format!("-D takes PROPERTY=VALUE (got {prop:?})"))?;
        match k {
            "hbase.mapreduce.include.deleted.rows" => opts.raw = number(k, v)?,
            "hbase.mapreduce.scan.row.start" => opts.start_row = to_bytes_binary(v),
            "hbase.mapreduce.scan.row.stop" => opts.stop_row = to_bytes_binary(v),
            "hbase.mapreduce.scan.column.family" => {
                opts.families = v
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .map(|f| f.as_bytes().to_vec())
                    .collect()
            }
            "mapreduce.output.fileoutputformat.compress" => compress = Some(number(k, v)?),
            "mapreduce.output.fileoutputformat.compress.type" => {
                ctype = Some(v.to_ascii_lowercase())
            }
            "mapreduce.output.fileoutputformat.compress.codec" => {
                codec = Some(Codec::from_class_name(v).with_context(|| {
                    format!("{k}: no codec {v} (DefaultCodec, GzipCodec and SnappyCodec of org.apache.hadoop.io.compress are)")
                })?)
            }
            _ => {
                return Err(crate::cli::usage(format!(
                    "-D {k}: not a property ferrobase export reads\n{EXPORT_USAGE}"
                )))
            }
        }
    }
    let [table, out_dir, rest @ ..] = c.positional.as_slice() else {
        return Err(crate::cli::usage(format!(
            "export needs TABLE and OUTDIR\n{EXPORT_USAGE}"
        )));
    };
    match rest {
        [] => {}
        [v, more @ ..] => {
            versions = versions.or(Some(number("VERSIONS", v)?));
            if let [s, more @ ..] = more {
                start = start.or(Some(number("STARTTIME", s)?));
                if let [e, more @ ..] = more {
                    end = end.or(Some(number("ENDTIME", e)?));
                    if !more.is_empty() {
                        bail!("unexpected arguments {more:?} (row filters are not supported; use -D hbase.mapreduce.scan.row.start/stop)\n{EXPORT_USAGE}");
                    }
                }
            }
        }
    }
    opts.versions = versions.unwrap_or(1).max(1);
    opts.time_range = TimeRange::new(start.unwrap_or(0), end.unwrap_or(i64::MAX))
        .context("STARTTIME and ENDTIME")?;
    opts.compression = match (compress.unwrap_or(false), ctype.as_deref()) {
        (false, _) => Compression::None,
        (true, None | Some("record")) => Compression::Record(codec.unwrap_or(Codec::Default)),
        (true, Some("block")) => Compression::Block(codec.unwrap_or(Codec::Default)),
        (true, Some(other)) => bail!("compression type {other:?}: RECORD or BLOCK"),
    };
    let conn = c.connect()?;
    let t0 = Instant::now();
    let mut progress = Progress::start("export", None);
    opts.stop = progress.stop_flag();
    let result = ferrobase_tools::export_table(
        &conn,
        table,
        &PathBuf::from(out_dir),
        &opts,
        &mut |s: &ExportSummary| {
            progress.update(Counts {
                rows: s.rows,
                cells: s.cells,
                bytes: s.bytes,
            })
        },
    );
    progress.finish();
    let s = result?;
    println!(
        "exported {table}: {} rows, {} cells into {} files ({} bytes) in {out_dir} in {:.1} s",
        s.rows,
        s.cells,
        s.files.len(),
        s.bytes,
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
