//! Studies: programs that generate a data set, measure the embedded engine on it, and write a
//! markdown report and SVG charts (`docs/studies/`). Like the benchmarks, they assert nothing
//! about time.
//!
//! - `ferrobase study tall-wide`: article 1's tall-narrow against wide rows as a user's records grow;
//! - `ferrobase study rowkeys`: sequential, salted, hashed and reversed keys on N regions;
//! - `ferrobase study pushdown`: article 2's file search under a composite key, an id-only key
//!   with value filters, and an index table;
//! - `ferrobase study families`: article 004's family attributes, number of families and key
//!   forms on article 2's file table;
//! - `ferrobase study feeds`: article 002's second game-log design, article 003's inbox as
//!   versions or reversed-time rows, and the fan-out cost per follower count;
//! - `ferrobase study all`: every study in turn.
//!
//! `--quick` shrinks every size so a study runs in seconds (CI runs it so it never rots);
//! `--out DIR` (default `target/studies`) receives `NAME.md` and `NAME*.svg`.

mod chart;
mod families;
mod feeds;
mod measure;
mod pushdown;
mod report;
mod rowkeys;
mod tall_wide;

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// The usage text of `ferrobase study`.
pub const USAGE: &str = "\
ferrobase study NAME [--quick] [--out DIR] [--sizes N,N,...]
  --sizes     tall-wide's records per user (default 10,100,1000,10000,100000): fewer sizes
              finish sooner on a busy machine; tall-wide rewrites its report, CSV and chart
              after each size, so a stopped run keeps what it measured
  tall-wide   tall-narrow vs wide rows as records per user grow (article 1)
  rowkeys     sequential vs salted vs hashed vs reversed keys on a pre-split table
  pushdown    filter pushdown vs key design for article 2's file search
  families    family attributes (BLOCKSIZE, BLOOMFILTER, COMPRESSION, BLOCKCACHE, IN_MEMORY),
              three families vs one, key length, binary vs text keys (article 004)
  feeds       game log's two designs (002), inbox versions vs reversed-time rows and fan-out
              cost per follower count (003)
  all         every study
";

/// Options every study takes.
#[derive(Debug, Clone)]
pub struct StudyOptions {
    /// Small sizes: seconds instead of minutes.
    pub quick: bool,
    /// Where the report and charts go.
    pub out: PathBuf,
    /// `--sizes`: the tall-wide study's records per user, instead of its defaults.
    pub sizes: Option<Vec<u64>>,
}

/// One study: its command name and the function that runs it.
type StudyFn = fn(&StudyOptions) -> Result<()>;

const STUDIES: &[(&str, StudyFn)] = &[
    ("tall-wide", tall_wide::run),
    ("rowkeys", rowkeys::run),
    ("pushdown", pushdown::run),
    ("families", families::run),
    ("feeds", feeds::run),
];

/// `ferrobase study`'s command line.
#[derive(clap::Args, Debug)]
pub struct StudyArgs {
    /// The study: tall-wide, rowkeys, pushdown, families, feeds, or all.
    #[arg(value_name = "NAME",
          value_parser = ["tall-wide", "rowkeys", "pushdown", "families", "feeds", "all"])]
    name: Option<String>,
    /// Small sizes: seconds instead of minutes (CI runs it so it never rots).
    #[arg(long)]
    quick: bool,
    /// Where NAME.md and NAME*.svg go.
    #[arg(long, value_name = "DIR", default_value = "target/studies")]
    out: PathBuf,
    /// tall-wide's records per user, comma-separated [default: 10,100,1000,10000,100000].
    #[arg(long, value_name = "N,N,...", value_parser = sizes)]
    sizes: Option<Vec<u64>>,
}

/// `--sizes`: positive whole numbers (underscores allowed), comma-separated; sorted, deduplicated.
fn sizes(list: &str) -> Result<Vec<u64>, String> {
    let mut sizes = list
        .split(',')
        .map(|n| match n.trim().replace('_', "").parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "--sizes {list:?}: positive whole numbers, comma-separated"
            )),
        })
        .collect::<Result<Vec<u64>, String>>()?;
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// Runs `ferrobase study ARGS`.
pub fn main(args: StudyArgs) -> Result<()> {
    let opts = StudyOptions {
        quick: args.quick,
        out: args.out,
        sizes: args.sizes,
    };
    let Some(name) = args.name else {
        print!("{USAGE}");
        return Ok(());
    };
    std::fs::create_dir_all(&opts.out)
        .with_context(|| format!("creating {}", opts.out.display()))?;
    if name == "all" {
        for (_, run) in STUDIES {
            run(&opts)?;
        }
        return Ok(());
    }
    match STUDIES.iter().find(|(n, _)| *n == name) {
        Some((_, run)) => run(&opts),
        None => bail!("unknown study {name:?}\n{USAGE}"),
    }
}

/// The machine's load while a study runs: the 1-minute load average at its start and when its
/// chart is drawn (Linux `/proc/loadavg`), printed on every chart and report so a figure is
/// read with the load it was measured under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Load {
    start: Option<f64>,
}

impl Load {
    /// The load now, as the start of a run.
    pub fn start() -> Load {
        Load {
            start: load_average(),
        }
    }

    /// `load average 12.4 at the start, 13.1 at the end; 2 cores` (`unknown` off Linux).
    pub fn line(&self) -> String {
        let show = |v: Option<f64>| v.map_or("unknown".to_string(), |v| format!("{v:.1}"));
        format!(
            "load average {} at the start, {} at the end; {} cores",
            show(self.start),
            show(load_average()),
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )
    }
}

/// The 1-minute load average, where the system reports one.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A scratch directory for a study's engine, in the system's temporary directory (`TMPDIR`),
/// removed when dropped.
fn scratch_dir() -> Result<tempfile::TempDir> {
    Ok(tempfile::Builder::new()
        .prefix("ferrobase-study-")
        .tempdir()?)
}
