//! The SASL PLAIN negotiation of a connection (`ferrobase_gateway::sasl::accept_plain`: message
//! framing, mechanism, the `authzid NUL user NUL password` response) never panics on bytes from
//! the network, and logs in only user `u` with the right password. The input is what the peer
//! sends; what it is answered is swallowed.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/sasl_negotiation/`, `fuzz/regressions/sasl_negotiation/`).

use ferrobase_gateway::sasl::{accept_plain, PasswordFile};
use std::io::{Cursor, Read, Write};

/// A peer that sent `input` and swallows what it is answered.
struct Peer(Cursor<Vec<u8>>);

impl Read for Peer {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Peer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One user, `u` with password `p`, hashed with one round so each input stays fast.
const USERS: &str = "u:pbkdf2-sha256:1:00:\
    5eb99ae75359d3f28687a801bfef3b51db23a66c71479185aa5bfa670ed08f17";

/// `START PLAIN`, then `OK \0u\0p`: the seed `plain-login`.
const PLAIN_LOGIN: &[u8] = b"\x01\x00\x00\x00\x05PLAIN\x02\x00\x00\x00\x04\x00u\x00p";

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let users = PasswordFile::parse(USERS).expect("the harness's password file");
    let answer = accept_plain(&mut Peer(Cursor::new(data.to_vec())), &users);
    if let Ok(user) = &answer {
        assert_eq!(user, "u", "only u's password logs in");
    }
    // The seed that logs in must keep logging in.
    if data == PLAIN_LOGIN {
        assert_eq!(answer.unwrap(), "u");
    }
}
