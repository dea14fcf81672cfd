//! A socket whose reads and writes must finish by a deadline: the whole of a message, not
//! each read, so a client trickling a byte at a time cannot hold a connection past it.

use crate::tls::ServerWire;
use std::io::{Error, ErrorKind, Read, Write};
use std::time::Instant;

/// A server socket (plain or TLS) with an optional deadline. Before each read or write the
/// socket's timeout is set to the time left, and past the deadline every read and write fails
/// with `TimedOut`. Without a deadline the socket's timeouts are left as they are.
pub struct DeadlineWire {
    wire: ServerWire,
    deadline: Option<Instant>,
    /// Bytes read from `wire` before it came here, read again first.
    head: std::io::Cursor<Vec<u8>>,
    /// Whether a deadline set the socket's read (and write) timeout since it was last cleared:
    /// clearing the deadline clears only those, one system call each instead of two always.
    read_armed: bool,
    write_armed: bool,
}

impl DeadlineWire {
    /// `wire`, with no deadline.
    pub fn new(wire: ServerWire) -> DeadlineWire {
        DeadlineWire::with_head(wire, Vec::new())
    }

    /// `wire`, with no deadline, whose first bytes `head` were read from it already (to tell
    /// which protocol the connection speaks): reads return them first.
    pub fn with_head(wire: ServerWire, head: Vec<u8>) -> DeadlineWire {
        DeadlineWire {
            wire,
            deadline: None,
            head: std::io::Cursor::new(head),
            read_armed: false,
            write_armed: false,
        }
    }

    /// The socket beneath.
    pub fn socket(&self) -> &std::net::TcpStream {
        self.wire.socket()
    }

    /// Sets the deadline, or clears it (and the socket's read and write timeouts) with `None`.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) -> std::io::Result<()> {
        self.deadline = deadline;
        if deadline.is_none() {
            let socket = self.wire.socket();
            if std::mem::take(&mut self.read_armed) {
                socket.set_read_timeout(None)?;
            }
            if std::mem::take(&mut self.write_armed) {
                socket.set_write_timeout(None)?;
            }
        }
        Ok(())
    }

    /// The time left before the deadline, set as the socket's timeout for `read` (else write).
    fn arm(&mut self, read: bool) -> std::io::Result<()> {
        let Some(deadline) = self.deadline else {
            return Ok(());
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::new(
                ErrorKind::TimedOut,
                "the message did not arrive or leave within the frame timeout",
            ));
        }
        let socket = self.wire.socket();
        if read {
            self.read_armed = true;
            socket.set_read_timeout(Some(left))
        } else {
            self.write_armed = true;
            socket.set_write_timeout(Some(left))
        }
    }
}

impl Read for DeadlineWire {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.head.position() < self.head.get_ref().len() as u64 {
            return self.head.read(buf);
        }
        self.arm(true)?;
        self.wire.read(buf)
    }
}

impl Write for DeadlineWire {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.arm(false)?;
        self.wire.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // A plain socket's flush writes nothing (its writes went out whole): no timeout to set.
        if matches!(self.wire, ServerWire::Plain(_)) {
            return Ok(());
        }
        self.arm(false)?;
        self.wire.flush()
    }
}
