//! Data directories written by earlier releases open and read the same, and compactions
//! rewrite their files in the current format.
//!
//! `fixtures/format-v2` was written by the engine at commit fda1639 (block file format 2, WAL
//! format 1 with its last segment holding no records): a
//! table `t` with family `cf` (VERSIONS 3, no encoding or compression) and family `p`
//! (PREFIX encoding, LZ4, VERSIONS 1), compactions off, two flushes:
//! - for i in 0..300, row `user{i/3:04}`: `cf:q{i%3}` at 1_600_000_000_000 − 1000·i = `v{i}`,
//!   and `p:x` at i = 100 + i bytes of `z`;
//! - then `cf:q0` at i64::MAX − 1 = `newest` in rows user0000..user0029, and a row delete of
//!   user0007 (at the time of writing, so it masks all of that row but `newest`).

//!
//! `fixtures/format-v3` was written by `ferrobase shell` built at commit 65059ee (block file
//! format 3, WAL format 1) from statements: table `t`, family `cf` (VERSIONS 3) and `p` (PREFIX,
//! LZ4, VERSIONS 1); for i in 0..60, row `user{i/3:04}`: `cf:q{i%3}` at 1_600_000_000_000 −
//! 1000·i = `v{i}` and `p:x` at i = 10 + i bytes of `z`; a flush; then, left in the WAL (a
//! version-1 segment with records), `cf:q0` at 1_700_000_000_000 + r = `logged{r}` in rows
//! user0000..user0019 and a row delete of user0007 at the time of writing.

mod support;

use ferrobase_engine::*;
use std::path::Path;
use support::files::files_with_suffix;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Block file format versions of the files under `dir` (from each trailer).
fn file_versions(dir: &Path) -> Vec<u32> {
    let mut out: Vec<u32> = files_with_suffix(dir, ".blk")
        .iter()
        .map(|p| {
            let b = std::fs::read(p).unwrap();
            let at = b.len() - 16;
            u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
        })
        .collect();
    out.sort_unstable();
    out
}

/// Checks every row of the fixture through Gets and a full scan.
fn check(t: &Table) {
    for r in 0..100i64 {
        let row = format!("user{r:04}");
        let got = t.get(&Get::new(row.clone()).max_versions(3)).unwrap();
        let mut want: Vec<(String, i64, Vec<u8>)> = Vec::new();
        for j in 0..3 {
            if j == 0 && r < 30 {
                want.push(("cf:q0".into(), i64::MAX - 1, b"newest".to_vec()));
            }
            let i = 3 * r + j;
            want.push((
                format!("cf:q{j}"),
                1_600_000_000_000 - 1000 * i,
                format!("v{i}").into_bytes(),
            ));
        }
        let i = 3 * r + 2;
        want.push(("p:x".into(), i, vec![b'z'; 100 + i as usize]));
        if r == 7 {
            // The row delete masks every cell but the one stamped after it.
            want.truncate(1);
        }
        let cells: Vec<(String, i64, Vec<u8>)> = got
            .cells
            .iter()
            .map(|c| {
                let column = format!(
                    "{}:{}",
                    String::from_utf8_lossy(c.family()),
                    String::from_utf8_lossy(c.qualifier())
                );
                (column, c.timestamp(), c.value().to_vec())
            })
            .collect();
        assert_eq!(cells, want, "{row}");
    }
    let rows: Vec<String> = t
        .scan_all(&Scan::new())
        .unwrap()
        .iter()
        .map(|r| String::from_utf8_lossy(r.row()).into_owned())
        .collect();
    let want: Vec<String> = (0..100).map(|r| format!("user{r:04}")).collect();
    assert_eq!(rows, want);
}

#[test]
fn a_format_2_data_directory_reads_the_same_before_and_after_compaction_to_the_current_format() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-v2");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    assert_eq!(file_versions(dir.path()), vec![2, 2, 2, 2]);
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    let engine = Engine::open(dir.path(), opts.clone()).unwrap();
    let t = engine.table("t").unwrap();
    check(&t);
    engine.admin().flush("t").unwrap();
    engine.admin().major_compact("t").unwrap();
    assert_eq!(file_versions(dir.path()), vec![5, 5]);
    check(&t);
    drop(t);
    drop(engine);
    let engine = Engine::open(dir.path(), opts).unwrap();
    check(&engine.table("t").unwrap());
}

/// Checks every row of the format-3 fixture through Gets.
fn check_v3(t: &Table) {
    for r in 0..20i64 {
        let row = format!("user{r:04}");
        let got = t.get(&Get::new(row.clone()).max_versions(3)).unwrap();
        let mut want: Vec<(String, i64, Vec<u8>)> = Vec::new();
        if r != 7 {
            let logged = format!("logged{r}").into_bytes();
            want.push(("cf:q0".into(), 1_700_000_000_000 + r, logged));
            for j in 0..3 {
                let i = 3 * r + j;
                let ts = 1_600_000_000_000 - 1000 * i;
                want.push((format!("cf:q{j}"), ts, format!("v{i}").into_bytes()));
            }
            let i = 3 * r + 2;
            want.push(("p:x".into(), i, vec![b'z'; 10 + i as usize]));
        }
        let cells: Vec<(String, i64, Vec<u8>)> = got
            .cells
            .iter()
            .map(|c| {
                let column = format!(
                    "{}:{}",
                    String::from_utf8_lossy(c.family()),
                    String::from_utf8_lossy(c.qualifier())
                );
                (column, c.timestamp(), c.value().to_vec())
            })
            .collect();
        assert_eq!(cells, want, "{row}");
    }
}

