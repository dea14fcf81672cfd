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
