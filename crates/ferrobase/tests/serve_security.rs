//! `ferrobase serve`'s security options through the binary: the --insecure rule (a non-loopback
//! address in the clear needs --insecure, then warns), TLS with `ferrobase shell --connect`.

mod serve_harness;

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use serve_harness::passwd;
use std::io::Read;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use test_certs::TestPki;

/// A running `ferrobase serve`, killed on drop.
struct Serve {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(data: &std::path::Path, extra: &[&str]) -> Serve {
        let (child, addr) = serve_harness::spawn(data, extra, Stdio::piped());
        Serve { child, addr }
    }

    /// What the server wrote to stderr so far (it is stopped first).
    fn stop_and_stderr(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        err
    }
}

/// Runs `ferrobase ARGS` with `stdin` on its standard input.
fn ferrobase(args: &[&str], stdin: &str) -> std::process::Output {
    serve_harness::run(args, &[], stdin)
}

#[test]
fn serve_refuses_a_non_loopback_address_in_the_clear() {
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--bind", "0.0.0.0", "--port", "0", "--data"])
        .arg(data.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to serve 0.0.0.0 without TLS"),
        "{err}"
    );
    assert!(err.contains("--insecure"), "{err}");
    assert!(out.stdout.is_empty(), "nothing was served");
}

#[test]
fn serve_with_insecure_warns_and_serves() {
    let data = tempfile::tempdir().unwrap();
    let srv = Serve::start(data.path(), &["--bind", "0.0.0.0", "--insecure"]);
    assert_ne!(srv.addr.port(), 0);
    let err = srv.stop_and_stderr();
    assert!(
        err.contains("WARNING: serving 0.0.0.0 without TLS"),
        "{err}"
    );
}

#[test]
fn serve_on_loopback_needs_no_flag_and_prints_no_warning() {
    let data = tempfile::tempdir().unwrap();
    let srv = Serve::start(data.path(), &[]);
    let err = srv.stop_and_stderr();
    assert!(!err.contains("WARNING"), "{err}");
}

