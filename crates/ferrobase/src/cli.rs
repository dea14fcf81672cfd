//! The command line of `ferrobase` (issue 47): one clap definition of every subcommand, from
//! which `--help`, `ferrobase help SUBCOMMAND`, the shell completions and `docs/cli.md` are all
//! made. A usage error exits 2; runtime failures exit 1, Ctrl-C 130, a closed pipe 141.

use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

/// `ferrobase VERSION (REVISION)`: the crate's version and the build's git revision
/// (`crates/shell/build.rs`; "unknown" outside a checkout).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} ({})",
        env!("CARGO_PKG_VERSION"),
        ferrobase_shell::build_info::REVISION
    )
});

const SYNOPSIS: &str = "\
Synopsis:
  ferrobase serve [--data DIR] [--port PORT] [--rpc-port PORT] [--http-port PORT] ...
  ferrobase shell [--data DIR | --connect thrift://HOST:PORT] [FILE]
  ferrobase copy SOURCE TABLE DEST [OPTIONS]
  ferrobase export [--data DIR | --connect URL] TABLE OUTDIR [VERSIONS [STARTTIME [ENDTIME]]]
  ferrobase import [--data DIR | --connect URL] TABLE INDIR
  ferrobase import tsv [--data DIR | --connect URL] -Dimporttsv.columns=... TABLE INPUT
  ferrobase snapshot export SNAPSHOT --data DIR --to OUTDIR
  ferrobase snapshot import INDIR --data DIR [--as NAME]
  ferrobase check DATA_DIR [--repair]
  ferrobase config show [--config FILE] [--data DIR]
  ferrobase help COMMAND      the options of COMMAND (as COMMAND --help)

Environment: FERROBASE_DATA (--data), FERROBASE_CONNECT (--connect), FERROBASE_CONFIG
(--config), FERROBASE_PASSWORD (--login's password), serve's FERROBASE_BIND, FERROBASE_PORT,
FERROBASE_RPC_PORT, FERROBASE_ZK_PORT, FERROBASE_HTTP_PORT, FERROBASE_THRIFT2_PORT,
FERROBASE_REST_PORT. docs/cli.md has every command's options.";

/// ferrobase: an HBase-compatible wide-column store in one binary.
#[derive(Parser, Debug)]
#[command(name = "ferrobase", version = VERSION.as_str(), after_help = SYNOPSIS, subcommand_required = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// A command whose options are still parsed by its own code: everything after its name, as
/// given (its usage is in its help).
#[derive(clap::Args, Debug, Clone)]
pub struct Passthrough {
    /// The command's arguments (see below).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve HBase's APIs (Thrift1; Thrift2, native RPC, REST, HTTP on request) on an embedded
    /// engine.
    Serve(Box<crate::serve::ServeArgs>),
    /// The HBase shell's language, embedded or against a server.
    Shell(ferrobase_shell::ShellArgs),
    /// Print a --auth-file line for USER, reading the password from stdin's first line.
    Passwd {
        /// The user name (no ':' or ',').
        user: String,
    },
    /// Copy a table between two stores: data directories, ferrobase servers, HBase Thrift1
    /// gateways (HBase's CopyTable).
    #[command(after_help = crate::transfer::COPY_USAGE)]
    Copy(crate::transfer::CopyArgs),
    /// Write a table as the files of HBase's Export.
    #[command(after_help = crate::transfer::EXPORT_USAGE)]
    Export(crate::transfer::ExportArgs),
    /// Apply the files of HBase's Export to a table (`import tsv`: text, as ImportTsv).
    #[command(after_help = crate::transfer::IMPORT_USAGE, args_conflicts_with_subcommands = true)]
    Import {
        #[command(subcommand)]
        tsv: Option<Import>,
        #[command(flatten)]
        args: crate::transfer::ImportArgs,
    },
    /// Print what a block file, a WAL segment or a manifest holds, every checksum verified.
    #[command(subcommand)]
    Inspect(crate::inspect::InspectArgs),
    /// Verify a data directory without changing it; exits 1 when it finds a problem.
    /// `--repair` fixes only what cannot lose acknowledged data.
    Check {
        /// The data directory.
        data_dir: PathBuf,
        /// Take the directory's lock (refused while a server has it open) and move every file
        /// the manifest does not name and every leftover temporary file into
        /// DATA_DIR/lost+found/<unix-ms>/ (nothing is deleted; a torn WAL or manifest-log tail
        /// is left for the next open, which cuts it). Refused, changing nothing, when the check
        /// finds damage that would lose acknowledged data (a missing or corrupt file the
        /// manifest names, damage inside the WAL): that is `serve --wal-recovery
        /// point-in-time`'s or a backup's to mend.
        #[arg(long)]
        repair: bool,
    },
    /// Copy a snapshot out of a data directory (`snapshot export`) and into another
    /// (`snapshot import`), every file's SHA-256 listed and verified.
    #[command(subcommand)]
    Snapshot(crate::snapshot::SnapshotCommand),
    /// The seed articles' example applications.
    #[command(subcommand, after_help = crate::app::USAGE)]
    App(crate::app::AppArgs),
    /// The configuration file: `config show` prints the effective settings and their sources.
    #[command(subcommand)]
    Config(crate::config::ConfigCommand),
    /// Print a shell completion script: `ferrobase completions bash > /etc/bash_completion.d/ferrobase`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// The benchmarks (their tables assert nothing about time).
    #[cfg(feature = "lab")]
    #[command(subcommand)]
    Bench(crate::bench::BenchArgs),
    /// The schema studies (docs/studies/).
    #[cfg(feature = "lab")]
    #[command(after_help = crate::study::USAGE)]
    Study(crate::study::StudyArgs),
    /// The benchmarks and studies are left out of this build (no `lab` feature).
    #[cfg(not(feature = "lab"))]
    #[command(hide = true)]
    Bench(Passthrough),
    #[cfg(not(feature = "lab"))]
    #[command(hide = true)]
    Study(Passthrough),
    /// Every command's help as markdown (docs/cli.md).
    #[command(hide = true)]
    HelpMarkdown,
}

#[derive(Subcommand, Debug)]
pub enum Import {
    /// Load delimited text as HBase's ImportTsv.
    #[command(after_help = crate::transfer::TSV_USAGE)]
    Tsv(crate::transfer::TsvArgs),
}

/// A usage error found by a command's own parser (an unknown option, a missing argument):
/// exits 2, as clap's.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A [`UsageError`] as an `anyhow::Error`.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError(message.into()).into()
}

/// Parses the command line: help and version are printed (exit 0), usage errors exit 2 with
/// clap's message naming what was wrong.
pub fn parse(args: Vec<std::ffi::OsString>) -> Cli {
    if args.len() == 1 {
        // `ferrobase` alone: the help, as before (exit 0).
        let _ = Cli::command().print_help();
        std::process::exit(0);
    }
    match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::{ContextKind, ContextValue, ErrorKind};
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            // A command group named alone (`ferrobase app`, `ferrobase bench`): its help, as
            // `ferrobase` alone prints the top one (exit 0).
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                print!("{}", e.render());
                std::process::exit(0);
            }
            // The old parsers' wording first ("unknown option --x"), then clap's message.
            if e.kind() == ErrorKind::UnknownArgument {
                if let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) {
                    eprintln!("ferrobase: unknown option {arg}");
                }
            }
            report(&e);
            std::process::exit(2);
        }
    }
}

