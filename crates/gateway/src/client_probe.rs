//! Whether the client of a call still waits for its answer, for the reads of the call
//! ([`ferrobase_engine::call_budget::Cancel`]): a door whose handler thread owns the connection
//! (Thrift1, Thrift2) cannot see the client leave while it runs the call, so the reads look at
//! the socket themselves, every [`ferrobase_engine::call_budget::POLL_EVERY`] at most.

use ferrobase_engine::call_budget::Cancel;
use std::io::ErrorKind;
use std::net::TcpStream;

/// A duplicate of a connection's socket, held for one call. The client has gone when the
/// socket reads end-of-stream or fails (reset); bytes waiting (a pipelined call, a TLS
/// close_notify) or none yet mean it may still read the answer. A TLS client that sends
/// close_notify before closing is therefore seen only at its call's time budget.
#[derive(Debug)]
pub struct SocketProbe(TcpStream);

impl SocketProbe {
    /// A probe of `socket`'s connection (a duplicate handle; `None` when the process has no
    /// descriptor left for it: the call then runs to its budget).
    pub fn of(socket: &TcpStream) -> Option<SocketProbe> {
        socket.try_clone().ok().map(SocketProbe)
    }
}

impl Cancel for SocketProbe {
    fn client_gone(&self) -> bool {
        // The duplicate shares the socket's blocking mode: switched off for one look and back on,
        // on the thread that owns the connection while it does not read from it.
        if self.0.set_nonblocking(true).is_err() {
            return false;
        }
        let mut byte = [0u8; 1];
        let gone = match self.0.peek(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted),
        };
        let _ = self.0.set_nonblocking(false);
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::time::{Duration, Instant};

    #[test]
    fn a_probe_sees_a_client_leave_and_not_before() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let probe = SocketProbe::of(&server).unwrap();
        assert!(!probe.client_gone(), "connected, nothing sent");
        // The socket blocks again after a look: a read waits for its timeout.
        server
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let started = Instant::now();
        assert!((&server).read(&mut [0u8; 1]).is_err());
        assert!(started.elapsed() >= Duration::from_millis(80), "blocking");
        client.write_all(b"x").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(!probe.client_gone(), "a byte waiting: still there");
        drop(client);
        std::thread::sleep(Duration::from_millis(20));
        // The waiting byte comes first; once it is read, end-of-stream.
        assert_eq!((&server).read(&mut [0u8; 1]).unwrap(), 1);
        assert!(probe.client_gone(), "closed");
    }
}
