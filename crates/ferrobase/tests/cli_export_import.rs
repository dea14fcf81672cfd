//! `ferrobase export` and `ferrobase import` from the command line: HBase's argument order and
//! `-D` properties, a round trip between two tables, and the messages of bad arguments and of a
//! damaged file (named with its offset; nothing written).

use std::path::Path;
use std::process::{Command, Output};

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

fn shell(data: &Path, script: &str) -> String {
    let file = data.with_extension("rb");
    std::fs::write(&file, script).unwrap();
    ok(&[
        "shell",
        "--data",
        data.to_str().unwrap(),
        file.to_str().unwrap(),
    ])
}

#[test]
fn help_and_bad_arguments() {
    assert!(ok(&["export", "--help"]).contains("hbase.mapreduce.include.deleted.rows"));
    assert!(ok(&["import", "--help"]).contains("usage: ferrobase import"));
    assert!(fails(&["export", "t"]).contains("export needs TABLE and OUTDIR"));
    assert!(fails(&["import", "t"]).contains("import needs TABLE and INDIR"));
    assert!(fails(&["export", "t", "out", "-D", "bogus.property=1"]).contains("-D bogus.property"));
    assert!(fails(&["export", "t", "out", "--compress", "lzo"]).contains("--compress takes"));
    assert!(fails(&["export", "t", "out", "1", "20", "10"]).contains("STARTTIME and ENDTIME"));
    assert!(fails(&["export", "t", "out", "many"]).contains("VERSIONS \"many\""));
    assert!(fails(&["export", "--bogus", "x", "t", "out"]).contains("unknown option --bogus"));
    // A data directory that does not exist is not created.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let e = fails(&["export", "--data", missing.to_str().unwrap(), "t", "out"]);
    assert!(e.contains("no such data directory"), "{e}");
    assert!(!missing.exists());
}

#[test]
fn round_trip_between_tables_and_a_damaged_file() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.to_str().unwrap();
    shell(
        &data,
        "create 'a', {NAME => 'cf', VERSIONS => 5}\ncreate 'b', {NAME => 'cf', VERSIONS => 5}\n\
         put 'a', 'r1', 'cf:q', 'one', 10\nput 'a', 'r1', 'cf:q', 'two', 20\n\
         put 'a', 'r2', 'cf:q', 'x', 30\ndelete 'a', 'r2', 'cf:q', 40\n",
    );
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let s = ok(&[
        "export",
        "--data",
        d,
        "a",
        o,
        "5",
        "-D",
        "hbase.mapreduce.include.deleted.rows=true",
    ]);
    assert!(
        s.contains("exported a: 2 rows, 4 cells into 1 files"),
        "{s}"
    );
    assert!(out.join("part-m-00000").is_file() && out.join("_SUCCESS").is_file());
    let s = ok(&["import", "--data", d, "b", o]);
    assert!(
        s.contains("imported into b: 1 files, 2 rows, 4 cells (1 delete markers)"),
        "{s}"
    );
    let scan = |t: &str| {
        let s = shell(
            &data,
            &format!("scan '{t}', {{RAW => true, VERSIONS => 5}}\n"),
        );
        s.lines()
            .filter(|l| l.contains("column="))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(scan("b"), scan("a"));
    assert_eq!(scan("b").len(), 4);
    // Another export into the same OUTDIR is refused, as Hadoop's FileOutputFormat refuses it.
    assert!(fails(&["export", "--data", d, "a", o]).contains("already exists and is not empty"));

    // A truncated tail: the file and the offset of the cut record named, nothing written; then
    // a flipped magic.
    shell(&data, "create 'c', 'cf'\n");
    let part = out.join("part-m-00000");
    let mut bytes = std::fs::read(&part).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 1;
    bytes.truncate(n - 1);
    std::fs::write(&part, &bytes).unwrap();
    let e = fails(&["import", "--data", d, "c", o]);
    assert!(
        e.contains("part-m-00000 at offset") && e.contains("truncated"),
        "{e}"
    );
    assert!(scan("c").is_empty());
    bytes[0] = b'X';
    std::fs::write(&part, &bytes).unwrap();
    let e = fails(&["import", "--data", d, "c", o]);
    assert!(e.contains("not a Hadoop SequenceFile"), "{e}");
}

#[test]
fn import_tsv_reports_bad_lines_by_number() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.to_str().unwrap();
    shell(&data, "create 't', 'cf'\n");
    let input = dir.path().join("in.tsv");
    std::fs::write(&input, "r1\tone\t5\nbroken\nr2\ttwo\t6\n\tx\t7\n").unwrap();
    let i = input.to_str().unwrap();
    let cols = "-Dimporttsv.columns=HBASE_ROW_KEY,cf:q,HBASE_TS_KEY";
    let out = ferrobase(&["import", "tsv", "--data", d, cols, "t", i]);
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("in.tsv line 2 (offset 9): No delimiter"),
        "{err}"
    );
    assert!(
        err.contains("in.tsv line 4 (offset 25): Row length is 0"),
        "{err}"
    );
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("1 files, 4 lines, 2 rows, 2 cells, 2 bad lines"),
        "{s}"
    );
    let scan = shell(&data, "scan 't'\n");
    assert!(
        scan.contains("column=cf:q, timestamp=6, value=two"),
        "{scan}"
    );

    let e = fails(&[
        "import",
        "tsv",
        "--data",
        d,
        cols,
        "-Dimporttsv.skip.bad.lines=false",
        "t",
        i,
    ]);
    assert!(
        e.contains("in.tsv line 2 (offset 9): No delimiter (importtsv.skip.bad.lines=false)"),
        "{e}"
    );
    assert!(
        e.contains("written before it: 0 files, 2 lines, 1 rows"),
        "{e}"
    );
    let e = fails(&[
        "import",
        "tsv",
        "--data",
        d,
        "-Dimporttsv.columns=HBASE_ROW_KEY,HBASE_CELL_VISIBILITY,cf:q",
        "t",
        i,
    ]);
    assert!(e.contains("no visibility labels"), "{e}");
    let e = fails(&[
        "import",
        "tsv",
        "--data",
        d,
        cols,
        "-Dimporttsv.separator=::",
        "t",
        i,
    ]);
    assert!(e.contains("single-byte separators"), "{e}");
    assert!(fails(&["import", "tsv", "--data", d, "t", i]).contains("no columns specified"));
    assert!(ok(&["import", "tsv", "--help"]).contains("HBASE_ROW_KEY"));
}
