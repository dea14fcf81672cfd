//! Statements that work embedded work the same over `--connect` to `ferrobase serve`, through
//! the gateway's `ferrobaseAdmin` extension where HBase's Thrift1 API cannot carry them:
//! deletes with a timestamp write the markers embedded writes, and the security commands are
//! checked on the server (ADMIN at the scope, HBase's AccessDeniedException text) or, with
//! access control off, answered as HBase answers without its AccessController.

mod shell_harness;

use shell_harness::{passwd, run, serve, serve_with, shell, untimed, Served};

const DELETES: &str = "create 't', {NAME => 'f', VERSIONS => 5}, {NAME => 'g', VERSIONS => 5}\n\
    put 't', 'r1', 'f:a', 'a10', 10\n\
    put 't', 'r1', 'f:a', 'a20', 20\n\
    put 't', 'r1', 'f:b', 'b20', 20\n\
    put 't', 'r1', 'g:c', 'c10', 10\n\
    put 't', 'r1', 'g:c', 'c30', 30\n\
    put 't', 'r2', 'f:a', 'x10', 10\n\
    put 't', 'r2', 'f:a', 'x20', 20\n\
    delete 't', 'r1', 'f:a', 10\n\
    delete 't', 'r1', 'g', 30\n\
    t = get_table 't'\n\
    t.delete 'r1', 'f:b', 20\n\
    deleteall 't', 'r2', 'f:a', 15\n\
    scan 't', {RAW => true, VERSIONS => 10}\n\
    scan 't', {VERSIONS => 10}\n";

#[test]
fn deletes_with_a_timestamp_write_over_connect_the_markers_embedded_writes() {
    let embedded_dir = tempfile::tempdir().unwrap();
    let (embedded, ok) = shell(
        &["--data", &embedded_dir.path().display().to_string()],
        DELETES,
    );
    assert!(ok, "{embedded}");
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path());
    let (remote, ok) = shell(&["--connect", &url], DELETES);
    assert!(ok, "{remote}");
    assert_eq!(untimed(&remote), untimed(&embedded));
    // A version's marker, a family version's and a column's, each beside what it masks.
    for line in [
        " r1                               column=f:a, timestamp=10, type=Delete\n \
         r1                               column=f:a, timestamp=10, value=a10\n",
        " r1                               column=g:, timestamp=30, type=DeleteFamilyVersion\n",
        " r1                               column=f:b, timestamp=20, type=Delete\n",
        " r2                               column=f:a, timestamp=15, type=DeleteColumn\n",
    ] {
        assert!(remote.contains(line), "{line} in\n{remote}");
    }
    // The masked versions are gone from a plain read, and only they.
    let plain = &remote[remote.rfind("ROW").unwrap()..];
    assert!(
        plain.contains("value=a20") && plain.contains("value=c10"),
        "{plain}"
    );
    assert!(plain.contains("value=x20"), "{plain}");
    for gone in ["value=a10", "value=c30", "value=b20", "value=x10"] {
        assert!(!plain.contains(gone), "{gone} in\n{plain}");
    }
}

#[test]
fn security_commands_without_access_control_answer_as_hbase_without_its_access_controller() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path());
    let (out, ok) = shell(
        &["--connect", &url],
        "create 't', 'f'\ngrant 'bob', 'RW', 't', 'f', 'q'\nrevoke 'bob'\nuser_permission\n",
    );
    assert!(!ok);
    assert_eq!(
        out.matches("DISABLED: Security features are not available")
            .count(),
        3,
        "{out}"
    );
}

/// A `ferrobase serve` on a fresh data directory authenticating `users` (name, password) by
/// password, `admin` its superuser; returns what keeps the data directory and the auth file
/// alive (first, so that it outlives the server), the process and `thrift://ADDR`.
fn serve_with_passwords(
    users: &[(&str, &str)],
) -> ((tempfile::TempDir, tempfile::NamedTempFile), Served, String) {
    let dir = tempfile::tempdir().unwrap();
    let auth = tempfile::NamedTempFile::new().unwrap();
    let lines: String = users.iter().map(|(u, p)| passwd(u, p)).collect();
    std::fs::write(auth.path(), lines).unwrap();
    let (server, url) = serve_with(
        dir.path(),
        &[
            "--auth-file",
            auth.path().to_str().unwrap(),
            "--superuser",
            "admin",
        ],
    );
    ((dir, auth), server, url)
}