/// Prints a usage error as clap words it, with its `usage:` line in the lower case of every
/// other ferrobase message.
pub fn report(e: &clap::Error) {
    let text = e.render().to_string().replace("\nUsage: ", "\nusage: ");
    eprint!("{text}");
}

/// `ferrobase completions SHELL`.
pub fn completions(shell: clap_complete::Shell) {
    clap_complete::generate(
        shell,
        &mut Cli::command(),
        "ferrobase",
        &mut std::io::stdout(),
    );
}

/// Every command's help, as markdown: `docs/cli.md` (`ferrobase help-markdown > docs/cli.md`).
pub fn markdown() -> String {
    let mut cmd = Cli::command();
    cmd.build();
    let mut out = String::from(
        "# The ferrobase command line\n\n\
         Generated from the binary's own definitions by `cargo run -p ferrobase -- help-markdown \
         > docs/cli.md`; do not edit by hand (the test `cli_help` fails when this file is not \
         current). Every command also answers `--help` and `ferrobase help COMMAND`.\n",
    );
    fn walk(cmd: &mut clap::Command, path: &str, out: &mut String) {
        if cmd.is_hide_set() {
            return;
        }
        let help = cmd.render_long_help().to_string();
        out.push_str(&format!(
            "\n## {path}\n\n```text\n{}\n```\n",
            help.trim_end()
        ));
        for sub in cmd.get_subcommands_mut() {
            let name = sub.get_name().to_string();
            if name == "help" {
                continue;
            }
            walk(sub, &format!("{path} {name}"), out);
        }
    }
    walk(&mut cmd, "ferrobase", &mut out);
    out
}
