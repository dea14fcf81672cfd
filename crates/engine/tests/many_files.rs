//! Many regions and files under a small handle cache (`EngineOptions::max_open_files`): files
//! open lazily, the least recently read close, reads reopen them transparently (through the
//! engine's file system, the fault one included), and flushes, compactions, splits and restarts
//! work on with far more files than descriptors kept open.

use ferrobase_engine::fs::fault::{Fault, FaultFileSystem, OpKind};
use ferrobase_engine::fs::FileSystem;
use ferrobase_engine::*;
use std::path::Path;
use std::sync::Arc;

const TABLES: usize = 3;
const REGIONS: usize = 12;
const CAPACITY: usize = 8;

fn options(fs: Arc<dyn FileSystem>) -> EngineOptions {
    EngineOptions {
        fs,
        max_open_files: Some(CAPACITY),
        auto_split: false,
        ..EngineOptions::default()
    }
}

fn row(region: usize, i: usize) -> String {
    // HexStringSplit cuts the space of 8 hex digits evenly; one row per region slice.
    let step = (u32::MAX as u64 + 1) / REGIONS as u64;
    format!("{:08x}-{i}", region as u64 * step + 7)
}

/// Three tables of `REGIONS` regions, each region with three files of its family.
fn fill(engine: &Engine) {
    for t in 0..TABLES {
        let name = format!("t{t}");
        engine
            .admin()
            .create_table_pre_split(
                TableDescriptor::new(TableName::parse(&name).unwrap())
                    .with_family(ColumnFamilyDescriptor::new("cf")),
                REGIONS,
                SplitAlgorithm::HexStringSplit,
            )
            .unwrap();
        let table = engine.table(&name).unwrap();
        for i in 0..3 {
            for r in 0..REGIONS {
                table
                    .put(Put::new(row(r, i)).add_column("cf", "q", format!("{name} {r} {i}")))
                    .unwrap();
                if i == 0 {
                    // A delete marker (of a row never written) in every store: a major compaction
                    // then merges all its files (with sorted runs on, files that share no row and
                    // hold nothing to drop would stay as they are: docs/design/compaction.md).
                    table.delete(Delete::new(row(r, 9))).unwrap();
                }
            }
            engine.admin().flush(&name).unwrap();
        }
    }
}

fn check_all(engine: &Engine, what: &str) {
    for t in 0..TABLES {
        let name = format!("t{t}");
        let table = engine.table(&name).unwrap();
        for r in 0..REGIONS {
            for i in 0..3 {
                let got = table.get(&Get::new(row(r, i))).unwrap();
                assert_eq!(
                    got.cells.first().map(|c| c.value().to_vec()),
                    Some(format!("{name} {r} {i}").into_bytes()),
                    "{what}: {name} row {}",
                    row(r, i)
                );
            }
        }
        let scanned = table.scanner(&Scan::new()).unwrap().count();
        assert_eq!(scanned, REGIONS * 3, "{what}: scan of {name}");
    }
}

/// Block files open under `dir`: the handle cache's, and up to one more per running
/// background job (the file it writes).
fn open_descriptors_under(dir: &Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|p| p.starts_with(dir) && p.extension().is_some_and(|e| e == "blk"))
        .count()
}

#[test]
fn far_more_files_than_the_handle_cache_holds_stay_readable_through_flush_compaction_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), options(fs::os())).unwrap();
    fill(&engine);
    let files = TABLES * REGIONS * 3;
    assert_eq!(engine.file_handles().capacity(), CAPACITY);
    check_all(&engine, "after the loads");
    assert!(engine.file_handles().open_count() <= CAPACITY);
    assert!(
        open_descriptors_under(dir.path()) <= CAPACITY + 2,
        "{} block files open",
        open_descriptors_under(dir.path())
    );
    assert!(engine.file_handles().closes() > 0);
    // Compactions of every region at once, while the files they read come and go.
    for t in 0..TABLES {
        engine.admin().major_compact(&format!("t{t}")).unwrap();
    }
    check_all(&engine, "after the compactions");
    assert!(open_descriptors_under(dir.path()) <= CAPACITY + 2);
    // The compacted inputs are gone once no read holds them.
    let blk = walk(dir.path());
    assert_eq!(
        blk,
        TABLES * REGIONS,
        "{files} files compacted into one per region"
    );
    drop(engine);
    let engine = Engine::open(dir.path(), options(fs::os())).unwrap();
    assert!(engine.file_handles().open_count() <= CAPACITY);
    check_all(&engine, "after the restart");
    // Writes and a split go on.
    let t0 = engine.table("t0").unwrap();
    t0.put(Put::new(row(0, 9)).add_column("cf", "q", "late"))
        .unwrap();
    engine.admin().flush("t0").unwrap();
    let parent = engine.admin().regions("t0").unwrap()[0].id;
    let parent_dir = dir.path().join("data").join(parent.to_string());
    assert!(parent_dir.exists());
    engine
        .admin()
        .split("t0", Some(row(0, 5).as_bytes()))
        .unwrap();
    // Once no read holds the parent's files, its directory goes.
    assert!(!parent_dir.exists(), "{} left behind", parent_dir.display());
    assert_eq!(
        t0.get(&Get::new(row(0, 9))).unwrap().cells[0].value(),
        b"late"
    );
    assert!(open_descriptors_under(dir.path()) <= CAPACITY + 2);
}

