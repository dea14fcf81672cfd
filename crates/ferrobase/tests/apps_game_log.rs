//! Article 3's game log: the article's scan (COLUMNS oneline:guid and oneline:report, LIMIT 10,
//! STARTROW/STOPROW of one account and action) returns that account's actions in time order,
//! embedded and through `ferrobase serve`; keys that would break the range are refused.

mod apps_harness;

use apps_harness::{app, Server};
use ferrobase_apps::game_log::{GameLog, LogQuery, ARTICLE_LIMIT};
use ferrobase_client::Connection;

const FROM: &str = "2013-04-01 00:00:00";
const TO: &str = "2016-04-01 00:00:00";

#[test]
fn the_articles_scan_returns_ten_logins_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().display())).unwrap();
    let log = GameLog::open(&conn).unwrap();
    assert_eq!(log.load_sample().unwrap(), 192);
    let mut q = LogQuery {
        account: "u52fa532aae9dc".into(),
        action: "login".into(),
        from: FROM.into(),
        to: TO.into(),
        limit: ARTICLE_LIMIT,
    };
    let rows = log.query(&q).unwrap();
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0].time, "2013-04-01 08:00:00");
    assert_eq!(rows[9].time, "2014-01-01 08:00:00");
    assert!(rows
        .iter()
        .all(|r| r.account == "u52fa532aae9dc" && r.action == "login" && !r.guid.is_empty()));
    // Without the limit: every monthly login from 2013-04 to 2016-03.
    q.limit = 1000;
    let all = log.query(&q).unwrap();
    assert_eq!(all.len(), 36);
    assert!(all.windows(2).all(|w| w[0].time < w[1].time));
    assert!(GameLog::key("a_b", "login", FROM).is_err());
    assert!(GameLog::key("a", "login", "2013-04-01").is_err());
}

#[test]
fn the_binary_runs_the_scan_through_a_server() {
    let server = Server::start();
    let run = |extra: &[&str]| {
        let mut args = vec!["game-log", "--connect", server.url.as_str()];
        args.extend_from_slice(extra);
        app(&args)
    };
    run(&["load-sample"]);
    let out = run(&[
        "query",
        "--account",
        "u52fa532aae9dc",
        "--action",
        "login",
        "--from",
        FROM,
        "--to",
        TO,
        "--explain",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "scan 'hbase_gameCenter_log', {COLUMNS => ['oneline:guid', 'oneline:report'], \
         STARTROW => \"u52fa532aae9dc_login_2013-04-01 00:00:00\", \
         STOPROW => \"u52fa532aae9dc_login_2016-04-01 00:00:00\", LIMIT => 10}"
    );
    assert_eq!(lines.len(), 11);
    assert!(lines[1].starts_with("u52fa532aae9dc_login_2013-04-01 08:00:00 guid="));
}
