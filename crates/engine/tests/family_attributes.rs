//! Each column-family attribute shown to have its effect on storage and reads, and the limits
//! and errors of the API.

mod support;

use ferrobase_engine::clock::ManualClock;
use ferrobase_engine::*;

fn open(dir: &std::path::Path, cache: usize) -> Engine {
    let o = EngineOptions {
        block_cache_bytes: Some(cache),
        compaction: CompactionOptions {
            auto: false,
            ..CompactionOptions::default()
        },
        ..EngineOptions::default()
    };
    Engine::open(dir, o).unwrap()
}

fn create(engine: &Engine, name: &str, cf: ColumnFamilyDescriptor) -> Table {
    engine
        .admin()
        .create_table(TableDescriptor::new(TableName::parse(name).unwrap()).with_family(cf))
        .unwrap();
    engine.table(name).unwrap()
}

fn fill(t: &Table, family: &str, rows: u64) {
    let puts = (0..rows)
        .map(|i| {
            Put::new(format!("user{:08}", i * 2)).add_column(
                family,
                "q",
                format!("value number {i} of some text {}", i % 17),
            )
        })
        .collect();
    t.put_all(puts).unwrap();
}

fn blocks_touched(e: &Engine) -> u64 {
    Metrics::get(&e.metrics().data_blocks_read) + Metrics::get(&e.metrics().block_cache_hits)
}

#[test]
fn bloom_row_lets_absent_gets_read_no_block() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let with = create(&e, "with", ColumnFamilyDescriptor::new("cf"));
    let mut none = ColumnFamilyDescriptor::new("cf");
    none.bloom_filter = BloomType::None;
    let without = create(&e, "without", none);
    for t in [&with, &without] {
        fill(t, "cf", 5000);
    }
    e.admin().flush("with").unwrap();
    e.admin().flush("without").unwrap();
    let before = blocks_touched(&e);
    for i in 0..200 {
        // Odd numbers were never written but fall inside the file's key range.
        assert!(with
            .get(&Get::new(format!("user{:08}", i * 2 + 1)))
            .unwrap()
            .is_empty());
    }
    let with_bloom = blocks_touched(&e) - before;
    let before = blocks_touched(&e);
    for i in 0..200 {
        assert!(without
            .get(&Get::new(format!("user{:08}", i * 2 + 1)))
            .unwrap()
            .is_empty());
    }
    let without_bloom = blocks_touched(&e) - before;
    assert!(
        with_bloom <= 6,
        "bloom on: {with_bloom} blocks for 200 absent gets"
    );
    assert!(
        without_bloom >= 200,
        "bloom off: only {without_bloom} blocks"
    );
    assert!(Metrics::get(&e.metrics().bloom_negatives) >= 194);
}

#[test]
fn bloom_rowcol_skips_files_without_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.bloom_filter = BloomType::RowCol;
    let t = create(&e, "t", cf);
    t.put_all(
        (0..1000)
            .map(|i| Put::new(format!("r{i:05}")).add_column("cf", "a", "x"))
            .collect(),
    )
    .unwrap();
    e.admin().flush("t").unwrap();
    let before = blocks_touched(&e);
    for i in 0..100 {
        assert!(t
            .get(&Get::new(format!("r{i:05}")).add_column("cf", "b"))
            .unwrap()
            .is_empty());
    }
    let touched = blocks_touched(&e) - before;
    assert!(touched <= 5, "{touched} blocks touched");
    assert_eq!(
        t.get(&Get::new("r00007").add_column("cf", "a"))
            .unwrap()
            .value(b"cf", b"a"),
        Some(&b"x"[..])
    );
}

#[test]
fn compressed_and_prefix_encoded_files_are_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let mut sizes = Vec::new();
    for (i, codec) in ["NONE", "GZ", "SNAPPY", "LZ4", "ZSTD"].iter().enumerate() {
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.set_attribute("COMPRESSION", codec).unwrap();
        let name = format!("c{i}");
        let t = create(&e, &name, cf);
        fill(&t, "cf", 5000);
        e.admin().flush(&name).unwrap();
        let bytes: u64 = e
            .admin()
            .regions(&name)
            .unwrap()
            .iter()
            .map(|r| r.file_bytes)
            .sum();
        sizes.push(bytes);
        assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 5000);
    }
    for (i, s) in sizes.iter().enumerate().skip(1) {
        assert!(
            *s < sizes[0] * 7 / 10,
            "codec {i}: {s} bytes vs {} uncompressed",
            sizes[0]
        );
    }
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.data_block_encoding = DataBlockEncoding::Prefix;
    let t = create(&e, "prefix", cf);
    fill(&t, "cf", 5000);
    e.admin().flush("prefix").unwrap();
    let prefix: u64 = e
        .admin()
        .regions("prefix")
        .unwrap()
        .iter()
        .map(|r| r.file_bytes)
        .sum();
    assert!(prefix < sizes[0], "PREFIX {prefix} vs NONE {}", sizes[0]);
    assert_eq!(t.get(&Get::new("user00000042")).unwrap().cells.len(), 1);
}

