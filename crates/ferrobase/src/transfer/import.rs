//! `ferrobase import`: the files of HBase's Export applied as HBase's Import applies them.

use super::Common;
use crate::progress::{Counts, Progress};
use anyhow::Result;
use ferrobase_client::flags::ConnectFlags;
use std::path::PathBuf;
use std::time::Instant;

pub(crate) const IMPORT_USAGE: &str =
    "usage: ferrobase import [--data DIR | --connect thrift://HOST:PORT] TABLE INDIR
  Applies the files of HBase's Export (INDIR/part-m-*, or one file) to TABLE as HBase's Import does:
  every version at its timestamp, delete markers as delete markers. TABLE must exist with the
  files' families. Every file is checked before anything is written.
  (ferrobase import tsv ...: delimited text, as HBase's ImportTsv; ferrobase import tsv --help.)
";

/// `ferrobase import ...`.
pub fn import(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("tsv") {
        return super::import_tsv::import_tsv(&args[1..]);
    }
    let mut c = Common {
        // FERROBASE_CONNECT, else FERROBASE_DATA, else ./ferrobase-data; --data/--connect win.
        url: ferrobase_client::flags::ConnectArgs::default().url()?,
        connect_flags: ConnectFlags::default(),
        positional: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| crate::cli::usage(format!("{name} needs a value\n{IMPORT_USAGE}")))
        };
        match a.as_str() {
            "-h" | "--help" => {
                print!("{IMPORT_USAGE}");
                return Ok(());
            }
            "--data" => c.url = value(a)?,
            "--connect" => c.url = ferrobase_client::flags::server_url(&value(a)?)?,
            flag if flag.starts_with('-') => {
                let v = value(flag)?;
                if !c.connect_flags.take(flag.trim_start_matches('-'), &v) {
                    return Err(crate::cli::usage(format!(
                        "unknown option {flag}\n{IMPORT_USAGE}"
                    )));
                }
            }
            _ => c.positional.push(a.clone()),
        }
    }
    let [table, in_dir] = c.positional.as_slice() else {
        return Err(crate::cli::usage(format!(
            "import needs TABLE and INDIR\n{IMPORT_USAGE}"
        )));
    };
    let conn = c.connect()?;
    let t0 = Instant::now();
    let dir = PathBuf::from(in_dir);
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
