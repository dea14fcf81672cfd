//! Per-cell TTL (`Put::ttl`, HBase's `Mutation.setTTL`): a put's cells disappear from every
//! read once `timestamp + ttl < now`, stay governed by it through the WAL, flushes, reopening
//! and compactions, and are dropped (not only hidden) by flushes and compactions once expired.
//! Time is a manual clock; moving it back shows whether an expired cell was dropped or hidden.

use ferrobase_engine::clock::ManualClock;
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::*;
use std::sync::Arc;
use std::time::Duration;

const T0: i64 = 1_700_000_000_000;

fn open(dir: &std::path::Path, clock: &Arc<ManualClock>) -> Engine {
    let mut o = EngineOptions {
        clock: clock.clone(),
        ..EngineOptions::default()
    };
    o.compaction.auto = false;
    o.compaction.major_interval = None;
    Engine::open(dir, o).unwrap()
}

fn create(e: &Engine, family: ColumnFamilyDescriptor) -> Table {
    e.admin()
        .create_table(TableDescriptor::new(TableName::parse("t").unwrap()).with_family(family))
        .unwrap();
    e.table("t").unwrap()
}

fn family(versions: u32) -> ColumnFamilyDescriptor {
    let mut f = ColumnFamilyDescriptor::new("x");
    f.max_versions = versions;
    f
}

/// (qualifier, timestamp, value) of every cell a get of `row` returns, all versions.
fn cells(t: &Table, row: &str) -> Vec<(String, i64, String)> {
    let r = t.get(&Get::new(row).max_versions(10)).unwrap();
    r.cells
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

/// Values of column `x:q` over a scan of the table, by row.
fn scanned(t: &Table, scan: Scan) -> Vec<(String, String)> {
    t.scanner(&scan)
        .unwrap()
        .map(|r| r.unwrap())
        .flat_map(|r| r.cells)
        .map(|c| {
            (
                String::from_utf8_lossy(c.row()).into_owned(),
                String::from_utf8_lossy(c.value()).into_owned(),
            )
        })
        .collect()
}

fn c(q: &str, ts: i64, v: &str) -> (String, i64, String) {
    (q.to_string(), ts, v.to_string())
}

#[test]
fn a_put_ttl_hides_its_cells_from_gets_scans_filters_and_raw_reads_once_past() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let e = open(dir.path(), &clock);
    let t = create(&e, family(3));
    t.put(Put::with_timestamp("r", T0 - 500).add_column("x", "a", "old"))
        .unwrap();
    t.put(
        Put::new("r")
            .add_column("x", "a", "short")
            .add_column("x", "b", "short-b")
            .ttl(Duration::from_millis(1_000)),
    )
    .unwrap();
    t.put(Put::new("r").add_column("x", "c", "forever"))
        .unwrap();
    let all = vec![
        c("a", T0, "short"),
        c("a", T0 - 500, "old"),
        c("b", T0, "short-b"),
        c("c", T0, "forever"),
    ];
    // ts + ttl == now is not expired yet (HBase: `ts + ttl < now`).
    clock.set(T0 + 1_000);
    assert_eq!(cells(&t, "r"), all);
    clock.set(T0 + 1_001);
    // The older version of `a` (no TTL) is the newest again: an expired cell is skipped, not
    // counted as a version (HBase's `ScanQueryMatcher.preCheck`).
    let live = vec![c("a", T0 - 500, "old"), c("c", T0, "forever")];
    assert_eq!(cells(&t, "r"), live);
    let newest = t.get(&Get::new("r").add_column("x", "b")).unwrap();
    assert!(newest.cells.is_empty(), "{newest:?}");
    assert_eq!(
        scanned(&t, Scan::new()),
        vec![("r".into(), "old".into()), ("r".into(), "forever".into())]
    );
    let filtered = Scan::new().filter(parse_filter(b"ValueFilter(=, 'substring:short')").unwrap());
    assert_eq!(scanned(&t, filtered), vec![]);
    let raw = t.scanner(&Scan::new().raw(true)).unwrap();
    let raw_cells: usize = raw.map(|r| r.unwrap().cells.len()).sum();
    assert_eq!(raw_cells, 2, "raw reads skip cells past their own TTL too");
    // Moving the clock back shows them again: reads only hid them.
    clock.set(T0);
    assert_eq!(cells(&t, "r"), all);
}

