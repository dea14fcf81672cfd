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

/// Runs `ferrobase app ARGS`.
pub fn main(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("behaviour-log") => behaviour_log::main(&args[1..]),
        Some("file-search") => file_search::main(&args[1..]),
        Some("game-log") => game_log::main(&args[1..]),
        Some("textbook") => textbook::main(&args[1..]),
        Some("microblog") => microblog::main(&args[1..]),
        Some("-h") | Some("--help") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(crate::cli::usage(format!("unknown app {other:?}\n{USAGE}"))),
    }
}
