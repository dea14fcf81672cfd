//! `ferrobase app NAME ...`: the seed articles' example systems (`ferrobase-apps`) on the
//! command line, embedded (`--data DIR`, default `./ferrobase-data`) or through a gateway
//! (`--connect thrift://HOST:PORT`).

mod args;
mod behaviour_log;
mod file_search;
mod game_log;
mod microblog;
mod textbook;

use anyhow::Result;

/// The usage text of `ferrobase app`.
pub const USAGE: &str = "\
ferrobase app NAME [--data DIR | --connect thrift://HOST:PORT [--tls-ca PEM [--tls-cert PEM --tls-key PEM]] [--login NAME]] COMMAND [OPTIONS]
  behaviour-log [--scheme tall|wide] record | get | range | newest
  file-search  load-example | add | delete | find | on-date | by-index | verify-index | rebuild-index
  game-log     load-sample | log | query
  microblog    follow | unfollow | post | worker [--once] | home | posts | inbox | fans | following
  textbook     load-example | animal-up | animal-down | shop-items | item-shops | buy | purchases | fans
";

/// Prints one line per item, or `none` when there is none: every read answers with at least one
/// line, so an empty result is told apart from a command that did nothing.
fn print_lines<T>(items: impl IntoIterator<Item = T>, line: impl Fn(T) -> String, none: &str) {
    let mut any = false;
    for x in items {
        any = true;
        println!("{}", line(x));
    }
    if !any {
        println!("{none}");
    }
}

/// `ferrobase app NAME`: each application's commands and options are parsed by its own code
/// (`app NAME --help` lists them).
#[derive(clap::Subcommand, Debug)]
pub enum AppArgs {
    /// Article 1's behaviour log in its two schemes (tall or wide rows).
    #[command(after_help = behaviour_log::USAGE)]
    BehaviourLog(crate::cli::Passthrough),
    /// Article 2's file table: search by owner, date and index.
    #[command(after_help = file_search::USAGE)]
    FileSearch(crate::cli::Passthrough),
    /// Article 3's `account_actiontype_time` game log.
    #[command(after_help = game_log::USAGE)]
    GameLog(crate::cli::Passthrough),
    /// Article 4's follow, post and inbox tables and the fan-out worker.
    #[command(after_help = microblog::USAGE)]
    Microblog(crate::cli::Passthrough),
    /// Article 5's four schema examples.
    #[command(after_help = textbook::USAGE)]
    Textbook(crate::cli::Passthrough),
}

/// Runs `ferrobase app NAME ARGS`.
pub fn main(app: AppArgs) -> Result<()> {
    match app {
        AppArgs::BehaviourLog(p) => behaviour_log::main(&p.args),
        AppArgs::FileSearch(p) => file_search::main(&p.args),
        AppArgs::GameLog(p) => game_log::main(&p.args),
        AppArgs::Microblog(p) => microblog::main(&p.args),
        AppArgs::Textbook(p) => textbook::main(&p.args),
    }
}
