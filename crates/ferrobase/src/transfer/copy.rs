//! `ferrobase copy`: a table from one store to another, with HBase CopyTable's options.

use super::{number, to_bytes_binary};
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

/// `ferrobase copy ...`.
pub fn copy(args: &[String]) -> Result<()> {
    let mut opts = CopyOptions::default();
    let mut flags = ConnectFlags::default();
    let mut positional: Vec<String> = Vec::new();
    let mut peer: Option<String> = None;
    let (mut start, mut end) = (None::<i64>, None::<i64>);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        // `--name=value` (CopyTable's form) or `--name value`.
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || -> Result<String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it.next().cloned().ok_or_else(|| {
                    crate::cli::usage(format!("{name} needs a value\n{COPY_USAGE}"))
                }),
            }
        };
        match name {
            "-h" | "--help" => {
                print!("{COPY_USAGE}");
                return Ok(());
            }
            "--to-table" | "--new.name" => opts.to_table = Some(value()?),
            "--start-row" | "--startrow" => opts.start_row = to_bytes_binary(&value()?),
            "--stop-row" | "--stoprow" => opts.stop_row = to_bytes_binary(&value()?),
            "--starttime" => start = Some(number(name, &value()?)?),
            "--endtime" => end = Some(number(name, &value()?)?),
            "--versions" => {
                let v = value()?;
                opts.versions = if v.eq_ignore_ascii_case("all") {
                    ALL_VERSIONS
                } else {
                    match number::<u32>(name, &v)? {
                        0 => bail!("--versions takes a positive number or all (got 0)"),
                        n => n.min(ALL_VERSIONS),
                    }
                };
            }
            "--families" => {
                opts.families = value()?
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
            "--all.cells" | "--raw" => opts.raw = true,
            "--create" => opts.create = true,
            "--batch" | "--cacheRow" => {
                opts.batch_rows = match number::<usize>(name, &value()?)? {
                    0 => bail!("{name} takes a positive number of rows (got 0)"),
                    n => n,
                }
            }
            "--peer.adr" | "--peer.uri" => {
                let v = value()?;
                if !v.starts_with("thrift://") && !v.starts_with("file:") {
                    bail!(
                        "{name}={v}: ferrobase reaches HBase through its Thrift1 gateway, not \
                         ZooKeeper; give the gateway's URL, thrift://HOST:PORT (`hbase thrift \
                         start` serves it on port 9090)"
                    );
                }
                peer = Some(v);
            }
            "--bulkload" | "--snapshot" | "--shuffle" | "--rs.class" | "--rs.impl" => bail!(
                "{name}: a CopyTable option ferrobase copy does not have (it writes through the \
                 destination's client API, one process, no MapReduce job)"
            ),
            flag if flag.starts_with("--") => {
                let v = value()?;
                if !flags.take(&flag[2..], &v) {
                    return Err(crate::cli::usage(format!(
                        "unknown option {flag}\n{COPY_USAGE}"
                    )));
                }
            }
            _ => positional.push(a.clone()),
        }
    }
    let (source, table, dest) = match (positional.as_slice(), peer) {
        ([s, t, d], None) => (s.clone(), t.clone(), d.clone()),
        ([s, t], Some(d)) => (s.clone(), t.clone(), d),
        ([_, _, _], Some(_)) => bail!("DEST given twice (positionally and as --peer.adr)"),
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
