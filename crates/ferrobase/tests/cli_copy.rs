//! `ferrobase copy` from the command line: an embedded data directory to a `ferrobase serve` and
//! back, every cell and delete marker equal; HBase CopyTable's spellings; the messages of bad
//! arguments; and the progress of the long commands: plain lines and exact counts in a pipe, a
//! bar in a pseudo-terminal (`script`), and Ctrl-C stopping a copy with what it had written.

mod serve_harness;

use ferrobase_client::Connection;
use ferrobase_engine::{
    Cell, ColumnFamilyDescriptor, Delete, Put, Scan, TableDescriptor, TableName,
};
use serve_harness::Serve;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ferrobase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .output()
        .expect("run ferrobase")
}

fn ok(args: &[&str]) -> String {
    let out = ferrobase(args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fails(args: &[&str]) -> String {
    let out = ferrobase(args);
    assert!(!out.status.success(), "{args:?} succeeded: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A table of two families (20 and 3 versions) with `rows` rows and delete markers of every
/// type (every 50th row: a version's Delete and a DeleteFamilyVersion, each masking one cell).
fn fill(dir: &Path, rows: usize) {
    let conn = Connection::open(&format!("file:{}", dir.display())).unwrap();
    let mut a = ColumnFamilyDescriptor::new("a");
    a.max_versions = 20;
    let mut b = ColumnFamilyDescriptor::new("b");
    b.max_versions = 3;
    conn.create_table(
        TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(a)
            .with_family(b),
        &[b"row-00500".to_vec()],
    )
    .unwrap();
    let t = conn.table("t");
    let mut puts = Vec::new();
    for r in 0..rows {
        let row = format!("row-{r:05}");
        let mut p = Put::new(row.clone());
        for v in 0..6i64 {
            p = p.add_column_ts("a", "q", 1000 + v, format!("{r}-{v}"));
        }
        p = p.add_column_ts("b", "x", 5, vec![0u8, 0xff, r as u8]);
        puts.push(p);
        if puts.len() == 500 {
            t.put_all(std::mem::take(&mut puts)).unwrap();
        }
    }
    t.put_all(puts).unwrap();
    for r in (0..rows).step_by(50) {
        let row = format!("row-{r:05}");
        t.delete(Delete::new(row.clone()).add_column_ts("a", "q", 1002))
            .unwrap();
        t.delete(Delete::new(row).add_family_version("b", 5))
            .unwrap();
    }
}

/// A cell as (row, family, qualifier, timestamp, type, value).
type CellLine = (Vec<u8>, Vec<u8>, Vec<u8>, i64, &'static str, Vec<u8>);

fn raw_cells(url: &str, table: &str) -> Vec<CellLine> {
    let conn = Connection::open(url).unwrap();
    let mut s = conn
        .table(table)
        .scanner(Scan::new().raw(true).max_versions(1000), None)
        .unwrap();
    let mut out = Vec::new();
    loop {
        let rows = s.next_batch(1000).unwrap();
        if rows.is_empty() {
            break;
        }
        for c in rows.iter().flat_map(|r| r.cells.iter()) {
            out.push(tuple(c));
        }
    }
    out.sort();
    out
}

fn tuple(c: &Cell) -> CellLine {
    (
        c.row().to_vec(),
        c.family().to_vec(),
        c.qualifier().to_vec(),
        c.timestamp(),
        c.cell_type().name(),
        c.value().to_vec(),
    )
}

#[test]
fn help_and_bad_arguments() {
    assert!(ok(&["copy", "--help"]).contains("usage: ferrobase copy SOURCE TABLE DEST"));
    assert!(ok(&["--help"]).contains("ferrobase copy SOURCE TABLE DEST"));
    assert!(fails(&["copy", "a", "t"]).contains("copy needs SOURCE, TABLE and DEST"));
    let e = fails(&["copy", "a", "t", "--peer.adr=zk1,zk2:2181:/hbase"]);
    assert!(e.contains("not ZooKeeper"), "{e}");
    assert!(fails(&["copy", "a", "t", "b", "--versions", "0"]).contains("--versions takes"));
    assert!(fails(&["copy", "a", "t", "b", "--bulkload"]).contains("does not have"));
    assert!(fails(&["copy", "a", "t", "b", "--bogus", "1"]).contains("unknown option --bogus"));
    let e = fails(&["copy", "a", "t", "b", "--starttime=20", "--endtime=10"]);
    assert!(e.contains("--starttime and --endtime"), "{e}");
    // A source directory that does not exist is not created, and is named as the source.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let e = fails(&["copy", missing.to_str().unwrap(), "t", "file:/tmp/x"]);
    assert!(
        e.contains("source") && e.contains("no such data directory"),
        "{e}"
    );
    assert!(!missing.exists());
}

#[test]
fn embedded_to_a_server_and_back_every_cell_and_marker() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fill(&src, 1000);
    let s = src.to_str().unwrap();
    let server = Serve::start(&[]);
    let url = format!("thrift://{}", server.addr);

    // Onto itself: refused, nothing written.
    let e = fails(&["copy", s, "t", &format!("file:{s}")]);
    assert!(e.contains("same table"), "{e}");

    let out = ok(&[
        "copy",
        s,
        "t",
        &url,
        "--create",
        "--all.cells",
        "--batch",
        "64",
    ]);
    assert!(out.contains("copied t of file:"), "{out}");
    assert!(
        out.contains("1000 rows") && out.contains("delete markers"),
        "{out}"
    );
    let want = raw_cells(&format!("file:{s}"), "t");
    assert_eq!(raw_cells(&url, "t"), want, "server side");

    // And back into another data directory, under CopyTable's spellings.
    let back = dir.path().join("back");
    let back_url = format!("file:{}", back.display());
    let out = ok(&[
        "copy",
        &url,
        "t",
        "--peer.adr",
        &back_url,
        "--new.name=t2",
        "--create",
        "--all.cells",
    ]);
    assert!(out.contains(&format!("{} cells", want.len())), "{out}");
    assert_eq!(raw_cells(&back_url, "t2"), want, "back");

    // A row range, a time range and one version, from the server.
    let out = ok(&[
        "copy",
        &url,
        "t",
        &back_url,
        "--to-table",
        "part",
        "--create",
        "--startrow=row-00100",
        "--stoprow=row-00200",
        "--starttime=1003",
        "--endtime=1006",
        "--versions=1",
        "--families=a",
    ]);
    // Rows 100..200 of family a: newest in [1003, 1006) is 1005.
    assert!(out.contains("100 rows, 100 cells"), "{out}");
    let part = raw_cells(&back_url, "part");
    assert!(part.iter().all(|c| c.3 == 1005 && c.1 == b"a"), "{part:?}");
    // The destination exists without family b: a clear error, nothing written.
    let e = fails(&["copy", &url, "t", &back_url, "--to-table", "part"]);
    assert!(
        e.contains("destination") && e.contains("has no family b"),
        "{e}"
    );
    assert!(e.contains("nothing was written"), "{e}");
}

#[test]
fn progress_in_a_pipe_and_in_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fill(&src, 3000);
    let s = src.to_str().unwrap();

    // A pipe: no escape codes; the exact counts on stdout.
    let out = ferrobase(&[
        "copy",
        s,
        "t",
        &format!("file:{}/d1", dir.path().display()),
        "--create",
    ]);
    assert!(out.status.success(), "{out:?}");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        !stderr.contains('\x1b') && !stderr.contains('\r'),
        "{stderr:?}"
    );
    assert!(stdout.contains("3000 rows, 20880 cells"), "{stdout}");

    // A terminal: the bar is drawn (export then import: the import knows its input's size).
    let exported = dir.path().join("exp");
    let bin = env!("CARGO_BIN_EXE_ferrobase");
    let run_in_pty = |cmd: String| -> String {
        let out = Command::new("script")
            .args(["-q", "-e", "-c", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .expect("script (util-linux) runs a command in a pseudo-terminal");
        assert!(out.status.success(), "{cmd}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let tty = run_in_pty(format!(
        "{bin} copy {s} t file:{}/d2 --create",
        dir.path().display()
    ));
    assert!(tty.contains("copy: ") && tty.contains("rows/s"), "{tty:?}");
    assert!(
        tty.contains("\x1b[") || tty.contains('\r'),
        "no redraw: {tty:?}"
    );
    assert!(tty.contains("3000 rows, 20880 cells"), "{tty:?}");
    ok(&["export", "--data", s, "t", exported.to_str().unwrap(), "10"]);
    let script = dir.path().join("create.rb");
    std::fs::write(
        &script,
        "create 'u', {NAME => 'a', VERSIONS => 20}, {NAME => 'b', VERSIONS => 3}\n",
    )
    .unwrap();
    ok(&["shell", "--data", s, script.to_str().unwrap()]);
    let tty = run_in_pty(format!("{bin} import --data {s} u {}", exported.display()));
    assert!(tty.contains("import [") && tty.contains("100%"), "{tty:?}");
    assert!(tty.contains("imported into u"), "{tty:?}");
}

#[test]
fn ctrl_c_stops_a_copy_and_says_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fill(&src, 20000);
    let dst = format!("file:{}/dst", dir.path().display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args([
            "copy",
            src.to_str().unwrap(),
            "t",
            &dst,
            "--create",
            "--batch",
            "1",
        ])
        .env("FERROBASE_PROGRESS_EVERY_MS", "100")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Ctrl-C once the first plain progress line is out: the copy is under way.
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut stderr = String::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        assert!(n > 0, "the copy ended before any progress line: {stderr}");
        stderr.push_str(&line);
        if line.contains("rows/s") {
            break;
        }
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    std::io::Read::read_to_string(&mut err, &mut stderr).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("copy: ") && stderr.contains("rows/s"),
        "{stderr}"
    );
    let line = stderr
        .lines()
        .find(|l| l.contains("interrupted: copied"))
        .unwrap_or_else(|| panic!("{stderr}"));
    let rows: usize = line
        .split("copied ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(rows > 0 && rows < 20000, "{line}");
    let conn = Connection::open(&dst).unwrap();
    let mut s = conn.table("t").scanner(Scan::new(), None).unwrap();
    let mut seen = 0;
    loop {
        let batch = s.next_batch(1000).unwrap();
        if batch.is_empty() {
            break;
        }
        seen += batch.len();
    }
    assert_eq!(seen, rows, "{line}");
}

#[test]
fn a_destination_that_fails_mid_copy_is_named_with_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fill(&src, 20000);
    let served = dir.path().join("served");
    let (mut server, addr) = serve_harness::spawn(&served, &[], Stdio::null());
    let url = format!("thrift://{addr}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args([
            "copy",
            src.to_str().unwrap(),
            "t",
            &url,
            "--create",
            "--batch",
            "1",
        ])
        .env("FERROBASE_PROGRESS_EVERY_MS", "100")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut stderr = String::new();
    loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut err, &mut line).unwrap();
        assert!(n > 0, "the copy ended before any progress line: {stderr}");
        stderr.push_str(&line);
        if line.contains("rows/s") {
            break;
        }
    }
    // The server dies under the copy.
    server.kill().unwrap();
    server.wait().unwrap();
    std::io::Read::read_to_string(&mut err, &mut stderr).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains(&format!("destination {url}")))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(line.contains("transport error"), "{line}");
    let rows: usize = line
        .split("written before it: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(rows > 0 && rows < 20000, "{line}");
    // Restarted on its data: every row the message counts is there (and at most the one of the
    // batch that failed besides).
    let (mut server, addr) = serve_harness::spawn(&served, &[], Stdio::null());
    let conn = Connection::open(&format!("thrift://{addr}")).unwrap();
    let mut s = conn.table("t").scanner(Scan::new(), None).unwrap();
    let mut seen = 0;
    loop {
        let batch = s.next_batch(1000).unwrap();
        if batch.is_empty() {
            break;
        }
        seen += batch.len();
    }
    assert!(seen == rows || seen == rows + 1, "{seen} rows for {line}");
    server.kill().unwrap();
    server.wait().unwrap();
}