#[test]
fn ttl_cells_vanish_on_read_and_from_files_after_major_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(1_000_000_000);
    let o = EngineOptions {
        clock: clock.clone(),
        ..EngineOptions::default()
    };
    let e = Engine::open(dir.path(), o).unwrap();
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.set_attribute("TTL", "18000").unwrap();
    let t = create(&e, "t", cf);
    fill(&t, "cf", 100);
    e.admin().flush("t").unwrap();
    let before: u64 = e
        .admin()
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.file_bytes)
        .sum();
    assert!(before > 0);
    clock.advance(18_000 * 1000 + 1);
    assert!(t.scan_all(&Scan::new()).unwrap().is_empty());
    assert!(t.scan_all(&Scan::new().raw(true)).unwrap().is_empty());
    e.admin().flush("t").unwrap();
    e.admin().major_compact("t").unwrap();
    let after: u64 = e
        .admin()
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.file_bytes)
        .sum();
    // What stays is the compaction's empty file (its trailer and metadata): HBase too commits a
    // compaction's file whatever it holds, and it counts toward the next minor compaction.
    assert!(
        after < 512 && after < before,
        "expired cells still in files: {after} bytes"
    );
}

#[test]
fn blockcache_false_leaves_the_cache_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.block_cache = false;
    let t = create(&e, "t", cf);
    fill(&t, "cf", 3000);
    e.admin().flush("t").unwrap();
    let read_before = Metrics::get(&e.metrics().data_blocks_read);
    for _ in 0..3 {
        assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 3000);
    }
    assert_eq!(e.block_cache().len(), 0);
    let read = Metrics::get(&e.metrics().data_blocks_read) - read_before;
    let cached = create(&e, "cached", ColumnFamilyDescriptor::new("cf"));
    fill(&cached, "cf", 3000);
    e.admin().flush("cached").unwrap();
    for _ in 0..3 {
        cached.scan_all(&Scan::new()).unwrap();
    }
    assert!(!e.block_cache().is_empty());
    assert!(
        read >= 3 * 2,
        "every scan read its blocks from the file: {read}"
    );
}

#[test]
fn in_memory_blocks_survive_a_flood_of_ordinary_ones() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 2 << 20);
    let mut hot = ColumnFamilyDescriptor::new("cf");
    hot.in_memory = true;
    hot.block_size = 4096;
    let h = create(&e, "hot", hot);
    fill(&h, "cf", 2000);
    let mut cold = ColumnFamilyDescriptor::new("cf");
    cold.block_size = 4096;
    let c = create(&e, "cold", cold);
    fill(&c, "cf", 60_000);
    e.admin().flush("hot").unwrap();
    e.admin().flush("cold").unwrap();
    h.scan_all(&Scan::new()).unwrap();
    for _ in 0..2 {
        c.scan_all(&Scan::new()).unwrap();
    }
    let read_before = Metrics::get(&e.metrics().data_blocks_read);
    h.scan_all(&Scan::new()).unwrap();
    assert_eq!(
        Metrics::get(&e.metrics().data_blocks_read),
        read_before,
        "IN_MEMORY blocks were evicted"
    );
}

#[test]
fn smaller_blocksize_means_more_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let mut counts = Vec::new();
    for (name, size) in [("small", "4096"), ("large", "65536")] {
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.set_attribute("BLOCKSIZE", size).unwrap();
        cf.block_cache = false;
        let t = create(&e, name, cf);
        fill(&t, "cf", 10_000);
        e.admin().flush(name).unwrap();
        let before = Metrics::get(&e.metrics().data_blocks_read);
        t.scan_all(&Scan::new()).unwrap();
        counts.push(Metrics::get(&e.metrics().data_blocks_read) - before);
    }
    assert!(counts[0] > counts[1] * 8, "{counts:?}");
}