/// The shell's standard output over `--connect` to `url` as `user` (a password login).
fn shell_as(url: &str, user: &str, password: &str, statements: &str) -> String {
    let out = run(
        &["shell", "--connect", url, "--login", user],
        &[("FERROBASE_PASSWORD", password)],
        statements,
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn security_commands_and_extension_reads_and_deletes_are_checked_on_the_server() {
    let (_files, _server, url) = serve_with_passwords(&[("admin", "adm1n"), ("bob", "b0b")]);
    let out = shell_as(
        &url,
        "admin",
        "adm1n",
        "create 't', {NAME => 'f', VERSIONS => 3}\nput 't', 'r', 'f:q', 'v', 10\n\
         grant 'bob', 'R', 't'\ngrant 'bob', 'W', 't', 'f', 'w'\nuser_permission 't'\n",
    );
    assert!(
        out.contains(" bob ") && out.contains("default,t,,: [Permission: actions=READ]"),
        "{out}"
    );
    assert!(
        out.contains("default,t,f,w: [Permission: actions=WRITE]"),
        "{out}"
    );
    // bob reads raw (READ on the table) but may not write markers of f:q, nor grant, revoke or
    // list grants (ADMIN).
    let out = shell_as(
        &url,
        "bob",
        "b0b",
        "scan 't', {RAW => true, VERSIONS => 3}\ndelete 't', 'r', 'f:q', 10\n\
         grant 'bob', 'RWXCA'\nrevoke 'bob', 't'\nuser_permission 't'\n",
    );
    assert!(out.contains("column=f:q, timestamp=10, value=v"), "{out}");
    assert!(out.contains("action=WRITE)"), "{out}");
    assert!(
        out.contains(
            "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
             for user 'bob' (global, action=ADMIN)"
        ),
        "{out}"
    );
    assert_eq!(
        out.matches("org.apache.hadoop.hbase.security.AccessDeniedException")
            .count(),
        4,
        "{out}"
    );
    // The column bob may write takes his marker.
    let out = shell_as(
        &url,
        "bob",
        "b0b",
        "put 't', 'r', 'f:w', 'x', 5\ndelete 't', 'r', 'f:w', 5\n\
         scan 't', {RAW => true, VERSIONS => 3}\n",
    );
    assert!(
        out.contains("column=f:w, timestamp=5, type=Delete"),
        "{out}"
    );
}

/// HBase's `OWNER` table attribute: kept and described as HBase describes it, and on a server
/// with ACLs the owner is granted every action on the table (HBase's postModifyTable and
/// postCompletedCreateTableAction), at create and at alter.
#[test]
fn a_table_owner_is_granted_every_action_on_the_table() {
    let (_files, _server, url) =
        serve_with_passwords(&[("admin", "adm1n"), ("bob", "b0b"), ("carol", "c4rol")]);
    let out = shell_as(
        &url,
        "admin",
        "adm1n",
        "create 't', 'f', OWNER => 'bob'\ncreate 'u', 'f'\ndescribe 't'\n",
    );
    assert!(
        out.contains("t, {TABLE_ATTRIBUTES => {METADATA => {'OWNER' => 'bob'}}}"),
        "{out}"
    );
    // bob writes, reads and alters his table; carol, who owns nothing yet, may not read it.
    let out = shell_as(
        &url,
        "bob",
        "b0b",
        "put 't', 'r', 'f:q', 'v'\nget 't', 'r'\nalter 't', {NAME => 'f', VERSIONS => 3}\n\
         user_permission 't'\n",
    );
    assert!(out.contains("value=v"), "{out}");
    assert!(!out.contains("AccessDeniedException"), "{out}");
    assert!(
        out.contains("default,t,,: [Permission: actions=READ,WRITE,EXEC,CREATE,ADMIN]"),
        "{out}"
    );
    let out = shell_as(&url, "carol", "c4rol", "get 't', 'r'\n");
    assert!(out.contains("AccessDeniedException"), "{out}");
    // Made owner of u by an alter, carol reads it.
    let out = shell_as(&url, "admin", "adm1n", "alter 'u', OWNER => 'carol'\n");
    assert!(!out.contains("ERROR"), "{out}");
    let out = shell_as(
        &url,
        "carol",
        "c4rol",
        "put 'u', 'r', 'f:q', 'w'\nget 'u', 'r'\n",
    );
    assert!(out.contains("value=w"), "{out}");
    assert!(!out.contains("AccessDeniedException"), "{out}");
}
