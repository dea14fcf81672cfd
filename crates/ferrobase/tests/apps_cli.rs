//! `ferrobase app NAME COMMAND` on clap (issue 47): every command has its own help with its
//! options' defaults, a usage error exits 2 naming the problem before anything is opened, a
//! runtime failure exits 1, and the store's options stand before or after the command.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ferrobase(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .current_dir(dir)
        .env_remove("FERROBASE_DATA")
        .env_remove("FERROBASE_CONNECT")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Every application's commands, as `ferrobase app NAME --help` lists them.
const COMMANDS: &[(&str, &[&str])] = &[
    ("behaviour-log", &["record", "get", "range", "newest"]),
    (
        "file-search",
        &[
            "load-example",
            "add",
            "delete",
            "find",
            "on-date",
            "by-index",
            "verify-index",
            "rebuild-index",
        ],
    ),
    ("game-log", &["load-sample", "log", "query"]),
    (
        "microblog",
        &[
            "follow",
            "unfollow",
            "post",
            "worker",
            "home",
            "posts",
            "inbox",
            "fans",
            "following",
        ],
    ),
    (
        "textbook",
        &[
            "load-example",
            "animal-up",
            "animal-down",
            "add-animal",
            "shop-items",
            "item-shops",
            "buy",
            "purchases",
            "fans",
            "add-fan",
        ],
    ),
];

#[test]
fn every_command_has_its_own_help_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for (app, commands) in COMMANDS {
        for command in *commands {
            for args in [
                vec!["app", app, command, "--help"],
                vec!["app", app, "--data", "d", command, "-h"],
                vec!["help", "app", app, command],
            ] {
                let out = ferrobase(tmp.path(), &args);
                assert!(out.status.success(), "{args:?}: {}", text(&out));
                let t = text(&out);
                assert!(
                    t.contains(&format!("Usage: ferrobase app {app} {command}")),
                    "{args:?}: {t}"
                );
                assert!(t.contains("--data <DIR>"), "{args:?}: {t}");
                assert!(t.contains("--connect <URL>"), "{args:?}: {t}");
            }
        }
    }
    assert_eq!(entries(tmp.path()), Vec::<String>::new());
}

#[test]
fn options_show_their_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, want) in [
        (&["behaviour-log", "newest"][..], "[default: 10]"),
        (&["behaviour-log", "record"], "[default: now]"),
        (&["behaviour-log", "get"], "[default: tall]"),
        (&["game-log", "query"], "[default: 10]"),
        (&["microblog", "home"], "[default: 20]"),
        (&["microblog", "worker"], "[default: 200]"),
        (&["textbook", "purchases"], "[default: 10]"),
        (&["textbook", "buy"], "[default: now]"),
        (&["textbook", "add-fan"], "[default: one-way]"),
        (&["file-search", "find"], "[default: every file]"),
    ] {
        let mut full = vec!["app"];
        full.extend_from_slice(args);
        full.push("--help");
        let out = ferrobase(tmp.path(), &full);
        assert!(text(&out).contains(want), "{full:?}: {}", text(&out));
    }
}

#[test]
fn usage_errors_exit_2_naming_the_problem_and_open_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, want) in [
        (&["textbook", "purchases"][..], "--user"),
        (&["textbook", "purchases", "--user", "x"], "'x'"),
        (
            &["textbook", "purchases", "--user", "1", "--from", "5"],
            "--to",
        ),
        (
            &[
                "textbook",
                "purchases",
                "--user",
                "1",
                "--limit",
                "3",
                "--from",
                "1",
                "--to",
                "2",
            ],
            "--limit",
        ),
        (&["textbook", "no-such-command"], "no-such-command"),
        (&["textbook", "load-example", "--uid", "1"], "--uid"),
        (
            &["behaviour-log", "--scheme", "round", "newest", "--uid", "1"],
            "round",
        ),
        (&["microblog", "worker", "--poll-ms"], "--poll-ms"),
        (
            &[
                "game-log",
                "--data",
                "a",
                "--connect",
                "thrift://h:1",
                "load-sample",
            ],
            "--connect",
        ),
        (
            &["game-log", "--connect", "h:1", "load-sample"],
            "thrift://HOST:PORT",
        ),
    ] {
        let mut full = vec!["app"];
        full.extend_from_slice(args);
        let out = ferrobase(tmp.path(), &full);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{full:?}: {t}");
        assert!(t.contains(want), "{full:?}: {t}");
        assert!(!t.contains("panicked"), "{full:?}: {t}");
        assert_eq!(entries(tmp.path()), Vec::<String>::new(), "{full:?}");
    }
}

#[test]
fn runtime_failures_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ferrobase(tmp.path(), &["app", "textbook", "animal-up", "--id", "99"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("no animal 99"), "{}", text(&out));
}

#[test]
fn store_options_stand_either_side_of_the_command_and_values_may_start_with_a_dash() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = |args: &[&str]| -> String {
        let out = ferrobase(tmp.path(), args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    ok(&[
        "app",
        "microblog",
        "--data",
        "d",
        "post",
        "--user",
        "1",
        "--text",
        "-- hi",
    ]);
    let posts = ok(&["app", "microblog", "posts", "--user", "1", "--data", "d"]);
    assert!(posts.trim_end().ends_with(" -- hi"), "{posts}");
    ok(&[
        "app",
        "behaviour-log",
        "record",
        "--uid",
        "1",
        "--item",
        "-x",
        "--ts",
        "5",
        "--data",
        "d",
        "--scheme",
        "wide",
    ]);
    let newest = ok(&[
        "app",
        "behaviour-log",
        "--scheme",
        "wide",
        "--data",
        "d",
        "newest",
        "--uid",
        "1",
    ]);
    assert_eq!(newest, "uid=1 ts=5 item=-x\n");
    assert_eq!(
        ok(&[
            "app",
            "behaviour-log",
            "--data",
            "d",
            "newest",
            "--uid",
            "1"
        ]),
        "no events for uid=1\n"
    );
    assert_eq!(entries(tmp.path()), vec!["d".to_string()]);
}
