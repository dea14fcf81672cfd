//! Table attributes act on the table and persist: `READONLY` refuses writes, `MAX_FILESIZE`
//! sets the split size and `SPLIT_ENABLED => false` stops automatic splits, and `alter`ed
//! attributes survive a reopen.

use ferrobase_engine::*;
use std::time::{Duration, Instant};

fn descriptor() -> TableDescriptor {
    TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("f"))
}

fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Writes 400 rows of 200 bytes and flushes them (about 80 KB in files).
fn load(e: &Engine) {
    let t = e.table("t").unwrap();
    for i in 0..400 {
        t.put(Put::new(format!("row{i:05}")).add_column("f", "q", "v".repeat(200)))
            .unwrap();
    }
    e.admin().flush("t").unwrap();
}

/// The table's region count once it stops changing for half a second (or after `limit`).
fn settled_regions(e: &Engine, limit: Duration) -> usize {
    let t0 = Instant::now();
    let mut last = e.admin().regions("t").unwrap().len();
    let mut since = Instant::now();
    while t0.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(50));
        let n = e.admin().regions("t").unwrap().len();
        if n != last {
            last = n;
            since = Instant::now();
        } else if n > 1 || since.elapsed() > Duration::from_millis(500) {
            return n;
        }
    }
    last
}

#[test]
fn read_only_table_refuses_writes_until_unset() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    e.admin().create_table(descriptor()).unwrap();
    let t = e.table("t").unwrap();
    t.put(Put::new("a").add_column("f", "q", "1")).unwrap();
    e.admin()
        .alter_table_attributes("t", &set(&[("READONLY", "true")]), &[])
        .unwrap();
    let err = t.put(Put::new("b").add_column("f", "q", "2")).unwrap_err();
    assert!(matches!(err, Error::ReadOnly(_)), "{err}");
    assert!(t.delete(Delete::new("a")).is_err());
    e.admin()
        .alter_table_attributes("t", &[], &["READONLY".to_string()])
        .unwrap();
    t.put(Put::new("b").add_column("f", "q", "2")).unwrap();
}

#[test]
fn altered_attributes_survive_a_reopen_and_unknown_unsets_fail() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        e.admin().create_table(descriptor()).unwrap();
        e.admin()
            .alter_table_attributes(
                "t",
                &set(&[
                    ("MAX_FILESIZE", "1073741824"),
                    ("DURABILITY", "ASYNC_WAL"),
                    ("team", "search"),
                ]),
                &[],
            )
            .unwrap();
        let err = e
            .admin()
            .alter_table_attributes("t", &set(&[("PRIORITY", "7")]), &["nope".to_string()])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "illegal argument: Could not find attribute: nope"
        );
        assert!(e
            .admin()
            .alter_table_attributes("t", &set(&[("READONLY", "maybe")]), &[])
            .is_err());
    }
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let d = e.admin().describe("t").unwrap();
    assert_eq!(d.durability, Durability::AsyncWal);
    let attrs: Vec<(&str, &str)> = d.attributes.iter().collect();
    // The failed alter changed nothing (no PRIORITY).
    assert_eq!(attrs, [("MAX_FILESIZE", "1073741824"), ("team", "search")]);
}

#[test]
fn max_filesize_splits_a_region_and_split_enabled_false_keeps_it_whole() {
    for (attrs, split) in [
        (set(&[("MAX_FILESIZE", "20000")]), true),
        (
            set(&[("MAX_FILESIZE", "20000"), ("SPLIT_ENABLED", "false")]),
            false,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        // The engine's own split size is far above what is written.
        let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        e.admin().create_table(descriptor()).unwrap();
        e.admin().alter_table_attributes("t", &attrs, &[]).unwrap();
        load(&e);
        let n = settled_regions(&e, Duration::from_secs(20));
        assert_eq!(n > 1, split, "{attrs:?}: {n} region(s)");
    }
}
