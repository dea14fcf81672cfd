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

/// `ferrobase check DATA_DIR [--repair]`: verifies a data directory, printing one line per
/// finding; exits 1 when it finds a problem. With `repair`, under the directory's lock, moves
/// what the manifest does not name and leftover temporary files into `lost+found/`, or refuses
/// (exit 1, nothing changed) when the damage would lose acknowledged data.
pub fn check(dir: &Path, repair: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let fs = ferrobase_engine::fs::os();
    if !repair {
        let report = inspect::check(fs, dir, &mut out)?;
        if !report.problems.is_empty() {
            out.flush()?;
            std::process::exit(1);
        }
        return Ok(());
    }
    match inspect::repair(fs, dir, &mut out) {
        Ok(inspect::RepairOutcome::Repaired { .. }) => Ok(()),
        Ok(inspect::RepairOutcome::Refused(report)) => {
            out.flush()?;
            eprintln!(
                "ferrobase: check --repair refused: {} problem(s) whose repair would lose \
                 acknowledged data; nothing was changed. A missing or corrupt block file the \
                 manifest names is mended from a backup or snapshot; damage inside the WAL by \
                 `ferrobase serve --data {} --wal-recovery point-in-time` (opens without the \
                 damaged record and what follows, keeping copies in wal-quarantine/).",
                report.problems.len(),
                dir.display()
            );
            std::process::exit(1);
        }
        Err(e @ ferrobase_engine::Error::Locked(_)) => {
            anyhow::bail!(
                "check --repair refused: {e} (stop the server first); nothing was changed"
            )
        }
        Err(e) => Err(e.into()),
    }
}
