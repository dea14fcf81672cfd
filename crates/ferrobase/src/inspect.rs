//! `ferrobase inspect` and `ferrobase check` (issue 47): what a block file, a WAL segment or a
//! data directory's manifest holds, and every checksum of a data directory verified, without
//! changing anything (`ferrobase_engine::inspect`).

use anyhow::Result;
use ferrobase_engine::inspect::{self, BlockFilePrint};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `ferrobase inspect`'s files.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum InspectArgs {
    /// Read a block file (*.blk) whole, every checksum verified.
    BlockFile {
        /// The block file.
        file: PathBuf,
        /// Print each cell (as HBase's `hfile -p`).
        #[arg(short = 'p')]
        cells: bool,
        /// Print the trailer and meta section (as `hfile -m`).
        #[arg(short = 'm')]
        meta: bool,
    },
    /// Read a WAL segment (*.wal): how it ends (whole, a torn tail, damage); exits 1 on damage.
    Wal {
        /// The WAL segment.
        file: PathBuf,
        /// Print each record.
        #[arg(short = 'p')]
        records: bool,
        /// Read it as an older segment (a tear is then corruption).
        #[arg(long)]
        not_last: bool,
    },
    /// Print the manifest: tables, regions, stores, their files.
    Manifest {
        /// The data directory.
        data_dir: PathBuf,
    },
}

/// `ferrobase inspect ...`.
pub fn inspect(args: InspectArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let fs = ferrobase_engine::fs::os();
    match args {
        InspectArgs::BlockFile { file, cells, meta } => {
            inspect::block_file(fs, &file, BlockFilePrint { cells, meta }, &mut out)?;
            Ok(())
        }
        InspectArgs::Wal {
            file,
            records,
            not_last,
        } => {
            let end = inspect::wal_segment(&*fs, &file, !not_last, records, &mut out)?;
            if matches!(end, ferrobase_engine::inspect::SegmentEnd::DamagedAt { .. }) {
                out.flush()?;
                std::process::exit(1);
            }
            Ok(())
        }
        InspectArgs::Manifest { data_dir } => {
            inspect::manifest(&*fs, &data_dir, &mut out)?;
            Ok(())
        }
    }
}

/// `ferrobase check DATA_DIR`: verifies a data directory without changing it. Prints one line
/// per finding; exits 1 when it finds a problem.
pub fn check(dir: &Path) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let report = inspect::check(ferrobase_engine::fs::os(), dir, &mut out)?;
    if !report.problems.is_empty() {
        out.flush()?;
        std::process::exit(1);
    }
    Ok(())
}
