//! The `ferrobase app` command line: `[--data DIR | --connect URL [--tls-ca PEM ...] [--login NAME]]
//! COMMAND [--flag VALUE]...`.

use anyhow::{anyhow, Context, Result};
use ferrobase_client::flags::ConnectFlags;
use ferrobase_client::Connection;
use std::collections::BTreeMap;
use std::str::FromStr;

/// Parsed arguments of one app command.
#[derive(Debug)]
pub struct Args {
    /// `file:DIR` or `thrift://HOST:PORT`.
    pub url: String,
    /// The command (first positional argument).
    pub command: String,
    flags: BTreeMap<String, String>,
    switches: Vec<String>,
    /// TLS and login options for `--connect`.
    connect_flags: ConnectFlags,
}

impl Args {
    /// Parses `args`; flags named in `switches` take no value, every other `--flag` one.
    pub fn parse(args: &[String], switches: &[&str]) -> Result<Args> {
        // FERROBASE_CONNECT, else FERROBASE_DATA, else ./ferrobase-data; --data/--connect win.
        let mut url = ferrobase_client::flags::ConnectArgs::default().url()?;
        let mut command = None;
        let mut flags = BTreeMap::new();
        let mut on = Vec::new();
        let mut connect_flags = ConnectFlags::default();
        let mut help = false;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "-h" || a == "--help" {
                help = true;
                continue;
            }
            if let Some(name) = a.strip_prefix("--") {
                if switches.contains(&name) {
                    on.push(name.to_string());
                    continue;
                }
                let v = it
                    .next()
                    .ok_or_else(|| crate::cli::usage(format!("{a} needs a value")))?;
                match name {
                    "data" => url = format!("file:{v}"),
                    "connect" => url = ferrobase_client::flags::server_url(v)?,
                    _ if connect_flags.take(name, v) => {}
                    _ => {
                        flags.insert(name.to_string(), v.clone());
                    }
                }
            } else if command.is_none() {
                command = Some(a.clone());
            } else {
                return Err(crate::cli::usage(format!("unexpected argument {a:?}")));
            }
        }
        if help {
            // Help wins over everything else on the line, before anything is opened.
            command = Some("help".to_string());
        }
        Ok(Args {
            url,
            command: command.unwrap_or_default(),
            flags,
            switches: on,
            connect_flags,
        })
    }

    /// Opens the connection.
    pub fn connect(&self) -> Result<Connection> {
        Connection::open_with(&self.url, &self.connect_flags.options()?)
            .with_context(|| format!("opening {}", self.url))
    }

    /// The value of `--name`, parsed; an error when absent.
    pub fn get<T: FromStr>(&self, name: &str) -> Result<T>
    where
        T::Err: std::fmt::Display,
    {
        let v = self
            .flags
            .get(name)
            .ok_or_else(|| anyhow!("{} needs --{name}", self.command))?;
        v.parse().map_err(|e| anyhow!("--{name} {v:?}: {e}"))
    }

    /// The value of `--name`, parsed, if given.
    pub fn opt<T: FromStr>(&self, name: &str) -> Result<Option<T>>
    where
        T::Err: std::fmt::Display,
    {
        match self.flags.contains_key(name) {
            true => self.get(name).map(Some),
            false => Ok(None),
        }
    }

    /// Whether the switch `--name` was given.
    pub fn on(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// Fails on flags outside `known` (a typo should not be silently ignored).
    pub fn only(&self, known: &[&str]) -> Result<()> {
        for f in self.flags.keys() {
            if !known.contains(&f.as_str()) {
                return Err(crate::cli::usage(format!(
                    "{}: unknown option --{f}",
                    self.command
                )));
            }
        }
        Ok(())
    }
}
