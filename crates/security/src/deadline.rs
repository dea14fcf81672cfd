//! A whole exchange bounded in time: each read and write on a socket waits at most what is left
//! of one deadline, so a peer that sends a byte now and then cannot stretch a handshake past it
//! (a per-read timeout alone restarts with every byte).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

/// `io` (whose socket is `socket`) with every read and write bounded by `deadline`.
pub struct Deadline<'a, S> {
    io: &'a mut S,
    socket: TcpStream,
    deadline: Instant,
}

impl<'a, S: Read + Write> Deadline<'a, S> {
    /// Bounds `io` by `deadline`; `socket` is a handle on `io`'s socket (a `try_clone`, held
    /// only for the exchange), used for its timeouts.
    pub fn new(io: &'a mut S, socket: TcpStream, deadline: Instant) -> Deadline<'a, S> {
        Deadline {
            io,
            socket,
            deadline,
        }
    }

    /// Sets the socket's timeouts to what is left; `TimedOut` once nothing is.
    fn arm(&self) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the handshake did not finish within its deadline",
            ));
        }
        self.socket.set_read_timeout(Some(left))?;
        self.socket.set_write_timeout(Some(left))
    }

    /// Clears the socket's timeouts (the exchange is over).
    pub fn finish(self) -> io::Result<()> {
        self.socket.set_read_timeout(None)?;
        self.socket.set_write_timeout(None)
    }
}

impl<S: Read + Write> Read for Deadline<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.arm()?;
        self.io.read(buf)
    }
}

impl<S: Read + Write> Write for Deadline<'_, S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.arm()?;
        self.io.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.arm()?;
        self.io.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::time::Duration;

    #[test]
    fn a_trickling_peer_meets_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            for _ in 0..40 {
                if s.write_all(b"x").is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let (mut sock, _) = listener.accept().unwrap();
        let handle = sock.try_clone().unwrap();
        let started = Instant::now();
        let mut d = Deadline::new(&mut sock, handle, started + Duration::from_millis(400));
        let mut buf = [0u8; 1];
        let mut got = 0;
        let err = loop {
            match d.read(&mut buf) {
                Ok(0) => panic!("closed"),
                Ok(_) => got += 1,
                Err(e) => break e,
            }
        };
        assert!(got >= 2, "{got}");
        assert!(matches!(
            err.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ));
        assert!(
            started.elapsed() < Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
        drop(sock);
        peer.join().unwrap();
    }
}