#[test]
fn serve_with_tls_on_any_address_needs_no_insecure() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let cert = pki.path("server.pem");
    let key = pki.path("server.key");
    let srv = Serve::start(
        data.path(),
        &[
            "--bind",
            "0.0.0.0",
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    let err = srv.stop_and_stderr();
    assert!(!err.contains("WARNING"), "{err}");
}

#[test]
fn shell_connects_over_mutual_tls() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let (cert, key) = pki.client("alice");
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (server_cert, server_key, ca) = (
        p(&pki.path("server.pem")),
        p(&pki.path("server.key")),
        p(&pki.path("ca.pem")),
    );
    let srv = Serve::start(
        data.path(),
        &[
            "--tls-cert",
            &server_cert,
            "--tls-key",
            &server_key,
            "--tls-client-ca",
            &ca,
            "--superuser",
            "alice",
        ],
    );
    let url = format!("thrift://{}", srv.addr);
    let out = ferrobase(
        &[
            "shell",
            "-n",
            "--connect",
            &url,
            "--tls-ca",
            &ca,
            "--tls-cert",
            &p(&cert),
            "--tls-key",
            &p(&key),
        ],
        "create 't', 'cf'\nput 't', 'r', 'cf:q', 'v'\nget 't', 'r'\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("value=v"), "{stdout}");
    // Without a client certificate the shell cannot run a statement.
    let out = ferrobase(
        &["shell", "-n", "--connect", &url, "--tls-ca", &ca],
        "list\n",
    );
    assert!(!out.status.success(), "{out:?}");
}

/// `ferrobase shell --connect` over mutual TLS as `user`, running `statements`.
fn shell_as(pki: &TestPki, addr: SocketAddr, user: &str, statements: &str) -> std::process::Output {
    let (cert, key) = (
        pki.path(&format!("{user}.pem")),
        pki.path(&format!("{user}.key")),
    );
    if !cert.exists() {
        pki.client(user);
    }
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    ferrobase(
        &[
            "shell",
            "-n",
            "--connect",
            &format!("thrift://{addr}"),
            "--tls-ca",
            &p(&pki.path("ca.pem")),
            "--tls-cert",
            &p(&cert),
            "--tls-key",
            &p(&key),
        ],
        statements,
    )
}

fn start_secure(data: &std::path::Path, pki: &TestPki) -> Serve {
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let (cert, key, ca) = (
        p(pki.path("server.pem")),
        p(pki.path("server.key")),
        p(pki.path("ca.pem")),
    );
    Serve::start(
        data,
        &[
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--tls-client-ca",
            &ca,
            "--superuser",
            "admin",
        ],
    )
}

#[test]
fn grants_survive_a_restart_and_bind_the_certificate_user() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let mut srv = start_secure(data.path(), &pki);
    let out = shell_as(
        &pki,
        srv.addr,
        "admin",
        "create 't', 'cf'\nput 't', 'r', 'cf:q', 'v'\ngrant 'bob', 'R', 't'\n\
         grant 'carol', 'W', 't', 'cf', 'q'\n",
    );
    assert!(out.status.success(), "{out:?}");
    // A clean stop (SIGTERM), then the same data directory again.
    let stopped = Command::new("kill")
        .args(["-TERM", &srv.child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    assert!(srv.child.wait().unwrap().success(), "a clean stop");
    drop(srv);
    let srv = start_secure(data.path(), &pki);
    let out = shell_as(&pki, srv.addr, "admin", "user_permission 't'\n");
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(
        listing.contains("default,t,,: [Permission: actions=READ]"),
        "{listing}"
    );
    assert!(
        listing.contains("default,t,cf,q: [Permission: actions=WRITE]"),
        "{listing}"
    );
    // bob reads, and may not write.
    let out = shell_as(&pki, srv.addr, "bob", "get 't', 'r'\n");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("value=v"));
    let out = shell_as(&pki, srv.addr, "bob", "put 't', 'r', 'cf:q', 'w'\n");
    assert!(!out.status.success());
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains(
            "Insufficient permissions (user=bob, scope=default:t, family=cf:q, \
             params=[table=default:t,family=cf:q],action=WRITE)"
        ),
        "{text}"
    );
    // A user without grants sees no table and cannot grant.
    let out = shell_as(&pki, srv.addr, "dave", "list\ngrant 'dave', 'RWXCA'\n");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("0 row(s)"), "{text}");
    assert!(
        text.contains("Insufficient permissions for user 'dave' (global, action=ADMIN)"),
        "{text}"
    );
}

fn shell_with_password(
    addr: SocketAddr,
    user: &str,
    password: &str,
    statements: &str,
) -> std::process::Output {
    serve_harness::run(
        &[
            "shell",
            "-n",
            "--connect",
            &format!("thrift://{addr}"),
            "--login",
            user,
        ],
        &[("FERROBASE_PASSWORD", password)],
        statements,
    )
}

#[test]
fn passwords_authenticate_users_with_sasl_plain() {
    let data = tempfile::tempdir().unwrap();
    let auth = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        auth.path(),
        passwd("admin", "adm1n") + &passwd("bob", "b0b pass"),
    )
    .unwrap();
    let auth_file = auth.path().to_str().unwrap();
    let srv = Serve::start(
        data.path(),
        &["--auth-file", auth_file, "--superuser", "admin"],
    );
    let out = shell_with_password(
        srv.addr,
        "admin",
        "adm1n",
        "create 't', 'cf'\nput 't', 'r', 'cf:q', 'v'\ngrant 'bob', 'R', 't'\n",
    );
    assert!(out.status.success(), "{out:?}");
    let out = shell_with_password(srv.addr, "bob", "b0b pass", "get 't', 'r'\n");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("value=v"));
    let out = shell_with_password(srv.addr, "bob", "b0b pass", "put 't', 'r', 'cf:q', 'x'\n");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("action=WRITE"),
        "{out:?}"
    );
    // A wrong password, an unknown user, no authentication at all: no statement runs.
    let out = shell_with_password(srv.addr, "bob", "guess", "list\n");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("authentication failed for user \"bob\""),
        "{out:?}"
    );
    let out = shell_with_password(srv.addr, "mallory", "x", "list\n");
    assert!(!out.status.success());
    let url = format!("thrift://{}", srv.addr);
    let out = ferrobase(&["shell", "-n", "--connect", &url], "list\n");
    assert!(!out.status.success(), "{out:?}");
}