#[test]
fn versions_apply_on_read_before_compaction_and_alter_is_online() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let t = create(&e, "t", ColumnFamilyDescriptor::new("cf"));
    for ts in 1..=5 {
        t.put(Put::new("r").add_column_ts("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    assert_eq!(
        t.get(&Get::new("r").max_versions(10)).unwrap().cells.len(),
        1
    );
    // Older versions are still stored until a major compaction: raising VERSIONS shows them.
    let mut cf = e.admin().describe("t").unwrap().families[0].clone();
    cf.max_versions = 3;
    e.admin().modify_family("t", cf.clone()).unwrap();
    assert_eq!(
        t.get(&Get::new("r").max_versions(10)).unwrap().cells.len(),
        3
    );
    e.admin().flush("t").unwrap();
    e.admin().major_compact("t").unwrap();
    cf.max_versions = 10;
    e.admin().modify_family("t", cf).unwrap();
    assert_eq!(
        t.get(&Get::new("r").max_versions(10)).unwrap().cells.len(),
        3
    );
    // A time range reaches versions hidden by newer ones.
    let g = t
        .get(&Get::new("r").time_range(TimeRange::new(0, 4).unwrap()))
        .unwrap();
    assert_eq!(g.cells[0].timestamp(), 3);
    e.admin()
        .add_family("t", ColumnFamilyDescriptor::new("extra"))
        .unwrap();
    t.put(Put::new("r").add_column("extra", "x", "1")).unwrap();
    e.admin().delete_family("t", b"extra").unwrap();
    assert!(matches!(
        t.put(Put::new("r").add_column("extra", "x", "1")),
        Err(Error::NoSuchColumnFamily { .. })
    ));
    drop(t);
    drop(e);
    let e = open(dir.path(), 64 << 20);
    assert_eq!(
        e.admin().describe("t").unwrap().families[0].max_versions,
        10
    );
    assert_eq!(e.admin().describe("t").unwrap().families.len(), 1);
}

#[test]
fn keep_deleted_cells_stay_readable_before_the_marker() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.keep_deleted_cells = KeepDeletedCells::True;
    cf.max_versions = 3;
    let t = create(&e, "t", cf);
    t.put(Put::new("r").add_column_ts("cf", "q", 10, "old"))
        .unwrap();
    t.delete(Delete::new("r").add_columns_ts("cf", "q", 20))
        .unwrap();
    assert!(t.get(&Get::new("r")).unwrap().is_empty());
    let before_marker = Get::new("r").time_range(TimeRange::new(0, 20).unwrap());
    assert_eq!(
        t.get(&before_marker).unwrap().value(b"cf", b"q"),
        Some(&b"old"[..])
    );
    e.admin().flush("t").unwrap();
    e.admin().major_compact("t").unwrap();
    assert_eq!(
        t.get(&before_marker).unwrap().value(b"cf", b"q"),
        Some(&b"old"[..])
    );
    assert!(t.get(&Get::new("r")).unwrap().is_empty());
}

#[test]
fn limits_and_unknown_names_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 1 << 20);
    let t = create(&e, "t", ColumnFamilyDescriptor::new("cf"));
    let long_row = vec![b'r'; 32768];
    assert!(matches!(
        t.put(Put::new(long_row).add_column("cf", "q", "v")),
        Err(Error::TooLarge {
            what: "row key",
            ..
        })
    ));
    let big = vec![0u8; 10 * 1024 * 1024 + 1];
    let err = t.put(Put::new("r").add_column("cf", "q", big)).unwrap_err();
    assert!(matches!(err, Error::TooLarge { what: "cell", .. }), "{err}");
    assert!(err.to_string().contains("10485760"), "{err}");
    assert!(matches!(
        t.put(Put::new("r").add_column("nope", "q", "v")),
        Err(Error::NoSuchColumnFamily { .. })
    ));
    assert!(matches!(
        t.get(&Get::new("r").add_family("nope")),
        Err(Error::NoSuchColumnFamily { .. })
    ));
    assert!(matches!(
        e.table("missing").unwrap().get(&Get::new("r")),
        Err(Error::TableNotFound(_))
    ));
    assert!(matches!(
        e.table("bad name!"),
        Err(Error::IllegalArgument(_))
    ));
    t.put(Put::new("r").add_column("cf", "q", "v")).unwrap();
    assert!(matches!(
        e.admin().delete_table("t"),
        Err(Error::TableNotDisabled(_))
    ));
    e.admin().disable("t").unwrap();
    assert!(matches!(
        t.put(Put::new("r").add_column("cf", "q", "v")),
        Err(Error::TableDisabled(_))
    ));
    assert!(matches!(
        t.scanner(&Scan::new()),
        Err(Error::TableDisabled(_))
    ));
    e.admin().enable("t").unwrap();
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"cf", b"q"),
        Some(&b"v"[..])
    );
    assert!(matches!(
        e.admin().create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf"))
        ),
        Err(Error::TableExists(_))
    ));
    e.admin().disable("t").unwrap();
    e.admin().truncate("t", false).unwrap();
    assert!(t.get(&Get::new("r")).unwrap().is_empty());
    e.admin().disable("t").unwrap();
    e.admin().delete_table("t").unwrap();
    assert!(!e.admin().table_exists("t").unwrap());
}

