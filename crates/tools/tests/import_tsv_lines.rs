//! `import_tsv` on a million lines with bad ones scattered through them: every good line is a
//! row with its cells, every bad line is reported once with its file, line number, offset and
//! ImportTsv's reason; `skip_bad_lines = false` stops at the first and says what was written;
//! CSV quoting; dry runs write nothing.

use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, Get, Scan, TableDescriptor, TableName};
use ferrobase_tools::import_tsv::{import_tsv, BadLine, ColumnSpec, TsvOptions};
use ferrobase_tools::Error;
use std::io::Write;
use std::path::Path;

const LINES: u64 = 1_000_000;

fn table(conn: &Connection, name: &str) {
    let desc = TableDescriptor::new(TableName::parse(name).unwrap())
        .with_family(ColumnFamilyDescriptor::new("d"))
        .with_family(ColumnFamilyDescriptor::new("m"));
    conn.create_table(desc, &[]).unwrap();
}

/// The bad line (if any) written at line `n` (from 1), and its reason.
fn bad_kind(n: u64) -> Option<&'static str> {
    match n {
        _ if n.is_multiple_of(10_007) => Some("No delimiter"),
        _ if n.is_multiple_of(20_011) => Some("Excessive columns"),
        _ if n.is_multiple_of(30_011) => Some("Invalid timestamp 12x"),
        _ if n.is_multiple_of(40_009) => Some("Row length is 0"),
        _ => None,
    }
}

/// Writes the input; returns the good lines and the bad lines' (number, offset).
fn write_input(path: &Path) -> (u64, Vec<(u64, u64)>) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut bad = Vec::new();
    let mut offset = 0u64;
    for n in 1..=LINES {
        let line = match bad_kind(n) {
            Some("No delimiter") => format!("just-one-field-{n}"),
            Some("Excessive columns") => format!("r{n:07}\t1\tx\ty\tz"),
            Some("Invalid timestamp 12x") => format!("r{n:07}\t12x\tx\ty"),
            Some(_) => "\t5\tx\ty".to_string(),
            None => format!("r{n:07}\t{}\tvalue-{n}\tm{}", 1000 + n % 5, n % 3),
        };
        if bad_kind(n).is_some() {
            bad.push((n, offset));
        }
        let end: &[u8] = if n.is_multiple_of(9) { b"\r\n" } else { b"\n" };
        f.write_all(line.as_bytes()).unwrap();
        f.write_all(end).unwrap();
        offset += (line.len() + end.len()) as u64;
    }
    (LINES - bad.len() as u64, bad)
}

#[test]
fn a_million_lines_with_bad_ones_reported_by_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    table(&conn, "t");
    let input = dir.path().join("input.tsv");
    let (good, bad) = write_input(&input);
    let spec = ColumnSpec::parse("HBASE_ROW_KEY,HBASE_TS_KEY,d:v,m").unwrap();
    let mut reported: Vec<BadLine> = Vec::new();
    let t0 = std::time::Instant::now();
    let s = import_tsv(
        &conn,
        "t",
        &input,
        &spec,
        &TsvOptions::default(),
        &mut |b| reported.push(b.clone()),
        &mut |_| {},
    )
    .unwrap();
    eprintln!("{s} in {:.1} s", t0.elapsed().as_secs_f64());
    assert_eq!(
        (s.lines, s.rows, s.cells, s.bad_lines),
        (LINES, good, good * 2, bad.len() as u64)
    );
    let want: Vec<(u64, &str)> = (1..=LINES)
        .filter_map(|n| bad_kind(n).map(|k| (n, k)))
        .collect();
    let got: Vec<(u64, &str)> = reported
        .iter()
        .map(|b| (b.line, b.reason.as_str()))
        .collect();
    assert_eq!(got, want);
    assert!(reported.iter().all(|b| b.path == input));
    // Each offset is where its line starts.
    let offsets: Vec<(u64, u64)> = reported.iter().map(|b| (b.line, b.offset)).collect();
    assert_eq!(offsets, bad);
    // Good lines are rows at their timestamps (the summary counted the rows written); bad ones
    // are not.
    let r = conn.table("t").get(Get::new("r0000002"), None).unwrap();
    assert_eq!(r.value(b"d", b"v"), Some(&b"value-2"[..]));
    assert_eq!(r.value(b"m", b""), Some(&b"m2"[..]));
    assert_eq!(r.cells[0].timestamp(), 1002);
    for n in [10_007u64, 20_011, 30_011, 999_999] {
        let r = conn
            .table("t")
            .get(Get::new(format!("r{n:07}")), None)
            .unwrap();
        assert_eq!(r.cells.is_empty(), bad_kind(n).is_some(), "line {n}");
    }
}

