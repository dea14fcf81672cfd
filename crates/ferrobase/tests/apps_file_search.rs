//! Article 2's file search: the multi-condition query returns files 1, 2, 3, 4, 5 and 7 —
//! embedded, through the binary and through `ferrobase serve`; paging resumes where a page
//! ended; "one date, any user" by FuzzyRowFilter; the index table stays consistent under
//! random writes and deletes, and a crash between the data and the index write is repaired —
//! embedded, and through a server killed with SIGKILL between the two writes and restarted.

mod apps_harness;

use apps_harness::{app, app_status, serve_on, Server};
use ferrobase_apps::file_search::query::{Conditions, DateQuery, FileQuery};
use ferrobase_apps::file_search::{FileRecord, FileSearch, FILES_TABLE};
use ferrobase_client::Connection;
use ferrobase_engine::Delete;
use ferrobase_testkit::Rng;
use std::collections::BTreeMap;

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

fn embedded() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().display())).unwrap();
    (dir, conn)
}

fn article_conditions() -> Conditions {
    Conditions {
        name_prefix: Some("中国好声音".into()),
        category_prefix: Some("综艺".into()),
        ..Conditions::default()
    }
}

fn article_query() -> FileQuery {
    FileQuery {
        user: 1,
        from: 20120901,
        to: 20121001,
        conditions: article_conditions(),
    }
}

fn ids(files: &[FileRecord]) -> Vec<u32> {
    files.iter().map(|f| f.file).collect()
}

/// File ids in the `file=NNNNNN` fields of command output.
fn ids_in(out: &str) -> Vec<u32> {
    out.lines()
        .filter_map(|l| l.split(' ').find_map(|w| w.strip_prefix("file=")))
        .map(|n| n.parse().unwrap())
        .collect()
}

#[test]
fn the_articles_query_returns_files_1_to_5_and_7() {
    let (_dir, conn) = embedded();
    let fs = FileSearch::open(&conn).unwrap();
    assert_eq!(fs.load_example().unwrap(), 10);
    let page = fs.find(&article_query()).unwrap();
    assert_eq!(ids(&page.files), [1, 2, 3, 4, 5, 7]);
    assert_eq!(page.resume, None);

    // The article's stop row `00000120120914` is exclusive: that scan misses file 7.
    let mut literal = fs.plan_find(&article_query()).unwrap();
    literal.stop = b"00000120120914".to_vec();
    let rows = literal.run(&conn.table(FILES_TABLE)).unwrap();
    assert_eq!(rows.len(), 5);
    // The inclusive upper date `to = 20120914` stops at `00000120120915` and keeps it.
    let q = FileQuery {
        to: 20120914,
        ..article_query()
    };
    assert_eq!(fs.plan_find(&q).unwrap().stop, b"00000120120915");
    assert_eq!(ids(&fs.find(&q).unwrap().files), [1, 2, 3, 4, 5, 7]);
}

#[test]
fn pages_resume_after_the_last_key() {
    let (_dir, conn) = embedded();
    let fs = FileSearch::open(&conn).unwrap();
    fs.load_example().unwrap();
    let mut q = article_query();
    q.conditions.page_size = Some(2);
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = fs.find(&q).unwrap();
        pages += 1;
        assert!(page.files.len() <= 2);
        seen.extend(ids(&page.files));
        match page.resume {
            Some(k) => q.conditions.after = Some(k),
            None => break,
        }
    }
    assert_eq!(seen, [1, 2, 3, 4, 5, 7]);
    // Three full pages, then an empty one that says the end was reached.
    assert_eq!(pages, 4);
}

#[test]
fn one_date_any_user_by_fuzzy_row_filter() {
    let (_dir, conn) = embedded();
    let fs = FileSearch::open(&conn).unwrap();
    fs.load_example().unwrap();
    let on = |date: &str, c: Conditions| {
        ids(&fs
            .find_on_date(&DateQuery {
                date: date.into(),
                conditions: c,
            })
            .unwrap()
            .files)
    };
    assert_eq!(on("20120914", Conditions::default()), [7]);
    assert_eq!(on("20120912", Conditions::default()), [6]);
    // September, any user, the article's prefixes: user order, then date.
    assert_eq!(
        on("201209??", article_conditions()),
        [1, 2, 3, 4, 5, 7, 6, 8]
    );
    assert!(fs
        .find_on_date(&DateQuery {
            date: "2012091".into(),
            conditions: Conditions::default()
        })
        .is_err());
}

