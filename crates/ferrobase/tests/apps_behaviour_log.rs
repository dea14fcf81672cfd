//! Article 1's behaviour log: both schemes answer "one record by timestamp", "a time range"
//! and "the newest N" alike, newest first — embedded and through `ferrobase serve`.

mod apps_harness;

use apps_harness::{app, Server};
use ferrobase_apps::behaviour_log::{BehaviourLog, Scheme};
use ferrobase_client::Connection;

fn items(events: &[ferrobase_apps::behaviour_log::Event]) -> Vec<&str> {
    events.iter().map(|e| e.item.as_str()).collect()
}

fn check(conn: &Connection) {
    for scheme in [Scheme::Tall, Scheme::Wide] {
        let log = BehaviourLog::open(conn, scheme).unwrap();
        for (ts, item) in [
            (1000, "a"),
            (2000, "b"),
            (3000, "c"),
            (4000, "d"),
            (5000, "e"),
        ] {
            log.record(7, ts, item).unwrap();
        }
        log.record(8, 2500, "other user").unwrap();
        assert_eq!(log.get(7, 3000).unwrap().unwrap().item, "c", "{scheme:?}");
        assert!(log.get(7, 3001).unwrap().is_none());
        assert_eq!(items(&log.range(7, 2000, 4000).unwrap()), ["d", "c", "b"]);
        assert_eq!(
            items(&log.range(7, 0, i64::MAX).unwrap()),
            ["e", "d", "c", "b", "a"]
        );
        assert_eq!(items(&log.newest(7, 2).unwrap()), ["e", "d"], "{scheme:?}");
        assert_eq!(items(&log.newest(8, 10).unwrap()), ["other user"]);
        assert!(log.newest(9, 3).unwrap().is_empty());
    }
}

#[test]
fn both_schemes_answer_the_articles_queries_embedded() {
    let dir = tempfile::tempdir().unwrap();
    check(&Connection::open(&format!("file:{}", dir.path().display())).unwrap());
}

#[test]
fn both_schemes_answer_through_a_server() {
    let server = Server::start();
    check(&Connection::open(&server.url).unwrap());
    let newest = app(&[
        "behaviour-log",
        "--connect",
        &server.url,
        "--scheme",
        "wide",
        "newest",
        "--uid",
        "7",
        "--limit",
        "3",
    ]);
    let lines: Vec<&str> = newest.lines().collect();
    assert_eq!(
        lines,
        [
            "uid=7 ts=5000 item=e",
            "uid=7 ts=4000 item=d",
            "uid=7 ts=3000 item=c"
        ]
    );
}
