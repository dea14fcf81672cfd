//! The door's audit of connections: what HBase's RPC server writes to its audit log
//! (`SecurityLogger`) once a connection's header is read, `Connection from HOST:PORT, ...,
//! ugi=USER, service=SERVICE`, with the user its TLS client certificate names.

use std::net::SocketAddr;
use std::sync::Arc;

/// A connection whose header was read, as the door will serve its calls.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Connected<'a> {
    /// The client's address.
    pub peer: Option<SocketAddr>,
    /// Whether the connection is encrypted.
    pub tls: bool,
    /// With mutual TLS, the subject CN of the client's certificate, which the CA vouched for.
    pub certificate_user: Option<&'a str>,
    /// The user the connection header names (SIMPLE authentication: the client's claim).
    pub header_user: &'a str,
    /// The service the connection's calls go to (`ClientService`, `MasterService`, ...).
    pub service: &'a str,
}

impl std::fmt::Display for Connected<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.peer {
            Some(p) => write!(f, "Connection from {p}")?,
            None => f.write_str("Connection")?,
        }
        write!(f, ", tls={}", self.tls)?;
        if let Some(user) = self.certificate_user {
            write!(f, ", certificate={user}")?;
        }
        write!(f, ", ugi={}, service={}", self.header_user, self.service)
    }
}

/// Where the door reports each connection ([`NativeOptions::audit`](crate::NativeOptions)).
#[derive(Clone)]
pub struct AuditLog(Arc<dyn Fn(&Connected<'_>) + Send + Sync>);

impl AuditLog {
    /// Calls `sink` with each connection, on the connection's thread.
    pub fn new(sink: impl Fn(&Connected<'_>) + Send + Sync + 'static) -> AuditLog {
        AuditLog(Arc::new(sink))
    }

    /// A line on standard error per connection, `ferrobase: audit: Connection from ...`.
    pub fn stderr() -> AuditLog {
        AuditLog::new(|c| tracing::info!(target: "ferrobase::audit", "audit: {c}"))
    }

    pub(crate) fn record(&self, connected: &Connected<'_>) {
        (self.0)(connected);
    }
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuditLog")
    }
}
