//! A connection string names where the data goes, or is refused (issue 46): `--connect` takes a
//! server's URL only, the client API opens a bare path only when it is an existing data
//! directory, and no refused command leaves a directory behind.

use ferrobase_client::{ClientError, Connection};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ferrobase(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A refused command may exit before reading its input: a closed pipe here is expected.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn app_connect_with_a_non_server_url_is_refused_and_writes_nothing() {
    let cwd = tempfile::tempdir().unwrap();
    for url in [
        "http://127.0.0.1:1",
        "127.0.0.1:9090",
        "file:here",
        "./somewhere",
    ] {
        let out = ferrobase(
            cwd.path(),
            &["app", "game-log", "--connect", url, "load-sample"],
            "",
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url}: {stderr}");
        assert!(stderr.contains("thrift://HOST:PORT"), "{url}: {stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("logged"));
        assert_eq!(entries(cwd.path()), Vec::<String>::new(), "{url}");
    }
}

#[test]
fn shell_connect_with_an_address_without_scheme_is_refused_and_writes_nothing() {
    let cwd = tempfile::tempdir().unwrap();
    let out = ferrobase(
        cwd.path(),
        &["shell", "--connect", "127.0.0.1:9090"],
        "create 't', 'f'\n",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("thrift://HOST:PORT"), "{stderr}");
    assert_eq!(entries(cwd.path()), Vec::<String>::new());
}

#[test]
fn app_help_prints_usage_and_opens_nothing() {
    let cwd = tempfile::tempdir().unwrap();
    for args in [
        &["app", "game-log", "--help"][..],
        &["app", "game-log", "-h"],
        &["app", "textbook", "purchases", "--help"],
        &["app", "microblog", "-h", "home"],
    ] {
        let out = ferrobase(cwd.path(), args, "");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("ferrobase app"), "{args:?}: {stdout}");
        assert_eq!(entries(cwd.path()), Vec::<String>::new(), "{args:?}");
    }
}

#[test]
fn client_open_refuses_what_is_neither_a_server_nor_a_data_directory() {
    let cwd = tempfile::tempdir().unwrap();
    let missing = cwd.path().join("missing");
    let missing = missing.to_str().unwrap();
    for url in [missing, "http://127.0.0.1:1", "127.0.0.1:9090", "file:"] {
        match Connection::open(url) {
            Err(ClientError::BadUrl { url: got, .. }) => assert_eq!(got, url),
            other => panic!("{url}: expected BadUrl, got {other:?}"),
        }
    }
    assert_eq!(entries(cwd.path()), Vec::<String>::new());
    // `file:` creates; an existing directory opens by its bare path.
    let named = cwd.path().join("data");
    let conn = Connection::open(&format!("file:{}", named.display())).unwrap();
    drop(conn);
    assert!(named.is_dir());
    Connection::open(named.to_str().unwrap()).unwrap();
}
