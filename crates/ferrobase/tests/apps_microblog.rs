//! Article 4's microblog: follow, post, fan-out into inboxes, home timeline newest first, own
//! posts, unfollow stops later deliveries — embedded, through `ferrobase serve` with
//! `--connect`; and the fan-out worker killed with SIGKILL at random points and restarted
//! delivers every post to every fan exactly once, in time order.

mod apps_harness;

use apps_harness::{app, binary, Server};
use ferrobase_apps::microblog::fanout::WorkerOptions;
use ferrobase_apps::microblog::Microblog;
use ferrobase_client::Connection;
use ferrobase_testkit::Rng;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::process::{Command, Stdio};

fn embedded(dir: &tempfile::TempDir) -> Connection {
    Connection::open(&format!("file:{}", dir.path().display())).unwrap()
}

fn drain(mb: &Microblog) -> usize {
    let opts = WorkerOptions {
        exit_when_idle: true,
        ..WorkerOptions::default()
    };
    mb.run_worker(&opts, &mut |_| {}).unwrap()
}

fn texts(posts: &[ferrobase_apps::microblog::Post]) -> Vec<&str> {
    posts.iter().map(|p| p.content.as_str()).collect()
}

#[test]
fn timelines_follow_the_article() {
    let dir = tempfile::tempdir().unwrap();
    let mb = Microblog::open(&embedded(&dir)).unwrap();
    // 3 follows 1 and 2; 2 follows 1.
    mb.follow(3, 1).unwrap();
    mb.follow(3, 2).unwrap();
    mb.follow(2, 1).unwrap();
    assert_eq!(mb.fans(1).unwrap(), [2, 3]);
    assert_eq!(mb.following(3).unwrap(), [1, 2]);
    mb.post(1, "a1").unwrap();
    mb.post(2, "b1").unwrap();
    mb.post(1, "a2").unwrap();
    assert_eq!(mb.pending_fanout().unwrap(), 3);
    // Nothing is delivered before the worker runs.
    assert!(mb.home_timeline(3, 10).unwrap().is_empty());
    assert_eq!(drain(&mb), 3);
    assert_eq!(mb.pending_fanout().unwrap(), 0);
    // The home timeline merges both authors, newest first.
    assert_eq!(texts(&mb.home_timeline(3, 10).unwrap()), ["a2", "b1", "a1"]);
    assert_eq!(texts(&mb.home_timeline(2, 10).unwrap()), ["a2", "a1"]);
    assert_eq!(texts(&mb.home_timeline(3, 2).unwrap()), ["a2", "b1"]);
    assert!(mb.home_timeline(1, 10).unwrap().is_empty());
    assert_eq!(texts(&mb.own_posts(1, 10).unwrap()), ["a2", "a1"]);
    // Unfollow stops later deliveries; earlier ones stay.
    mb.unfollow(3, 1).unwrap();
    assert_eq!(mb.fans(1).unwrap(), [2]);
    mb.post(1, "a3").unwrap();
    drain(&mb);
    assert_eq!(texts(&mb.home_timeline(3, 10).unwrap()), ["a2", "b1", "a1"]);
    assert_eq!(texts(&mb.home_timeline(2, 10).unwrap()), ["a3", "a2", "a1"]);
    // Post times are unique and the inbox versions are the post times.
    let inbox = mb.inbox(2, 10).unwrap();
    assert!(inbox.windows(2).all(|w| w[0].time > w[1].time));
}

#[test]
fn redelivery_keeps_one_version() {
    let dir = tempfile::tempdir().unwrap();
    let conn = embedded(&dir);
    let mb = Microblog::open(&conn).unwrap();
    mb.follow(2, 1).unwrap();
    let p = mb.post(1, "once").unwrap();
    drain(&mb);
    // A worker killed before deleting the queue row delivers the post again: re-queue it
    // (above the delete marker's timestamp, which may be this very millisecond).
    let queue_row = format!("{:019}{:010}", p.time, 1).into_bytes();
    let later = ferrobase_apps::clock::now_millis() + 60_000;
    conn.table(ferrobase_apps::microblog::FANOUT_TABLE)
        .put(
            ferrobase_engine::Put::with_timestamp(queue_row, later)
                .add_column("q", "post", p.id.as_bytes())
                .add_column("q", "content", "once"),
        )
        .unwrap();
    assert_eq!(drain(&mb), 1);
    let inbox = mb.inbox(2, 1000).unwrap();
    assert_eq!(inbox.len(), 1);
    assert_eq!(
        (inbox[0].time, inbox[0].post.as_str()),
        (p.time, p.id.as_str())
    );
}

