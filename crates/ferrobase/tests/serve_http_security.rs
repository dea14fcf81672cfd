//! The HTTP port (`--http-port`: metrics, console, heat map, slow log, log levels) beside TLS,
//! logins and ACLs (`docs/design/operations.md`, "Security"): HTTPS with the server's
//! certificate; with ACLs, HTTP Basic logins against the `--auth-file` passwords (or the client
//! certificate's CN with `--tls-client-ca`), 401 with a Basic challenge without a user, 403
//! without the grant a page needs: READ on a table for its page and heat map, global ADMIN for
//! the server-wide pages and the log level change, any authenticated user for `/metrics`.

mod serve_harness;

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use serve_harness::passwd;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use test_certs::TestPki;

/// A `ferrobase serve --http-port 0 EXTRA...`, killed when dropped.
struct Served {
    child: Child,
    thrift: SocketAddr,
    http: SocketAddr,
    http_line: String,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
            .args(["serve", "--port", "0", "--http-port", "0"])
            .arg("--data")
            .arg(dir.path())
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (mut thrift, mut http) = (None, None);
        while thrift.is_none() {
            let mut line = String::new();
            assert!(out.read_line(&mut line).unwrap() > 0, "serve ended early");
            let addr: SocketAddr = line
                .split_whitespace()
                .find_map(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("no address in {line:?}"));
            if line.contains("serving HTTP (metrics) on") {
                http = Some((addr, line.trim().to_string()));
            } else if line.contains("the HBase Thrift API") {
                thrift = Some(addr);
            }
        }
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let (http, http_line) = http.expect("an HTTP line before the Thrift one");
        Served {
            child,
            thrift: thrift.unwrap(),
            http,
            http_line,
            _dir: dir,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer: status, headers (lower-case names), body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// How a request reaches the port.
enum Via<'a> {
    Plain,
    /// HTTPS trusting the CA, with a client certificate of `Some(user)`.
    Tls(&'a TestPki, Option<&'a str>),
}

/// `METHOD path` (with Basic credentials `user:password` when given) over `via`.
fn request(
    addr: SocketAddr,
    via: &Via<'_>,
    method: &str,
    path: &str,
    login: Option<(&str, &str)>,
    body: &str,
) -> Answer {
    let sock = TcpStream::connect(addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut wire: Box<dyn ReadWrite> = match via {
        Via::Plain => Box::new(sock),
        Via::Tls(pki, user) => {
            let identity = user.map(|u| pki.client(u));
            let client = ferrobase_gateway::tls::TlsClient::from_pem_files(
                &pki.path("ca.pem"),
                identity.as_ref().map(|(c, k)| (c.as_path(), k.as_path())),
            )
            .unwrap();
            Box::new(client.connect("localhost", sock).unwrap())
        }
    };
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    if let Some((u, p)) = login {
        let creds = base64_encode(format!("{u}:{p}").as_bytes());
        head.push_str(&format!("Authorization: Basic {creds}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    head.push_str(body);
    wire.write_all(head.as_bytes()).unwrap();
    wire.flush().unwrap();
    let mut raw = Vec::new();
    let _ = wire.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a header and a body");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `ferrobase shell` statements over TLS as `user` with a password.
fn shell(srv: &Served, pki: &TestPki, user: &str, password: &str, statements: &str) {
    let out = serve_harness::run(
        &[
            "shell",
            "-n",
            "--connect",
            &format!("thrift://{}", srv.thrift),
            "--tls-ca",
            pki.path("ca.pem").to_str().unwrap(),
            "--login",
            user,
        ],
        &[("FERROBASE_PASSWORD", password)],
        statements,
    );
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn https_with_logins_answers_401_without_a_user_and_403_without_the_grant() {
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let auth = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        auth.path(),
        passwd("admin", "adm1n") + &passwd("alice", "al1ce") + &passwd("bob", "b0b"),
    )
    .unwrap();
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let (cert, key) = (p(pki.path("server.pem")), p(pki.path("server.key")));
    let srv = Served::start(&[
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--auth-file",
        auth.path().to_str().unwrap(),
        "--superuser",
        "admin",
    ]);
    assert!(srv.http_line.ends_with("over HTTPS"), "{}", srv.http_line);
    shell(
        &srv,
        &pki,
        "admin",
        "adm1n",
        "create 't', 'cf'\nput 't', 'r1', 'cf:q', 'v'\ncreate 'u', 'cf'\n\
         grant 'alice', 'R', 't'\ngrant 'bob', 'A'\n",
    );
    let tls = Via::Tls(&pki, None);
    let get =
        |path: &str, login: Option<(&str, &str)>| request(srv.http, &tls, "GET", path, login, "");
    // Plaintext on the HTTPS port: no answer.
    let mut plain = TcpStream::connect(srv.http).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    plain.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let _ = plain.read_to_end(&mut got);
    assert!(
        !String::from_utf8_lossy(&got).contains("ferrobase_"),
        "plaintext was answered"
    );
    // No user: 401 with a Basic challenge, every page; a wrong password or an unknown user too.
    let challenged = |a: &Answer, what: &str| {
        assert_eq!(a.status, 401, "{what}: {a:?}");
        assert_eq!(
            a.header("www-authenticate"),
            Some("Basic realm=\"ferrobase\""),
            "{a:?}"
        );
        assert!(!a.body.contains("ferrobase_"), "{a:?}");
    };
    for path in [
        "/",
        "/metrics",
        "/table/t",
        "/heatmap/t",
        "/slowlog",
        "/logLevel",
    ] {
        challenged(&get(path, None), path);
    }
    challenged(
        &get("/metrics", Some(("alice", "guess"))),
        "a wrong password",
    );
    challenged(&get("/metrics", Some(("mallory", "x"))), "an unknown user");
    // Two failures from this address: its back-off (200 ms) runs out before the logins below.
    std::thread::sleep(Duration::from_millis(400));
    let alice = Some(("alice", "al1ce"));
    let bob = Some(("bob", "b0b"));
    let admin = Some(("admin", "adm1n"));
    // /metrics: every authenticated user, as HBase's instrumentation servlets.
    for login in [alice, bob, admin] {
        let a = get("/metrics", login);
        assert_eq!(a.status, 200, "{login:?}: {a:?}");
        assert!(a.body.contains("ferrobase_"), "{a:?}");
    }
    // A table's page and heat map: READ on the table.
    for path in ["/table/t", "/heatmap/t", "/heatmap/t?format=json"] {
        assert_eq!(get(path, alice).status, 200, "{path}");
        assert_eq!(get(path, admin).status, 200, "{path}");
        let a = get(path, bob);
        assert_eq!(a.status, 403, "{path}: {a:?}");
        assert!(a.body.contains("READ on table t"), "{a:?}");
    }
    for path in ["/table/u", "/heatmap/u"] {
        let a = get(path, alice);
        assert_eq!(a.status, 403, "{path}: {a:?}");
        assert!(!a.body.contains("region"), "{a:?}");
    }
    // The server-wide pages: global ADMIN (bob) or a superuser, not a table's READ.
    for path in ["/", "/slowlog", "/slowlog?format=json", "/logLevel"] {
        let a = get(path, alice);
        assert_eq!(a.status, 403, "{path}: {a:?}");
        assert!(a.body.contains("global ADMIN"), "{a:?}");
        assert_eq!(get(path, bob).status, 200, "{path}");
        assert_eq!(get(path, admin).status, 200, "{path}");
    }
    let console = get("/", admin);
    assert!(console.body.contains("/table/t"), "{console:?}");
    // Changing a log level: global ADMIN.
    let post = |login| request(srv.http, &tls, "POST", "/logLevel", login, "level=debug");
    let a = post(None);
    assert_eq!(a.status, 401, "{a:?}");
    let a = post(alice);
    assert_eq!(a.status, 403, "{a:?}");
    let a = post(bob);
    assert_eq!(a.status, 200, "{a:?}");
}

#[test]
fn mutual_tls_names_the_user_of_each_request() {
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let (cert, key, ca) = (
        p(pki.path("server.pem")),
        p(pki.path("server.key")),
        p(pki.path("ca.pem")),
    );
    let srv = Served::start(&[
        "--tls-cert",
        &cert,
        "--tls-key",
        &key,
        "--tls-client-ca",
        &ca,
        "--superuser",
        "admin",
    ]);
    let as_user = |user: &str, path: &str| {
        request(srv.http, &Via::Tls(&pki, Some(user)), "GET", path, None, "")
    };
    assert_eq!(as_user("admin", "/").status, 200);
    assert_eq!(as_user("carol", "/metrics").status, 200);
    let a = as_user("carol", "/");
    assert_eq!(a.status, 403, "{a:?}");
    // No client certificate: the handshake is refused (the server asks for one).
    let sock = TcpStream::connect(srv.http).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let client =
        ferrobase_gateway::tls::TlsClient::from_pem_files(&pki.path("ca.pem"), None).unwrap();
    let answered = client.connect("localhost", sock).ok().and_then(|mut w| {
        w.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").ok()?;
        let mut got = Vec::new();
        w.read_to_end(&mut got).ok()?;
        Some(String::from_utf8_lossy(&got).into_owned())
    });
    assert!(
        answered
            .as_deref()
            .is_none_or(|a| !a.contains("ferrobase_")),
        "{answered:?}"
    );
}

#[test]
fn tls_without_logins_serves_https_to_everyone() {
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let (cert, key) = (p(pki.path("server.pem")), p(pki.path("server.key")));
    let srv = Served::start(&["--tls-cert", &cert, "--tls-key", &key]);
    let a = request(srv.http, &Via::Tls(&pki, None), "GET", "/", None, "");
    assert_eq!(a.status, 200, "{a:?}");
    let a = request(srv.http, &Via::Tls(&pki, None), "GET", "/metrics", None, "");
    assert_eq!(a.status, 200, "{a:?}");
}

#[test]
fn the_http_port_refuses_acls_it_could_not_check_and_passwords_in_the_clear() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let auth = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(auth.path(), passwd("admin", "adm1n")).unwrap();
    let auth = auth.path().to_str().unwrap();
    for (extra, says) in [
        (&["--acl"][..], "needs a way to know its users"),
        (&["--auth-file", auth][..], "over TLS only"),
    ] {
        let mut args = vec!["serve", "--data", data, "--port", "0", "--http-port", "0"];
        args.extend_from_slice(extra);
        let out = serve_harness::run(&args, &[], "");
        assert!(!out.status.success(), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
    // Without TLS or ACLs the port serves as before.
    let srv = Served::start(&[]);
    let a = request(srv.http, &Via::Plain, "GET", "/metrics", None, "");
    assert_eq!(a.status, 200, "{a:?}");
}
