//! Password authentication on the Thrift port: Thrift's SASL transport (`TSaslServerTransport`,
//! as HBase's Thrift server uses for Kerberos) with the PLAIN mechanism (RFC 4616), checked
//! against a file of PBKDF2-HMAC-SHA256 password hashes.
//!
//! The negotiation, before any call: the client sends `START` with the mechanism name, then
//! `OK` (or `COMPLETE`) with `authzid NUL authcid NUL password`; the server answers `COMPLETE`
//! (the user is `authcid`) or `BAD` and closes. Each negotiation message is a status byte, a
//! 4-byte big-endian length and the payload. Afterwards every message travels as a frame (a
//! 4-byte length, then the bytes), which the server reads as Thrift's framed transport. PLAIN
//! sends the password as is: serve it over TLS on any network the operator does not trust.

use ring::{pbkdf2, rand::SecureRandom};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::Path;

/// Negotiation message statuses (`TSaslTransport.NegotiationStatus`).
const START: u8 = 1;
const OK: u8 = 2;
const BAD: u8 = 3;
const ERROR: u8 = 4;
const COMPLETE: u8 = 5;

/// The longest negotiation payload accepted (a user, a password and a mechanism name).
const MAX_PAYLOAD: usize = 4096;

/// PBKDF2 rounds of new hashes.
const ROUNDS: u32 = 100_000;

/// A failed authentication or a bad password file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The password file could not be read.
    #[error("reading password file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line of the password file is not `user:pbkdf2-sha256:ROUNDS:SALT:HASH`.
    #[error("password file {path} line {line}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The client did not follow the SASL negotiation.
    #[error("SASL negotiation: {0}")]
    Protocol(String),
    /// Unknown user or wrong password.
    #[error("authentication failed for user {0:?}")]
    Refused(String),
    /// The socket failed.
    #[error("SASL negotiation: {0}")]
    Io(#[from] std::io::Error),
}

struct Credential {
    rounds: NonZeroU32,
    salt: Vec<u8>,
    hash: Vec<u8>,
}

/// Users and their password hashes (`--auth-file`). Lines `user:pbkdf2-sha256:ROUNDS:SALT:HASH`
/// (salt and hash in hex), as `ferrobase passwd USER` prints them; `#` starts a comment.
pub struct PasswordFile {
    users: HashMap<String, Credential>,
}

impl std::fmt::Debug for PasswordFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PasswordFile({} users)", self.users.len())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

impl PasswordFile {
    /// Reads a password file.
    pub fn load(path: &Path) -> Result<PasswordFile, AuthError> {
        let text = std::fs::read_to_string(path).map_err(|source| AuthError::Read {
            path: path.display().to_string(),
            source,
        })?;
        PasswordFile::parse(&text).map_err(|(line, reason)| AuthError::Format {
            path: path.display().to_string(),
            line,
            reason,
        })
    }

