//! Atomic single-row operations: increments under contention, appends, check-and-mutate.

use ferrobase_engine::filter::CompareOp;
use ferrobase_engine::*;
use std::sync::Arc;

fn setup() -> (tempfile::TempDir, Engine, Table) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    e.admin()
        .create_table(
            TableDescriptor::new(TableName::parse("c").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
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
    assert!(matches!(err, Error::IllegalArgument(_)), "{err}");
    assert_eq!(t.increment(b"r", &[(b"cf", b"new", -5)]).unwrap(), vec![-5]);
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
    let both = vec![
        Mutation::Put(Put::new("r").add_column("cf", "state", "three")),
        Mutation::Delete(Delete::new("r").add_columns("cf", "log")),
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
