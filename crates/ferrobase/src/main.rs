//! `ferrobase`: the command-line entry point.
//!
//! Subcommands:
//! - `ferrobase bench engine [--cells N] [--dir DIR]`: the engine benchmark table.

mod bench;

use anyhow::{bail, Result};

fn usage() -> &'static str {
    "usage:\n  ferrobase bench engine [--cells N] [--dir DIR]   print the engine benchmark table\n"
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => bench::main(&args[1..]),
        Some("-h") | Some("--help") | None => {
            print!("{}", usage());
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n{}", usage()),
    }
}
