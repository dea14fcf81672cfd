//! `ferrobase copy`: a table from one store to another, with HBase CopyTable's options.

use super::to_bytes_binary;
use crate::progress::{Counts, Progress};
use anyhow::{bail, Context, Result};
use ferrobase_client::flags::ConnectFlags;
use ferrobase_client::Connection;
use ferrobase_engine::TimeRange;
use ferrobase_tools::copy::ALL_VERSIONS;
use ferrobase_tools::{CopyOptions, CopySummary};
use std::time::Instant;

pub(crate) const COPY_USAGE: &str =
    "usage: ferrobase copy SOURCE TABLE DEST [--to-table NAME] [--start-row R] [--stop-row R]
         [--starttime MS] [--endtime MS] [--versions N|all] [--families f1,f2:g2,...] [--all.cells]
         [--create] [--batch N] [--tls-ca PEM [--tls-cert PEM --tls-key PEM]] [--login USER]
  Copies TABLE of SOURCE into DEST, every cell at its own timestamp, as HBase's CopyTable does.
  SOURCE and DEST are each a connection string: a data directory (file:DIR, or the path of an
  existing one), a ferrobase server or an Apache HBase Thrift1 gateway (thrift://HOST:PORT).
    --to-table NAME    the destination table (CopyTable: --new.name=NAME; default TABLE)
    --start-row R      first row; --stop-row R: the row to stop before (\\xNN escapes as
                       Bytes.toBytesBinary; CopyTable: --startrow=, --stoprow=)
    --starttime MS     timestamps from MS (inclusive); --endtime MS: up to MS (exclusive)
    --versions N|all   versions per column (default all the source keeps; CopyTable: newest only)
    --families LIST    the families copied, each NAME or SOURCE:DEST to rename (default all)
    --all.cells        delete markers and the cells they mask too (a raw scan; also --raw)
    --create           create DEST's table with the source's families, attributes and region
                       boundaries when it is missing (default: a missing table is an error)
    --batch N          rows per read and per write (default 500; CopyTable: --cacheRow=N)
    --peer.adr=DEST    CopyTable's spelling of DEST (a connection string, not a ZooKeeper quorum)
  TLS and --login (password from FERROBASE_PASSWORD) apply to each thrift:// side. Refuses to copy
  a table onto itself. Apache's Thrift1 gateway has no raw or multi-version scan and writes no
  version Delete or DeleteFamilyVersion markers: the copy says what it cannot carry. Progress goes
  to stderr (a bar on a terminal); the exact counts to stdout at the end. Ctrl-C stops after the
  batch being written and reports what was copied.
";

/// A connection string with a bare path canonicalised, to tell whether SOURCE and DEST are one
/// data directory (opened once: an engine's directory is locked by its opener).
fn store_key(url: &str) -> String {
    if url.starts_with("thrift://") {
        return url.to_ascii_lowercase();
    }
    let path = url.strip_prefix("file:").unwrap_or(url);
    std::path::Path::new(path)
        .canonicalize()
        .map(|p| format!("file:{}", p.display()))
        .unwrap_or_else(|_| format!("file:{path}"))
}

/// `ferrobase copy`'s command line: ferrobase's option names, CopyTable's as aliases
/// (`--new.name=`, `--startrow=`, `--stoprow=`, `--cacheRow=`, `--peer.adr=`).
#[derive(clap::Args, Debug, Clone)]
pub struct CopyArgs {
    /// SOURCE TABLE DEST: connection strings (file:DIR, a data directory's path, thrift://HOST:PORT)
    /// and the table (DEST may be given as --peer.adr instead).
    #[arg(value_name = "SOURCE TABLE DEST")]
    positional: Vec<String>,
    /// The destination table [default: TABLE].
    #[arg(long, value_name = "NAME", alias = "new.name")]
    to_table: Option<String>,
    /// The first row (\xNN escapes as Bytes.toBytesBinary).
    #[arg(long, value_name = "R", alias = "startrow")]
    start_row: Option<String>,
    /// The row to stop before.
    #[arg(long, value_name = "R", alias = "stoprow")]
    stop_row: Option<String>,
    /// Timestamps from MS (inclusive) [default: 0].
    #[arg(long, value_name = "MS")]
    starttime: Option<i64>,
    /// Timestamps up to MS (exclusive) [default: no end].
    #[arg(long, value_name = "MS")]
    endtime: Option<i64>,
    /// Versions per column: a positive number or all [default: all the source keeps].
    #[arg(long, value_name = "N|all", value_parser = versions)]
    versions: Option<u32>,
    /// The families copied, each NAME or SOURCE:DEST to rename [default: all].
    #[arg(long, value_name = "f1,f2:g2,...")]
    families: Option<String>,
    /// Delete markers and the cells they mask too (a raw scan).
    #[arg(long = "all.cells", alias = "raw")]
    all_cells: bool,
    /// Create DEST's table with the source's families, attributes and region boundaries when it
    /// is missing.
    #[arg(long)]
    create: bool,
    /// Rows per read and per write.
    #[arg(long, value_name = "N", alias = "cacheRow", default_value_t = CopyOptions::default().batch_rows,
          value_parser = positive_rows)]
    batch: usize,
    /// CopyTable's spelling of DEST (a connection string, not a ZooKeeper quorum).
    #[arg(long = "peer.adr", alias = "peer.uri", value_name = "DEST")]
    peer: Option<String>,
    /// CopyTable options ferrobase copy does not have (refused with the reason).
    #[arg(long, hide = true, num_args = 0..=1, value_name = "X",
          aliases = ["snapshot", "shuffle", "rs.class", "rs.impl"])]
    bulkload: Option<Option<String>>,
    /// The TLS and login flags of each thrift:// side.
    #[command(flatten)]
    tls: TlsArgs,
}