/// A scan that holds a file closed by the handle cache, and removed by a compaction meanwhile,
/// reads it on: the file stays until the scan lets it go.
#[test]
fn a_scan_outlives_the_compaction_of_a_closed_file() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), options(fs::os())).unwrap();
    fill(&engine);
    let table = engine.table("t0").unwrap();
    let mut scan = table.scanner(&Scan::new().caching(1)).unwrap();
    let first = scan.next().unwrap().unwrap();
    assert_eq!(first.cells[0].value(), b"t0 0 0");
    engine.admin().major_compact("t0").unwrap();
    // Reading the other tables closes every file the scan had open.
    check_all(&engine, "while the scan waits");
    assert_eq!(scan.count(), REGIONS * 3 - 1);
}

/// With the fault file system: a reopen that fails is the read's error, names the file, and the
/// next read reopens it.
#[test]
fn a_failed_reopen_fails_one_read_and_the_next_one_succeeds() {
    let fs = Arc::new(FaultFileSystem::new());
    let mut opts = options(fs.clone());
    // Every read goes to the files, and no background compaction takes the fault.
    opts.block_cache_bytes = Some(0);
    opts.compaction.auto = false;
    let engine = Engine::open(Path::new("/data"), opts).unwrap();
    fill(&engine);
    check_all(&engine, "in memory");
    let opens = engine.file_handles().opens();
    fs.inject(Fault {
        kind: OpKind::Open,
        path_contains: ".blk".into(),
        nth: 1,
        errno: libc_eio(),
    });
    // t0's files were closed by the reads of t1 and t2: the first get reopens one.
    let table = engine.table("t0").unwrap();
    let err = table.get(&Get::new(row(0, 0))).unwrap_err();
    assert!(err.to_string().contains(".blk"), "{err}");
    check_all(&engine, "after the failed reopen");
    assert!(engine.file_handles().opens() > opens);
}

fn libc_eio() -> i32 {
    5
}

fn walk(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            n += walk(&p);
        } else if p.extension().is_some_and(|e| e == "blk") {
            n += 1;
        }
    }
    n
}

/// With `warm_file_sections`, a reopened engine reads every file's index and bloom filter in
/// the background: a get of an absent row then reads nothing from disk (its file's bloom filter
/// already answers), where a cold engine reads the bloom filter on the get.
#[test]
fn warming_reads_indexes_and_blooms_after_the_open_and_a_get_then_reads_nothing() {
    let fs = FaultFileSystem::new();
    let opts = |warm: bool| EngineOptions {
        warm_file_sections: warm,
        ..options(Arc::new(fs.clone()))
    };
    let reads = || fs.op_counts().get(&OpKind::Read).copied().unwrap_or(0);
    {
        let engine = Engine::open("/db", opts(false)).unwrap();
        fill(&engine);
    }
    // Reads an open makes (each file's trailer and meta, the WAL): a cold open's count.
    let mut open_reads = 0;
    for warm in [false, true] {
        let at_open = reads();
        let engine = Engine::open("/db", opts(warm)).unwrap();
        let files: u64 = (0..TABLES)
            .flat_map(|t| engine.admin().regions(&format!("t{t}")).unwrap())
            .map(|r| r.file_count as u64)
            .sum();
        let table = engine.table("t0").unwrap();
        if warm {
            // An index and a bloom section a file, beyond what the open reads.
            let start = std::time::Instant::now();
            while reads() < at_open + open_reads + 2 * files {
                assert!(
                    start.elapsed().as_secs() < 20,
                    "the warmer read {}",
                    reads()
                );
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        } else {
            open_reads = reads() - at_open;
        }
        // Between two rows of region 3: inside its file's rows, so the bloom filter decides.
        let absent = format!("{}x", row(3, 1));
        let before = reads();
        assert!(table.get(&Get::new(absent)).unwrap().is_empty());
        let read = reads() - before;
        if warm {
            assert_eq!(read, 0, "a warmed engine read {read} times");
        } else {
            assert!(read > 0, "a cold engine reads the bloom filter");
        }
        engine.close();
    }
}
