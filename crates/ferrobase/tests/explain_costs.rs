//! Scan explain (issue 43) from the client and the shell, embedded and through `ferrobase
//! serve`: the seed file-search query's cost on a known layout, figure by figure and the same
//! both ways; `get ... {EXPLAIN => true}` on a bloom-filtered absent row and `scan ...
//! {EXPLAIN => true}` leaving files out by time range, printed as the shell's cost table.

mod shell_harness;

use ferrobase_apps::file_search::query::{Conditions, FileQuery};
use ferrobase_apps::file_search::{FileSearch, FILES_TABLE};
use ferrobase_client::Connection;
use ferrobase_engine::{Get, ReadCost};

fn article_query() -> FileQuery {
    FileQuery {
        user: 1,
        from: 20120901,
        to: 20121001,
        conditions: Conditions {
            name_prefix: Some("中国好声音".into()),
            category_prefix: Some("综艺".into()),
            ..Conditions::default()
        },
    }
}

/// Loads article 2's ten files into one flushed file and runs the article's query with
/// explain: the files it returns and what it cost.
fn file_search_cost(conn: &Connection) -> (usize, ReadCost) {
    let fs = FileSearch::open(conn).unwrap();
    fs.load_example().unwrap();
    conn.flush(FILES_TABLE).unwrap();
    let plan = fs.plan_find(&article_query()).unwrap();
    let (scan, filter) = plan.to_scan();
    let table = conn.table(FILES_TABLE);
    let mut scanner = table.scanner(scan.explain(true), filter).unwrap();
    let mut rows = 0;
    loop {
        let batch = scanner.next_batch(100).unwrap();
        if batch.is_empty() {
            break;
        }
        rows += batch.len();
    }
    (
        rows,
        scanner.cost().unwrap().expect("the scan explains itself"),
    )
}

/// The article's query on its ten files: user 1's range holds files 1–5 and 7 (six rows of
/// two cells), all returned, in the one file and its one block, read from the disk.
fn article_query_cost() -> ReadCost {
    ReadCost {
        regions_visited: 1,
        rows_examined: 6,
        rows_returned: 6,
        cells_examined: 12,
        cells_returned: 12,
        files_read: 1,
        blocks_from_disk: 1,
        seeks: 1,
        ..ReadCost::default()
    }
}

#[test]
fn the_file_search_query_costs_the_same_embedded_and_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().display())).unwrap();
    let (rows, embedded) = file_search_cost(&conn);
    assert_eq!(rows, 6);
    assert_eq!(embedded, article_query_cost());

    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = shell_harness::serve(dir.path());
    let conn = Connection::open(&url).unwrap();
    let (rows, remote) = file_search_cost(&conn);
    assert_eq!(rows, 6);
    assert_eq!(remote, article_query_cost());

    // A get through the server's extension: an absent file of user 1 is within the file's
    // key range, and its bloom filter answers it.
    let fs = FileSearch::open(&conn).unwrap();
    let key = fs.key(1, 20120903, 99).unwrap();
    let (row, cost) = conn
        .table(FILES_TABLE)
        .get_explained(Get::new(key), None)
        .unwrap();
    assert!(row.is_empty());
    assert_eq!(
        cost,
        ReadCost {
            regions_visited: 1,
            files_skipped_by_bloom: 1,
            ..ReadCost::default()
        }
    );
}

/// `figure` in the cost table of `out` (the last one printed).
fn figure(out: &str, name: &str) -> u64 {
    out.lines()
        .rev()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(name)).then(|| w.next().unwrap().parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no {name} in {out}"))
}

// Compactions off: three flushes would otherwise reach the compaction threshold, and a
// compaction finishing before the read leaves one file where the figures count three.
const SCRIPT: &str = "create 't', {NAME => 'cf', BLOOMFILTER => 'ROW', VERSIONS => 5}, {COMPACTION_ENABLED => false}\n\
     put 't', 'a', 'cf:q', 'v1', 100\n\
     put 't', 'z', 'cf:q', 'v1', 100\n\
     flush 't'\n\
     put 't', 'a', 'cf:q', 'v2', 200\n\
     put 't', 'z', 'cf:q', 'v2', 200\n\
     flush 't'\n\
     put 't', 'a', 'cf:q', 'v3', 300\n\
     put 't', 'z', 'cf:q', 'v3', 300\n\
     flush 't'\n";

fn check_shell(run: impl Fn(&str) -> String) {
    let out = run(&format!("{SCRIPT}get 't', 'm', {{EXPLAIN => true}}\n"));
    assert!(out.contains("0 row(s)\n\nCOST "), "{out}");
    assert_eq!(figure(&out, "files_skipped_by_bloom"), 3, "{out}");
    assert_eq!(figure(&out, "files_read"), 0, "{out}");
    assert_eq!(figure(&out, "blocks_from_disk"), 0, "{out}");

    let out = run(&format!(
        "{SCRIPT}scan 't', {{TIMERANGE => [250, 400], EXPLAIN => true}}\n"
    ));
    assert!(out.contains("value=v3"), "{out}");
    assert!(!out.contains("value=v2"), "{out}");
    assert_eq!(figure(&out, "files_skipped_by_time_range"), 2, "{out}");
    assert_eq!(figure(&out, "files_read"), 1, "{out}");
    assert_eq!(figure(&out, "rows_returned"), 2, "{out}");
    assert_eq!(figure(&out, "cells_returned"), 2, "{out}");
}

#[test]
fn the_shell_prints_a_cost_table_embedded_and_over_connect() {
    check_shell(|input| {
        let (out, ok) = shell_harness::embedded(input);
        assert!(ok, "{out}");
        out
    });
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = shell_harness::serve(dir.path());
    check_shell(|input| {
        // A fresh table for each script.
        let input = format!("disable 't'\ndrop 't'\n{input}");
        let (out, _) = shell_harness::shell(&["--connect", &url], &input);
        out
    });
}

#[test]
fn get_slowlog_responses_lists_the_calls_with_their_explain_line() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = shell_harness::serve_with(dir.path(), &["--slow-ms", "0"]);
    let (out, ok) = shell_harness::shell(
        &["--connect", &url],
        "create 't', {NAME => 'cf', BLOOMFILTER => 'ROW'}\n\
         put 't', 'a', 'cf:q', 'v'\n\
         put 't', 'z', 'cf:q', 'v'\n\
         flush 't'\n\
         get 't', 'm'\n\
         get_slowlog_responses '*', {'TABLE_NAME' => 't', 'LIMIT' => 1}\n\
         get_slowlog_responses '*', {'TABLE_NAME' => 'other'}\n",
    );
    assert!(ok, "{out}");
    let out = shell_harness::untimed(&out);
    let listed = out
        .split("Retrieved SlowLog Responses from RegionServers\n")
        .collect::<Vec<_>>();
    assert_eq!(listed.len(), 3, "{out}");
    // The newest call on t: the get, its one file left out by the bloom filter.
    let record = listed[1];
    assert!(record.starts_with("{\n  \"startTime\": "), "{out}");
    assert!(
        record.contains("\n  \"methodName\": \"Hbase.getRowWithColumns\",\n"),
        "{out}"
    );
    assert!(record.contains("\n  \"param\": \"t\",\n"), "{out}");
    assert!(record.contains("files_skipped_by_bloom\\u003d1 "), "{out}");
    assert_eq!(record.matches("\"startTime\"").count(), 1, "{out}");
    // No call on another table.
    assert_eq!(listed[2], "", "{out}");
}
