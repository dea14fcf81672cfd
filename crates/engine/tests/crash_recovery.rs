//! Crash consistency: a child process writes and acknowledges; it is killed at random moments
//! (often during flushes, compactions and splits, which tiny thresholds make constant); after
//! each kill the database must open with every acknowledged write. Damaged files are reported
//! with their path, never read as wrong data.

mod support;

use ferrobase_engine::*;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::files::files_with_suffix;

const CHILD_ENV: &str = "FERROBASE_CRASH_CHILD_DIR";

fn tiny_options() -> EngineOptions {
    EngineOptions {
        memstore_flush_size: 32 * 1024,
        region_split_size: 192 * 1024,
        wal_segment_bytes: 64 * 1024,
        compaction: CompactionOptions {
            min_files: 2,
            ..CompactionOptions::default()
        },
        ..EngineOptions::default()
    }
}

fn row_key(i: u64) -> String {
    format!("{:016x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

fn value(i: u64) -> String {
    format!("value-{i}-{}", "x".repeat((i % 200) as usize))
}

fn schema() -> TableDescriptor {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.compression = Compression::Snappy;
    cf.block_size = 4096;
    TableDescriptor::new(TableName::parse("crash").unwrap()).with_family(cf)
}

/// The child: writes forever, printing what it acknowledged. Run only by `kill_at_random_moments`.
#[test]
#[ignore = "child process of kill_at_random_moments_loses_no_acknowledged_write"]
fn crash_child_writer() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let start: u64 = std::env::var("FERROBASE_CRASH_START")
        .unwrap()
        .parse()
        .unwrap();
    let engine = Engine::open(&dir, tiny_options()).unwrap();
    if !engine.admin().table_exists("crash").unwrap() {
        engine.admin().create_table(schema()).unwrap();
    }
    let t = engine.table("crash").unwrap();
    let mut i = start;
    loop {
        // Every seventh batch is synced (FSYNC_WAL), so kills also land in group commits that
        // sync.
        let durability = if (i / 5).is_multiple_of(7) {
            Durability::FsyncWal
        } else {
            Durability::UseDefault
        };
        let batch: Vec<Put> = (i..i + 5)
            .map(|j| {
                Put::new(row_key(j))
                    .add_column("cf", "q", value(j))
                    .durability(durability)
            })
            .collect();
        t.put_all(batch).unwrap();
        println!("put {} {}", i, i + 5);
        if i.is_multiple_of(35) && i >= 10 {
            println!("deleting {}", i - 10);
            t.delete(Delete::new(row_key(i - 10))).unwrap();
            println!("del {}", i - 10);
        }
        i += 5;
    }
}

#[test]
fn kill_at_random_moments_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    // row → Some(present) once acknowledged; None while a delete of it is in flight.
    let mut acked: BTreeMap<u64, Option<bool>> = BTreeMap::new();
    let mut next = 0u64;
    let mut rng = ferrobase_testkit::Rng::from_state(0x1234_5678);
    for round in 0..8 {
        let seed = rng.next_u64();
        let wait_lines = 200 + seed % 1500;
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "crash_child_writer",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .env("FERROBASE_CRASH_START", next.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A child that stops making progress (a deadlock or stall) fails the test instead of
        // hanging it.
        let finished = Arc::new(AtomicBool::new(false));
        let stalled = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let (finished, stalled, pid) = (finished.clone(), stalled.clone(), child.id());
            std::thread::spawn(move || {
                for _ in 0..600 {
                    if finished.load(Ordering::Acquire) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                stalled.store(true, Ordering::Release);
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            })
        };
        let out = child.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        let mut seen = 0;
        while seen < wait_lines {
            let Some(Ok(line)) = lines.next() else { break };
            absorb(&line, &mut acked, &mut next);
            seen += 1;
        }
        child.kill().unwrap();
        // Anything printed after our last read may also have been acknowledged: absorb it.
        for line in lines.map_while(Result::ok) {
            absorb(&line, &mut acked, &mut next);
        }
        child.wait().unwrap();
        finished.store(true, Ordering::Release);
        watchdog.join().unwrap();
        assert!(
            !stalled.load(Ordering::Acquire),
            "round {round}: the writer stalled for 60 s"
        );
        assert!(
            !acked.is_empty(),
            "round {round}: the child acknowledged nothing"
        );
        let engine = Engine::open(dir.path(), tiny_options()).unwrap();
        let t = engine.table("crash").unwrap();
        for (&i, &state) in &acked {
            let r = t.get(&Get::new(row_key(i))).unwrap();
            let Some(present) = state else { continue };
            if present {
                assert_eq!(
                    r.value(b"cf", b"q"),
                    Some(value(i).as_bytes()),
                    "round {round}: acknowledged row {i} lost"
                );
            } else {
                assert!(
                    r.is_empty(),
                    "round {round}: acknowledged delete of row {i} lost"
                );
            }
        }
        let scanned = t.scan_all(&Scan::new()).unwrap().len();
        let sure = acked.values().filter(|p| **p == Some(true)).count();
        let unsure = acked.values().filter(|p| p.is_none()).count();
        let extra = extra_rows(&t, &acked);
        assert!(
            scanned >= sure + extra && scanned <= sure + unsure + extra,
            "round {round}: scan found {scanned} rows"
        );
        // A delete in flight at the kill is settled by what reopening shows.
        for (&i, state) in acked.iter_mut() {
            if state.is_none() {
                *state = Some(!t.get(&Get::new(row_key(i))).unwrap().is_empty());
            }
        }
        engine.close();
        std::thread::sleep(Duration::from_millis(10));
    }
    let engine = Engine::open(dir.path(), tiny_options()).unwrap();
    assert!(
        engine.admin().regions("crash").unwrap().len() > 1,
        "no split happened"
    );
}

/// Applies one line of the child's output to what we know was acknowledged.
fn absorb(line: &str, acked: &mut BTreeMap<u64, Option<bool>>, next: &mut u64) {
    let parts: Vec<&str> = line.split_whitespace().collect();
    match parts.as_slice() {
        ["put", a, b] => {
            for j in a.parse::<u64>().unwrap()..b.parse::<u64>().unwrap() {
                acked.insert(j, Some(true));
            }
            *next = b.parse().unwrap();
        }
        ["deleting", a] => {
            acked.insert(a.parse().unwrap(), None);
        }
        ["del", a] => {
            acked.insert(a.parse().unwrap(), Some(false));
        }
        _ => {}
    }
}

/// Rows written but not yet acknowledged when the child died may or may not be present.
fn extra_rows(t: &Table, acked: &BTreeMap<u64, Option<bool>>) -> usize {
    let known: std::collections::HashSet<String> = acked.keys().map(|&i| row_key(i)).collect();
    t.scan_all(&Scan::new())
        .unwrap()
        .iter()
        .filter(|r| !known.contains(&String::from_utf8_lossy(r.row()).into_owned()))
        .count()
}

fn write_sample(dir: &std::path::Path, rows: u64) {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    engine.admin().create_table(schema()).unwrap();
    let t = engine.table("crash").unwrap();
    t.put_all(
        (0..rows)
            .map(|i| Put::new(row_key(i)).add_column("cf", "q", value(i)))
            .collect(),
    )
    .unwrap();
    engine.close();
}

#[test]
fn torn_wal_tail_is_ignored_and_acknowledged_data_stays() {
    let dir = tempfile::tempdir().unwrap();
    write_sample(dir.path(), 500);
    // The close left the data in the WAL only; append half a record to the newest segment.
    let wal = files_with_suffix(dir.path(), ".wal");
    let last = wal.last().unwrap();
    let mut bytes = std::fs::read(last).unwrap();
    bytes.extend_from_slice(&[0, 0, 1, 0, 0xde, 0xad]);
    std::fs::write(last, bytes).unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = engine.table("crash").unwrap();
    assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 500);
}

