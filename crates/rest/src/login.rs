//! Who an HTTP request is, for the doors that speak HTTP (REST, and `ferrobase serve`'s HTTP
//! port): an HTTP Basic login checked against the server's password file (over TLS only, with
//! the failed-login back-off per address), else the client certificate's CN.

use crate::http::{Request, Response};
use ferrobase_gateway::sasl::{LoginThrottle, PasswordFile};

/// How a door knows its users.
pub struct Logins<'a> {
    /// The password file, when logins are on.
    pub passwords: Option<&'a PasswordFile>,
    /// Whether the door is behind TLS (Basic logins are taken over TLS only).
    pub tls: bool,
    /// The failed-login back-off per address.
    pub throttle: &'a LoginThrottle,
    /// The door's 401 answer with a challenge, saying why.
    pub unauthorized: fn(&str) -> Response,
}

/// The user of `req`: its Basic login, else `cn` (the connection's client certificate); none is
/// the door's 401. `proven`: the connection's last accepted credentials, not checked again.
pub fn identify(
    logins: &Logins<'_>,
    req: &Request,
    cn: Option<&str>,
    peer: Option<std::net::IpAddr>,
    proven: &mut Option<(String, String)>,
) -> Result<String, Response> {
    let basic = req
        .header("Authorization")
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("Basic"))
        .map(|(_, creds)| creds.trim());
    match (basic, logins.passwords) {
        (Some(creds), Some(passwords)) => {
            if !logins.tls {
                return Err((logins.unauthorized)(
                    "HTTP Basic logins are taken over TLS only: the password would cross the \
                     network in the clear",
                ));
            }
            if let Some((header, user)) = proven.as_ref() {
                if header == creds {
                    return Ok(user.clone());
                }
            }
            let decoded = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, creds)
                .ok()
                .and_then(|b| String::from_utf8(b).ok());
            let Some((user, password)) = decoded.as_deref().and_then(|d| d.split_once(':')) else {
                return Err((logins.unauthorized)(
                    "malformed Basic credentials (base64 of user:password)",
                ));
            };
            let verified = match peer {
                Some(ip) => logins
                    .throttle
                    .attempt(ip, || passwords.verify(user, password.as_bytes()))
                    .map_err(|wait| {
                        (logins.unauthorized)(&format!(
                            "too many failed logins from {ip}: the next password is checked in \
                             {} ms",
                            wait.as_millis().max(1)
                        ))
                    })?,
                None => passwords.verify(user, password.as_bytes()),
            };
            if !verified {
                return Err((logins.unauthorized)("unknown user or wrong password"));
            }
            *proven = Some((creds.to_string(), user.to_string()));
            Ok(user.to_string())
        }
        _ => match cn {
            Some(cn) => Ok(cn.to_string()),
            None => Err((logins.unauthorized)(if logins.passwords.is_some() {
                "log in with HTTP Basic (a user of the server's password file)"
            } else {
                "present a client certificate: the server checks ACLs and knows its users by \
                 their certificates"
            })),
        },
    }
}
