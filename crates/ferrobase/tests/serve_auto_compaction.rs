//! `ferrobase serve --no-auto-compaction`: a store keeps one file per flush until a compaction
//! is asked for, as HBase does with a high `hbase.hstore.compactionThreshold` (the
//! differential tests run both servers so, for the same physical state); without the flag,
//! flushes past three files start a minor compaction.

mod apps_harness;

use apps_harness::Server;
use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, Put, TableDescriptor, TableName};
use std::time::{Duration, Instant};

/// Block files (`data/<region>/<n>.blk`) in a server's data directory.
fn block_files(server: &Server) -> usize {
    let data = server.data_dir().join("data");
    let Ok(regions) = std::fs::read_dir(&data) else {
        return 0;
    };
    regions
        .flatten()
        .flat_map(|r| std::fs::read_dir(r.path()).into_iter().flatten().flatten())
        .filter(|f| f.path().extension().is_some_and(|e| e == "blk"))
        .count()
}

/// Creates table `t` and writes then flushes two cells `flushes` times. Every file spans rows
/// `a…` to `z…`, so the files overlap (files that share no row form a sorted run, which
/// compactions leave alone: docs/design/compaction.md).
fn flush_series(conn: &Connection, flushes: usize) {
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[]).unwrap();
    let t = conn.table("t");
    for i in 0..flushes {
        for row in [format!("a{i}"), format!("z{i}")] {
            t.put(Put::new(row).add_column("cf", "q", "v")).unwrap();
        }
        conn.flush("t").unwrap();
    }
}

/// Polls `files` for up to `wait` until it returns `want`; returns the last count.
fn settle(wait: Duration, want: usize, files: impl Fn() -> usize) -> usize {
    let start = Instant::now();
    loop {
        let n = files();
        if n == want || start.elapsed() > wait {
            return n;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_flush_series_keeps_one_file_per_flush_until_a_major_compaction() {
    let server = Server::start_with(&["--no-auto-compaction"]);
    let conn = Connection::open(&server.url).unwrap();
    flush_series(&conn, 5);
    assert_eq!(block_files(&server), 5);
    // Nothing compacts in the background: still five files a while later.
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(block_files(&server), 5);
    // A minor compaction asked for runs.
    conn.compact("t", false).unwrap();
    let after_minor = settle(Duration::from_secs(10), 1, || block_files(&server));
    assert!(
        after_minor < 5,
        "{after_minor} files after a minor compaction"
    );
    conn.table("t")
        .put(Put::new("r9").add_column("cf", "q", "v"))
        .unwrap();
    conn.flush("t").unwrap();
    conn.compact("t", true).unwrap();
    assert_eq!(
        settle(Duration::from_secs(10), 1, || block_files(&server)),
        1
    );
}

#[test]
fn without_the_flag_flushes_start_a_minor_compaction() {
    let server = Server::start();
    let conn = Connection::open(&server.url).unwrap();
    flush_series(&conn, 5);
    // Three files or more start one in the background (hbase.hstore.compaction.min).
    let n = settle(Duration::from_secs(10), 1, || block_files(&server));
    assert!(n < 5, "{n} files after five flushes");
}
