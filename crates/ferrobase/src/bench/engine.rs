//! The engine benchmark: prints one table of throughput, latency and size figures for the
//! workloads of the seed articles. Not a test: it asserts nothing about time.

use super::{print_table, Rng, Row};
use anyhow::{bail, Result};
use ferrobase_engine::*;
use std::time::{Duration, Instant};

fn family(bloom: BloomType) -> ColumnFamilyDescriptor {
    let mut cf = ColumnFamilyDescriptor::new("cf");
    cf.bloom_filter = bloom;
    cf.compression = Compression::Lz4;
    cf
}

fn create(engine: &Engine, name: &str, bloom: BloomType) -> Result<Table> {
    engine
        .admin()
        .create_table(TableDescriptor::new(TableName::parse(name)?).with_family(family(bloom)))?;
    Ok(engine.table(name)?)
}

fn key(i: u64) -> Vec<u8> {
    format!("user{:012}", i).into_bytes()
}

fn load(
    t: &Table,
    n: u64,
    value_len: usize,
    random: bool,
    batch: usize,
) -> Result<(Duration, Vec<Duration>)> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // Text-like values: 16 symbols, so codecs get about 2:1, as on real data.
    let mut vr = Rng(0x9e37_79b9);
    let values: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            (0..value_len)
                .map(|_| b"abcdefghijklmnop"[(vr.next() % 16) as usize])
                .collect()
        })
        .collect();
    let mut lat = Vec::new();
    let start = Instant::now();
    let mut i = 0;
    while i < n {
        let mut puts = Vec::with_capacity(batch);
        for _ in 0..batch.min((n - i) as usize) {
            let k = if random { rng.next() % (n * 4) } else { i };
            puts.push(Put::new(key(k)).add_column("cf", "q", values[(i % 64) as usize].clone()));
            i += 1;
        }
        let t0 = Instant::now();
        t.put_all(puts)?;
        lat.push(t0.elapsed());
    }
    Ok((start.elapsed(), lat))
}

fn gets(t: &Table, keys: &[Vec<u8>], expect_found: bool) -> Result<(Duration, Vec<Duration>)> {
    let mut lat = Vec::with_capacity(keys.len());
    let start = Instant::now();
    for k in keys {
        let t0 = Instant::now();
        let r = t.get(&Get::new(k.clone()))?;
        lat.push(t0.elapsed());
        if r.is_empty() == expect_found {
            bail!(
                "get of {:?} returned the wrong presence",
                String::from_utf8_lossy(k)
            );
        }
    }
    Ok((start.elapsed(), lat))
}

/// `ferrobase bench engine`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Cells written by the write workloads.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    cells: u64,
    /// Where the scratch data directory goes.
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: std::path::PathBuf,
    /// The key-range heat map's recording on or off, to measure its cost.
    #[arg(long, value_name = "on|off", value_parser = ["on", "off"], default_value = "on")]
    heat_map: String,
}

