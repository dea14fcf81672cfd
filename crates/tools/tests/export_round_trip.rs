//! ferrobase → HBase Export files → ferrobase: every cell, version, timestamp and delete marker
//! comes back byte for byte (a pre-split table of three families, 100k+ cells, one file per
//! region), and a non-raw export of some versions in a time range holds what that scan reads.

use ferrobase_client::Connection;
use ferrobase_engine::{
    Cell, ColumnFamilyDescriptor, Delete, Put, Scan, TableDescriptor, TableName, TimeRange,
};
use ferrobase_tools::import::{input_files, read_export_file};
use ferrobase_tools::{export_table, import_dir, ExportOptions};
use std::path::Path;

const ROWS: usize = 3000;
const SPLITS: [&[u8]; 2] = [b"row-001000", b"row-002000"];

fn create(conn: &Connection, name: &str, splits: &[&[u8]]) {
    let mut desc = TableDescriptor::new(TableName::parse(name).unwrap());
    for (f, v) in [("f1", 20), ("f2", 5), ("f3", 1)] {
        let mut cf = ColumnFamilyDescriptor::new(f);
        cf.max_versions = v;
        desc = desc.with_family(cf);
    }
    let splits: Vec<Vec<u8>> = splits.iter().map(|s| s.to_vec()).collect();
    conn.create_table(desc, &splits).unwrap();
}

fn row_key(r: usize) -> Vec<u8> {
    if r.is_multiple_of(101) {
        // Binary rows, sorting before and after the text ones.
        vec![
            if r.is_multiple_of(2) { 0 } else { 0xff },
            (r >> 8) as u8,
            r as u8,
            b'\n',
        ]
    } else {
        format!("row-{r:06}").into_bytes()
    }
}

/// 3000 rows of 4×8 + 3×3 + 1 cells, and delete markers of every type.
fn fill(conn: &Connection, name: &str) -> usize {
    let t = conn.table(name);
    let mut puts = Vec::new();
    let mut cells = 0;
    for r in 0..ROWS {
        let row = row_key(r);
        let mut p = Put::new(row.clone());
        for q in 0..4 {
            for v in 0..8i64 {
                let value: Vec<u8> = match (r + q) % 9 {
                    0 => Vec::new(),
                    1 => (0..=255u8).collect(),
                    _ => format!("value-{r}-{q}-{v}").into_bytes(),
                };
                p = p.add_column_ts("f1", format!("q{q}"), 1_000 + 100 * v + r as i64 % 7, value);
            }
        }
        for q in 0..3 {
            for v in 0..3i64 {
                p = p.add_column_ts(
                    "f2",
                    vec![b'c', q as u8, 0],
                    5_000 + v,
                    (r as u64 * 31 + v as u64).to_be_bytes(),
                );
            }
        }
        p = p.add_column_ts("f3", "", i64::from(u32::MAX) + r as i64, "only");
        cells += p.cells.len();
        puts.push(p);
        if puts.len() == 500 {
            t.put_all(std::mem::take(&mut puts)).unwrap();
        }
    }
    t.put_all(puts).unwrap();
    for r in (0..ROWS).step_by(5) {
        let row = row_key(r);
        let d = match r % 4 {
            0 => Delete::new(row).add_columns_ts("f1", "q0", 1_350),
            1 => Delete::new(row).add_column_ts("f1", "q1", 1_200 + r as i64 % 7),
            2 => Delete::new(row).add_family_ts("f2", 5_001),
            _ => Delete::new(row).add_family_version("f1", 1_700 + r as i64 % 7),
        };
        t.delete(d).unwrap();
    }
    cells
}

fn scan_all(conn: &Connection, name: &str, scan: Scan) -> Vec<Cell> {
    conn.table(name)
        .scanner(scan, None)
        .unwrap()
        .flat_map(|r| r.unwrap().cells)
        .collect()
}

fn raw_everything() -> Scan {
    Scan::new().max_versions(u32::MAX).raw(true)
}

fn file_cells(dir: &Path) -> Vec<Cell> {
    let mut out = Vec::new();
    for f in input_files(dir).unwrap() {
        read_export_file(&f, &mut |_, _, cells| {
            out.extend(cells);
            Ok(())
        })
        .unwrap();
    }
    out
}

#[test]
fn raw_export_and_import_round_trip_every_cell_and_marker() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    create(&conn, "src", &SPLITS);
    let written = fill(&conn, "src");
    assert!(written >= 100_000, "{written} cells");
    let before = scan_all(&conn, "src", raw_everything());
    let markers = before.iter().filter(|c| c.cell_type().is_delete()).count();
    assert_eq!(markers, ROWS / 5);

    let out = dir.path().join("export");
    let opts = ExportOptions {
        versions: u32::MAX,
        raw: true,
        ..ExportOptions::default()
    };
    let s = export_table(&conn, "src", &out, &opts, &mut |_| {}).unwrap();
    // One file per region, as HBase's map tasks write them; every cell the raw scan reads.
    assert_eq!(s.files.len(), 3);
    assert_eq!(s.cells as usize, before.len());
    assert_eq!(file_cells(&out), before);

    create(&conn, "dst", &[]);
    let applied = import_dir(&conn, "dst", &out, &mut |_| {}).unwrap();
    assert_eq!(
        (
            applied.files,
            applied.rows,
            applied.cells,
            applied.delete_markers
        ),
        (3, ROWS as u64, before.len() as u64, markers as u64)
    );
    assert_eq!(scan_all(&conn, "dst", raw_everything()), before);
    // Flushed, both drop the same masked cells and keep the same markers.
    conn.flush("src").unwrap();
    conn.flush("dst").unwrap();
    let src = scan_all(&conn, "src", raw_everything());
    assert!(src.len() < before.len());
    assert_eq!(scan_all(&conn, "dst", raw_everything()), src);
    // And the ordinary read agrees.
    let plain = Scan::new().max_versions(u32::MAX);
    assert_eq!(
        scan_all(&conn, "dst", plain.clone()),
        scan_all(&conn, "src", plain)
    );
}

#[test]
fn versions_and_time_range_export_what_that_scan_reads() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    create(&conn, "src", &SPLITS);
    fill(&conn, "src");
    let range = TimeRange::new(1_100, 5_002).unwrap();
    let out = dir.path().join("export");
    let opts = ExportOptions {
        versions: 3,
        time_range: range,
        families: vec![b"f1".to_vec(), b"f2".to_vec()],
        ..ExportOptions::default()
    };
    export_table(&conn, "src", &out, &opts, &mut |_| {}).unwrap();
    let want = scan_all(
        &conn,
        "src",
        Scan::new()
            .max_versions(3)
            .time_range(range)
            .add_family("f1")
            .add_family("f2"),
    );
    assert!(want.len() > 10_000);
    assert!(want.iter().all(|c| !c.cell_type().is_delete()));
    assert_eq!(file_cells(&out), want);
    create(&conn, "dst", &[]);
    import_dir(&conn, "dst", &out, &mut |_| {}).unwrap();
    assert_eq!(
        scan_all(&conn, "dst", Scan::new().max_versions(u32::MAX)),
        want
    );
}

#[test]
fn export_refuses_a_directory_that_is_not_empty() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    create(&conn, "t", &[]);
    std::fs::write(dir.path().join("keep"), b"x").unwrap();
    let e = export_table(
        &conn,
        "t",
        dir.path(),
        &ExportOptions::default(),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("already exists and is not empty"),
        "{e}"
    );
    assert_eq!(std::fs::read(dir.path().join("keep")).unwrap(), b"x");
}
