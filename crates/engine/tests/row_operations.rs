//! Atomic single-row operations: increments under contention, appends, check-and-mutate.

mod support;

use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::*;
use std::sync::Arc;

fn setup() -> (tempfile::TempDir, Engine, Table) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    support::table::create_table(&e, "c");
    let t = e.table("c").unwrap();
    (dir, e, t)
}

#[test]
fn concurrent_increments_add_up_exactly() {
    let (_d, e, t) = setup();
    let t = Arc::new(t);
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let t = t.clone();
            std::thread::spawn(move || {
                for j in 0..500 {
                    t.increment(b"counter", &[(b"cf", b"hits", 1), (b"cf", b"sum", i)])
                        .unwrap();
                    if j % 100 == 0 {
                        // Unrelated writes keep the read point moving underneath.
                        t.put(Put::new(format!("other{i}-{j}")).add_column("cf", "q", "x"))
                            .unwrap();
                    }
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    let r = t.get(&Get::new("counter")).unwrap();
    assert_eq!(r.value(b"cf", b"hits"), Some(&4000i64.to_be_bytes()[..]));
    assert_eq!(
        r.value(b"cf", b"sum"),
        Some(&(500i64 * 28).to_be_bytes()[..])
    );
    drop(e);
}

#[test]
fn increment_rejects_a_cell_that_is_not_a_long() {
    let (_d, _e, t) = setup();
    t.put(Put::new("r").add_column("cf", "q", "abc")).unwrap();
    let err = t.increment(b"r", &[(b"cf", b"q", 1)]).unwrap_err();
    assert!(matches!(err, Error::NotALong { width: 3, .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("Field is not a long, it's 3 bytes wide"),
        "HBase's DoNotRetryIOException text: {err}"
    );
    assert_eq!(t.increment(b"r", &[(b"cf", b"new", -5)]).unwrap(), vec![-5]);
}

#[test]
fn increments_and_appends_keep_the_previous_value_as_an_older_version() {
    // HBase's HRegion.reckonDelta: the new cell is written at max(old timestamp + 1, now), so
    // even a cell written in the future keeps its value readable one version down.
    let (_d, e, _) = setup();
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.set_attribute("VERSIONS", "3").unwrap();
    e.admin()
        .create_table(TableDescriptor::new(TableName::parse("v").unwrap()).with_family(cf))
        .unwrap();
    let t = e.table("v").unwrap();
    let future = i64::MAX / 2;
    t.put(Put::new("r").add_column_ts("cf", "n", future, 5i64.to_be_bytes().to_vec()))
        .unwrap();
    t.put(Put::new("r").add_column_ts("cf", "s", future, "a"))
        .unwrap();
    assert_eq!(t.increment(b"r", &[(b"cf", b"n", 1)]).unwrap(), vec![6]);
    t.append(b"r", &[(b"cf", b"s", b"b")]).unwrap();
    let r = t.get(&Get::new("r").max_versions(3)).unwrap();
    let n: Vec<(i64, Vec<u8>)> = r
        .versions(b"cf", b"n")
        .iter()
        .map(|c| (c.timestamp(), c.value().to_vec()))
        .collect();
    assert_eq!(
        n,
        vec![
            (future + 1, 6i64.to_be_bytes().to_vec()),
            (future, 5i64.to_be_bytes().to_vec())
        ]
    );
    let s: Vec<(i64, Vec<u8>)> = r
        .versions(b"cf", b"s")
        .iter()
        .map(|c| (c.timestamp(), c.value().to_vec()))
        .collect();
    assert_eq!(
        s,
        vec![(future + 1, b"ab".to_vec()), (future, b"a".to_vec())]
    );
}

#[test]
fn append_and_check_and_mutate() {
    let (_d, _e, t) = setup();
    t.append(b"r", &[(b"cf", b"log", b"a")]).unwrap();
    let r = t.append(b"r", &[(b"cf", b"log", b"bc")]).unwrap();
    assert_eq!(r.value(b"cf", b"log"), Some(&b"abc"[..]));
    let put = |v: &str| {
        vec![Mutation::Put(Put::new("r").add_column(
            "cf",
            "state",
            v.to_string(),
        ))]
    };
    let eq = CompareOp::Equal;
    assert!(t
        .check_and_mutate(b"r", b"cf", b"state", eq, None, put("one"))
        .unwrap());
    assert!(!t
        .check_and_mutate(b"r", b"cf", b"state", eq, None, put("two"))
        .unwrap());
    assert!(!t
        .check_and_mutate(b"r", b"cf", b"state", eq, Some(b"zero"), put("two"))
        .unwrap());
    assert!(t
        .check_and_mutate(b"r", b"cf", b"state", eq, Some(b"one"), put("two"))
        .unwrap());
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"cf", b"state"),
        Some(&b"two"[..])
    );
    // HBase's order: `expected OP stored`. "a" < "two", so GREATER does not hold and LESS does.
    assert!(!t
        .check_and_mutate(
            b"r",
            b"cf",
            b"state",
            CompareOp::Greater,
            Some(b"a"),
            put("x")
        )
        .unwrap());
    // The appends wrote at max(previous + 1, now), possibly ahead of the clock: delete every
    // version up to the newest append's timestamp.
    let log_ts = r.versions(b"cf", b"log")[0].timestamp();
    let both = vec![
        Mutation::Put(Put::new("r").add_column("cf", "state", "three")),
        Mutation::Delete(Delete::new("r").add_columns_ts("cf", "log", log_ts)),
    ];
    assert!(t
        .check_and_mutate(b"r", b"cf", b"state", CompareOp::Less, Some(b"a"), both)
        .unwrap());
    let r = t.get(&Get::new("r")).unwrap();
    assert_eq!(r.value(b"cf", b"state"), Some(&b"three"[..]));
    assert_eq!(
        r.value(b"cf", b"log"),
        None,
        "the RowMutations' delete applied with its put"
    );
    assert!(t
        .check_and_mutate(
            b"r",
            b"cf",
            b"state",
            CompareOp::NotEqual,
            Some(b"zzz"),
            vec![]
        )
        .unwrap());
}

#[test]
fn check_and_mutate_refuses_a_mutation_of_another_row_naming_both_rows() {
    let (_d, _e, t) = setup();
    let other = vec![Mutation::Put(Put::new("elsewhere").add_column(
        "cf",
        "state",
        "x".to_string(),
    ))];
    let err = t
        .check_and_mutate(b"r", b"cf", b"state", CompareOp::Equal, None, other)
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("Action's getRow must match"), "{text}");
    assert!(
        text.contains("'r'") && text.contains("'elsewhere'"),
        "{text}"
    );
    assert!(t.get(&Get::new("elsewhere")).unwrap().is_empty());
}

/// HBase's `CheckAndMutate.Builder.timeRange` and `ifMatches(Filter)` (recorded from HBase 2.6.1
/// through its Java client: `ClientBreadth`'s cam-time-range and cam-filter-list steps).
#[test]
fn check_and_mutate_with_a_time_range_or_a_filter() {
    let (_d, _e, t) = setup();
    t.put(
        Put::new("r")
            .add_column_ts("cf", "tr", 10, "old")
            .add_column_ts("cf", "tr", 20, "new")
            .add_column_ts("cf", "q", 1, "5"),
    )
    .unwrap();
    let put = |q: &str| vec![Mutation::Put(Put::new("r").add_column_ts("cf", q, 1, "x"))];
    let value = |expected: Option<&str>, time_range: TimeRange| Check::Value {
        family: b"cf".to_vec(),
        qualifier: b"tr".to_vec(),
        op: CompareOp::Equal,
        expected: expected.map(|e| e.as_bytes().to_vec()),
        time_range,
    };
    let early = TimeRange::new(0, 15).unwrap();
    let filter =
        |f: &str| Check::Read(Get::new("r").filter(filter::parse_filter(f.as_bytes()).unwrap()));
    // The newest version within the range is the one compared.
    assert!(t
        .check_and_mutate_when(b"r", &value(Some("old"), early), put("t1"))
        .unwrap());
    assert!(!t
        .check_and_mutate_when(b"r", &value(Some("old"), TimeRange::default()), put("t2"))
        .unwrap());
    // Absent within a range holding no version.
    let late = TimeRange::new(30, 40).unwrap();
    assert!(t
        .check_and_mutate_when(b"r", &value(None, late), put("t3"))
        .unwrap());
    // A filter condition holds when the row read with it returns anything.
    assert!(t
        .check_and_mutate_when(b"r", &filter("ValueFilter(=, 'binary:new')"), put("t4"))
        .unwrap());
    let in_early = Check::Read(
        Get::new("r")
            .time_range(early)
            .filter(filter::parse_filter(b"ValueFilter(=, 'binary:new')").unwrap()),
    );
    assert!(!t.check_and_mutate_when(b"r", &in_early, put("t5")).unwrap());
    assert!(t
        .check_and_mutate_when(
            b"r",
            &filter("SingleColumnValueFilter('cf', 'q', =, 'binary:5') AND SingleColumnValueFilter('cf', 'tr', =, 'binary:new')"),
            put("t6")
        )
        .unwrap());
    assert!(!t
        .check_and_mutate_when(b"r", &filter("PrefixFilter('nope')"), put("t7"))
        .unwrap());
    let r = t.get(&Get::new("r")).unwrap();
    let written: Vec<&[u8]> = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"]
        .into_iter()
        .filter(|q| r.value(b"cf", q.as_bytes()).is_some())
        .map(str::as_bytes)
        .collect();
    assert_eq!(written, [&b"t1"[..], b"t3", b"t4", b"t6"]);
    // The condition's row is the mutation's.
    let elsewhere = Check::Read(Get::new("other"));
    let err = t
        .check_and_mutate_when(b"r", &elsewhere, put("t8"))
        .unwrap_err();
    assert!(
        err.to_string().contains("Action's getRow must match"),
        "{err}"
    );
}

/// HBase's `CheckAndMutate.Builder.build(Increment)` and `build(Append)`: written only when the
/// check holds, answered with the new cells (ClientBreadth's cam-increment, recorded from HBase
/// 2.6.1: `true r/cf:cnt=\x00..\x03`).
#[test]
fn check_and_write_increments_and_appends_only_when_the_check_holds() {
    let (_d, _e, t) = setup();
    t.put(Put::new("r").add_column("cf", "q", "5")).unwrap();
    let holds = Check::Value {
        family: b"cf".to_vec(),
        qualifier: b"q".to_vec(),
        op: CompareOp::Equal,
        expected: Some(b"5".to_vec()),
        time_range: TimeRange::default(),
    };
    let fails = Check::Value {
        family: b"cf".to_vec(),
        qualifier: b"q".to_vec(),
        op: CompareOp::Equal,
        expected: Some(b"6".to_vec()),
        time_range: TimeRange::default(),
    };
    let inc = CheckedWrite::Increment {
        columns: vec![(b"cf".to_vec(), b"cnt".to_vec(), 3)],
        ttl_ms: None,
    };
    let (applied, result) = t.check_and_write(b"r", &holds, &inc).unwrap();
    assert!(applied);
    assert_eq!(
        result.unwrap().value(b"cf", b"cnt"),
        Some(&3i64.to_be_bytes()[..])
    );
    let (applied, result) = t.check_and_write(b"r", &fails, &inc).unwrap();
    assert!(!applied);
    assert!(result.is_none());
    let (_, result) = t.check_and_write(b"r", &holds, &inc).unwrap();
    assert_eq!(
        result.unwrap().value(b"cf", b"cnt"),
        Some(&6i64.to_be_bytes()[..])
    );
    let app = CheckedWrite::Append {
        columns: vec![(b"cf".to_vec(), b"log".to_vec(), b"ab".to_vec())],
        ttl_ms: None,
    };
    t.check_and_write(b"r", &holds, &app).unwrap();
    let (applied, result) = t.check_and_write(b"r", &holds, &app).unwrap();
    assert!(applied);
    assert_eq!(result.unwrap().value(b"cf", b"log"), Some(&b"abab"[..]));
    assert!(!t.check_and_write(b"r", &fails, &app).unwrap().0);
    let row = t.get(&Get::new("r")).unwrap();
    assert_eq!(row.value(b"cf", b"cnt"), Some(&6i64.to_be_bytes()[..]));
    assert_eq!(row.value(b"cf", b"log"), Some(&b"abab"[..]));
    // A counter that is not a long is refused, nothing written.
    let bad = CheckedWrite::Increment {
        columns: vec![(b"cf".to_vec(), b"log".to_vec(), 1)],
        ttl_ms: None,
    };
    assert!(matches!(
        t.check_and_write(b"r", &holds, &bad).unwrap_err(),
        Error::NotALong { .. }
    ));
}