#[test]
fn serve_takes_one_way_to_authenticate() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let auth = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(auth.path(), passwd("admin", "pw")).unwrap();
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--data"])
        .arg(data.path())
        .args(["--tls-cert", &p(pki.path("server.pem"))])
        .args(["--tls-key", &p(pki.path("server.key"))])
        .args(["--tls-client-ca", &p(pki.path("ca.pem"))])
        .args(["--auth-file", auth.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("choose one"));
}

#[test]
fn a_grant_survives_the_server_being_killed() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let srv = start_secure(data.path(), &pki);
    let out = shell_as(&pki, srv.addr, "admin", "grant 'bob', 'RW', '@default'\n");
    assert!(out.status.success(), "{out:?}");
    drop(srv); // SIGKILL: no clean close
    let srv = start_secure(data.path(), &pki);
    let out = shell_as(&pki, srv.addr, "admin", "user_permission '@default'\n");
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(
        listing.contains("bob") && listing.contains("default,,,: [Permission: actions=READ,WRITE]"),
        "{listing}"
    );
}

#[test]
fn apps_connect_over_mutual_tls() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let (cert, key) = pki.client("admin");
    let srv = start_secure(data.path(), &pki);
    let p = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let out = ferrobase(
        &[
            "app",
            "game-log",
            "--connect",
            &format!("thrift://{}", srv.addr),
            "--tls-ca",
            &p(&pki.path("ca.pem")),
            "--tls-cert",
            &p(&cert),
            "--tls-key",
            &p(&key),
            "load-sample",
        ],
        "",
    );
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("logged "));
}

/// The native RPC door serves TLS, and ACLs only with one way to know its users (a client
/// certificate's CN with `--tls-client-ca`, or `--rpc-auth simple`); logins are refused beside
/// `--rpc-port` (fail closed), and `--rpc-allow-plaintext` needs TLS, no client CA and, off
/// loopback, `--insecure`.
#[test]
fn the_native_door_serves_tls_and_acls_but_refuses_unknown_users_and_stray_plaintext() {
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let (cert, key, ca) = (
        pki.path("server.pem").display().to_string(),
        pki.path("server.key").display().to_string(),
        pki.path("ca.pem").display().to_string(),
    );
    let data = tempfile::tempdir().unwrap();
    let data = data.path().display().to_string();
    let tls = ["--tls-cert", cert.as_str(), "--tls-key", key.as_str()];
    let refused = |extra: &[&str], want: &str| {
        let mut args = vec!["serve", "--port", "0", "--rpc-port", "0", "--data", &data];
        args.extend_from_slice(extra);
        let out = ferrobase(&args, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?} was served");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "nothing was served");
    };
    refused(
        &[
            &tls[..],
            &["--tls-client-ca", ca.as_str(), "--rpc-auth", "simple"],
        ]
        .concat(),
        "two ways to name the user",
    );
    refused(
        &[
            &tls[..],
            &["--tls-client-ca", ca.as_str(), "--rpc-allow-plaintext"],
        ]
        .concat(),
        "a plaintext connection carries no certificate",
    );
    let users = "--rpc-port with ACLs needs a way to know its users";
    refused(&["--acl"], users);
    refused(&["--superuser", "admin"], users);
    refused(&["--rpc-auth", "simple"], "it needs --rpc-port and --acl");
    refused(&["--rpc-hide-tables"], "--rpc-hide-tables hides tables");
    refused(&["--acl", "--rpc-auth", "kerberos"], "--rpc-auth kerberos");
    let passwords = certs.path().join("passwords");
    std::fs::write(&passwords, passwd("alice", "secret")).unwrap();
    let passwords = passwords.display().to_string();
    refused(
        &[&tls[..], &["--auth-file", passwords.as_str()]].concat(),
        "--rpc-port cannot be combined with --auth-file yet",
    );
    refused(&["--rpc-allow-plaintext"], "--rpc-allow-plaintext");
    refused(
        &[&tls[..], &["--bind", "0.0.0.0", "--rpc-allow-plaintext"]].concat(),
        "refusing to serve HBase's native RPC in plaintext on 0.0.0.0",
    );
    // TLS alone is served, and says so.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--rpc-port", "0", "--data", &data])
        .args(tls)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut first,
    )
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.contains("native RPC on 127.0.0.1:"), "{first}");
    assert!(
        first.contains(" over TLS (advertised as localhost:"),
        "{first}"
    );
}

