//! `ferrobase inspect` and `ferrobase check` (issue 47): what a block file, a WAL segment or a
//! data directory's manifest holds, and every checksum of a data directory verified, without
//! changing anything (`ferrobase_engine::inspect`).

use anyhow::{bail, Result};
use ferrobase_engine::inspect::{self, BlockFilePrint};
use std::io::Write;
use std::path::Path;

/// The usage of `ferrobase inspect`.
pub const INSPECT_USAGE: &str = "\
usage:
  ferrobase inspect block-file FILE [-p] [-m]   read a block file (*.blk) whole, every checksum verified;
                                                -p prints each cell (as HBase's `hfile -p`), -m the
                                                trailer and meta section (as `hfile -m`)
  ferrobase inspect wal FILE [-p] [--not-last]  read a WAL segment (*.wal): how it ends (whole, a torn
                                                tail, damage); -p prints each record; --not-last reads it
                                                as an older segment (a tear is then corruption)
  ferrobase inspect manifest DATA_DIR           print the manifest: tables, regions, stores, their files
";

/// The usage of `ferrobase check`.
pub const CHECK_USAGE: &str = "\
usage: ferrobase check DATA_DIR
  Verifies a data directory without changing it: the manifest, every block file it names (each
  checksum, the cell count), files it does not name, every WAL segment (torn tails, damage,
  segments shorter than their synced marks). Prints one line per finding; exits 1 when it finds a
  problem, 0 otherwise.
";

/// `ferrobase inspect ...`.
pub fn inspect(args: &[String]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let fs = ferrobase_engine::fs::os();
    let flags = |allowed: &[&str]| -> Result<Vec<&str>> {
        let mut seen = Vec::new();
        for a in args.iter().skip(2) {
            if !allowed.contains(&a.as_str()) {
                bail!("unknown option {a:?}\n{INSPECT_USAGE}");
            }
            seen.push(a.as_str());
        }
        Ok(seen)
    };
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("-h") | Some("--help") | None, _) => {
            print!("{INSPECT_USAGE}");
            Ok(())
        }
        (Some("block-file"), Some(file)) => {
            let f = flags(&["-p", "-m"])?;
            let print = BlockFilePrint {
                cells: f.contains(&"-p"),
                meta: f.contains(&"-m"),
            };
            inspect::block_file(fs, Path::new(file), print, &mut out)?;
            Ok(())
        }
        (Some("wal"), Some(file)) => {
            let f = flags(&["-p", "--not-last"])?;
            let end = inspect::wal_segment(
                &*fs,
                Path::new(file),
                !f.contains(&"--not-last"),
                f.contains(&"-p"),
                &mut out,
            )?;
            if matches!(end, ferrobase_engine::inspect::SegmentEnd::DamagedAt { .. }) {
                out.flush()?;
                std::process::exit(1);
            }
            Ok(())
        }
        (Some("manifest"), Some(dir)) => {
            flags(&[])?;
            inspect::manifest(&*fs, Path::new(dir), &mut out)?;
            Ok(())
        }
        (Some(what @ ("block-file" | "wal" | "manifest")), None) => {
            bail!("ferrobase inspect {what} needs a path\n{INSPECT_USAGE}")
        }
        (Some(other), _) => bail!("unknown inspector {other:?}\n{INSPECT_USAGE}"),
    }
}

/// `ferrobase check DATA_DIR`.
pub fn check(args: &[String]) -> Result<()> {
    let dir = match args {
        [h] if h == "-h" || h == "--help" => {
            print!("{CHECK_USAGE}");
            return Ok(());
        }
        [dir] if !dir.starts_with('-') => dir,
        _ => bail!("ferrobase check takes one data directory\n{CHECK_USAGE}"),
    };
    let mut out = std::io::stdout().lock();
    let report = inspect::check(ferrobase_engine::fs::os(), Path::new(dir), &mut out)?;
    if !report.problems.is_empty() {
        out.flush()?;
        std::process::exit(1);
    }
    Ok(())
}
