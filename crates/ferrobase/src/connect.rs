//! The options that reach a secured gateway, shared by `ferrobase shell --connect` and
//! `ferrobase app --connect`: the CA of the server's certificate, a client certificate for mutual
//! TLS, and a user for password (SASL PLAIN) logins, whose password comes from the
//! `FERROBASE_PASSWORD` environment variable, never the command line.

use anyhow::{bail, Context, Result};
use ferrobase_client::{ConnectOptions, TlsClient};
use std::path::Path;

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
    pub fn options(&self) -> Result<ConnectOptions> {
        let mut opts = ConnectOptions::default();
        match (&self.tls_ca, &self.tls_cert, &self.tls_key) {
            (None, None, None) => {}
            (Some(ca), cert, key) => {
                let identity = match (cert, key) {
                    (Some(c), Some(k)) => Some((Path::new(c.as_str()), Path::new(k.as_str()))),
                    (None, None) => None,
                    _ => bail!("--tls-cert and --tls-key go together"),
                };
                opts.tls = Some(TlsClient::from_pem_files(Path::new(ca), identity)?);
            }
            (None, _, _) => bail!("--tls-cert and --tls-key need --tls-ca (the CA of the server)"),
        }
        if let Some(user) = &self.user {
            let password = std::env::var("FERROBASE_PASSWORD").context(
                "--login takes its password from the FERROBASE_PASSWORD environment variable",
            )?;
            opts.credentials = Some((user.clone(), password));
        }
        Ok(opts)
    }
}

/// The value of `--connect`: a server's URL, never a local path (that is `--data DIR`), so a
/// mistyped address cannot become a new local store.
pub fn server_url(value: &str) -> Result<String> {
    if value.starts_with("thrift://") {
        Ok(value.to_string())
    } else {
        bail!(
            "--connect takes a server's URL, thrift://HOST:PORT (got {value:?}); a local data \
             directory is --data DIR"
        )
    }
}