pub fn main(args: Args) -> Result<()> {
    let (cells, dir, heat_map) = (args.cells, Some(args.dir), args.heat_map == "on");
    let tmp = tempfile::tempdir_in(dir.as_deref().unwrap_or(std::path::Path::new(".")))?;
    let mut opts = EngineOptions::default();
    opts.heat_map.enabled = heat_map;
    let engine = Engine::open(tmp.path(), opts)?;
    println!(
        "ferrobase engine benchmark: {cells} cells, 1 thread, SYNC_WAL (write(2), no fsync), LZ4, block cache 256 MiB, heat map {}",
        if heat_map { "on" } else { "off" }
    );
    let mut rows = Vec::new();

    // 1. Loads.
    for (name, value_len, random, batch) in [
        ("seq_100B", 100usize, false, 1000usize),
        ("rand_100B", 100, true, 1000),
        ("seq_1KiB", 1024, false, 1000),
        ("rand_1KiB", 1024, true, 1000),
        ("seq_100B_single_puts", 100, false, 1),
    ] {
        let n = if batch == 1 {
            (cells / 10).max(1)
        } else {
            cells
        };
        let t = create(&engine, name, BloomType::Row)?;
        let (el, lat) = load(&t, n, value_len, random, batch)?;
        engine.admin().flush(name)?;
        let disk: u64 = engine
            .admin()
            .regions(name)?
            .iter()
            .map(|r| r.file_bytes)
            .sum();
        rows.push(Row {
            workload: format!("load {name} (batch {batch})"),
            ops: n as usize,
            elapsed: el,
            latencies: if batch == 1 { lat } else { Vec::new() },
            note: format!("{:.1} MiB on disk", disk as f64 / (1 << 20) as f64),
        });
    }

    // 2. Point gets on the sequential 100 B table, bloom on; absent keys with bloom on and off.
    let t = engine.table("seq_100B")?;
    engine.admin().flush("seq_100B")?;
    engine.admin().major_compact("seq_100B")?;
    let mut rng = Rng(7);
    let n_gets = (cells / 10).clamp(1, 100_000);
    let present: Vec<Vec<u8>> = (0..n_gets).map(|_| key(rng.next() % cells)).collect();
    let absent: Vec<Vec<u8>> = (0..n_gets)
        .map(|_| {
            let mut k = key(rng.next() % cells);
            k.push(b'x');
            k
        })
        .collect();
    let (el, lat) = gets(&t, &present, true)?;
    rows.push(Row {
        workload: "get present (bloom ROW)".into(),
        ops: present.len(),
        elapsed: el,
        latencies: lat,
        note: String::new(),
    });
    let before = Metrics::get(&engine.metrics().data_blocks_read)
        + Metrics::get(&engine.metrics().block_cache_hits);
    let (el, lat) = gets(&t, &absent, false)?;
    let blocks = Metrics::get(&engine.metrics().data_blocks_read)
        + Metrics::get(&engine.metrics().block_cache_hits)
        - before;
    rows.push(Row {
        workload: "get absent (bloom ROW)".into(),
        ops: absent.len(),
        elapsed: el,
        latencies: lat,
        note: format!("{blocks} blocks touched"),
    });
    let nb = create(&engine, "nobloom", BloomType::None)?;
    load(&nb, cells, 100, false, 1000)?;
    engine.admin().flush("nobloom")?;
    engine.admin().major_compact("nobloom")?;
    let before = Metrics::get(&engine.metrics().data_blocks_read)
        + Metrics::get(&engine.metrics().block_cache_hits);
    let (el, lat) = gets(&nb, &absent, false)?;
    let blocks = Metrics::get(&engine.metrics().data_blocks_read)
        + Metrics::get(&engine.metrics().block_cache_hits)
        - before;
    rows.push(Row {
        workload: "get absent (bloom NONE)".into(),
        ops: absent.len(),
        elapsed: el,
        latencies: lat,
        note: format!("{blocks} blocks touched"),
    });
    engine.admin().disable("nobloom")?;
    engine.admin().delete_table("nobloom")?;

    // 3. Tall-narrow: uid + (Long.MAX_VALUE - ts); the newest 100 records of a user.
    let users = (cells / 1000).max(1);
    let tn = create(&engine, "tall_narrow", BloomType::Row)?;
    let mut puts = Vec::new();
    for u in 0..users {
        for j in 0..1000u64 {
            let ts = 1_600_000_000_000i64 + j as i64 * 1000;
            let mut row = format!("{u:08}").into_bytes();
            row.extend_from_slice(&(i64::MAX - ts).to_be_bytes());
            puts.push(Put::new(row).add_column("cf", "", format!("item-{j}")));
            if puts.len() == 1000 {
                tn.put_all(std::mem::take(&mut puts))?;
            }
        }
    }
    tn.put_all(puts)?;
    engine.admin().flush("tall_narrow")?;
    engine.admin().major_compact("tall_narrow")?;
    let n_scans = (cells / 1000).clamp(1, 5_000) as usize;
    let mut lat = Vec::new();
    let start = Instant::now();
    for i in 0..n_scans {
        let u = (i as u64 * 7919) % users;
        let t0 = Instant::now();
        let mut s = tn.scanner(
            &Scan::new()
                .with_row_prefix(format!("{u:08}"))
                .caching(100)
                .limit(100),
        )?;
        let got = s.next_batch(100)?;
        lat.push(t0.elapsed());
        if got.len() != 100 {
            bail!("tall-narrow scan returned {} rows", got.len());
        }
    }
    rows.push(Row {
        workload: "scan newest 100 of a user (tall-narrow)".into(),
        ops: n_scans,
        elapsed: start.elapsed(),
        latencies: lat,
        note: "uid + reversed ts".into(),
    });

    // 4. Wide row: rowkey uid, qualifier Long.MAX_VALUE - ts; the newest 100 columns.
    let wide = create(&engine, "wide", BloomType::Row)?;
    for u in 0..users.min(200) {
        let mut p = Put::new(format!("{u:08}"));
        for j in 0..1000u64 {
            let ts = 1_600_000_000_000i64 + j as i64 * 1000;
            p = p.add_column(
                "cf",
                (i64::MAX - ts).to_be_bytes().to_vec(),
                format!("item-{j}"),
            );
        }
        wide.put(p)?;
    }
    engine.admin().flush("wide")?;
    engine.admin().major_compact("wide")?;
    let mut lat = Vec::new();
    let start = Instant::now();
    for i in 0..n_scans {
        let u = (i as u64 * 7919) % users.min(200);
        let t0 = Instant::now();
        let g = Get::new(format!("{u:08}")).filter(Box::new(
            ferrobase_engine::filter::ColumnCountGetFilter::new(100),
        ));
        let first = wide.get(&g)?;
        lat.push(t0.elapsed());
        if first.cells.len() != 100 {
            bail!("wide-row read returned {} cells", first.cells.len());
        }
    }
    rows.push(Row {
        workload: "newest 100 columns of a wide row".into(),
        ops: n_scans,
        elapsed: start.elapsed(),
        latencies: lat,
        note: "ColumnCountGetFilter(100)".into(),
    });

    print_table(&mut rows);
    let m = engine.metrics();
    println!(
        "\nblock cache: {} hits, {} misses; {} data blocks read from files; {} flushes, {} compactions",
        Metrics::get(&m.block_cache_hits),
        Metrics::get(&m.block_cache_misses),
        Metrics::get(&m.data_blocks_read),
        Metrics::get(&m.flushes),
        Metrics::get(&m.compactions)
    );
    println!(
        "disk bytes in all: {:.1} MiB",
        engine.disk_bytes() as f64 / (1 << 20) as f64
    );
    engine.close();
    Ok(())
}
