//! `ferrobase app NAME ...`: the seed articles' example systems (`ferrobase-apps`) on the
//! command line, embedded (`--data DIR`, default `./ferrobase-data`) or through a gateway
//! (`--connect thrift://HOST:PORT`).

mod behaviour_log;
mod file_search;
mod game_log;
mod microblog;
mod textbook;

use anyhow::{Context, Result};
use ferrobase_client::Connection;

/// The synopsis of `ferrobase app` (each command's options: `ferrobase app NAME COMMAND --help`).
pub const USAGE: &str = "\
ferrobase app NAME [--data DIR | --connect thrift://HOST:PORT [--tls-ca PEM [--tls-cert PEM --tls-key PEM]] [--login NAME]] COMMAND [OPTIONS]
  behaviour-log [--scheme tall|wide] record | get | range | newest
  file-search  load-example | add | delete | find | on-date | by-index | verify-index | rebuild-index
  game-log     load-sample | log | query
  microblog    follow | unfollow | post | worker | home | posts | inbox | fans | following
  textbook     load-example | animal-up | animal-down | add-animal | shop-items | item-shops | buy | purchases | fans | add-fan
The options of a command: ferrobase app NAME COMMAND --help (or ferrobase help app NAME COMMAND).
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

/// Where an application's tables are: `--data DIR` or `--connect URL` and the TLS and login
/// flags of `--connect` (the options of `ferrobase_client::flags::ConnectArgs`, global so that
/// they stand before or after the command, as they always have).
#[derive(clap::Args, Debug, Clone, Default)]
#[command(next_help_heading = "Where the tables are")]
pub struct Target {
    /// A local data directory, embedded [env: FERROBASE_DATA] [default: ./ferrobase-data].
    #[arg(long, value_name = "DIR", global = true, conflicts_with = "connect")]
    data: Option<String>,
    /// A server's URL, thrift://HOST:PORT [env: FERROBASE_CONNECT].
    #[arg(long, value_name = "URL", global = true, value_parser = server_url)]
    connect: Option<String>,
    /// The CA of the server's certificate (PEM): TLS to --connect.
    #[arg(long, value_name = "PEM", global = true)]
    tls_ca: Option<String>,
    /// A client certificate (PEM) for mutual TLS (with --tls-key and --tls-ca).
    #[arg(long, value_name = "PEM", global = true)]
    tls_cert: Option<String>,
    /// The key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM", global = true)]
    tls_key: Option<String>,
    /// A user for password logins; the password comes from FERROBASE_PASSWORD.
    #[arg(long, value_name = "NAME", global = true)]
    login: Option<String>,
}

fn server_url(value: &str) -> Result<String, ferrobase_client::flags::FlagError> {
    ferrobase_client::flags::server_url(value)
}

impl Target {
    /// Opens the connection: the command line's `--connect` or `--data`, else
    /// `FERROBASE_CONNECT`, else `FERROBASE_DATA`, else `./ferrobase-data`.
    pub fn connect(&self) -> Result<Connection> {
        let args = ferrobase_client::flags::ConnectArgs {
            data: self.data.clone(),
            connect: self.connect.clone(),
            tls_ca: self.tls_ca.clone(),
            tls_cert: self.tls_cert.clone(),
            tls_key: self.tls_key.clone(),
            login: self.login.clone(),
        };
        let url = args.url()?;
        Connection::open_with(&url, &args.flags().options()?)
            .with_context(|| format!("opening {url}"))
    }
}

/// A time in ms since the epoch, or `now` (the default of the commands that write one).
pub(crate) fn millis_or_now(value: &str) -> Result<i64, std::num::ParseIntError> {
    match value {
        "now" => Ok(ferrobase_apps::clock::now_millis()),
        _ => value.parse(),
    }
}

/// `ferrobase app NAME COMMAND`: the five applications, each with its commands.
#[derive(clap::Subcommand, Debug)]
pub enum AppArgs {
    /// Article 1's behaviour log in its two schemes (tall or wide rows).
    BehaviourLog(behaviour_log::Args),
    /// Article 2's file table: search by owner, date and index.
    FileSearch(file_search::Args),
    /// Article 3's `account_actiontype_time` game log.
    GameLog(game_log::Args),
    /// Article 4's follow, post and inbox tables and the fan-out worker.
    Microblog(microblog::Args),
    /// Article 5's four schema examples.
    Textbook(textbook::Args),
}

/// Runs `ferrobase app NAME COMMAND`.
pub fn main(app: AppArgs) -> Result<()> {
    match app {
        AppArgs::BehaviourLog(a) => behaviour_log::main(a),
        AppArgs::FileSearch(a) => file_search::main(a),
        AppArgs::GameLog(a) => game_log::main(a),
        AppArgs::Microblog(a) => microblog::main(a),
        AppArgs::Textbook(a) => textbook::main(a),
    }
}