#[test]
fn the_binary_runs_the_microblog_through_a_server() {
    let server = Server::start();
    let mb = |extra: &[&str]| {
        let mut args = vec!["microblog", "--connect", server.url.as_str()];
        args.extend_from_slice(extra);
        app(&args)
    };
    mb(&["follow", "--user", "3", "--target", "1"]);
    mb(&["follow", "--user", "3", "--target", "2"]);
    mb(&["post", "--user", "1", "--text", "from one"]);
    mb(&["post", "--user", "2", "--text", "from two"]);
    let worker = mb(&["worker", "--once"]);
    assert!(worker.contains("fan-out done: 2 posts"), "{worker}");
    let home = mb(&["home", "--user", "3"]);
    let lines: Vec<&str> = home.lines().collect();
    assert_eq!(lines.len(), 2, "{home}");
    assert!(lines[0].ends_with("from two") && lines[1].ends_with("from one"));
    assert!(mb(&["posts", "--user", "1"]).contains("from one"));
    assert_eq!(mb(&["fans", "--user", "1"]).trim(), "3");
    mb(&["unfollow", "--user", "3", "--target", "2"]);
    mb(&["post", "--user", "2", "--text", "unseen"]);
    mb(&["worker", "--once"]);
    assert_eq!(mb(&["home", "--user", "3"]).lines().count(), 2);
}

#[test]
fn a_worker_killed_at_random_points_delivers_exactly_once() {
    const USERS: u64 = 8;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let mut posts = Vec::new();
    {
        let mb = Microblog::open(&embedded(&dir)).unwrap();
        // Every user follows every other: 7 fans each.
        for fan in 1..=USERS {
            for star in 1..=USERS {
                if fan != star {
                    mb.follow(fan, star).unwrap();
                }
            }
        }
        for round in 0..3 {
            for uid in 1..=USERS {
                posts.push(mb.post(uid, &format!("post {round} of {uid}")).unwrap());
            }
        }
    }
    // 24 posts × 7 fans = 168 deliveries. Kill the worker after a random number of delivery
    // lines (0 = right after it starts) until it finishes on its own, at least 20 times.
    let mut rng = Rng::new(20);
    let mut kills = 0;
    loop {
        let mut child = Command::new(binary())
            .args(["app", "microblog", "--data", &data, "worker", "--once"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let want = rng.below(7);
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut finished = false;
        let mut line = String::new();
        for _ in 0..want {
            line.clear();
            if out.read_line(&mut line).unwrap() == 0 || line.starts_with("fan-out done") {
                finished = true;
                break;
            }
        }
        if finished {
            let status = child.wait().unwrap();
            assert!(status.success());
            if kills >= 20 {
                break;
            }
            // Finished too early: queue more posts to keep killing.
            let mb = Microblog::open(&embedded(&dir)).unwrap();
            for uid in 1..=USERS {
                posts.push(mb.post(uid, &format!("extra {kills} of {uid}")).unwrap());
            }
            continue;
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        kills += 1;
    }
    assert!(kills >= 20);
    eprintln!("{kills} kills, {} posts", posts.len());
    let done = app(&["microblog", "--data", &data, "worker", "--once"]);
    assert!(done.contains("fan-out done: 0 posts"), "{done}");

    let mb = Microblog::open(&embedded(&dir)).unwrap();
    assert_eq!(mb.pending_fanout().unwrap(), 0);
    for fan in 1..=USERS {
        let inbox = mb.inbox(fan, 1000).unwrap();
        let mut want: Vec<(i64, String)> = posts
            .iter()
            .filter(|p| p.uid != fan)
            .map(|p| (p.time, p.id.clone()))
            .collect();
        want.sort();
        want.reverse();
        let got: Vec<(i64, String)> = inbox.into_iter().map(|e| (e.time, e.post)).collect();
        assert_eq!(got, want, "inbox of {fan} after {kills} kills");
        let mut count = BTreeMap::new();
        for (_, id) in &got {
            *count.entry(id.clone()).or_insert(0) += 1;
        }
        assert!(count.values().all(|&n| n == 1));
    }
}
