//! `ferrobase import`: the files of HBase's Export applied as HBase's Import applies them.

use super::Common;
use crate::progress::{Counts, Progress};
use anyhow::Result;
use std::path::PathBuf;
use std::time::Instant;

pub(crate) const IMPORT_USAGE: &str =
    "usage: ferrobase import [--data DIR | --connect thrift://HOST:PORT] TABLE INDIR
  Applies the files of HBase's Export (INDIR/part-m-*, or one file) to TABLE as HBase's Import does:
  every version at its timestamp, delete markers as delete markers. TABLE must exist with the
  files' families. Every file is checked before anything is written.
  (ferrobase import tsv ...: delimited text, as HBase's ImportTsv; ferrobase import tsv --help.)
";

/// `ferrobase import`'s options (without `tsv`).
#[derive(clap::Args, Debug, Clone)]
pub struct ImportArgs {
    /// Where the table is: `--data DIR` or `--connect URL` with its TLS and login flags.
    #[command(flatten)]
    pub connect: ferrobase_client::flags::ConnectArgs,
    /// The table (it must exist with the files' families).
    #[arg(value_name = "TABLE")]
    pub table: Option<String>,
    /// The files of HBase's Export: a directory of part-m-* files, or one file.
    #[arg(value_name = "INDIR")]
    pub in_dir: Option<PathBuf>,
}

/// `ferrobase import TABLE INDIR`.
pub fn import(args: ImportArgs) -> Result<()> {
    let (Some(table), Some(in_dir)) = (&args.table, &args.in_dir) else {
        return Err(crate::cli::usage(format!(
            "import needs TABLE and INDIR\n{IMPORT_USAGE}"
        )));
    };
    let c = Common {
        url: super::existing_store(&args.connect)?,
        connect_flags: args.connect.flags(),
        positional: Vec::new(),
    };
    let conn = c.connect()?;
    let t0 = Instant::now();
    let dir = in_dir.clone();
    let total = super::input_bytes(&dir);
    let mut progress = Progress::start("import", total);
    let stop = progress.stop_flag();
    let result = ferrobase_tools::import_dir_until(&conn, table, &dir, &stop, &mut |s| {
        progress.update(Counts {
            rows: s.rows,
            cells: s.cells,
            bytes: s.bytes_read,
        })
    });
    progress.finish();
    let s = result?;
    println!(
        "imported into {table}: {s} in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