    /// Parses password-file text; the error is a line number and the reason.
    pub fn parse(text: &str) -> Result<PasswordFile, (usize, String)> {
        let mut users = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |r: &str| (i + 1, r.to_string());
            let parts: Vec<&str> = line.split(':').collect();
            let [user, scheme, rounds, salt, hash] = parts[..] else {
                return Err(bad("expected user:pbkdf2-sha256:ROUNDS:SALT:HASH"));
            };
            if scheme != "pbkdf2-sha256" {
                return Err(bad("the only scheme is pbkdf2-sha256"));
            }
            let rounds = rounds
                .parse::<u32>()
                .ok()
                .and_then(NonZeroU32::new)
                .ok_or_else(|| bad("ROUNDS is not a positive number"))?;
            let salt = unhex(salt).ok_or_else(|| bad("SALT is not hex"))?;
            let hash = unhex(hash).ok_or_else(|| bad("HASH is not hex"))?;
            users.insert(user.to_string(), Credential { rounds, salt, hash });
        }
        Ok(PasswordFile { users })
    }

    /// True when `password` is `user`'s (compared in constant time; an unknown user costs the
    /// same hashing, so timing does not tell which users exist).
    pub fn verify(&self, user: &str, password: &[u8]) -> bool {
        let unknown = Credential {
            rounds: NonZeroU32::new(ROUNDS).expect("ROUNDS > 0"),
            salt: vec![0; 16],
            hash: vec![0; 32],
        };
        let (c, known) = match self.users.get(user) {
            Some(c) => (c, true),
            None => (&unknown, false),
        };
        let matches = pbkdf2::verify(
            pbkdf2::PBKDF2_HMAC_SHA256,
            c.rounds,
            &c.salt,
            password,
            &c.hash,
        )
        .is_ok();
        known && matches
    }

    /// A password-file line for `user` with a fresh random salt.
    pub fn hash_line(user: &str, password: &[u8]) -> String {
        let mut salt = [0u8; 16];
        ring::rand::SystemRandom::new()
            .fill(&mut salt)
            .expect("the system's random source");
        let mut hash = [0u8; 32];
        let rounds = NonZeroU32::new(ROUNDS).expect("ROUNDS > 0");
        pbkdf2::derive(
            pbkdf2::PBKDF2_HMAC_SHA256,
            rounds,
            &salt,
            password,
            &mut hash,
        );
        format!(
            "{user}:pbkdf2-sha256:{ROUNDS}:{}:{}",
            hex(&salt),
            hex(&hash)
        )
    }
}

fn read_message<S: Read>(wire: &mut S) -> Result<(u8, Vec<u8>), AuthError> {
    let mut head = [0u8; 5];
    wire.read_exact(&mut head)?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_PAYLOAD {
        return Err(AuthError::Protocol(format!(
            "a negotiation message of {len} bytes (more than {MAX_PAYLOAD})"
        )));
    }
    let mut payload = vec![0u8; len];
    wire.read_exact(&mut payload)?;
    Ok((head[0], payload))
}

fn write_message<S: Write>(wire: &mut S, status: u8, payload: &[u8]) -> std::io::Result<()> {
    let mut m = Vec::with_capacity(5 + payload.len());
    m.push(status);
    m.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    m.extend_from_slice(payload);
    wire.write_all(&m)?;
    wire.flush()
}

/// Runs the server side of the negotiation and returns the authenticated user. On failure the
/// client is told why (`BAD`) before the error is returned; the caller closes the connection.
pub fn accept_plain<S: Read + Write>(
    wire: &mut S,
    passwords: &PasswordFile,
) -> Result<String, AuthError> {
    accept_plain_from(wire, passwords, None)
}

/// [`accept_plain`] for a client at `from`, whose failed logins `throttle` counts: while the
/// address waits out its back-off the password is not checked (no PBKDF2 spent on it) and the
/// login is refused saying how long to wait, so one address's guesses cannot take the CPU that
/// other clients' logins need.
pub fn accept_plain_from<S: Read + Write>(
    wire: &mut S,
    passwords: &PasswordFile,
    from: Option<(&LoginThrottle, IpAddr)>,
) -> Result<String, AuthError> {
    let outcome = negotiate(wire, passwords, from);
    if let Err(e) = &outcome {
        if !matches!(e, AuthError::Io(_)) {
            let _ = write_message(wire, BAD, e.to_string().as_bytes());
        }
    }
    outcome
}