/// `--tls-ca`, `--tls-cert`, `--tls-key`, `--login` (copy has two stores, so no `--data`).
#[derive(clap::Args, Debug, Clone)]
struct TlsArgs {
    /// The CA of the servers' certificates (PEM).
    #[arg(long, value_name = "PEM")]
    tls_ca: Option<String>,
    /// A client certificate (PEM) for mutual TLS.
    #[arg(long, value_name = "PEM")]
    tls_cert: Option<String>,
    /// The key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM")]
    tls_key: Option<String>,
    /// A user for password logins; the password comes from FERROBASE_PASSWORD.
    #[arg(long, value_name = "NAME")]
    login: Option<String>,
}

fn versions(v: &str) -> Result<u32, String> {
    if v.eq_ignore_ascii_case("all") {
        return Ok(ALL_VERSIONS);
    }
    match v.parse::<u32>() {
        Ok(0) => Err("--versions takes a positive number or all (got 0)".to_string()),
        Ok(n) => Ok(n.min(ALL_VERSIONS)),
        Err(e) => Err(format!("--versions takes a positive number or all: {e}")),
    }
}

fn positive_rows(v: &str) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(0) => Err("--batch takes a positive number of rows (got 0)".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("--batch takes a positive number of rows: {e}")),
    }
}

/// `ferrobase copy ...`.
pub fn copy(args: CopyArgs) -> Result<()> {
    if args.bulkload.is_some() {
        return Err(crate::cli::usage(
            "--bulkload, --snapshot, --shuffle, --rs.class, --rs.impl: CopyTable options ferrobase \
             copy does not have (it writes through the destination's client API, one process, no \
             MapReduce job)",
        ));
    }
    let mut opts = CopyOptions {
        to_table: args.to_table,
        raw: args.all_cells,
        create: args.create,
        batch_rows: args.batch,
        ..CopyOptions::default()
    };
    if let Some(r) = &args.start_row {
        opts.start_row = to_bytes_binary(r);
    }
    if let Some(r) = &args.stop_row {
        opts.stop_row = to_bytes_binary(r);
    }
    if let Some(v) = args.versions {
        opts.versions = v;
    }
    if let Some(list) = &args.families {
        opts.families = list
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(|f| match f.split_once(':') {
                Some((from, to)) => (from.as_bytes().to_vec(), to.as_bytes().to_vec()),
                None => (f.as_bytes().to_vec(), f.as_bytes().to_vec()),
            })
            .collect();
        if opts.families.is_empty() {
            bail!("--families names no family");
        }
    }
    let (start, end) = (args.starttime, args.endtime);
    let peer = match args.peer {
        Some(v) if !v.starts_with("thrift://") && !v.starts_with("file:") => {
            return Err(crate::cli::usage(format!(
                "--peer.adr={v}: ferrobase reaches HBase through its Thrift1 gateway, not \
                 ZooKeeper; give the gateway's URL, thrift://HOST:PORT (`hbase thrift start` \
                 serves it on port 9090)"
            )))
        }
        other => other,
    };
    let mut flags = ConnectFlags::default();
    for (name, value) in [
        ("tls-ca", &args.tls.tls_ca),
        ("tls-cert", &args.tls.tls_cert),
        ("tls-key", &args.tls.tls_key),
        ("login", &args.tls.login),
    ] {
        if let Some(v) = value {
            flags.take(name, v);
        }
    }
    let positional = args.positional;
    let (source, table, dest) = match (positional.as_slice(), peer) {
        ([s, t, d], None) => (s.clone(), t.clone(), d.clone()),
        ([s, t], Some(d)) => (s.clone(), t.clone(), d),
        ([_, _, _], Some(_)) => {
            return Err(crate::cli::usage(
                "DEST given twice (positionally and as --peer.adr)",
            ))
        }
        _ => {
            return Err(crate::cli::usage(format!(
                "copy needs SOURCE, TABLE and DEST\n{COPY_USAGE}"
            )))
        }
    };
    opts.time_range = TimeRange::new(start.unwrap_or(0), end.unwrap_or(i64::MAX))
        .context("--starttime and --endtime")?;
    let connect_opts = flags.options()?;
    let src = Connection::open_with(&source, &connect_opts)
        .with_context(|| format!("source {source}"))?;
    let dst = if store_key(&source) == store_key(&dest) {
        src.clone()
    } else {
        Connection::open_with(&dest, &connect_opts)
            .with_context(|| format!("destination {dest}"))?
    };
    let mut progress = Progress::start("copy", None);
    opts.stop = progress.stop_flag();
    let plan = ferrobase_tools::prepare_copy(&src, &table, &dst, &opts)?;
    if plan.created {
        eprintln!(
            "copy: created table {} in {} with the source's families",
            plan.to_table(),
            plan.destination()
        );
    }
    for n in &plan.notes {
        eprintln!("copy: note: {n}");
    }
    let t0 = Instant::now();
    let result = plan.run(&mut |s: &CopySummary| {
        progress.update(Counts {
            rows: s.rows,
            cells: s.cells,
            bytes: s.bytes,
        })
    });
    progress.finish();
    let s = result?;
    println!(
        "copied {table} of {} to {} of {}: {s} in {:.1} s",
        plan.source(),
        plan.to_table(),
        plan.destination(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
