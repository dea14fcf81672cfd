//! The seed applications refuse bad arguments with a clear error, never a panic or a hang
//! (issue 46): reversed ranges, an existing animal id, and printing into a closed pipe.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn app(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .arg("app")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn refused(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains(what), "{stderr}");
}

#[test]
fn reversed_ranges_are_refused_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in ["tall", "wide"] {
        let out = app(
            dir.path(),
            &[
                "behaviour-log",
                "--scheme",
                scheme,
                "range",
                "--uid",
                "1",
                "--from",
                "4000",
                "--to",
                "2000",
            ],
        );
        refused(&out, "--from 4000 is after --to 2000");
    }
    let out = app(
        dir.path(),
        &[
            "textbook",
            "purchases",
            "--user",
            "1",
            "--from",
            "2000",
            "--to",
            "1000",
        ],
    );
    refused(&out, "--from 2000 is after --to 1000");
}

#[test]
fn an_existing_animal_cannot_get_a_new_parent_and_walks_end() {
    let dir = tempfile::tempdir().unwrap();
    assert!(app(dir.path(), &["textbook", "load-example"])
        .status
        .success());
    // Loading twice is fine: the article's tree again.
    assert!(app(dir.path(), &["textbook", "load-example"])
        .status
        .success());
    let out = app(
        dir.path(),
        &[
            "textbook",
            "add-animal",
            "--id",
            "1",
            "--name",
            "loop",
            "--parent",
            "7",
        ],
    );
    refused(&out, "animal 1 exists already");
    let out = app(
        dir.path(),
        &[
            "textbook",
            "add-animal",
            "--id",
            "10",
            "--name",
            "self",
            "--parent",
            "10",
        ],
    );
    refused(&out, "cannot be its own parent");
    let out = app(
        dir.path(),
        &[
            "textbook",
            "add-animal",
            "--id",
            "10",
            "--name",
            "puppy",
            "--parent",
            "7",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "added animal 10 puppy\n"
    );
    let down = app(dir.path(), &["textbook", "animal-down", "--id", "1"]);
    assert!(down.status.success());
    assert_eq!(String::from_utf8_lossy(&down.stdout).lines().count(), 10);
}

#[test]
fn printing_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    assert!(app(dir.path(), &["textbook", "load-example"])
        .status
        .success());
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["app", "textbook", "animal-down", "--id", "1"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}
