//! The authentication decoders never panic on bytes from the network or a file: the SASL PLAIN
//! negotiation (`ferrobase_gateway::sasl::accept_plain`), the password file
//! (`PasswordFile::parse`) and the subject CN of a client certificate (`tls::common_name`).
//! The first byte of an input picks the decoder.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/auth_negotiation/`, `fuzz/regressions/auth_negotiation/`).

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

/// `START PLAIN`, then `OK \0u\0p`: the seed `plain-login` after its selector byte.
const PLAIN_LOGIN: &[u8] = b"\x01\x00\x00\x00\x05PLAIN\x02\x00\x00\x00\x04\x00u\x00p";

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 3 {
        0 => {
            let users = PasswordFile::parse(USERS).expect("the harness's password file");
            let answer = accept_plain(&mut Peer(Cursor::new(rest.to_vec())), &users);
            if let Ok(user) = &answer {
                assert_eq!(user, "u", "only u's password logs in");
            }
            // The seed that logs in must keep logging in.
            if rest == PLAIN_LOGIN {
                assert_eq!(answer.unwrap(), "u");
            }
        }
        1 => {
            if let Err((line, _)) = PasswordFile::parse(&String::from_utf8_lossy(rest)) {
                assert!(line >= 1);
            }
        }
        _ => {
            let _ = ferrobase_gateway::tls::common_name(rest);
        }
    }
}
