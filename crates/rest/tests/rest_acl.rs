//! ACLs on the REST door, from the attacker's side: HTTPS with users from client certificates
//! (`admin` the superuser) or HTTP Basic logins, every resource checked with the rules of the
//! other doors, refusals as HBase REST's 403 `Forbidden` and 401 for a request without a user.

#[path = "../../gateway/tests/support/test_certs.rs"]
mod test_certs;

use ferrobase_engine::{Engine, EngineOptions, Put};
use ferrobase_gateway::access::{AccessOptions, AclStore, Actions, Scope};
use ferrobase_gateway::sasl::PasswordFile;
use ferrobase_gateway::tls::{TlsClient, TlsServer};
use ferrobase_rest::{RestOptions, RestServer, RestStopHandle};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use test_certs::TestPki;

/// A REST door over HTTPS with ACLs, on a fresh engine holding table `t` (families `cf`,
/// `secret`; rows `r1`, `r2` with `cf:a` and `secret:x`) and table `u`.
struct Door {
    addr: SocketAddr,
    stop: RestStopHandle,
    serving: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    pki: TestPki,
    store: Arc<AclStore>,
    engine: Engine,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Drop for Door {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(s) = self.serving.take() {
            s.join().unwrap().unwrap();
        }
    }
}

impl Door {
    /// Mutual TLS (users: the certificates' CNs), or, with `passwords`, TLS with HTTP Basic.
    fn start(passwords: Option<PasswordFile>) -> Door {
        let data = tempfile::tempdir().unwrap();
        let certs = tempfile::tempdir().unwrap();
        let pki = TestPki::new(certs.path());
        let engine = Engine::open(data.path(), EngineOptions::default()).unwrap();
        let admin = engine.admin();
        for (t, families) in [("t", &["cf", "secret"][..]), ("u", &["cf"][..])] {
            let mut d = ferrobase_engine::TableDescriptor::new(
                ferrobase_engine::TableName::parse(t).unwrap(),
            );
            for f in families {
                d = d.with_family(ferrobase_engine::ColumnFamilyDescriptor::new(
                    f.as_bytes().to_vec(),
                ));
            }
            admin.create_table(d).unwrap();
        }
        let t = engine.table("t").unwrap();
        for (row, a, x) in [("r1", "v", "s1"), ("r2", "w", "s2")] {
            t.put(
                Put::new(row)
                    .add_column("cf", "a", a)
                    .add_column("secret", "x", x),
            )
            .unwrap();
        }
        let store = Arc::new(AclStore::open(&engine).unwrap());
        let tls = TlsServer::from_pem_files(
            &pki.path("server.pem"),
            &pki.path("server.key"),
            passwords.is_none().then(|| pki.path("ca.pem")).as_deref(),
        )
        .unwrap();
        let opts = RestOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            tls: Some(tls),
            passwords: passwords.map(Arc::new),
            access: Some(AccessOptions {
                superusers: vec!["admin".into()],
                store: Some(store.clone()),
            }),
            ..RestOptions::default()
        };
        let server = RestServer::bind(engine.clone(), opts).unwrap();
        let addr = server.local_addr().unwrap();
        let stop = server.stop_handle();
        Door {
            addr,
            stop,
            serving: Some(std::thread::spawn(move || server.run())),
            pki,
            store,
            engine,
            _dirs: (data, certs),
        }
    }

    fn grant(&self, user: &str, family: Option<&str>, letters: &str) {
        self.store
            .grant(
                user,
                &Scope::Table {
                    table: "t".into(),
                    family: family.map(|f| f.as_bytes().to_vec()),
                    qualifier: None,
                },
                Actions::parse(letters).unwrap(),
            )
            .unwrap();
    }

    /// One request over HTTPS as `user` (a client certificate; `None`: none), or with the
    /// extra `headers` (an `Authorization`).
    fn send(
        &self,
        user: Option<&str>,
        method: &str,
        path: &str,
        headers: &str,
        body: &str,
    ) -> Answer {
        let identity = user.map(|u| self.pki.client(u));
        let tls = TlsClient::from_pem_files(
            &self.pki.path("ca.pem"),
            identity.as_ref().map(|(c, k)| (c.as_path(), k.as_path())),
        )
        .unwrap();
        let sock = TcpStream::connect(self.addr).unwrap();
        let mut wire = tls.connect("localhost", sock).unwrap();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{headers}\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        wire.write_all(req.as_bytes()).unwrap();
        wire.flush().unwrap();
        let mut raw = Vec::new();
        let mut chunk = [0u8; 8192];
        // Read until the server closes (an unclean close at the end is fine).
        while let Ok(n) = wire.read(&mut chunk) {
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&chunk[..n]);
        }
        Answer::parse(&raw)
    }

    fn as_user(&self, user: &str, method: &str, path: &str, body: &str) -> Answer {
        let headers = if body.is_empty() {
            "Accept: application/json\r\n"
        } else {
            "Accept: application/json\r\nContent-Type: application/json\r\n"
        };
        self.send(Some(user), method, path, headers, body)
    }

    /// The value of `column` of `row` of `t`, read from the engine.
    fn cell(&self, row: &str, family: &str, qualifier: &str) -> Option<Vec<u8>> {
        self.engine
            .table("t")
            .unwrap()
            .get(&ferrobase_engine::Get::new(row))
            .unwrap()
            .value(family.as_bytes(), qualifier.as_bytes())
            .map(<[u8]>::to_vec)
    }
}