fn negotiate<S: Read + Write>(
    wire: &mut S,
    passwords: &PasswordFile,
    from: Option<(&LoginThrottle, IpAddr)>,
) -> Result<String, AuthError> {
    let (status, mechanism) = read_message(wire)?;
    if status != START {
        return Err(AuthError::Protocol(format!(
            "expected START (1), got status {status}: this port needs SASL PLAIN authentication"
        )));
    }
    if mechanism != b"PLAIN" {
        return Err(AuthError::Protocol(format!(
            "unsupported mechanism {:?}: this server takes PLAIN",
            String::from_utf8_lossy(&mechanism)
        )));
    }
    let (status, response) = read_message(wire)?;
    if status != OK && status != COMPLETE {
        return Err(AuthError::Protocol(format!(
            "expected the PLAIN response (OK or COMPLETE), got status {status}"
        )));
    }
    let mut parts = response.splitn(3, |&b| b == 0);
    let (Some(authzid), Some(authcid), Some(password)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(AuthError::Protocol(
            "a PLAIN response is authzid NUL authcid NUL password".into(),
        ));
    };
    let user = String::from_utf8_lossy(authcid).into_owned();
    if !authzid.is_empty() && authzid != authcid {
        return Err(AuthError::Protocol(format!(
            "user {user:?} may not act as {:?} (no proxy users)",
            String::from_utf8_lossy(authzid)
        )));
    }
    let verified = match from {
        Some((throttle, ip)) => throttle
            .attempt(ip, || passwords.verify(&user, password))
            .map_err(|wait| {
                AuthError::Protocol(format!(
                    "too many failed logins from {ip}: the next password is checked in {} ms",
                    wait.as_millis().max(1)
                ))
            })?,
        None => passwords.verify(&user, password),
    };
    if !verified {
        return Err(AuthError::Refused(user));
    }
    write_message(wire, COMPLETE, b"")?;
    Ok(user)
}

/// Failed logins by client address, each address's back-off doubling from 100 ms to 5 s with
/// its failures and cleared by a success; at most 10,000 addresses kept (the longest-waited
/// dropped first).
///
/// The back-off cannot be used to slow others: it counts per address, and the password checks
/// of every address with a failure on record share one worker ([`LoginThrottle::attempt`]), so
/// many addresses guessing at once take one core's worth of password hashing at most and the
/// logins of addresses without failures never wait behind theirs.
#[derive(Debug, Default)]
pub struct LoginThrottle {
    failures: std::sync::Mutex<std::collections::HashMap<IpAddr, (u32, std::time::Instant)>>,
    /// Held while the password of an address with failures on record is checked.
    suspect: std::sync::Mutex<()>,
}

impl LoginThrottle {
    const FIRST: std::time::Duration = std::time::Duration::from_millis(100);
    const MOST: std::time::Duration = std::time::Duration::from_secs(5);
    const ADDRESSES: usize = 10_000;

    /// A throttle with no failures recorded.
    pub fn new() -> LoginThrottle {
        LoginThrottle::default()
    }

    fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<IpAddr, (u32, std::time::Instant)>>
    {
        self.failures.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `Err(wait)` while `ip` is backing off.
    pub fn check(&self, ip: IpAddr) -> Result<(), std::time::Duration> {
        match self.map().get(&ip) {
            Some((_, until)) if *until > std::time::Instant::now() => {
                Err(until.saturating_duration_since(std::time::Instant::now()))
            }
            _ => Ok(()),
        }
    }

    /// Records a failed login from `ip`.
    pub fn failed(&self, ip: IpAddr) {
        let mut map = self.map();
        if map.len() >= Self::ADDRESSES && !map.contains_key(&ip) {
            if let Some(oldest) = map
                .iter()
                .min_by_key(|(_, (_, until))| *until)
                .map(|(k, _)| *k)
            {
                map.remove(&oldest);
            }
        }
        let entry = map.entry(ip).or_insert((0, std::time::Instant::now()));
        entry.0 = entry.0.saturating_add(1);
        let backoff = Self::FIRST
            .saturating_mul(1u32 << (entry.0 - 1).min(6))
            .min(Self::MOST);
        entry.1 = std::time::Instant::now() + backoff;
    }

    /// A successful login from `ip` clears its failures.
    pub fn succeeded(&self, ip: IpAddr) {
        self.map().remove(&ip);
    }

    /// A password from `ip`, checked by `verify` (the costly hash) as the back-off allows, the
    /// outcome recorded. `Err(wait)`: not checked, `ip` is backing off, or another address with
    /// failures on record is being checked (one at a time: `wait` is the first back-off step).
    pub fn attempt(
        &self,
        ip: IpAddr,
        verify: impl FnOnce() -> bool,
    ) -> Result<bool, std::time::Duration> {
        self.check(ip)?;
        let suspect = self.map().contains_key(&ip);
        let _turn = if suspect {
            match self.suspect.try_lock() {
                Ok(turn) => Some(turn),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => return Err(Self::FIRST),
            }
        } else {
            None
        };
        let ok = verify();
        if ok {
            self.succeeded(ip);
        } else {
            self.failed(ip);
        }
        Ok(ok)
    }
}

/// Runs the client side of the negotiation (`TSaslClientTransport` with PLAIN). Afterwards
/// every message must be sent and read as a frame.
pub fn connect_plain<S: Read + Write>(
    wire: &mut S,
    user: &str,
    password: &str,
) -> Result<(), AuthError> {
    write_message(wire, START, b"PLAIN")?;
    let mut response = Vec::with_capacity(2 + user.len() + password.len());
    response.push(0);
    response.extend_from_slice(user.as_bytes());
    response.push(0);
    response.extend_from_slice(password.as_bytes());
    write_message(wire, OK, &response)?;
    match read_message(wire)? {
        (COMPLETE, _) => Ok(()),
        (status @ (BAD | ERROR), why) => Err(AuthError::Protocol(format!(
            "the server refused (status {status}): {}",
            String::from_utf8_lossy(&why)
        ))),
        (status, _) => Err(AuthError::Protocol(format!(
            "unexpected status {status} from the server"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_lines_verify_their_password_only() {
        let line = PasswordFile::hash_line("alice", b"s3cret");
        assert!(line.starts_with("alice:pbkdf2-sha256:100000:"));
        let file = PasswordFile::parse(&format!("# users\n{line}\n")).unwrap();
        assert!(file.verify("alice", b"s3cret"));
        assert!(!file.verify("alice", b"s3cret!"));
        assert!(!file.verify("bob", b"s3cret"));
        assert_eq!(
            PasswordFile::parse("bob:md5:1:00:00").unwrap_err(),
            (1, "the only scheme is pbkdf2-sha256".to_string())
        );
    }

    /// A socket's two directions in memory: what the peer sent, what was written back.
    struct Pipe {
        input: std::io::Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.input.read(buf)
        }
    }

    impl Write for Pipe {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.output.write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn plain_negotiation_names_the_user_or_refuses() {
        let file = PasswordFile::parse(&PasswordFile::hash_line("alice", b"pw")).unwrap();
        let client = |user: &str, password: &str| {
            let mut sent = Pipe {
                input: std::io::Cursor::new(Vec::new()),
                output: Vec::new(),
            };
            // The server's COMPLETE is not read back here: only what the client writes.
            let _ = connect_plain(&mut sent, user, password);
            sent.output
        };
        let mut pipe = Pipe {
            input: std::io::Cursor::new(client("alice", "pw")),
            output: Vec::new(),
        };
        assert_eq!(accept_plain(&mut pipe, &file).unwrap(), "alice");
        assert_eq!(pipe.output, [COMPLETE, 0, 0, 0, 0]);
        let mut pipe = Pipe {
            input: std::io::Cursor::new(client("alice", "nope")),
            output: Vec::new(),
        };
        assert!(matches!(
            accept_plain(&mut pipe, &file),
            Err(AuthError::Refused(u)) if u == "alice"
        ));
        assert_eq!(pipe.output[0], BAD);
        // Plain Thrift on a port that needs SASL: refused, nothing decoded.
        let mut pipe = Pipe {
            input: std::io::Cursor::new(vec![0x80, 1, 0, 1, 0, 0, 0, 0]),
            output: Vec::new(),
        };
        assert!(matches!(
            accept_plain(&mut pipe, &file),
            Err(AuthError::Protocol(_))
        ));
    }

    #[test]
    fn failed_logins_back_off_per_address_and_a_success_clears_them() {
        let t = LoginThrottle::new();
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        assert!(t.check(a).is_ok());
        t.failed(a);
        assert!(t.check(a).is_err());
        assert!(t.check(b).is_ok(), "another address is not slowed");
        t.failed(a);
        t.failed(a);
        let wait = t.check(a).unwrap_err();
        assert!(wait > std::time::Duration::from_millis(250), "{wait:?}");
        t.succeeded(a);
        assert!(t.check(a).is_ok());
    }
}
