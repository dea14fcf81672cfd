//! NEW_VERSION_BEHAVIOR (HBASE-15968) families meeting per-cell TTLs (`Put::ttl_ms`, HBase's
//! `Mutation.setTTL`), each answer the one Apache HBase 2.6.1 gave to the same writes (the
//! differential cases `nvb_*expired*` in tests/differential/cases.py, and the last test through
//! HBase's own shell). HBase's `ScanQueryMatcher.preCheck` skips a cell past its own TTL before
//! the tracker sees it (`NewVersionBehaviorTracker.isDone` is always false), so an expired put
//! neither masks an older version nor counts against VERSIONS, in reads and major compactions.
//!
//! Timestamps are of 1970 and the clock is the system's: a TTL of a second has long expired.

use ferrobase_engine::*;

/// A TTL that has expired for any timestamp of 1970.
const EXPIRED: i64 = 1000;

/// An engine with table `t` whose family `n` has NEW_VERSION_BEHAVIOR and `versions`.
fn table(versions: u32) -> (tempfile::TempDir, Engine, Table) {
    let dir = tempfile::tempdir().unwrap();
    let mut o = EngineOptions::default();
    o.compaction.auto = false;
    o.compaction.major_interval = None;
    let e = Engine::open(dir.path(), o).unwrap();
    let mut n = ColumnFamilyDescriptor::new("n");
    n.max_versions = versions;
    n.new_version_behavior = true;
    e.admin()
        .create_table(TableDescriptor::new(TableName::parse("t").unwrap()).with_family(n))
        .unwrap();
    let t = e.table("t").unwrap();
    (dir, e, t)
}

fn put(t: &Table, row: &str, q: &str, ts: i64, value: &str, ttl_ms: Option<i64>) {
    let mut p = Put::new(row).add_column_ts("n", q, ts, value);
    p.ttl_ms = ttl_ms;
    t.put(p).unwrap();
}

/// (qualifier, timestamp, value) of every version a get of `row` returns in `[min_ts, MAX)`.
fn versions_from(t: &Table, row: &str, min_ts: i64) -> Vec<(String, i64, String)> {
    let g = Get::new(row)
        .max_versions(10)
        .time_range(TimeRange::new(min_ts, i64::MAX).unwrap());
    t.get(&g)
        .unwrap()
        .cells
        .iter()
        .map(|c| {
            (
                String::from_utf8_lossy(c.qualifier()).into_owned(),
                c.timestamp(),
                String::from_utf8_lossy(c.value()).into_owned(),
            )
        })
        .collect()
}

fn versions(t: &Table, row: &str) -> Vec<(String, i64, String)> {
    versions_from(t, row, 0)
}

fn cell(q: &str, ts: i64, v: &str) -> (String, i64, String) {
    (q.to_string(), ts, v.to_string())
}

#[test]
fn an_expired_newer_version_uncovers_the_older_one_through_flush_and_major_compaction() {
    let (_d, e, t) = table(1);
    put(&t, "r", "a", 10, "old", None);
    put(&t, "r", "a", 20, "expired", Some(EXPIRED));
    // Written last, below an expired version: seen.
    put(&t, "r3", "a", 30, "expired", Some(EXPIRED));
    put(&t, "r3", "a", 5, "written-later", None);
    for step in ["memstore", "flushed", "major compacted"] {
        assert_eq!(versions(&t, "r"), vec![cell("a", 10, "old")], "{step}");
        assert_eq!(
            versions(&t, "r3"),
            vec![cell("a", 5, "written-later")],
            "{step}"
        );
        match step {
            "memstore" => e.admin().flush("t").unwrap(),
            "flushed" => e.admin().major_compact("t").unwrap(),
            _ => {}
        }
    }
}

#[test]
fn expired_versions_do_not_count_against_three_versions() {
    let (_d, e, t) = table(3);
    for ts in 1..=3 {
        put(&t, "r", "a", ts, &format!("v{ts}"), None);
    }
    put(&t, "r", "a", 4, "x4", Some(EXPIRED));
    put(&t, "r", "a", 5, "x5", Some(EXPIRED));
    let three = vec![cell("a", 3, "v3"), cell("a", 2, "v2"), cell("a", 1, "v1")];
    assert_eq!(versions(&t, "r"), three);
    e.admin().flush("t").unwrap();
    put(&t, "r", "a", 6, "v6", None);
    let after = vec![cell("a", 6, "v6"), cell("a", 3, "v3"), cell("a", 2, "v2")];
    assert_eq!(versions(&t, "r"), after);
    e.admin().flush("t").unwrap();
    e.admin().major_compact("t").unwrap();
    assert_eq!(versions(&t, "r"), after);
}

#[test]
fn an_expired_put_after_a_column_delete_neither_shows_nor_hides_a_later_write() {
    let (_d, e, t) = table(3);
    t.delete(Delete::new("r").add_columns_ts("n", "a", 10))
        .unwrap();
    put(&t, "r", "a", 8, "expired", Some(EXPIRED));
    put(&t, "r", "a", 7, "after", None);
    assert_eq!(versions(&t, "r"), vec![cell("a", 7, "after")]);
    e.admin().flush("t").unwrap();
    e.admin().major_compact("t").unwrap();
    assert_eq!(versions(&t, "r"), vec![cell("a", 7, "after")]);
}

#[test]
fn a_version_masked_put_stops_counting_so_an_older_later_write_shows() {
    // VERSIONS 1: v91@5 is masked by v82@14 just before the version delete of 14 removes
    // v82, and a masked put no longer counts, so v145@3, written after the delete, shows.
    // HBase 2.6.1's shell: `get` and `scan ... TIMERANGE => [3, MAX]` both return v145@3,
    // before and after a flush (model_semantics seed 6 with per-cell TTLs met this).
    let (_d, e, t) = table(1);
    put(&t, "b", "q1", 14, "v82", None);
    put(&t, "b", "q1", 5, "v91", None);
    t.delete(Delete::new("b").add_column_ts("n", "q1", 14))
        .unwrap();
    put(&t, "b", "q1", 3, "v145", None);
    assert_eq!(versions(&t, "b"), vec![cell("q1", 3, "v145")]);
    assert_eq!(versions_from(&t, "b", 3), vec![cell("q1", 3, "v145")]);
    e.admin().flush("t").unwrap();
    assert_eq!(versions(&t, "b"), vec![cell("q1", 3, "v145")]);
}