#[test]
fn pre_split_tables_route_rows_and_split_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 1 << 20);
    e.admin().create_namespace("ns").unwrap();
    let desc = TableDescriptor::new(TableName::parse("ns:hex").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    e.admin()
        .create_table_pre_split(desc, 4, SplitAlgorithm::HexStringSplit)
        .unwrap();
    let regions = e.admin().regions("ns:hex").unwrap();
    let starts: Vec<String> = regions
        .iter()
        .map(|r| String::from_utf8_lossy(&r.start).into_owned())
        .collect();
    assert_eq!(starts, ["", "3fffffff", "7ffffffe", "bffffffd"]);
    let t = e.table("ns:hex").unwrap();
    t.put_all(
        (0..4000u32)
            .map(|i| {
                Put::new(format!("{:08x}", i.wrapping_mul(2_654_435_761)))
                    .add_column("cf", "q", "v")
            })
            .collect(),
    )
    .unwrap();
    e.admin().flush("ns:hex").unwrap();
    assert!(e
        .admin()
        .regions("ns:hex")
        .unwrap()
        .iter()
        .all(|r| r.file_bytes > 0));
    e.admin().split("ns:hex", None).unwrap();
    assert_eq!(e.admin().regions("ns:hex").unwrap().len(), 8);
    assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 4000);
    assert_eq!(t.scan_all(&Scan::new().reversed(true)).unwrap().len(), 4000);
    let uniform = SplitAlgorithm::UniformSplit.split_keys(4).unwrap();
    assert_eq!(uniform[0], vec![0x40, 0, 0, 0, 0, 0, 0, 0]);
}

/// A SNAPPY block whose payload header declares more than the block's recorded raw length
/// (4 GiB - 1 here, as AddressSanitizer runs of the disk_decoders target found) is a corruption
/// error naming the file and the block, found from the header before any buffer of the
/// declared size is allocated.
#[test]
fn a_snappy_block_declaring_4_gib_is_corruption_not_an_allocation() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = open(dir.path(), 0);
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.set_attribute("COMPRESSION", "SNAPPY").unwrap();
        let t = create(&e, "snappy", cf);
        fill(&t, "cf", 2000);
        e.admin().flush("snappy").unwrap();
    }
    let blk = support::files::files_with_suffix(dir.path(), ".blk");
    assert_eq!(blk.len(), 1);
    let mut bytes = std::fs::read(&blk[0]).unwrap();
    assert_eq!(bytes[0], 2, "the first data block is SNAPPY");
    // The frame is codec, raw_len, payload, masked CRC: find the payload's end by its CRC.
    let n = (1..bytes.len() - 9)
        .find(|&n| {
            let crc = u32::from_be_bytes(bytes[5 + n..9 + n].try_into().unwrap());
            ferrobase_engine::fuzzing::masked_crc(&bytes[..5 + n]) == crc
        })
        .expect("the first block's frame");
    // Same length, header now declaring u32::MAX bytes, CRC recomputed so only the header is
    // wrong.
    bytes[5..10].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    let crc = ferrobase_engine::fuzzing::masked_crc(&bytes[..5 + n]);
    bytes[5 + n..9 + n].copy_from_slice(&crc.to_be_bytes());
    std::fs::write(&blk[0], &bytes).unwrap();
    let e = open(dir.path(), 0);
    let err = e
        .table("snappy")
        .unwrap()
        .scan_all(&Scan::new())
        .unwrap_err();
    match &err {
        Error::Corruption { path, offset, .. } => {
            assert_eq!(path, &blk[0]);
            assert_eq!(*offset, 0);
        }
        other => panic!("expected corruption, got {other}"),
    }
    assert!(
        err.to_string().contains("declares 4294967295 bytes"),
        "{err}"
    );
}

#[test]
fn block_bytes_touched_count_every_block_read_or_hit_once() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), 64 << 20);
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.block_size = 4096;
    let t = create(&e, "t", cf);
    fill(&t, "cf", 3000);
    e.admin().flush("t").unwrap();
    let bytes = || Metrics::get(&e.metrics().data_block_bytes_touched);
    // A full scan touches every data block: cold from the file, then warm from the cache.
    let mut per_scan = Vec::new();
    for _ in 0..2 {
        let (b0, n0) = (bytes(), blocks_touched(&e));
        assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 3000);
        let (b, n) = (bytes() - b0, blocks_touched(&e) - n0);
        assert!(n > 10, "{n} blocks");
        // Every block holds about the block size (closed near it; the last one may be shorter).
        assert!(b > n * 2048 && b < n * 8192, "{b} bytes in {n} blocks");
        per_scan.push(b);
    }
    assert_eq!(
        per_scan[0], per_scan[1],
        "a cache hit counts its block's bytes"
    );
    // A get touches one block.
    let b0 = bytes();
    assert!(!t.get(&Get::new("user00000100")).unwrap().is_empty());
    assert!((1..=8192).contains(&(bytes() - b0)));
}