/// Writes `rows` rows, one acknowledged put (one WAL record) each, and closes: they are in
/// the WAL only.
fn write_one_record_per_row(dir: &std::path::Path, rows: u64) {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    engine.admin().create_table(schema()).unwrap();
    let t = engine.table("crash").unwrap();
    for i in 0..rows {
        t.put(Put::new(format!("r{i:06}")).add_column("cf", "q", value(i)))
            .unwrap();
    }
    engine.close();
}

fn dir_bytes(dir: &std::path::Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name() != Some(std::ffi::OsStr::new("LOCK")) {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Issue 39, 1: one byte flipped 40 bytes from the end of the newest segment, inside a complete
/// record acknowledged at SYNC_WAL, which no crash can tear. The engine refuses to open naming
/// the file and offset and changes nothing; point-in-time recovery opens without that record,
/// keeping a copy of the segment and a report in `wal-quarantine/`.
#[test]
fn damaged_last_wal_record_refuses_to_open_unless_point_in_time() {
    let dir = tempfile::tempdir().unwrap();
    write_one_record_per_row(dir.path(), 4000);
    let wal = files_with_suffix(dir.path(), ".wal");
    let last = wal.last().unwrap().clone();
    let mut bytes = std::fs::read(&last).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 0x20;
    std::fs::write(&last, &bytes).unwrap();
    let before = dir_bytes(dir.path());
    let Err(err) = Engine::open(dir.path(), EngineOptions::default()) else {
        panic!("a damaged complete record must refuse the open");
    };
    match &err {
        Error::Corruption { path, offset, .. } => {
            assert_eq!(path, &last);
            assert!(*offset > 0 && *offset < n as u64 - 40, "{offset}");
        }
        other => panic!("expected corruption, got {other}"),
    }
    assert!(
        err.to_string().contains("--wal-recovery point-in-time"),
        "{err}"
    );
    assert_eq!(
        dir_bytes(dir.path()),
        before,
        "a refused open changes nothing"
    );

    let opts = EngineOptions {
        wal_recovery: WalRecovery::PointInTime,
        ..EngineOptions::default()
    };
    let engine = Engine::open(dir.path(), opts).unwrap();
    let t = engine.table("crash").unwrap();
    let rows = t.scan_all(&Scan::new()).unwrap();
    assert_eq!(rows.len(), 3999, "every record before the damaged one");
    assert_eq!(rows.last().unwrap().row(), b"r003998");
    drop(t);
    engine.close();
    drop(engine);
    let quarantine: Vec<_> = std::fs::read_dir(dir.path().join("wal-quarantine"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(quarantine.len(), 1);
    let copy = quarantine[0].join(last.file_name().unwrap());
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        bytes,
        "the damaged segment kept as it was"
    );
    let report = std::fs::read_to_string(quarantine[0].join("REPORT.txt")).unwrap();
    assert!(report.contains("record checksum mismatch"), "{report}");
    assert!(report.contains(&last.display().to_string()), "{report}");
    // The log is whole again: a strict open works and finds the same rows.
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    assert_eq!(
        engine
            .table("crash")
            .unwrap()
            .scan_all(&Scan::new())
            .unwrap()
            .len(),
        3999
    );
}

/// A segment cut in the middle of its last record (a crash during the write) still opens:
/// only the incomplete record goes.
#[test]
fn incomplete_last_wal_record_is_cut_and_the_rest_stays() {
    let dir = tempfile::tempdir().unwrap();
    write_one_record_per_row(dir.path(), 100);
    let wal = files_with_suffix(dir.path(), ".wal");
    let last = wal.last().unwrap();
    let bytes = std::fs::read(last).unwrap();
    std::fs::write(last, &bytes[..bytes.len() - 5]).unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let rows = engine
        .table("crash")
        .unwrap()
        .scan_all(&Scan::new())
        .unwrap();
    assert_eq!(rows.len(), 99);
}

#[test]
fn corrupted_data_block_is_reported_with_path_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    write_sample(dir.path(), 3000);
    {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        engine.admin().flush("crash").unwrap();
        engine.admin().major_compact("crash").unwrap();
    }
    let blk = files_with_suffix(dir.path(), ".blk");
    assert_eq!(blk.len(), 1);
    let mut bytes = std::fs::read(&blk[0]).unwrap();
    bytes[100] ^= 0x55; // inside the first data block
    std::fs::write(&blk[0], bytes).unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = engine.table("crash").unwrap();
    let err = t.scan_all(&Scan::new()).unwrap_err();
    match &err {
        Error::Corruption { path, offset, .. } => {
            assert_eq!(path, &blk[0]);
            assert_eq!(*offset, 0);
        }
        other => panic!("expected corruption, got {other}"),
    }
    assert!(err.to_string().contains(".blk"), "{err}");
}

#[test]
fn corrupted_manifest_refuses_to_open() {
    let dir = tempfile::tempdir().unwrap();
    write_sample(dir.path(), 10);
    let m = dir.path().join("MANIFEST");
    let mut bytes = std::fs::read(&m).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    std::fs::write(&m, bytes).unwrap();
    let err = Engine::open(dir.path(), EngineOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Corruption { .. }), "{err}");
}

#[test]
fn second_open_of_a_locked_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let _a = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    assert!(matches!(
        Engine::open(dir.path(), EngineOptions::default()),
        Err(Error::Locked(_))
    ));
}