#[test]
fn the_binary_answers_embedded_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    let server = Server::start();
    for target in [
        ["--data", data.as_str()],
        ["--connect", server.url.as_str()],
    ] {
        let t: &[&str] = &target;
        let run = |extra: &[&str]| {
            let mut args = vec!["file-search"];
            args.extend_from_slice(t);
            args.extend_from_slice(extra);
            app(&args)
        };
        run(&["load-example"]);
        let find = [
            "find",
            "--user",
            "1",
            "--from",
            "20120901",
            "--to",
            "20121001",
            "--name",
            "中国好声音",
            "--category",
            "综艺",
        ];
        assert_eq!(ids_in(&run(&find)), [1, 2, 3, 4, 5, 7], "{target:?}");
        let mut paged = find.to_vec();
        paged.extend(["--page", "4"]);
        let first = run(&paged);
        assert_eq!(ids_in(&first), [1, 2, 3, 4]);
        let resume = first
            .lines()
            .find_map(|l| l.strip_prefix("resume="))
            .unwrap()
            .to_string();
        paged.extend(["--after", resume.as_str()]);
        assert_eq!(ids_in(&run(&paged)), [5, 7]);
        assert_eq!(ids_in(&run(&["on-date", "--date", "20120914"])), [7]);
        assert_eq!(
            ids_in(&run(&[
                "by-index", "--from", "20120910", "--to", "20120916"
            ])),
            [5, 6, 7, 8]
        );
        assert!(run(&["verify-index"]).contains("index consistent"));
    }
}

#[test]
fn random_writes_and_deletes_keep_the_index_consistent() {
    let (_dir, conn) = embedded();
    let fs = FileSearch::open(&conn).unwrap();
    let mut model: BTreeMap<(u32, u32, u32), FileRecord> = BTreeMap::new();
    let mut rng = Rng::new(19);
    for _ in 0..300 {
        let user = 1 + rng.below(4) as u32;
        let date = 20120901 + rng.below(20) as u32;
        let file = 1 + rng.below(40) as u32;
        if rng.below(3) == 0 {
            fs.delete(user, date, file).unwrap();
            model.remove(&(user, date, file));
            // A put in the delete's millisecond is masked by it (HBase: a delete marker covers
            // every put at or below its timestamp), which this model does not know: the next
            // write waits for the clock to move on.
            let deleted_by = now_ms();
            while now_ms() <= deleted_by {
                std::thread::yield_now();
            }
        } else {
            let f = FileRecord {
                user,
                date,
                file,
                name: format!("name{}", rng.below(5)),
                category: format!("cat{}", rng.below(3)),
            };
            fs.put(&f).unwrap();
            model.insert((user, date, file), f);
        }
    }
    let report = fs.verify_index().unwrap();
    assert!(report.is_consistent(), "{}", report.summary());
    assert_eq!(report.data_rows, model.len());
    assert_eq!(report.index_rows, model.len());
    // The index answers as the data does.
    let c = Conditions {
        category_prefix: Some("cat1".into()),
        ..Conditions::default()
    };
    let mut want: Vec<_> = model
        .values()
        .filter(|f| (20120905..=20120912).contains(&f.date) && f.category == "cat1")
        .cloned()
        .collect();
    want.sort_by_key(|f| (f.date, f.user, f.file));
    assert_eq!(fs.find_by_index(20120905, 20120912, &c).unwrap(), want);
}

