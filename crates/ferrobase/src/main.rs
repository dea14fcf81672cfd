//! `ferrobase`: the command-line entry point.
//!
//! Subcommands:
//! - `ferrobase serve`: the HBase Thrift gateway on an embedded engine.
//! - `ferrobase shell`: the HBase shell's language, embedded or against a gateway.
//! - `ferrobase passwd USER`: a password-file line for `serve --auth-file`.
//! - `ferrobase bench engine [--cells N] [--dir DIR]`: the engine benchmark table.
//! - `ferrobase copy SOURCE TABLE DEST`: a table from one store to another (HBase's CopyTable).
//! - `ferrobase export TABLE OUTDIR` / `ferrobase import [tsv] TABLE INDIR`: a table to and from
//!   the files of HBase's Export and Import tools (`import tsv`: text, as ImportTsv loads it).
//! - `ferrobase app NAME ...`: the seed articles' example systems (`docs/apps/`).
//! - `ferrobase study NAME [--quick] [--out DIR]`: the schema studies (`docs/studies/`).
//! - `ferrobase --version`: prints `ferrobase VERSION`, the crate's version.

#![forbid(unsafe_code)]

mod app;
#[cfg(feature = "lab")]
mod bench;
mod http;
mod inspect;
mod limits;
mod logging;
mod progress;
mod serve;
#[cfg(feature = "lab")]
mod study;
mod transfer;

use anyhow::{bail, Result};

fn usage() -> &'static str {
    "usage:\n  ferrobase serve [--data DIR] [--bind ADDR] [--port PORT] [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--auth-file FILE] [--acl] [--superuser USER] [--durability LEVEL] [--min-free-space BYTES] [--rpc-port PORT] [--http-port PORT]   serve the HBase Thrift API\n  ferrobase passwd USER < password                          print a --auth-file line\n  ferrobase shell [--data DIR | --connect thrift://HOST:PORT] [FILE]   the HBase shell\n  ferrobase bench engine [--cells N] [--dir DIR]            print the engine benchmark table\n  ferrobase copy SOURCE TABLE DEST [--to-table NAME] [--start-row R --stop-row R] [--starttime MS --endtime MS] [--versions N|all] [--families f1,f2:g] [--all.cells] [--create] [--batch N]   copy a table between two stores: data directories, ferrobase servers, HBase Thrift1 gateways (ferrobase copy --help)\n  ferrobase export [--data DIR | --connect URL] TABLE OUTDIR [VERSIONS [STARTTIME [ENDTIME]]] [--raw]   write HBase Export files (ferrobase export --help)\n  ferrobase import [--data DIR | --connect URL] TABLE INDIR   apply HBase Export files (ferrobase import --help)\n  ferrobase import tsv [--data DIR | --connect URL] -Dimporttsv.columns=... TABLE INPUT   load text as ImportTsv (ferrobase import tsv --help)\n  ferrobase app NAME [--data DIR | --connect thrift://HOST:PORT] COMMAND   the seed applications (ferrobase app --help)\n  ferrobase study NAME [--quick] [--out DIR]                run a schema study (ferrobase study --help)\n  ferrobase inspect block-file|wal|manifest PATH [-p] [-m]  print what a file holds, every checksum verified (ferrobase inspect --help)\n  ferrobase check DATA_DIR                                  verify a data directory without changing it\n  ferrobase --version                                       print the version\n"
}

fn main() {
    ferrobase_engine::allocator::tune();
    quiet_on_closed_stdout();
    if let Err(e) = run() {
        eprintln!("ferrobase: {e:#}");
        // Stopped by Ctrl-C, having said what it had done: the status of a program SIGINT ended.
        let interrupted = matches!(
            e.downcast_ref::<ferrobase_tools::Error>(),
            Some(ferrobase_tools::Error::Interrupted { .. })
        );
        std::process::exit(if interrupted { 130 } else { 1 });
    }
}

/// Printing into a closed pipe (`ferrobase app ... | head`) ends the program quietly, as a
/// program killed by SIGPIPE does (status 141), instead of panicking with "failed printing to
/// stdout: Broken pipe" (Rust ignores SIGPIPE, so `println!` sees the error and panics).
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let broken = info.payload_as_str().is_some_and(|m| {
            m.starts_with("failed printing to stdout") && m.contains("Broken pipe")
        });
        if broken {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve::main(&args[1..]),
        Some("shell") => ferrobase_shell::main(&args[1..]),
        Some("passwd") => serve::passwd(&args[1..]),
        #[cfg(feature = "lab")]
        Some("bench") => bench::main(&args[1..]),
        Some("app") => app::main(&args[1..]),
        Some("copy") => transfer::copy(&args[1..]),
        Some("inspect") => inspect::inspect(&args[1..]),
        Some("check") => inspect::check(&args[1..]),
        Some("export") => transfer::export(&args[1..]),
        Some("import") => transfer::import(&args[1..]),
        #[cfg(feature = "lab")]
        Some("study") => study::main(&args[1..]),
        // The shipped binary (the wheel, `cargo install --profile dist --no-default-features`)
        // leaves the laboratory out.
        #[cfg(not(feature = "lab"))]
        Some(lab @ ("bench" | "study")) => bail!(
            "this build of ferrobase has no `{lab}`: the benchmarks and schema studies are in \
             builds with the `lab` feature (the default of a source build: cargo run -p ferrobase)"
        ),
        Some("-V") | Some("--version") => {
            println!("ferrobase {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("-h") | Some("--help") | None => {
            print!("{}", usage());
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n{}", usage()),
    }
}
