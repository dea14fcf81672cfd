//! `ferrobase`: the command-line entry point. Every subcommand and option is defined once in
//! `cli.rs` (clap): `ferrobase --help`, `ferrobase help COMMAND`, `docs/cli.md`.

#![forbid(unsafe_code)]
// The binary's doc comments on its clap arguments are its `--help` text (and docs/cli.md): their
// brackets and angle brackets are usage syntax (`[VERSIONS [STARTTIME [ENDTIME]]]`,
// `lost+found/<unix-ms>/`), not intra-doc links or HTML.
#![allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    reason = "doc comments of clap arguments are --help text, written in usage syntax"
)]

mod app;
#[cfg(feature = "lab")]
mod bench;
mod cli;
mod config;
mod http;
mod inspect;
mod limits;
mod logging;
mod progress;
mod serve;
mod snapshot;
#[cfg(feature = "lab")]
mod study;
mod transfer;

use anyhow::Result;
use cli::Command;

fn main() {
    ferrobase_engine::allocator::tune();
    quiet_on_closed_stdout();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The configuration file's settings join the command line where it and the environment
    // are silent (`serve`, `config show`).
    let (argv, rows) = match config::apply(argv) {
        Ok(applied) => applied,
        Err(e) => {
            eprintln!("ferrobase: {e:#}");
            std::process::exit(2);
        }
    };
    let cli = cli::parse(argv);
    if let Err(e) = run(cli, rows) {
        eprintln!("ferrobase: {e:#}");
        // Stopped by Ctrl-C, having said what it had done: the status of a program SIGINT ended.
        let interrupted = matches!(
            e.downcast_ref::<ferrobase_tools::Error>(),
            Some(ferrobase_tools::Error::Interrupted { .. })
        );
        let usage = e.downcast_ref::<cli::UsageError>().is_some();
        std::process::exit(if interrupted {
            130
        } else if usage {
            2
        } else {
            1
        });
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

fn run(cli: cli::Cli, rows: Option<Vec<config::Row>>) -> Result<()> {
    match cli.command {
        Command::Serve(args) => {
            if let Some(rows) = rows {
                let _ = config::EFFECTIVE.set(rows);
            }
            serve::main(*args)
        }
        Command::Shell(args) => ferrobase_shell::main(args),
        Command::Passwd { user } => serve::passwd(&user),
        #[cfg(feature = "lab")]
        Command::Bench(args) => bench::main(args),
        Command::App(args) => app::main(args),
        Command::Copy(args) => transfer::copy(args),
        Command::Inspect(args) => inspect::inspect(args),
        Command::Check { data_dir, repair } => inspect::check(&data_dir, repair),
        Command::Snapshot(cmd) => snapshot::main(cmd),
        Command::Export(args) => transfer::export(args),
        Command::Import {
            tsv: Some(cli::Import::Tsv(p)),
            ..
        } => transfer::import_tsv(p),
        Command::Import { tsv: None, args } => transfer::import(args),
        #[cfg(feature = "lab")]
        Command::Study(args) => study::main(args),
        // The shipped binary (the wheel, `cargo install --profile dist --no-default-features`)
        // leaves the laboratory out.
        #[cfg(not(feature = "lab"))]
        Command::Bench(_) | Command::Study(_) => anyhow::bail!(
            "this build of ferrobase has no `bench` or `study`: the benchmarks and schema \
             studies are in builds with the `lab` feature (the default of a source build: cargo \
             run -p ferrobase)"
        ),
        Command::Config(config::ConfigCommand::Aliases) => {
            config::aliases();
            Ok(())
        }
        Command::Config(config::ConfigCommand::Show(_)) => {
            config::show(&rows.unwrap_or_default());
            Ok(())
        }
        Command::Completions { shell } => {
            cli::completions(shell);
            Ok(())
        }
        Command::HelpMarkdown => {
            print!("{}", cli::markdown());
            Ok(())
        }
    }
}
