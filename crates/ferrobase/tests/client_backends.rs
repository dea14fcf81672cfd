//! The same scenario through the client on both backends: an embedded engine and a
//! `ferrobase serve` gateway reached over Thrift; and, when `FERROBASE_HBASE_THRIFT=host:port`
//! names Apache HBase's Thrift1 gateway (`scripts/test.sh` sets it from the oracle), against
//! Apache HBase too: the scale-out path an application takes to an HBase cluster.

mod client_harness;

use ferrobase_client::{Connection, Scanner};
use ferrobase_engine::*;

/// Runs the scenario on a fresh table named `table` (unique per run, so a shared gateway's
/// other tables are never touched) and drops it.
fn scenario(conn: &Connection, table: &str) {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.max_versions = 3;
    let desc = TableDescriptor::new(TableName::parse(table).unwrap())
        .with_family(cf)
        .with_family(ColumnFamilyDescriptor::new("meta"));
    conn.create_table(desc, &[]).unwrap();
    assert!(conn.list_tables().unwrap().contains(&table.to_string()));
    let fams = conn.describe_table(table).unwrap();
    assert_eq!(
        fams.iter().map(|f| f.name_str()).collect::<Vec<_>>(),
        ["cf", "meta"]
    );
    assert_eq!(fams[0].max_versions, 3);
    let t = conn.table(table);
    for ts in [100, 200, 300, 400] {
        t.put(Put::new("u1").add_column_ts("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    t.put_all(
        (0..20)
            .map(|i| {
                Put::new(format!("u2-{i:02}"))
                    .add_column("cf", "a", format!("a{i}"))
                    .add_column("meta", "m", "x")
            })
            .collect(),
    )
    .unwrap();
    // Newest version, versions, exclusive upper time bound.
    let g = t.get(Get::new("u1"), None).unwrap();
    assert_eq!(g.value(b"cf", b"q"), Some(&b"v400"[..]));
    let g = t.get(Get::new("u1").max_versions(10), None).unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![400, 300, 200]
    );
    let g = t
        .get(
            Get::new("u1").time_range(TimeRange::new(0, 300).unwrap()),
            None,
        )
        .unwrap();
    assert_eq!(g.value(b"cf", b"q"), Some(&b"v200"[..]));
    // Scans: prefix, reversed, limit, batch, columns, filter string.
    let rows = |s: Scanner| -> Vec<RowResult> { s.map(|r| r.unwrap()).collect() };
    let all = rows(t.scanner(Scan::new().with_row_prefix("u2-"), None).unwrap());
    assert_eq!(all.len(), 20);
    // Prefetching (the next rows asked for as each batch arrives): the same rows, with gets on
    // the same connection between batches; a scanner dropped with a batch in flight leaves the
    // connection answering in step.
    let ahead = Scan::new()
        .with_row_prefix("u2-")
        .caching(3)
        .async_prefetch(true);
    let mut s = t.scanner(ahead.clone(), None).unwrap();
    let mut fetched = Vec::new();
    loop {
        let got = s.next_batch(4).unwrap();
        if got.is_empty() {
            break;
        }
        assert!(got.len() <= 4);
        fetched.extend(got);
        assert_eq!(
            t.get(Get::new("u1"), None).unwrap().value(b"cf", b"q"),
            Some(&b"v400"[..])
        );
    }
    let row_names =
        |rs: &[RowResult]| -> Vec<Vec<u8>> { rs.iter().map(|r| r.row().to_vec()).collect() };
    assert_eq!(row_names(&fetched), row_names(&all));
    assert_eq!(
        rows(t.scanner(ahead.clone().limit(7), None).unwrap()).len(),
        7
    );
    let mut early = t.scanner(ahead, None).unwrap();
    assert_eq!(early.next_batch(2).unwrap().len(), 2);
    drop(early);
    assert_eq!(
        t.get(Get::new("u2-07"), None).unwrap().row(),
        b"u2-07",
        "the connection answers in step after a dropped prefetching scanner"
    );
    let rev = rows(
        t.scanner(
            Scan::new()
                .reversed(true)
                .with_start_row("u2-05")
                .with_stop_row("u2-01"),
            None,
        )
        .unwrap(),
    );
    assert_eq!(
        rev.iter()
            .map(|r| String::from_utf8_lossy(r.row()).into_owned())
            .collect::<Vec<_>>(),
        ["u2-05", "u2-04", "u2-03", "u2-02"]
    );
    assert_eq!(
        rows(
            t.scanner(Scan::new().with_row_prefix("u2-").limit(7), None)
                .unwrap()
        )
        .len(),
        7
    );
    let batched = rows(
        t.scanner(
            Scan::new()
                .with_start_row("u2-00")
                .with_stop_row("u2-02")
                .batch(1),
            None,
        )
        .unwrap(),
    );
    assert_eq!(batched.len(), 4);
    let only_cf = rows(
        t.scanner(Scan::new().with_row_prefix("u2-").add_family("cf"), None)
            .unwrap(),
    );
    assert!(only_cf
        .iter()
        .all(|r| r.cells.len() == 1 && r.cells[0].family() == b"cf"));
    let filtered = rows(
        t.scanner(Scan::new(), Some(b"ValueFilter(=, 'regexstring:^a1')"))
            .unwrap(),
    );
    assert_eq!(filtered.len(), 11); // a1, a10..a19
    let page = t
        .get(Get::new("u2-03"), Some(b"FamilyFilter(=, 'binary:meta')"))
        .unwrap();
    assert_eq!(page.cells.len(), 1);
    // Deletes: a column up to a timestamp, a whole row.
    t.delete(Delete::new("u1").add_columns_ts("cf", "q", 300))
        .unwrap();
    let g = t.get(Get::new("u1").max_versions(10), None).unwrap();
    assert_eq!(
        g.cells.iter().map(|c| c.timestamp()).collect::<Vec<_>>(),
        vec![400]
    );
    t.delete(Delete::new("u2-00")).unwrap();
    assert!(t.get(Get::new("u2-00"), None).unwrap().is_empty());
    // Counters and appends.
    assert_eq!(t.increment(b"c", b"cf", b"n", 5).unwrap(), 5);
    assert_eq!(t.increment(b"c", b"cf", b"n", -2).unwrap(), 3);
    t.append(b"c", b"meta", b"log", b"ab").unwrap();
    assert_eq!(t.append(b"c", b"meta", b"log", b"cd").unwrap(), b"abcd");
    // Check-and-put: absent, then equal.
    let cp = |v: &str| Put::new("lock").add_column("meta", "owner", v.to_string());
    assert!(t
        .check_and_put(b"lock", b"meta", b"owner", None, cp("a"))
        .unwrap());
    assert!(!t
        .check_and_put(b"lock", b"meta", b"owner", None, cp("b"))
        .unwrap());
    assert!(t
        .check_and_put(b"lock", b"meta", b"owner", Some(b"a"), cp("c"))
        .unwrap());
    assert_eq!(
        t.get(Get::new("lock"), None)
            .unwrap()
            .value(b"meta", b"owner"),
        Some(&b"c"[..])
    );
    // Per-cell TTL (the `_ttl` attribute over Thrift, HBase's `Mutation.setTTL`): a put stamped
    // an hour ago with a minute to live is expired on arrival, one with a day to live is there,
    // so no test waits on the clock. Through mutateRowsTs, mutateRows and checkAndPut.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let minute = std::time::Duration::from_secs(60);
    let day = std::time::Duration::from_secs(86_400);
    t.put_all(vec![
        Put::with_timestamp("ttl-gone", now - 3_600_000)
            .add_column("cf", "q", "gone")
            .ttl(minute),
        Put::with_timestamp("ttl-kept", now - 3_600_000)
            .add_column("cf", "q", "kept")
            .ttl(day),
        Put::new("ttl-now").add_column("cf", "q", "now").ttl(day),
        Put::new("ttl-zero")
            .add_column("cf", "q", "zero")
            .ttl_ms(-1),
    ])
    .unwrap();
    let ttl_value = |row: &str| {
        t.get(Get::new(row), None)
            .unwrap()
            .value(b"cf", b"q")
            .map(<[u8]>::to_vec)
    };
    assert_eq!(ttl_value("ttl-gone"), None);
    assert_eq!(ttl_value("ttl-kept"), Some(b"kept".to_vec()));
    assert_eq!(ttl_value("ttl-now"), Some(b"now".to_vec()));
    assert_eq!(ttl_value("ttl-zero"), None);
    let expired = Put::new("ttl-cas").add_column("cf", "q", "cas").ttl_ms(-1);
    assert!(t
        .check_and_put(b"ttl-cas", b"cf", b"q", None, expired)
        .unwrap());
    assert_eq!(ttl_value("ttl-cas"), None);
    // Errors name the problem (the wording is the backend's: ferrobase says "table nope does
    // not exist", HBase "org.apache.hadoop.hbase.TableNotFoundException: nope").
    let err = conn.table("nope").get(Get::new("r"), None).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
    let err = t
        .put(Put::new("r").add_column("nofam", "q", "v"))
        .unwrap_err();
    assert!(err.to_string().contains("nofam"), "{err}");
    // Admin.
    assert_eq!(conn.regions(table).unwrap().len(), 1);
    conn.compact(table, true).unwrap();
    assert_eq!(
        t.get(Get::new("u1"), None).unwrap().value(b"cf", b"q"),
        Some(&b"v400"[..])
    );
    conn.set_enabled(table, false).unwrap();
    assert!(!conn.is_enabled(table).unwrap());
    conn.drop_table(table).unwrap();
    assert!(!conn.table_exists(table).unwrap());
}

#[test]
fn embedded_backend_runs_the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().display())).unwrap();
    scenario(&conn, "events");
}

#[test]
fn thrift_backend_runs_the_same_scenario_against_ferrobase_serve() {
    let gateway = client_harness::Gateway::start();
    scenario(&Connection::open(&gateway.url).unwrap(), "events");
}

#[test]
fn thrift_backend_runs_the_same_scenario_against_apache_hbase() {
    if let Some((url, table)) = client_harness::apache_hbase("client_backends") {
        scenario(&Connection::open(&url).unwrap(), &table);
    }
}
