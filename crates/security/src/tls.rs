//! TLS on the Thrift port, with rustls (ring as the crypto provider): the server's certificate
//! and key, an optional client CA that turns on mutual TLS, the matching client settings, and
//! the socket either plain or encrypted behind one `Read + Write` type.
//!
//! With a client CA, a client is refused during the handshake unless it presents a certificate
//! that CA signed; the certificate's subject common name (CN) is then the connection's user
//! (`docs/design/security.md`, "Identities").

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A TLS setting that could not be loaded or built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A PEM file could not be read or held nothing usable.
    #[error("{what} {path}: {reason}")]
    Pem {
        /// What the file should hold ("certificate", "private key", "CA certificate").
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it was refused.
        reason: String,
    },
    /// rustls refused the configuration (a key that does not match its certificate, ...).
    #[error("TLS configuration: {0}")]
    Config(String),
    /// A server name the client cannot verify a certificate against.
    #[error("invalid TLS server name {0:?}")]
    ServerName(String),
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn config_error(e: impl std::fmt::Display) -> TlsError {
    TlsError::Config(e.to_string())
}

/// Every certificate of a PEM file, in order (a leaf then its chain).
pub fn load_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = |reason: String| TlsError::Pem {
        what: "certificate",
        path: path.to_path_buf(),
        reason,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| pem(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem(e.to_string()))?;
    if certs.is_empty() {
        return Err(pem("no CERTIFICATE block".into()));
    }
    Ok(certs)
}

/// The first private key of a PEM file (PKCS#8, PKCS#1 or SEC1).
pub fn load_private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| TlsError::Pem {
        what: "private key",
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

fn root_store(ca: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in load_certificates(ca)? {
        roots.add(cert).map_err(|e| TlsError::Pem {
            what: "CA certificate",
            path: ca.to_path_buf(),
            reason: e.to_string(),
        })?;
    }
    Ok(roots)
}

/// The server side: `ferrobase serve --tls-cert PEM --tls-key PEM [--tls-client-ca PEM]`.
#[derive(Clone)]
pub struct TlsServer {
    config: Arc<ServerConfig>,
    mutual: bool,
}

impl std::fmt::Debug for TlsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsServer")
            .field("mutual", &self.mutual)
            .finish()
    }
}

impl TlsServer {
    /// Loads the server certificate chain and key; with `client_ca`, clients must present a
    /// certificate that CA signed (mutual TLS). TLS 1.2 and 1.3.
    pub fn from_pem_files(
        cert: &Path,
        key: &Path,
        client_ca: Option<&Path>,
    ) -> Result<TlsServer, TlsError> {
        let certs = load_certificates(cert)?;
        let key = load_private_key(key)?;
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(config_error)?;
        let builder = match client_ca {
            Some(ca) => {
                let verifier = WebPkiClientVerifier::builder_with_provider(
                    Arc::new(root_store(ca)?),
                    provider(),
                )
                .build()
                .map_err(config_error)?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let config = builder.with_single_cert(certs, key).map_err(config_error)?;
        Ok(TlsServer {
            config: Arc::new(config),
            mutual: client_ca.is_some(),
        })
    }

    /// True when clients must present a certificate.
    pub fn is_mutual(&self) -> bool {
        self.mutual
    }

    /// Runs the server handshake on an accepted socket, waiting at most `timeout` for the
    /// client. Returns the encrypted stream and the client certificate's subject CN (mutual TLS
    /// only). A client without a valid certificate under mutual TLS fails here.
    pub fn accept(
        &self,
        mut sock: TcpStream,
        timeout: Duration,
    ) -> std::io::Result<(ServerWire, Option<String>)> {
        let mut conn = ServerConnection::new(self.config.clone()).map_err(std::io::Error::other)?;
        // One deadline for the whole handshake, however slowly the client sends.
        let handle = sock.try_clone()?;
        let mut bounded =
            crate::deadline::Deadline::new(&mut sock, handle, std::time::Instant::now() + timeout);
        while conn.is_handshaking() {
            conn.complete_io(&mut bounded)?;
        }
        bounded.finish()?;
        let user = conn
            .peer_certificates()
            .and_then(|chain| chain.first())
            .and_then(|leaf| common_name(leaf));
        Ok((
            Wire::Tls(Box::new(rustls::StreamOwned::new(conn, sock))),
            user,
        ))
    }
}

/// The subject common name of a DER certificate, if it has one.
pub fn common_name(der: &[u8]) -> Option<String> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
    let cn = cert.subject().iter_common_name().next()?;
    cn.as_str().ok().map(str::to_string)
}

/// The client side: the CA that signed the server's certificate and, for mutual TLS, the
/// client's own certificate and key.
#[derive(Clone)]
pub struct TlsClient {
    config: Arc<ClientConfig>,
}

impl std::fmt::Debug for TlsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsClient")
    }
}

impl TlsClient {
    /// Trusts the certificates of `ca`; presents `identity` (certificate chain, key) when
    /// given.
    pub fn from_pem_files(
        ca: &Path,
        identity: Option<(&Path, &Path)>,
    ) -> Result<TlsClient, TlsError> {
        let builder = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(config_error)?
            .with_root_certificates(root_store(ca)?);
        let config = match identity {
            Some((cert, key)) => builder
                .with_client_auth_cert(load_certificates(cert)?, load_private_key(key)?)
                .map_err(config_error)?,
            None => builder.with_no_client_auth(),
        };
        Ok(TlsClient {
            config: Arc::new(config),
        })
    }

    /// Starts TLS on a connected socket to `host` (a DNS name or IP address the server's
    /// certificate names). The handshake completes on the first read or write.
    pub fn connect(&self, host: &str, sock: TcpStream) -> Result<ClientWire, TlsError> {
        let name = ServerName::try_from(host.to_string())
            .map_err(|_| TlsError::ServerName(host.to_string()))?;
        let conn = ClientConnection::new(self.config.clone(), name).map_err(config_error)?;
        Ok(Wire::Tls(Box::new(rustls::StreamOwned::new(conn, sock))))
    }
}

/// A socket, plain or behind TLS.
pub enum Wire<C> {
    /// No encryption.
    Plain(TcpStream),
    /// rustls over the socket.
    Tls(Box<rustls::StreamOwned<C, TcpStream>>),
}

/// A server-side socket.
pub type ServerWire = Wire<ServerConnection>;
/// A client-side socket.
pub type ClientWire = Wire<ClientConnection>;

impl<C, S> Wire<C>
where
    C: std::ops::DerefMut + std::ops::Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    /// The underlying TCP socket (for timeouts and shutdown).
    pub fn socket(&self) -> &TcpStream {
        match self {
            Wire::Plain(s) => s,
            Wire::Tls(t) => t.get_ref(),
        }
    }
}

impl<C, S> Read for Wire<C>
where
    C: std::ops::DerefMut + std::ops::Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Wire::Plain(s) => s.read(buf),
            Wire::Tls(t) => t.read(buf),
        }
    }
}

impl<C, S> Write for Wire<C>
where
    C: std::ops::DerefMut + std::ops::Deref<Target = rustls::ConnectionCommon<S>>,
    S: rustls::SideData,
{
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Wire::Plain(s) => s.write(buf),
            Wire::Tls(t) => t.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Wire::Plain(s) => s.flush(),
            Wire::Tls(t) => t.flush(),
        }
    }
}