#[test]
fn skip_bad_lines_false_stops_at_the_first_and_says_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    table(&conn, "t");
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let mut text = String::new();
    for n in 1..=2500 {
        text.push_str(&format!("r{n:05}\tv{n}\n"));
    }
    let broken_at = text.len();
    text.push_str("broken-line\n");
    text.push_str("after\tnever\n");
    std::fs::write(input.join("part-1.tsv"), text).unwrap();
    std::fs::write(input.join("_SUCCESS"), "").unwrap();
    let spec = ColumnSpec::parse("HBASE_ROW_KEY,d:v").unwrap();
    let opts = TsvOptions {
        skip_bad_lines: false,
        timestamp: Some(42),
        ..TsvOptions::default()
    };
    let e = import_tsv(&conn, "t", &input, &spec, &opts, &mut |_| {}, &mut |_| {}).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, Error::Invalid(_)), "{m}");
    let at = format!("part-1.tsv line 2501 (offset {broken_at}): No delimiter");
    assert!(m.contains(&at), "{m}");
    assert!(
        m.contains("written before it: 0 files, 2501 lines, 2500 rows"),
        "{m}"
    );
    let n = conn.table("t").scanner(Scan::new(), None).unwrap().count();
    assert_eq!(n, 2500);

    // A dry run writes nothing; a missing family writes nothing.
    let dry = TsvOptions {
        dry_run: true,
        ..TsvOptions::default()
    };
    table(&conn, "empty");
    let s = import_tsv(
        &conn,
        "empty",
        &input,
        &spec,
        &dry,
        &mut |_| {},
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((s.rows, s.bad_lines), (2501, 1));
    assert_eq!(
        conn.table("empty")
            .scanner(Scan::new(), None)
            .unwrap()
            .count(),
        0
    );
    let spec = ColumnSpec::parse("HBASE_ROW_KEY,nope:v").unwrap();
    let e = import_tsv(
        &conn,
        "empty",
        &input,
        &spec,
        &dry,
        &mut |_| {},
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("[\"nope\"] do not exist"), "{e}");
}

#[test]
fn csv_quoting_spans_separators_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    table(&conn, "t");
    let input = dir.path().join("in.csv");
    std::fs::write(
        &input,
        "r1,\"a, b\",x\nr2,\"line one\nline two\",\"say \"\"hi\"\"\"\nr3,\"bad\"tail,x\nr4,plain,y\n",
    )
    .unwrap();
    let spec = ColumnSpec::parse("HBASE_ROW_KEY,d:v,m:w").unwrap();
    let opts = TsvOptions {
        csv: true,
        separator: b',',
        ..TsvOptions::default()
    };
    let mut bad = Vec::new();
    let s = import_tsv(
        &conn,
        "t",
        &input,
        &spec,
        &opts,
        &mut |b| bad.push(b.clone()),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((s.rows, s.bad_lines), (3, 1));
    assert_eq!(
        (bad[0].line, bad[0].reason.as_str()),
        (4, "text after a closing quote at byte 8")
    );
    let get = |r: &str| conn.table("t").get(Get::new(r), None).unwrap();
    assert_eq!(get("r1").value(b"d", b"v"), Some(&b"a, b"[..]));
    assert_eq!(
        get("r2").value(b"d", b"v"),
        Some(&b"line one\nline two"[..])
    );
    assert_eq!(get("r2").value(b"m", b"w"), Some(&b"say \"hi\""[..]));
    assert_eq!(get("r4").value(b"m", b"w"), Some(&b"y"[..]));
}