#[test]
fn a_crash_between_data_and_index_writes_is_repaired() {
    let (_dir, conn) = embedded();
    let fs = FileSearch::open(&conn).unwrap();
    fs.load_example().unwrap();
    // Crash after the data write of a new file: no index row.
    let new = FileRecord {
        user: 5,
        date: 20120915,
        file: 11,
        name: "中国好声音第6期".into(),
        category: "综艺".into(),
    };
    fs.write_data_row(&new).unwrap();
    // Crash after the data delete of file 9: its index row dangles.
    conn.table(FILES_TABLE)
        .delete(Delete::new(fs.key(3, 20120918, 9).unwrap()))
        .unwrap();
    // Crash between the two writes of a rename of file 1: a stale index row.
    let mut renamed = ferrobase_apps::file_search::example::files()[0].clone();
    renamed.category = "花絮".into();
    fs.write_data_row(&renamed).unwrap();

    let report = fs.verify_index().unwrap();
    assert_eq!(ids(&report.missing), [11]);
    assert_eq!(report.dangling, [(3, 20120918, 9)]);
    assert_eq!(ids(&report.stale), [1]);

    // An index read (any user) skips the dangling row and judges file 1 on its data.
    let sept = fs
        .find_by_index(20120901, 20120930, &article_conditions())
        .unwrap();
    assert_eq!(ids(&sept), [2, 3, 4, 5, 6, 7, 8]);
    // Read repair fixes the rows the read touched: file 1's stale row, not file 9's dangling
    // one, which the index filters excluded (its name is not a match).
    let after_read = fs.verify_index().unwrap();
    assert!(after_read.stale.is_empty());
    assert_eq!(after_read.dangling, [(3, 20120918, 9)]);
    let all = fs
        .find_by_index(20120901, 20120930, &Conditions::default())
        .unwrap();
    // File 11 has no index row yet: the index cannot see it.
    assert_eq!(ids(&all), [1, 2, 3, 4, 5, 6, 7, 8, 10]);
    let after_read = fs.verify_index().unwrap();
    assert!(after_read.dangling.is_empty());
    assert_eq!(ids(&after_read.missing), [11]);

    // The rebuild adds the missing row; then all agree.
    fs.rebuild_index().unwrap();
    assert!(fs.verify_index().unwrap().is_consistent());
    assert_eq!(
        ids(&fs
            .find_by_index(20120915, 20120915, &Conditions::default())
            .unwrap()),
        [11]
    );
    // Rebuilding a consistent index changes nothing.
    assert!(fs.rebuild_index().unwrap().is_consistent());
}

#[test]
fn a_server_killed_between_data_and_index_writes_is_repaired_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = serve_on(dir.path());
    {
        let conn = Connection::open(&url).unwrap();
        let fs = FileSearch::open(&conn).unwrap();
        fs.load_example().unwrap();
        // The writer gets its data write acknowledged, then the server dies (and the writer
        // with it) before the index write: file 11 has no index row.
        fs.write_data_row(&FileRecord {
            user: 5,
            date: 20120915,
            file: 11,
            name: "中国好声音第6期".into(),
            category: "综艺".into(),
        })
        .unwrap();
        // A delete interrupted the same way: file 7's index row outlives its data.
        conn.table(FILES_TABLE)
            .delete(Delete::new(fs.key(1, 20120914, 7).unwrap()))
            .unwrap();
    }
    server.kill(); // SIGKILL

    let (_server, url) = serve_on(dir.path());
    let fs = |cmd: &[&str]| {
        let mut args = vec!["file-search", "--connect", url.as_str()];
        args.extend_from_slice(cmd);
        app_status(&args)
    };
    // The acknowledged writes survived the kill; the index lacks one and has one too many.
    let (ok, out) = fs(&["verify-index"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("missing user=000005 date=20120915 file=000011 ")
            && out.contains("dangling user=000001 date=20120914 file=000007\n"),
        "{out}"
    );
    // An index read skips the dangling row (and removes it); file 11 is not in the index yet.
    let (ok, out) = fs(&["by-index", "--from", "20120910", "--to", "20120916"]);
    assert!(ok, "{out}");
    assert_eq!(ids_in(&out), [5, 6, 8], "{out}");
    let (ok, out) = fs(&["verify-index"]);
    assert!(!ok && !out.contains("dangling"), "{out}");
    // The rebuild adds the missing row; the article's query and the index agree again.
    let (ok, out) = fs(&["rebuild-index"]);
    assert!(ok, "{out}");
    let (ok, out) = fs(&["verify-index"]);
    assert!(ok && out.contains("index consistent"), "{out}");
    let (ok, out) = fs(&["by-index", "--from", "20120910", "--to", "20120916"]);
    assert!(ok, "{out}");
    assert_eq!(ids_in(&out), [5, 6, 11, 8], "{out}");
}