/// Writes `rows` rows at FSYNC_WAL for at least `for_at_least` (so the log marks its syncs in
/// `wal/SYNCED`), segments rolling every `segment_bytes`, and closes: the rows are in the WAL
/// only. Returns how many rows were written.
fn write_synced_rows(
    dir: &std::path::Path,
    segment_bytes: u64,
    for_at_least: std::time::Duration,
) -> u64 {
    let opts = EngineOptions {
        wal_segment_bytes: segment_bytes,
        ..EngineOptions::default()
    };
    let engine = Engine::open(dir, opts).unwrap();
    engine.admin().create_table(schema()).unwrap();
    let t = engine.table("crash").unwrap();
    let started = std::time::Instant::now();
    let mut i = 0;
    while i < 200 || started.elapsed() < for_at_least {
        t.put(
            Put::new(format!("r{i:06}"))
                .add_column("cf", "q", value(i))
                .durability(ferrobase_engine::Durability::FsyncWal),
        )
        .unwrap();
        i += 1;
    }
    engine.close();
    i
}

/// Issue 39: the newest segment cut to half its synced length loses records acknowledged at
/// FSYNC_WAL. The segment alone reads like a tear; the log's synced marks (`wal/SYNCED`) say
/// those bytes were on disk, so the open refuses naming the file and the offset where it ends,
/// and point-in-time recovery opens with what is left, keeping a copy and a report.
#[test]
fn a_truncated_newest_segment_is_damage_not_a_tear() {
    let dir = tempfile::tempdir().unwrap();
    let rows = write_synced_rows(dir.path(), 64 << 20, std::time::Duration::from_millis(1500));
    let wal = files_with_suffix(dir.path(), ".wal");
    let last = wal.last().unwrap().clone();
    let bytes = std::fs::read(&last).unwrap();
    // The furthest mark of the newest segment (docs/format/wal.md, "Synced marks": 24 bytes
    // each, the segment number at 4..12 and the offset at 12..20); cut half-way to it.
    let number: u64 = last.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    let marks = std::fs::read(dir.path().join("wal/SYNCED")).unwrap();
    let mark = marks
        .chunks_exact(24)
        .filter(|m| u64::from_be_bytes(m[4..12].try_into().unwrap()) == number)
        .map(|m| u64::from_be_bytes(m[12..20].try_into().unwrap()))
        .max()
        .expect("a mark of the newest segment");
    let cut = (mark / 2) as usize;
    std::fs::write(&last, &bytes[..cut]).unwrap();
    let Err(err) = Engine::open(dir.path(), EngineOptions::default()) else {
        panic!("a truncated segment holding synced records must refuse the open");
    };
    match &err {
        Error::Corruption { path, offset, .. } => {
            assert_eq!(path, &last);
            assert!(*offset <= cut as u64, "{offset}");
        }
        other => panic!("expected corruption, got {other}"),
    }
    assert!(err.to_string().contains("truncated"), "{err}");
    let opts = EngineOptions {
        wal_recovery: WalRecovery::PointInTime,
        ..EngineOptions::default()
    };
    let engine = Engine::open(dir.path(), opts).unwrap();
    let left = engine
        .table("crash")
        .unwrap()
        .scan_all(&Scan::new())
        .unwrap()
        .len() as u64;
    assert!(left > 0 && left < rows, "{left} of {rows}");
    engine.close();
    drop(engine);
    let report = std::fs::read_dir(dir.path().join("wal-quarantine"))
        .unwrap()
        .map(|e| e.unwrap().path().join("REPORT.txt"))
        .next()
        .unwrap();
    let report = std::fs::read_to_string(report).unwrap();
    assert!(report.contains("synced it through byte"), "{report}");
    // The marks start afresh: the next strict open works.
    assert!(Engine::open(dir.path(), EngineOptions::default()).is_ok());
}

/// Issue 39: a closed segment cut exactly at a record boundary has no incomplete record at
/// all; its roll marked its whole length, so the open refuses.
#[test]
fn a_closed_segment_cut_at_a_record_boundary_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    write_synced_rows(dir.path(), 4 << 10, std::time::Duration::ZERO);
    let wal = files_with_suffix(dir.path(), ".wal");
    assert!(wal.len() >= 3, "{wal:?}");
    let closed = &wal[wal.len() - 2];
    let bytes = std::fs::read(closed).unwrap();
    // The segment's records (8-byte magic, then each: u32 length, u32 checksum, payload): cut
    // after its first record.
    let len = u32::from_be_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let boundary = 8 + 8 + len;
    assert!(boundary < bytes.len());
    std::fs::write(closed, &bytes[..boundary]).unwrap();
    let Err(err) = Engine::open(dir.path(), EngineOptions::default()) else {
        panic!("a closed segment cut short must refuse the open");
    };
    match &err {
        Error::Corruption { path, offset, .. } => {
            assert_eq!(path, closed);
            assert_eq!(*offset, boundary as u64);
        }
        other => panic!("expected corruption, got {other}"),
    }
}