/// `serve --thrift2-port` with mutual TLS and ACLs: the Thrift2 door's users are the
/// certificates' CNs, and a grant made through Thrift1 (the shell) applies on Thrift2.
#[test]
fn the_thrift2_door_serves_acls_with_the_grants_of_the_thrift1_door() {
    use ferrobase_gateway::thrift::{Binary, Budget, Codec, Limits, MessageHeader, MessageType};
    use ferrobase_gateway::thrift::{TStruct, TType, TValue};
    use ferrobase_gateway::tls::TlsClient;
    use std::io::{BufRead, Write};
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = TestPki::new(certs.path());
    let p = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--thrift2-port", "0", "--data"])
        .arg(data.path())
        .args([
            "--tls-cert",
            &p(pki.path("server.pem")),
            "--tls-key",
            &p(pki.path("server.key")),
            "--tls-client-ca",
            &p(pki.path("ca.pem")),
            "--superuser",
            "admin",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let (mut thrift1, mut thrift2) = (None, None);
    while thrift1.is_none() || thrift2.is_none() {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "serve ended");
        let addr: Option<SocketAddr> = line.split_whitespace().find_map(|w| w.parse().ok());
        if line.contains("Thrift2 API on") {
            assert!(line.contains(" over TLS"), "{line}");
            thrift2 = addr;
        } else if line.contains("Thrift API on") {
            thrift1 = addr;
        }
    }
    let srv = Serve {
        child,
        addr: thrift1.unwrap(),
    };
    let out = shell_as(
        &pki,
        srv.addr,
        "admin",
        "create 't', 'cf'\nput 't', 'r', 'cf:q', 'v'\ngrant 'bob', 'R', 't'\n",
    );
    assert!(out.status.success(), "{out:?}");
    // One Thrift2 call as `user` over mutual TLS: the success value or the TIOError message.
    let call = |user: &str, method: &str, args: TStruct| -> Result<Option<TValue>, String> {
        let (cert, key) = pki.client(user);
        let tls = TlsClient::from_pem_files(&pki.path("ca.pem"), Some((&cert, &key))).unwrap();
        let sock = std::net::TcpStream::connect(thrift2.unwrap()).unwrap();
        let mut wire = std::io::BufReader::new(tls.connect("localhost", sock).unwrap());
        let mut msg = Vec::new();
        Binary.write_header(
            &mut msg,
            &MessageHeader {
                name: method.into(),
                kind: MessageType::Call,
                seq_id: 1,
            },
        );
        Binary.write_struct(&mut msg, &args);
        wire.get_mut().write_all(&msg).unwrap();
        wire.get_mut().flush().unwrap();
        let limits = Limits::default();
        let mut b = Budget::new(&mut wire, &limits);
        assert_eq!(Binary.read_header(&mut b).unwrap().kind, MessageType::Reply);
        let body = Binary.read_struct(&mut b).unwrap();
        match body.get(1) {
            Some(TValue::Struct(e)) => Err(match e.get(1) {
                Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                _ => String::new(),
            }),
            _ => Ok(body.get(0).cloned()),
        }
    };
    let s = TValue::string;
    let get = TStruct::new()
        .with(1, s("t"))
        .with(2, TValue::Struct(TStruct::new().with(1, s("r"))));
    let put = TStruct::new().with(1, s("t")).with(
        2,
        TValue::Struct(TStruct::new().with(1, s("r")).with(
            2,
            TValue::List(
                TType::Struct,
                vec![TValue::Struct(
                    TStruct::new()
                        .with(1, s("cf"))
                        .with(2, s("q"))
                        .with(3, s("w")),
                )],
            ),
        )),
    );
    let read = call("bob", "get", get.clone()).unwrap();
    assert!(format!("{read:?}").contains("118"), "bob reads v: {read:?}");
    let refused = call("bob", "put", put.clone()).unwrap_err();
    assert!(
        refused.starts_with("org.apache.hadoop.hbase.security.AccessDeniedException: ")
            && refused.contains("user=bob")
            && refused.contains("action=WRITE"),
        "{refused}"
    );
    assert!(call("carol", "get", get)
        .unwrap_err()
        .contains("action=READ"));
    call("admin", "put", put).unwrap();
    drop(srv);
}