#[test]
fn a_format_3_data_directory_with_a_version_1_log_reads_the_same_after_compaction_to_the_current_format(
) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-v3");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    assert_eq!(file_versions(dir.path()), vec![3, 3]);
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    // Opening replays the version-1 log and flushes it: a current-format file per family (the row
    // delete wrote a marker in each).
    let engine = Engine::open(dir.path(), opts.clone()).unwrap();
    let t = engine.table("t").unwrap();
    check_v3(&t);
    assert_eq!(file_versions(dir.path()), vec![3, 3, 5, 5]);
    engine.admin().major_compact("t").unwrap();
    assert_eq!(file_versions(dir.path()), vec![5, 5]);
    check_v3(&t);
    drop(t);
    drop(engine);
    let engine = Engine::open(dir.path(), opts).unwrap();
    check_v3(&engine.table("t").unwrap());
}

/// One cell read back: row, family, qualifier, timestamp, value.
type ReadCell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// Every cell of table `t` (all versions), or the first error opening or reading it.
fn everything(dir: &Path) -> Result<Vec<ReadCell>> {
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    let engine = Engine::open(dir, opts)?;
    let mut out = Vec::new();
    for row in engine.table("t")?.scanner(&Scan::new().max_versions(10))? {
        for c in row?.cells.iter() {
            out.push((
                c.row().to_vec(),
                c.family().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.value().to_vec(),
            ));
        }
    }
    Ok(out)
}

/// The corrupt twins of each fixture: a copy with one byte flipped, at seven places spread over
/// each of its files in turn. Opening and reading a twin never panics and never answers
/// differently from the clean fixture without saying so: a block file or the manifest is
/// refused with an error naming it, or (a flip the format does not read, such as alignment
/// padding) reads exactly the same; a damaged log record is an error naming the segment, or,
/// where the damage looks like a torn tail of the last segment, the records from it on are
/// dropped, so what is read is a subset of the clean answer (`docs/format/wal.md`, "Recovery
/// rules").
#[test]
fn the_corrupt_twins_of_each_fixture_are_refused_by_name_or_read_the_same() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for version in ["format-v2", "format-v3"] {
        let fixture = fixtures.join(version);
        let clean_dir = tempfile::tempdir().unwrap();
        copy_dir(&fixture, clean_dir.path());
        let clean = everything(clean_dir.path()).unwrap();
        assert!(!clean.is_empty());
        let mut files = files_with_suffix(&fixture, ".blk");
        files.extend(files_with_suffix(&fixture, ".wal"));
        files.push(fixture.join("MANIFEST"));
        let mut refused = 0;
        for file in &files {
            let rel = file.strip_prefix(&fixture).unwrap();
            let len = std::fs::metadata(file).unwrap().len() as usize;
            for k in 1..=7 {
                let at = len * k / 8;
                let dir = tempfile::tempdir().unwrap();
                copy_dir(&fixture, dir.path());
                let twin = dir.path().join(rel);
                let mut bytes = std::fs::read(&twin).unwrap();
                bytes[at] ^= 0x5a;
                std::fs::write(&twin, &bytes).unwrap();
                let ctx = format!("{version}/{} byte {at} of {len}", rel.display());
                let name = rel.file_name().unwrap().to_string_lossy().into_owned();
                match everything(dir.path()) {
                    Err(e) => {
                        assert!(e.to_string().contains(&name), "{ctx}: {e}");
                        refused += 1;
                    }
                    Ok(got) if name.ends_with(".wal") => {
                        assert!(
                            got.iter().all(|c| clean.contains(c)),
                            "{ctx}: cells invented"
                        );
                    }
                    Ok(got) => assert_eq!(got, clean, "{ctx}: read differently without an error"),
                }
            }
        }
        assert!(
            refused > files.len(),
            "{version}: only {refused} twins refused"
        );
    }
}

/// Checks the rows of `fixtures/format-v4-log`'s table `t` through Gets: `cf:q` of user0000..
/// user0019 is `v{i}` (ROW blooms in version-4 files: one filter a file), and rows it never held
/// answer nothing.
fn check_v4(t: &Table) {
    for i in 0..20i64 {
        let row = format!("user{i:04}");
        let got = t.get(&Get::new(row.clone()).add_column("cf", "q")).unwrap();
        let values: Vec<Vec<u8>> = got.cells.iter().map(|c| c.value().to_vec()).collect();
        assert_eq!(values, vec![format!("v{i}").into_bytes()], "{row}");
    }
    for row in ["user0020", "user", "zzz", ""] {
        assert!(t.get(&Get::new(row)).unwrap().cells.is_empty(), "{row:?}");
    }
}

#[test]
fn format_4_files_with_one_bloom_filter_read_the_same_after_compaction_to_chunked_blooms() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-v4-log");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture, dir.path());
    let before = file_versions(dir.path());
    assert!(
        !before.is_empty() && before.iter().all(|&v| v == 4),
        "{before:?}"
    );
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    let engine = Engine::open(dir.path(), opts.clone()).unwrap();
    let t = engine.table("t").unwrap();
    check_v4(&t);
    engine.admin().major_compact("t").unwrap();
    engine.admin().major_compact("u").unwrap();
    let after = file_versions(dir.path());
    assert!(after.iter().all(|&v| v == 5), "{after:?}");
    check_v4(&t);
    drop(t);
    drop(engine);
    let engine = Engine::open(dir.path(), opts).unwrap();
    check_v4(&engine.table("t").unwrap());
}