#[test]
fn cell_ttls_survive_the_wal_and_flush_and_expired_cells_are_dropped_by_flush_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let e = open(dir.path(), &clock);
    let t = create(&e, family(1));
    let short = |row: &str, ms: i64| Put::new(row).add_column("x", "q", row).ttl_ms(ms);
    // In a block file (flushed while alive), then through the WAL (reopened unflushed).
    t.put(short("flushed", 2_000)).unwrap();
    e.admin().flush("t").unwrap();
    t.put(short("logged", 2_000)).unwrap();
    t.put(Put::new("plain").add_column("x", "q", "plain"))
        .unwrap();
    drop(t);
    drop(e);
    let e = open(dir.path(), &clock);
    let t = e.table("t").unwrap();
    let everything = vec![
        ("flushed".to_string(), "flushed".to_string()),
        ("logged".into(), "logged".into()),
        ("plain".into(), "plain".into()),
    ];
    assert_eq!(scanned(&t, Scan::new()), everything);
    clock.set(T0 + 2_001);
    assert_eq!(
        scanned(&t, Scan::new()),
        vec![("plain".into(), "plain".into())]
    );
    // A flush after expiry drops the memstore's expired cell: the clock set back no longer
    // finds it, while the cells in files (the open flushed the replayed log) are only hidden
    // until a compaction.
    t.put(
        Put::with_timestamp("fresh", T0)
            .add_column("x", "q", "fresh")
            .ttl_ms(2_000),
    )
    .unwrap();
    e.admin().flush("t").unwrap();
    clock.set(T0);
    assert_eq!(scanned(&t, Scan::new()), everything);
    // A minor compaction drops them (HBase's minor compactions check cell TTLs too).
    t.put(short("later", 500)).unwrap();
    e.admin().flush("t").unwrap();
    clock.set(T0 + 2_001);
    e.admin().compact("t").unwrap();
    clock.set(T0);
    assert_eq!(
        scanned(&t, Scan::new()),
        vec![("plain".into(), "plain".into())]
    );
    // Reopened, the compacted file reads the same.
    drop(t);
    drop(e);
    let e = open(dir.path(), &clock);
    let t = e.table("t").unwrap();
    assert_eq!(
        scanned(&t, Scan::new()),
        vec![("plain".into(), "plain".into())]
    );
}

#[test]
fn a_major_compaction_drops_expired_cells_and_keeps_live_ones_with_their_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let e = open(dir.path(), &clock);
    let t = create(&e, family(1));
    t.put(Put::new("a").add_column("x", "q", "a").ttl_ms(1_000))
        .unwrap();
    t.put(Put::new("b").add_column("x", "q", "b").ttl_ms(5_000))
        .unwrap();
    e.admin().flush("t").unwrap();
    clock.set(T0 + 3_000);
    e.admin().major_compact("t").unwrap();
    assert_eq!(scanned(&t, Scan::new()), vec![("b".into(), "b".into())]);
    clock.set(T0);
    assert_eq!(scanned(&t, Scan::new()), vec![("b".into(), "b".into())]);
    // The survivor still carries its TTL in the compacted file.
    clock.set(T0 + 5_001);
    assert_eq!(scanned(&t, Scan::new()), vec![]);
}

#[test]
fn a_cell_ttl_never_outlives_the_family_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let e = open(dir.path(), &clock);
    let mut f = family(1);
    f.ttl_seconds = 1;
    let t = create(&e, f);
    t.put(
        Put::new("r")
            .add_column("x", "q", "v")
            .ttl(Duration::from_secs(60)),
    )
    .unwrap();
    clock.set(T0 + 1_000);
    assert_eq!(cells(&t, "r"), vec![c("q", T0, "v")]);
    clock.set(T0 + 1_001);
    assert_eq!(cells(&t, "r"), vec![]);
}

#[test]
fn a_zero_or_negative_ttl_expires_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let e = open(dir.path(), &clock);
    let t = create(&e, family(1));
    t.put(Put::new("zero").add_column("x", "q", "v").ttl_ms(0))
        .unwrap();
    t.put(Put::new("negative").add_column("x", "q", "v").ttl_ms(-1))
        .unwrap();
    assert_eq!(cells(&t, "zero"), vec![c("q", T0, "v")]);
    assert_eq!(cells(&t, "negative"), vec![]);
    clock.advance(1);
    assert_eq!(cells(&t, "zero"), vec![]);
}

#[test]
fn increments_and_appends_with_a_ttl_start_afresh_once_it_passes() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(T0);
    let e = open(dir.path(), &clock);
    let t = create(&e, family(1));
    let col: &[(&[u8], &[u8], i64)] = &[(b"x", b"n", 5)];
    assert_eq!(t.increment_with_ttl(b"c", col, Some(1_000)).unwrap(), [5]);
    clock.set(T0 + 500);
    assert_eq!(t.increment_with_ttl(b"c", col, Some(1_000)).unwrap(), [10]);
    // The second increment's cell (written at T0 + 500) lives until T0 + 1500.
    clock.set(T0 + 1_500);
    assert_eq!(cells(&t, "c"), vec![c("n", T0 + 500, "\0\0\0\0\0\0\0\n")]);
    clock.set(T0 + 1_501);
    assert_eq!(cells(&t, "c"), vec![]);
    assert_eq!(t.increment(b"c", col).unwrap(), [5]);
    let suffix: &[(&[u8], &[u8], &[u8])] = &[(b"x", b"s", b"ab")];
    t.append_with_ttl(b"a", suffix, Some(100)).unwrap();
    assert_eq!(cells(&t, "a"), vec![c("s", T0 + 1_501, "ab")]);
    clock.advance(101);
    assert_eq!(cells(&t, "a"), vec![]);
    let r = t.append(b"a", suffix).unwrap();
    assert_eq!(r.cells[0].value(), b"ab");
}
