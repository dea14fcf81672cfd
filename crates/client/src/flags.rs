//! The command-line options that reach a secured server, shared by every program that takes
//! `--connect` (`ferrobase shell`, `ferrobase app`, the transfer tools): the CA of the server's
//! certificate, a client certificate for mutual TLS, and a user for password (SASL PLAIN)
//! logins, whose password comes from the `FERROBASE_PASSWORD` environment variable, never the
//! command line.

use crate::ConnectOptions;
use ferrobase_security::tls::{TlsClient, TlsError};
use std::path::Path;

/// Why the connection options given on a command line cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// `--tls-cert` without `--tls-key`, or the other way round.
    #[error("--tls-cert and --tls-key go together")]
    HalfIdentity,
    /// A client certificate without the CA that checks the server.
    #[error("--tls-cert and --tls-key need --tls-ca (the CA of the server)")]
    IdentityWithoutCa,
    /// A certificate or key file that does not load.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// `--login` without the password in the environment.
    #[error("--login takes its password from the FERROBASE_PASSWORD environment variable")]
    NoPassword,
    /// A `--connect` value that is not a server's URL.
    #[error(
        "--connect takes a server's URL, thrift://HOST:PORT (got {0:?}); a local data directory \
         is --data DIR"
    )]
    NotAServerUrl(String),
}

/// `--tls-ca`, `--tls-cert`, `--tls-key` and `--login` as given.
#[derive(Debug, Default)]
pub struct ConnectFlags {
    tls_ca: Option<String>,
    tls_cert: Option<String>,
    tls_key: Option<String>,
    user: Option<String>,
}

impl ConnectFlags {
    /// Takes `--flag value` when the flag is one of these (`flag` without its dashes); false
    /// otherwise.
    pub fn take(&mut self, flag: &str, value: &str) -> bool {
        let slot = match flag {
            "tls-ca" => &mut self.tls_ca,
            "tls-cert" => &mut self.tls_cert,
            "tls-key" => &mut self.tls_key,
            "login" => &mut self.user,
            _ => return false,
        };
        *slot = Some(value.to_string());
        true
    }

    /// The client options these flags ask for.
    pub fn options(&self) -> Result<ConnectOptions, FlagError> {
        let mut opts = ConnectOptions::default();
        match (&self.tls_ca, &self.tls_cert, &self.tls_key) {
            (None, None, None) => {}
            (Some(ca), cert, key) => {
                let identity = match (cert, key) {
                    (Some(c), Some(k)) => Some((Path::new(c.as_str()), Path::new(k.as_str()))),
                    (None, None) => None,
                    _ => return Err(FlagError::HalfIdentity),
                };
                opts.tls = Some(TlsClient::from_pem_files(Path::new(ca), identity)?);
            }
            (None, _, _) => return Err(FlagError::IdentityWithoutCa),
        }
        if let Some(user) = &self.user {
            let password =
                std::env::var("FERROBASE_PASSWORD").map_err(|_| FlagError::NoPassword)?;
            opts.credentials = Some((user.clone(), password));
        }
        Ok(opts)
    }
}

/// The value of `--connect`: a server's URL, never a local path (that is `--data DIR`), so a
/// mistyped address cannot become a new local store.
pub fn server_url(value: &str) -> Result<String, FlagError> {
    if value.starts_with("thrift://") {
        Ok(value.to_string())
    } else {
        Err(FlagError::NotAServerUrl(value.to_string()))
    }
}

/// The embedded data directory when neither `--data`, `--connect` nor their environment
/// variables name a store.
pub const DEFAULT_DATA: &str = "./ferrobase-data";

/// Where a command's data is and how to reach a secured server: `--data DIR` or `--connect
/// URL` (their environment variables `FERROBASE_DATA` and `FERROBASE_CONNECT`, the command
/// line winning), and the TLS and login flags of `--connect`.
#[cfg(feature = "cli")]
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ConnectArgs {
    /// A local data directory, embedded [env: FERROBASE_DATA] [default: ./ferrobase-data].
    #[arg(long, value_name = "DIR", conflicts_with = "connect")]
    pub data: Option<String>,
    /// A server's URL, thrift://HOST:PORT [env: FERROBASE_CONNECT].
    #[arg(long, value_name = "URL", value_parser = connect_value)]
    pub connect: Option<String>,
    /// The CA of the server's certificate (PEM): TLS to --connect.
    #[arg(long, value_name = "PEM")]
    pub tls_ca: Option<String>,
    /// A client certificate (PEM) for mutual TLS (with --tls-key and --tls-ca).
    #[arg(long, value_name = "PEM")]
    pub tls_cert: Option<String>,
    /// The key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM")]
    pub tls_key: Option<String>,
    /// A user for password logins; the password comes from FERROBASE_PASSWORD.
    #[arg(long, value_name = "NAME")]
    pub login: Option<String>,
}

#[cfg(feature = "cli")]
fn connect_value(value: &str) -> Result<String, FlagError> {
    server_url(value)
}

#[cfg(feature = "cli")]
impl ConnectArgs {
    /// `thrift://...` or `file:DIR`: the command line's `--connect` or `--data`, else
    /// `FERROBASE_CONNECT`, else `FERROBASE_DATA`, else [`DEFAULT_DATA`].
    pub fn url(&self) -> Result<String, FlagError> {
        if let Some(url) = &self.connect {
            return Ok(url.clone());
        }
        if let Some(dir) = &self.data {
            return Ok(format!("file:{dir}"));
        }
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        if let Some(url) = env("FERROBASE_CONNECT") {
            return server_url(&url);
        }
        Ok(format!(
            "file:{}",
            env("FERROBASE_DATA").unwrap_or_else(|| DEFAULT_DATA.to_string())
        ))
    }

    /// The TLS and login flags.
    pub fn flags(&self) -> ConnectFlags {
        ConnectFlags {
            tls_ca: self.tls_ca.clone(),
            tls_cert: self.tls_cert.clone(),
            tls_key: self.tls_key.clone(),
            user: self.login.clone(),
        }
    }
}
