//! The doors' listening sockets, with the system's largest accept queue.
//!
//! The standard library listens with a backlog of 128. A burst of connections (2,000 silent
//! ones opened at once, a load balancer's reconnect storm) fills it before the accept loop
//! drains it, and the kernel then drops the next SYNs: a legitimate client's connect waits for
//! its retransmission, a second or more. Listening again with `SOMAXCONN` (the kernel caps it
//! at `net.core.somaxconn`) lets the accept loop take the burst in turn, as HBase's Netty
//! servers do (`SO_BACKLOG`).

use std::io;
use std::net::{SocketAddr, TcpListener};

/// Binds `addr` and listens with the system's largest backlog.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let listener = TcpListener::bind(addr)?;
    widen_backlog(&listener)?;
    Ok(listener)
}

/// Listens again on `listener` with the system's largest backlog (a second `listen` on a
/// listening socket changes only its queue's length).
#[cfg(unix)]
pub fn widen_backlog(listener: &TcpListener) -> io::Result<()> {
    nix::sys::socket::listen(listener, nix::sys::socket::Backlog::MAXCONN).map_err(io::Error::from)
}

/// Elsewhere the standard library's backlog stays.
#[cfg(not(unix))]
pub fn widen_backlog(_listener: &TcpListener) -> io::Result<()> {
    Ok(())
}