/// A response: status, headers (names lower-case), body (de-chunked).
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn parse(raw: &[u8]) -> Answer {
        let text = String::from_utf8_lossy(raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let body = if chunked {
            let mut out = String::new();
            let mut rest = body;
            while let Some((size, after)) = rest.split_once("\r\n") {
                let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
                if n == 0 {
                    break;
                }
                out.push_str(&after[..n.min(after.len())]);
                rest = after.get(n + 2..).unwrap_or_default();
            }
            out
        } else {
            body.to_string()
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[track_caller]
fn assert_forbidden(a: &Answer, what: &str) {
    assert_eq!(a.status, 403, "{a:?}");
    assert!(
        a.body
            .starts_with("Forbidden\r\norg.apache.hadoop.hbase.security.AccessDeniedException: ")
            && a.body.contains(what),
        "expected a refusal naming {what:?}: {a:?}"
    );
}

fn b64(s: &str) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, s)
}

/// A CellSet of one row `row` with `cells` (column, value), as JSON.
fn cell_set(row: &str, cells: &[(&str, &str)]) -> String {
    let cells: Vec<String> = cells
        .iter()
        .map(|(c, v)| format!(r#"{{"column":"{}","$":"{}"}}"#, b64(c), b64(v)))
        .collect();
    format!(
        r#"{{"Row":[{{"key":"{}","Cell":[{}]}}]}}"#,
        b64(row),
        cells.join(",")
    )
}

#[test]
fn check_and_put_needs_write_on_the_written_column_and_read_on_the_compared_one() {
    let door = Door::start(None);
    door.grant("alice", Some("cf"), "RW");
    // check=put: the last cell is the check (cf:a = v), the others are the put.
    let a = door.as_user(
        "alice",
        "PUT",
        "/t/r1?check=put",
        &cell_set(
            "r1",
            &[("secret:x", "PWNED"), ("cf:a", "v2"), ("cf:a", "v")],
        ),
    );
    assert_forbidden(&a, "action=WRITE");
    assert_eq!(door.cell("r1", "secret", "x").as_deref(), Some(&b"s1"[..]));
    // A write of hers conditioned on the secret: refused (READ on the compared column).
    let a = door.as_user(
        "alice",
        "PUT",
        "/t/r1?check=put",
        &cell_set("r1", &[("secret:x", "s1"), ("secret:x", "s1")]),
    );
    assert_forbidden(&a, "action=");
    let a = door.as_user(
        "alice",
        "PUT",
        "/t/r1?check=delete",
        &cell_set("r1", &[("cf:a", "v"), ("secret:x", "s1")]),
    );
    assert_forbidden(&a, "action=READ");
    // Plain writes and deletes: every cell, every family for a row.
    let a = door.as_user(
        "alice",
        "PUT",
        "/t/r1",
        &cell_set("r1", &[("cf:a", "ok"), ("secret:x", "PWNED")]),
    );
    assert_forbidden(&a, "family=secret:x");
    let a = door.as_user("alice", "DELETE", "/t/r1", "");
    assert_forbidden(&a, "family=secret:");
    let a = door.as_user(
        "alice",
        "PUT",
        "/t/r1?check=increment",
        &cell_set("r1", &[("secret:n", "1")]),
    );
    assert_forbidden(&a, "action=WRITE");
    assert_eq!(door.cell("r1", "secret", "x").as_deref(), Some(&b"s1"[..]));
    assert_eq!(door.cell("r1", "cf", "a").as_deref(), Some(&b"v"[..]));
    // Within her family it works.
    let a = door.as_user(
        "alice",
        "PUT",
        "/t/r1?check=put",
        &cell_set("r1", &[("cf:b", "ok"), ("cf:a", "v2"), ("cf:a", "v")]),
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(door.cell("r1", "cf", "b").as_deref(), Some(&b"ok"[..]));
}

#[test]
fn a_filter_on_an_unreadable_column_reveals_nothing() {
    let door = Door::start(None);
    door.grant("alice", Some("cf"), "R");
    // A row read shows her cells only.
    let a = door.as_user("alice", "GET", "/t/r1", "");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(
        a.body.contains(&b64("cf:a")) && !a.body.contains(&b64("secret:x")),
        "{a:?}"
    );
    // The same answer whatever the secret holds: no row.
    for secret in ["s1", "s2", "nothing"] {
        let filter = format!("SingleColumnValueFilter('secret','x',=,'binary:{secret}',true,true)");
        let path = format!(
            "/t/*?filter={}",
            filter.replace(' ', "%20").replace('\'', "%27")
        );
        let a = door.as_user("alice", "GET", &path, "");
        assert_eq!(a.status, 200, "{a:?}");
        assert!(!a.body.contains(&b64("r1")), "{secret}: {a:?}");
        let model = format!(
            r#"{{"batch":10,"filter":"{{\"type\":\"SingleColumnValueFilter\",\"op\":\"EQUAL\",\"family\":\"{}\",\"qualifier\":\"{}\",\"latestVersion\":true,\"ifMissing\":true,\"comparator\":{{\"type\":\"BinaryComparator\",\"value\":\"{}\"}}}}"}}"#,
            b64("secret"),
            b64("x"),
            b64(secret)
        );
        let a = door.as_user("alice", "POST", "/t/scanner", &model);
        assert_eq!(a.status, 201, "{a:?}");
        let location = a.header("location").unwrap().to_string();
        let path = location.split_once("localhost").unwrap().1.to_string();
        let rows = door.as_user("alice", "GET", &path, "");
        assert_eq!(rows.status, 204, "{secret}: {rows:?}");
    }
    // Asking for the secret by name: refused.
    assert_forbidden(
        &door.as_user("alice", "GET", "/t/r1/secret:x", ""),
        "action=READ",
    );
    // With no grant: nothing.
    assert_forbidden(&door.as_user("mallory", "GET", "/t/r1", ""), "action=READ");
    assert_forbidden(&door.as_user("mallory", "GET", "/t/*", ""), "action=READ");
    assert_forbidden(
        &door.as_user("mallory", "GET", "/t/multiget?row=r1&row=r2", ""),
        "action=READ",
    );
}

#[test]
fn only_the_owner_uses_a_scanner() {
    let door = Door::start(None);
    door.grant("alice", Some("cf"), "R");
    door.grant("bob", None, "R");
    let a = door.as_user("alice", "POST", "/t/scanner", r#"{"batch":10}"#);
    assert_eq!(a.status, 201, "{a:?}");
    let location = a.header("location").unwrap().to_string();
    assert!(location.starts_with("https://"), "{location}");
    let path = location.split_once("localhost").unwrap().1.to_string();
    assert_forbidden(
        &door.as_user("bob", "GET", &path, ""),
        "is not the scanner owner",
    );
    assert_forbidden(
        &door.as_user("bob", "DELETE", &path, ""),
        "is not the scanner owner",
    );
    assert_forbidden(
        &door.as_user("admin", "GET", &path, ""),
        "is not the scanner owner",
    );
    let rows = door.as_user("alice", "GET", &path, "");
    assert_eq!(rows.status, 200, "{rows:?}");
    assert!(!rows.body.contains(&b64("secret:x")), "{rows:?}");
    assert_eq!(door.as_user("alice", "DELETE", &path, "").status, 200);
}

#[test]
fn listings_show_each_user_what_a_grant_reaches() {
    let door = Door::start(None);
    door.grant("alice", Some("cf"), "R");
    let tables = |user: &str| door.as_user(user, "GET", "/", "").body;
    assert!(tables("admin").contains("\"t\"") && tables("admin").contains("\"u\""));
    let alice = tables("alice");
    assert!(
        alice.contains("\"t\"") && !alice.contains("\"u\""),
        "{alice}"
    );
    assert!(!tables("mallory").contains("\"t\""));
    let ns = door
        .as_user("alice", "GET", "/namespaces/default/tables", "")
        .body;
    assert!(ns.contains("\"t\"") && !ns.contains("\"u\""), "{ns}");
    let namespaces = door.as_user("alice", "GET", "/namespaces", "").body;
    assert!(!namespaces.contains("default"), "{namespaces}");
    assert!(door
        .as_user("admin", "GET", "/namespaces", "")
        .body
        .contains("default"));
    // Schemas and administration: ADMIN or CREATE.
    assert_forbidden(
        &door.as_user("alice", "GET", "/t/schema", ""),
        "action=CREATE",
    );
    assert_forbidden(
        &door.as_user("alice", "DELETE", "/t/schema", ""),
        "action=CREATE",
    );
    assert_forbidden(
        &door.as_user(
            "alice",
            "PUT",
            "/t/schema",
            r#"{"ColumnSchema":[{"name":"cf"}]}"#,
        ),
        "action=CREATE",
    );
    assert_forbidden(
        &door.as_user("alice", "GET", "/status/cluster", ""),
        "action=ADMIN",
    );
    assert_forbidden(
        &door.as_user("alice", "POST", "/namespaces/ns1", ""),
        "action=ADMIN",
    );
    // The creator of a table owns it.
    door.store
        .grant("dave", &Scope::Global, Actions::parse("C").unwrap())
        .unwrap();
    let a = door.as_user(
        "dave",
        "PUT",
        "/mine/schema",
        r#"{"name":"mine","ColumnSchema":[{"name":"cf"}]}"#,
    );
    assert_eq!(a.status, 201, "{a:?}");
    let put = door.send(
        Some("dave"),
        "PUT",
        "/mine/r/cf:a",
        "Content-Type: application/octet-stream\r\n",
        "1",
    );
    assert_eq!(put.status, 200, "{put:?}");
    // Nothing else runs: an unknown method is 405.
    assert_eq!(door.as_user("alice", "PATCH", "/t/r1", "").status, 405);
}

#[test]
fn http_basic_logins_name_the_user_and_no_user_is_401() {
    let lines = [
        PasswordFile::hash_line("admin", b"root-pw"),
        PasswordFile::hash_line("alice", b"alice-pw"),
    ]
    .join("\n");
    let door = Door::start(Some(PasswordFile::parse(&lines).unwrap()));
    door.grant("alice", Some("cf"), "R");
    let basic = |user: &str, pw: &str| {
        format!(
            "Accept: application/json\r\nAuthorization: Basic {}\r\n",
            b64(&format!("{user}:{pw}"))
        )
    };
    let a = door.send(None, "GET", "/t/r1", "Accept: application/json\r\n", "");
    assert_eq!(a.status, 401, "{a:?}");
    assert_eq!(
        a.header("www-authenticate"),
        Some("Basic realm=\"ferrobase\"")
    );
    let a = door.send(None, "GET", "/t/r1", &basic("alice", "wrong"), "");
    assert_eq!(a.status, 401, "{a:?}");
    // A failed login backs its address off for a moment.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let a = door.send(None, "GET", "/t/r1", &basic("alice", "alice-pw"), "");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(!a.body.contains(&b64("secret:x")), "{a:?}");
    let a = door.send(None, "DELETE", "/t/r1", &basic("alice", "alice-pw"), "");
    assert_forbidden(&a, "user=alice");
    let a = door.send(None, "DELETE", "/t/r2", &basic("admin", "root-pw"), "");
    assert_eq!(a.status, 200, "{a:?}");
}

/// Every resource with every method, as a user without a grant: only what every user may read
/// answers (the versions, a table's regions and existence, empty listings); nothing else runs,
/// and nothing changes.
#[test]
fn a_user_without_grants_gets_nothing_from_any_resource() {
    let door = Door::start(None);
    let scanner = door.as_user("admin", "POST", "/t/scanner", r#"{"batch":10}"#);
    let scanner = scanner.header("location").unwrap().to_string();
    let scanner = scanner.split_once("localhost").unwrap().1.to_string();
    let body = cell_set("r1", &[("cf:a", "x"), ("cf:a", "v")]);
    let schema = r#"{"name":"t","ColumnSchema":[{"name":"cf"}]}"#;
    let public = [
        "/version",
        "/version/cluster",
        "/t/regions",
        "/t/exists",
        "/",
        "/namespaces",
        "/namespaces/default/tables",
    ];
    let resources = [
        "/",
        "/version",
        "/version/cluster",
        "/status/cluster",
        "/namespaces",
        "/namespaces/default",
        "/namespaces/default/tables",
        "/namespaces/ns9",
        "/t/schema",
        "/t/regions",
        "/t/exists",
        "/t/scanner",
        scanner.as_str(),
        "/t/multiget?row=r1",
        "/t/*",
        "/t/r*",
        "/t/r1",
        "/t/r1/cf:a",
        "/t/r1?check=put",
        "/t/r1?check=delete",
        "/t/r1?check=append",
        "/t/r1?check=increment",
        "/u/schema",
    ];
    for path in resources {
        for method in ["GET", "PUT", "POST", "DELETE"] {
            let b = if path.ends_with("schema") {
                schema
            } else if method == "PUT" || method == "POST" {
                body.as_str()
            } else {
                ""
            };
            let a = door.as_user("mallory", method, path, b);
            let ok = (200..300).contains(&a.status);
            if method == "GET" && public.contains(&path) {
                assert!(ok, "{method} {path}: {a:?}");
                if !path.starts_with("/t/") {
                    // Listings: empty.
                    assert!(!a.body.contains("\"t\""), "{method} {path}: {a:?}");
                }
                continue;
            }
            assert!(!ok, "{method} {path} ran: {a:?}");
        }
    }
    assert_eq!(door.cell("r1", "cf", "a").as_deref(), Some(&b"v"[..]));
    assert_eq!(door.cell("r2", "secret", "x").as_deref(), Some(&b"s2"[..]));
    assert!(door.engine.admin().table_exists("u").unwrap());
    let rows = door.as_user("admin", "GET", &scanner, "");
    assert_eq!(
        rows.status, 200,
        "the admin's scanner is still there: {rows:?}"
    );
}

#[path = "../../gateway/tests/support/calls.rs"]
mod calls;

/// A Thrift1 call over mutual TLS as `user`: the success value or the IOError message.
fn thrift1(
    addr: SocketAddr,
    pki: &TestPki,
    user: &str,
    method: &str,
    args: ferrobase_gateway::thrift::TStruct,
) -> Result<Option<ferrobase_gateway::thrift::TValue>, String> {
    use ferrobase_gateway::thrift::{Binary, Budget, Codec, Limits, TValue};
    let (cert, key) = pki.client(user);
    let tls = TlsClient::from_pem_files(&pki.path("ca.pem"), Some((&cert, &key))).unwrap();
    let mut wire = std::io::BufReader::new(
        tls.connect("localhost", TcpStream::connect(addr).unwrap())
            .unwrap(),
    );
    wire.get_mut()
        .write_all(&calls::call_message(method, 1, &args))
        .unwrap();
    wire.get_mut().flush().unwrap();
    let limits = Limits::default();
    let mut b = Budget::new(&mut wire, &limits);
    Binary.read_header(&mut b).unwrap();
    let body = Binary.read_struct(&mut b).unwrap();
    for id in [1, 2, 3] {
        if let Some(TValue::Struct(e)) = body.get(id) {
            return Err(match e.get(1) {
                Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                _ => String::new(),
            });
        }
    }
    Ok(body.get(0).cloned())
}

/// An outcome: the columns read, or the refusal's `AccessDeniedException` text.
type Outcome = Result<std::collections::BTreeSet<String>, String>;

/// The REST answer as an outcome: the columns of a JSON CellSet (a 404 reads nothing), or the
/// refusal's text after `Forbidden`.
fn rest_outcome(a: Answer) -> Outcome {
    match a.status {
        403 => Err(a
            .body
            .trim_end()
            .strip_prefix("Forbidden\r\n")
            .unwrap_or(&a.body)
            .to_string()),
        404 => Ok(Default::default()),
        s if (200..300).contains(&s) => {
            let mut out = std::collections::BTreeSet::new();
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&a.body) {
                for row in v["Row"].as_array().into_iter().flatten() {
                    for c in row["Cell"].as_array().into_iter().flatten() {
                        let col = base64::Engine::decode(
                            &base64::engine::general_purpose::STANDARD,
                            c["column"].as_str().unwrap_or_default(),
                        )
                        .unwrap();
                        out.insert(String::from_utf8_lossy(&col).into_owned());
                    }
                }
            }
            Ok(out)
        }
        _ => panic!("{a:?}"),
    }
}

fn thrift1_outcome(r: Result<Option<ferrobase_gateway::thrift::TValue>, String>) -> Outcome {
    use ferrobase_gateway::thrift::TValue;
    match r {
        Err(m) => Err(m),
        Ok(v) => {
            let mut out = std::collections::BTreeSet::new();
            if let Some(TValue::List(_, rows)) = v {
                for r in rows {
                    if let TValue::Struct(r) = r {
                        if let Some(TValue::Map(_, _, cols)) = r.get(2) {
                            for (k, _) in cols {
                                if let TValue::Binary(k) = k {
                                    out.insert(String::from_utf8_lossy(k).into_owned());
                                }
                            }
                        }
                    }
                }
            }
            Ok(out)
        }
    }
}

/// The same grants and the same operations through REST and through Thrift1 (over one engine
/// and one store of grants): the same cells read, the same refusals with the same text.
#[test]
fn rest_answers_as_thrift1_for_the_same_grants() {
    use ferrobase_gateway::thrift::{TStruct, TType, TValue};
    use ferrobase_gateway::{Server, ServerOptions};
    let door = Door::start(None);
    let t1 = Server::bind(
        door.engine.clone(),
        ServerOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            tls: Some(
                TlsServer::from_pem_files(
                    &door.pki.path("server.pem"),
                    &door.pki.path("server.key"),
                    Some(&door.pki.path("ca.pem")),
                )
                .unwrap(),
            ),
            access: Some(AccessOptions {
                superusers: vec!["admin".into()],
                store: Some(door.store.clone()),
            }),
            ..ServerOptions::default()
        },
    )
    .unwrap();
    let t1_addr = t1.local_addr().unwrap();
    let t1_stop = t1.stop_handle().unwrap();
    let serving = std::thread::spawn(move || t1.run());
    let s = TValue::string;
    let attrs = || TValue::Map(TType::Binary, TType::Binary, Vec::new());
    let args = |values: Vec<TValue>| {
        values
            .into_iter()
            .enumerate()
            .fold(TStruct::new(), |t, (i, v)| t.with(i as i16 + 1, v))
    };
    let grants: &[(Option<&str>, &str)] = &[
        (None, "R"),
        (None, "W"),
        (None, "RW"),
        (None, "C"),
        (Some("cf"), "R"),
        (Some("cf"), "W"),
        (Some("cf"), "RW"),
        (Some("secret"), "R"),
    ];
    let mut compared = 0;
    for (i, (family, letters)) in grants.iter().enumerate() {
        let user = format!("u{i}");
        door.grant(&user, *family, letters);
        let call = |method: &str, a: TStruct| thrift1(t1_addr, &door.pki, &user, method, a);
        let pairs: Vec<(&str, Outcome, Outcome)> = vec![
            (
                "read a row",
                thrift1_outcome(call("getRow", args(vec![s("t"), s("r1"), attrs()]))),
                rest_outcome(door.as_user(&user, "GET", "/t/r1", "")),
            ),
            (
                "read cf:a",
                thrift1_outcome(call(
                    "getRowWithColumns",
                    args(vec![
                        s("t"),
                        s("r1"),
                        TValue::List(TType::Binary, vec![s("cf:a")]),
                        attrs(),
                    ]),
                )),
                rest_outcome(door.as_user(&user, "GET", "/t/r1/cf:a", "")),
            ),
            (
                "write cf:z",
                thrift1_outcome(call(
                    "mutateRow",
                    args(vec![
                        s("t"),
                        s("r3"),
                        TValue::List(
                            TType::Struct,
                            vec![TValue::Struct(
                                TStruct::new().with(2, s("cf:z")).with(3, s("1")),
                            )],
                        ),
                        attrs(),
                    ]),
                )),
                rest_outcome(door.as_user(
                    &user,
                    "PUT",
                    "/t/r3",
                    &cell_set("r3", &[("cf:z", "1")]),
                )),
            ),
            (
                "delete a row",
                thrift1_outcome(call("deleteAllRow", args(vec![s("t"), s("r9"), attrs()]))),
                rest_outcome(door.as_user(&user, "DELETE", "/t/r9", "")),
            ),
            (
                "check cf:a, put cf:a",
                thrift1_outcome(
                    call(
                        "checkAndPut",
                        args(vec![s("t"), s("r1"), s("cf:a")])
                            .with(5, s("v"))
                            .with(
                                6,
                                TValue::Struct(TStruct::new().with(2, s("cf:a")).with(3, s("v"))),
                            )
                            .with(7, attrs()),
                    )
                    .map(|_| None),
                ),
                rest_outcome(door.as_user(
                    &user,
                    "PUT",
                    "/t/r1?check=put",
                    &cell_set("r1", &[("cf:a", "v"), ("cf:a", "v")]),
                ))
                .map(|_| Default::default()),
            ),
            (
                "scan",
                match call(
                    "scannerOpenWithScan",
                    args(vec![s("t"), TValue::Struct(TStruct::new()), attrs()]),
                ) {
                    Ok(Some(TValue::I32(id))) => thrift1_outcome(thrift1(
                        t1_addr,
                        &door.pki,
                        &user,
                        "scannerGetList",
                        args(vec![TValue::I32(id), TValue::I32(10)]),
                    )),
                    Ok(other) => panic!("{other:?}"),
                    Err(m) => Err(m),
                },
                rest_outcome(door.as_user(&user, "GET", "/t/*", "")),
            ),
            (
                "describe",
                thrift1_outcome(call("getColumnDescriptors", args(vec![s("t")])).map(|_| None)),
                rest_outcome(door.as_user(&user, "GET", "/t/schema", ""))
                    .map(|_| Default::default()),
            ),
        ];
        for (what, one, two) in pairs {
            assert_eq!(
                one, two,
                "user {user} with {letters} on t {family:?}: {what}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, grants.len() * 7);
    t1_stop.stop();
    serving.join().unwrap().unwrap();
}

/// Review of issue 40 (schema changes through the shared executor): a schema change is
/// authorized whole before any part of it runs, it makes the changer the table's owner, a
/// dropped table's grants go with it, and `hbase:acl` keeps its family and stays on line even
/// for the superuser (REST's drop disables first: refused before the disable runs).
#[test]
fn schema_changes_are_checked_whole_and_followed_up() {
    let door = Door::start(None);
    let grants_on = |table: &str| -> Vec<String> {
        let mut held: Vec<String> = door
            .store
            .permissions()
            .into_iter()
            .filter(|p| p.scope.table_name() == Some(table))
            .map(|p| format!("{} {}", p.user, p.actions))
            .collect();
        held.sort();
        held
    };
    // CREATE on t: a family added makes carl its owner.
    door.grant("carl", None, "C");
    let a = door.as_user(
        "carl",
        "POST",
        "/t/schema",
        r#"{"name":"t","ColumnSchema":[{"name":"more"}]}"#,
    );
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(grants_on("t"), ["carl RWXCA"]);
    // READ only: a replace that adds one family and drops another changes nothing.
    door.grant("rita", Some("cf"), "R");
    let a = door.as_user(
        "rita",
        "PUT",
        "/t/schema",
        r#"{"name":"t","ColumnSchema":[{"name":"cf"},{"name":"new"}]}"#,
    );
    assert_forbidden(&a, "action=CREATE");
    let families = |t: &str| -> Vec<String> {
        door.engine
            .admin()
            .describe(t)
            .unwrap()
            .families
            .iter()
            .map(|f| String::from_utf8_lossy(&f.name).into_owned())
            .collect()
    };
    assert_eq!(families("t"), ["cf", "more", "secret"]);
    // The superuser: hbase:acl keeps its family and is not taken off line.
    let a = door.as_user(
        "admin",
        "PUT",
        "/hbase:acl/schema",
        r#"{"name":"hbase:acl","ColumnSchema":[{"name":"x"}]}"#,
    );
    assert_forbidden(&a, "Not allowed to delete a family of hbase:acl table");
    assert_eq!(families("hbase:acl"), ["l"]);
    let a = door.as_user("admin", "DELETE", "/hbase:acl/schema", "");
    assert_forbidden(&a, "Not allowed to");
    assert!(door.engine.admin().is_enabled("hbase:acl").unwrap());
    // Dropped by its owner: disabled, deleted, its grants gone.
    let a = door.as_user("carl", "DELETE", "/t/schema", "");
    assert_eq!(a.status, 200, "{a:?}");
    assert!(!door.engine.admin().table_exists("t").unwrap());
    assert!(grants_on("t").is_empty(), "{:?}", grants_on("t"));
}
