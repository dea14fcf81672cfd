//! `ferrobase copy` between two embedded data directories: every cell of a pre-split table of
//! three families with many versions arrives at its timestamp; a row range, a time range, some
//! versions and renamed families copy exactly what a model of the written cells says; a raw copy
//! carries every delete marker; `create` makes the destination with the source's families,
//! attributes and regions; a table onto itself, a missing table or family, and a stop request
//! are clear errors that say what was written. (Embedded ↔ `ferrobase serve` and Apache HBase's
//! gateway: crates/ferrobase/tests/cli_copy.rs and scripts/copy-test.sh.)

use ferrobase_client::Connection;
use ferrobase_engine::{
    Cell, ColumnFamilyDescriptor, Delete, Put, Scan, TableDescriptor, TableName, TimeRange,
};
use ferrobase_tools::copy::{Side, ALL_VERSIONS};
use ferrobase_tools::{prepare_copy, CopyOptions, Error};
use std::collections::BTreeMap;

/// (row, family, qualifier) → timestamp → value: what was written.
type Model = BTreeMap<(Vec<u8>, Vec<u8>, Vec<u8>), BTreeMap<i64, Vec<u8>>>;

/// A cell as (row, family, qualifier, timestamp, value).
type CellLine = (Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

const ROWS: usize = 1200;

fn open(dir: &std::path::Path) -> Connection {
    Connection::open(&format!("file:{}", dir.display())).unwrap()
}

fn create(conn: &Connection, name: &str) {
    let mut desc = TableDescriptor::new(TableName::parse(name).unwrap());
    for (f, v) in [("a", 50), ("b", 10), ("c", 1)] {
        let mut cf = ColumnFamilyDescriptor::new(f);
        cf.max_versions = v;
        desc = desc.with_family(cf);
    }
    desc.attributes
        .set("MAX_FILESIZE", "123456789")
        .expect("attribute");
    conn.create_table(desc, &[b"r0400".to_vec(), b"r0800".to_vec()])
        .unwrap();
}

fn row_key(r: usize) -> Vec<u8> {
    if r.is_multiple_of(97) {
        vec![b'r', 0, (r >> 8) as u8, r as u8, 0xff]
    } else {
        format!("r{r:04}").into_bytes()
    }
}

fn fill(conn: &Connection, name: &str) -> Model {
    let t = conn.table(name);
    let mut model = Model::new();
    let mut puts = Vec::new();
    for r in 0..ROWS {
        let row = row_key(r);
        let mut p = Put::new(row.clone());
        let mut cells: Vec<(&str, String, i64, Vec<u8>)> = Vec::new();
        for q in 0..3 {
            for v in 0..12i64 {
                cells.push(("a", format!("q{q}"), 100 + 10 * v + (r % 5) as i64, {
                    if (r + q) % 11 == 0 {
                        Vec::new()
                    } else {
                        format!("a-{r}-{q}-{v}").into_bytes()
                    }
                }));
            }
        }
        for v in 0..4i64 {
            cells.push(("b", "x".into(), 200 + v, (0..=(r % 256) as u8).collect()));
        }
        cells.push(("c", format!("only{}", r % 3), 300, b"c".to_vec()));
        for (f, q, ts, value) in cells {
            model
                .entry((row.clone(), f.as_bytes().to_vec(), q.as_bytes().to_vec()))
                .or_default()
                .insert(ts, value.clone());
            p = p.add_column_ts(f, q, ts, value);
        }
        puts.push(p);
        if puts.len() == 200 {
            t.put_all(std::mem::take(&mut puts)).unwrap();
        }
    }
    t.put_all(puts).unwrap();
    model
}

/// The model's cells a copy with these bounds carries, as (row, family, qualifier, ts, value),
/// families renamed by `rename`.
fn expected(
    model: &Model,
    rows: (&[u8], &[u8]),
    tr: TimeRange,
    versions: usize,
    rename: &dyn Fn(&[u8]) -> Option<Vec<u8>>,
) -> Vec<CellLine> {
    let mut out = Vec::new();
    for ((row, f, q), vs) in model {
        if row.as_slice() < rows.0 || (!rows.1.is_empty() && row.as_slice() >= rows.1) {
            continue;
        }
        let Some(to) = rename(f) else { continue };
        for (ts, v) in vs
            .iter()
            .rev()
            .filter(|(ts, _)| **ts >= tr.min && **ts < tr.max)
            .take(versions)
        {
            out.push((row.clone(), to.clone(), q.clone(), *ts, v.clone()));
        }
    }
    out.sort();
    out
}

fn cells_of(conn: &Connection, name: &str, raw: bool) -> Vec<Cell> {
    let scan = Scan::new().max_versions(ALL_VERSIONS).raw(raw);
    let mut s = conn.table(name).scanner(scan, None).unwrap();
    let mut cells = Vec::new();
    loop {
        let rows = s.next_batch(1000).unwrap();
        if rows.is_empty() {
            return cells;
        }
        for r in rows {
            cells.extend(r.cells);
        }
    }
}

fn tuples(cells: &[Cell]) -> Vec<CellLine> {
    let mut v: Vec<_> = cells
        .iter()
        .map(|c| {
            (
                c.row().to_vec(),
                c.family().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.value().to_vec(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_whole_table_and_ranges_copy_every_cell_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let src = open(&dir.path().join("src"));
    let dst = open(&dir.path().join("dst"));
    create(&src, "t");
    let model = fill(&src, "t");
    src.flush("t").unwrap();

    // Everything, into a table `create` makes.
    let opts = CopyOptions {
        create: true,
        batch_rows: 97,
        ..CopyOptions::default()
    };
    let plan = prepare_copy(&src, "t", &dst, &opts).unwrap();
    assert!(plan.created);
    let mut calls = 0;
    let s = plan.run(&mut |_| calls += 1).unwrap();
    let all = expected(&model, (b"", b""), TimeRange::ALL, usize::MAX, &|f| {
        Some(f.to_vec())
    });
    assert_eq!(s.rows, ROWS as u64);
    assert_eq!(s.cells, all.len() as u64);
    assert!(calls > ROWS / 97, "progress after every batch ({calls})");
    assert_eq!(tuples(&cells_of(&dst, "t", false)), all);
    // The source's families, attributes and regions.
    assert_eq!(
        src.describe_table("t").unwrap(),
        dst.describe_table("t").unwrap()
    );
    assert_eq!(
        dst.table_attributes("t")
            .unwrap()
            .unwrap()
            .1
            .get("MAX_FILESIZE"),
        Some("123456789")
    );
    let starts = |c: &Connection| -> Vec<Vec<u8>> {
        c.regions("t")
            .unwrap()
            .iter()
            .map(|r| r.start.to_vec())
            .collect()
    };
    assert_eq!(starts(&src), starts(&dst));

    // A row range, a time range, 2 versions, two families, one renamed.
    dst.create_table(
        TableDescriptor::new(TableName::parse("part").unwrap())
            .with_family({
                let mut f = ColumnFamilyDescriptor::new("a");
                f.max_versions = 50;
                f
            })
            .with_family(ColumnFamilyDescriptor::new("renamed")),
        &[],
    )
    .unwrap();
    let tr = TimeRange::new(130, 205).unwrap();
    let opts = CopyOptions {
        to_table: Some("part".into()),
        start_row: b"r0350".to_vec(),
        stop_row: b"r0900".to_vec(),
        time_range: tr,
        versions: 2,
        families: vec![
            (b"a".to_vec(), b"a".to_vec()),
            (b"c".to_vec(), b"renamed".to_vec()),
        ],
        ..CopyOptions::default()
    };
    let s = prepare_copy(&src, "t", &dst, &opts)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    let want = expected(&model, (b"r0350", b"r0900"), tr, 2, &|f| match f {
        b"a" => Some(b"a".to_vec()),
        b"c" => Some(b"renamed".to_vec()),
        _ => None,
    });
    assert!(!want.is_empty());
    assert_eq!(s.cells, want.len() as u64);
    assert_eq!(tuples(&cells_of(&dst, "part", false)), want);
}

#[test]
fn a_raw_copy_carries_every_delete_marker() {
    let dir = tempfile::tempdir().unwrap();
    let src = open(&dir.path().join("src"));
    let dst = open(&dir.path().join("dst"));
    create(&src, "t");
    fill(&src, "t");
    let t = src.table("t");
    for r in (0..ROWS).step_by(7) {
        let row = row_key(r);
        let d = match r % 4 {
            0 => Delete::new(row).add_column_ts("a", "q0", 120 + (r % 5) as i64),
            1 => Delete::new(row).add_columns_ts("a", "q1", 150),
            2 => Delete::new(row).add_family_version("b", 201),
            _ => Delete::new(row).add_family_ts("b", 202),
        };
        t.delete(d).unwrap();
    }
    let opts = CopyOptions {
        raw: true,
        create: true,
        ..CopyOptions::default()
    };
    let s = prepare_copy(&src, "t", &dst, &opts)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();
    let raw_src = cells_of(&src, "t", true);
    let markers = raw_src.iter().filter(|c| c.cell_type().is_delete()).count();
    assert_eq!(s.delete_markers, markers as u64);
    let key = |cells: &[Cell]| {
        let mut v: Vec<_> = cells
            .iter()
            .map(|c| (tuples(std::slice::from_ref(c)), c.cell_type().name()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(key(&cells_of(&dst, "t", true)), key(&raw_src));
    // And what a reader sees is the same.
    assert_eq!(
        tuples(&cells_of(&dst, "t", false)),
        tuples(&cells_of(&src, "t", false))
    );
}

#[test]
fn refusals_name_the_side_and_say_nothing_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let src = open(&dir.path().join("src"));
    let dst = open(&dir.path().join("dst"));
    create(&src, "t");
    fill(&src, "t");

    // Onto itself.
    let e = prepare_copy(&src, "t", &src, &CopyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("the same table"), "{e}");
    let e = prepare_copy(&src, "default:t", &src, &CopyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("the same table"), "{e}");
    // Another table of the same store is fine.
    let opts = CopyOptions {
        to_table: Some("t2".into()),
        create: true,
        ..CopyOptions::default()
    };
    prepare_copy(&src, "t", &src, &opts)
        .unwrap()
        .run(&mut |_| {})
        .unwrap();

    let e = prepare_copy(&src, "nope", &dst, &CopyOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Copy {
                side: Side::Source,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("table nope does not exist"), "{e}");

    let e = prepare_copy(&src, "t", &dst, &CopyOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Copy {
                side: Side::Destination,
                ..
            }
        ),
        "{e:?}"
    );
    let m = e.to_string();
    assert!(
        m.contains("does not exist") && m.contains("--create"),
        "{m}"
    );
    assert!(m.contains("nothing was written"), "{m}");

    dst.create_table(
        TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(ColumnFamilyDescriptor::new("a")),
        &[],
    )
    .unwrap();
    let e = prepare_copy(&src, "t", &dst, &CopyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("has no families b, c"), "{e}");
    let opts = CopyOptions {
        families: vec![(b"zz".to_vec(), b"zz".to_vec())],
        ..CopyOptions::default()
    };
    let e = prepare_copy(&src, "t", &dst, &opts).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Copy {
                side: Side::Source,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(cells_of(&dst, "t", false).is_empty());
}

#[test]
fn a_stop_request_ends_the_copy_between_batches_with_exact_counts() {
    let dir = tempfile::tempdir().unwrap();
    let src = open(&dir.path().join("src"));
    let dst = open(&dir.path().join("dst"));
    create(&src, "t");
    fill(&src, "t");
    let opts = CopyOptions {
        create: true,
        batch_rows: 100,
        ..CopyOptions::default()
    };
    let stop = opts.stop.clone();
    let plan = prepare_copy(&src, "t", &dst, &opts).unwrap();
    let mut batches = 0;
    let e = plan
        .run(&mut |_| {
            batches += 1;
            if batches == 3 {
                stop.request();
            }
        })
        .unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, Error::Interrupted { .. }), "{m}");
    // Exactly the rows of three batches, every one of their cells, as the message says.
    let cells = cells_of(&dst, "t", false);
    let rows: std::collections::BTreeSet<Vec<u8>> =
        cells.iter().map(|c| c.row().to_vec()).collect();
    assert!(rows.len() >= 200 && rows.len() <= 300, "{}", rows.len());
    assert!(
        m.contains(&format!(
            "copied {} rows, {} cells",
            rows.len(),
            cells.len()
        )),
        "{m}"
    );
}
