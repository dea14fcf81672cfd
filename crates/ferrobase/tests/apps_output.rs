//! Every write and every empty result of the seed applications prints one line (issue 46): a
//! command that did something says what, and a read that found nothing says so, embedded and
//! through `ferrobase serve`.

mod apps_harness;

use apps_harness::{app, Server};

/// Runs `ferrobase app APP TARGET... ARGS` and asserts it printed exactly `want`.
fn says(target: &[&str], app_args: &[&str], want: &str) {
    let mut args = vec![app_args[0]];
    args.extend_from_slice(target);
    args.extend_from_slice(&app_args[1..]);
    let out = app(&args);
    assert_eq!(out.trim_end(), want, "{args:?}");
}

fn every_app_reports(target: &[&str]) {
    // behaviour-log, both schemes.
    for scheme in ["tall", "wide"] {
        let bl = |rest: &[&'static str]| -> Vec<&'static str> {
            let mut v = vec!["behaviour-log", "--scheme", scheme];
            v.extend_from_slice(rest);
            v
        };
        says(
            target,
            &bl(&["newest", "--uid", "7"]),
            "no events for uid=7",
        );
        says(
            target,
            &bl(&["get", "--uid", "7", "--ts", "1000"]),
            "no event for uid=7 at ts=1000",
        );
        says(
            target,
            &bl(&["range", "--uid", "7", "--from", "1", "--to", "2000"]),
            "no events for uid=7 from ts=1 to ts=2000",
        );
        says(
            target,
            &bl(&["record", "--uid", "7", "--item", "x", "--ts", "1000"]),
            "recorded uid=7 ts=1000",
        );
    }
    // file-search.
    says(
        target,
        &[
            "file-search",
            "find",
            "--user",
            "1",
            "--from",
            "20120901",
            "--to",
            "20121001",
        ],
        "no files match",
    );
    says(
        target,
        &["file-search", "on-date", "--date", "20120914"],
        "no files match",
    );
    says(
        target,
        &[
            "file-search",
            "by-index",
            "--from",
            "20120901",
            "--to",
            "20120902",
        ],
        "no files in the date index from 20120901 to 20120902 match",
    );
    says(
        target,
        &[
            "file-search",
            "add",
            "--user",
            "1",
            "--date",
            "20120901",
            "--file",
            "9",
            "--name",
            "n",
            "--category",
            "c",
        ],
        "added user=000001 date=20120901 file=000009 name=n category=c",
    );
    says(
        target,
        &[
            "file-search",
            "delete",
            "--user",
            "1",
            "--date",
            "20120901",
            "--file",
            "9",
        ],
        "deleted user=000001 date=20120901 file=000009 (and its index row)",
    );
    // game-log.
    let q = [
        "game-log",
        "query",
        "--account",
        "a1",
        "--action",
        "login",
        "--from",
        "2013-01-01 00:00:00",
        "--to",
        "2014-01-01 00:00:00",
    ];
    says(
        target,
        &q,
        "no login actions of a1 from 2013-01-01 00:00:00 to 2014-01-01 00:00:00",
    );
    says(
        target,
        &[
            "game-log",
            "log",
            "--account",
            "a1",
            "--action",
            "login",
            "--time",
            "2013-02-01 08:00:00",
            "--guid",
            "g",
            "--report",
            "r",
        ],
        "logged a1_login_2013-02-01 08:00:00",
    );
    says(target, &q, "a1_login_2013-02-01 08:00:00 guid=g report=r");
    // textbook.
    says(
        target,
        &["textbook", "purchases", "--user", "5"],
        "no purchases by user 5",
    );
    says(
        target,
        &[
            "textbook",
            "buy",
            "--user",
            "5",
            "--product",
            "3",
            "--name",
            "pen",
            "--time",
            "1000",
        ],
        "bought user=5 time=1000 product=3 name=pen",
    );
    says(
        target,
        &["textbook", "fans", "--user", "5"],
        "user 5 has no fans",
    );
    says(
        target,
        &["textbook", "add-fan", "--user", "5", "--fan", "6"],
        "added fan=6 of user=5 type=one-way",
    );
    says(
        target,
        &["textbook", "shop-items", "--shop", "9"],
        "no items in shop 9",
    );
    says(
        target,
        &["textbook", "item-shops", "--item", "9"],
        "no shops sell item 9",
    );
    says(
        target,
        &["textbook", "add-animal", "--id", "1", "--name", "animal"],
        "added animal 1 animal",
    );
    says(
        target,
        &["textbook", "animal-up", "--id", "1"],
        "animal 1 has no ancestors (a root)",
    );
    // microblog.
    says(
        target,
        &["microblog", "home", "--user", "3"],
        "user 3's home timeline is empty",
    );
    says(
        target,
        &["microblog", "posts", "--user", "3"],
        "user 3 has no posts",
    );
    says(
        target,
        &["microblog", "inbox", "--user", "3"],
        "user 3's inbox is empty",
    );
    says(
        target,
        &["microblog", "fans", "--user", "3"],
        "user 3 has no fans",
    );
    says(
        target,
        &["microblog", "following", "--user", "3"],
        "user 3 follows nobody",
    );
    says(
        target,
        &["microblog", "follow", "--user", "3", "--target", "1"],
        "user 3 follows 1",
    );
    says(
        target,
        &["microblog", "unfollow", "--user", "3", "--target", "1"],
        "user 3 no longer follows 1",
    );
    says(
        target,
        &["microblog", "worker", "--once"],
        "fan-out done: 0 posts",
    );
}

#[test]
fn every_write_and_every_empty_result_prints_a_line_embedded() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    every_app_reports(&["--data", &data]);
}

#[test]
fn every_write_and_every_empty_result_prints_a_line_through_a_server() {
    let server = Server::start();
    every_app_reports(&["--connect", &server.url]);
}
