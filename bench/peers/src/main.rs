//! ferrobase's engine beside fjall (and RocksDB with `--features rocksdb`): the same cells, the
//! same deterministic stream, the same run, engines alternated, three repetitions, medians with
//! min–max. Prints one table. Usage:
//!
//! ```text
//! cargo run --release --manifest-path bench/peers/Cargo.toml -- [--cells N] [--reps R]
//! ```
//!
//! Every engine stores cells of (row, family "cf", qualifier, timestamp, 1 KiB value). The
//! key-value peers store key = row + "cf" + qualifier + (u64::MAX - timestamp), so a prefix
//! seek finds a column's newest version first, as ferrobase's cell order does. Settings: LZ4,
//! 64 KiB blocks, 256 MiB block cache, bloom filters on, WAL/journal written without fsync.

use anyhow::Result;
use std::time::Instant;

/// One cell of the stream.
struct CellIn {
    row: Vec<u8>,
    qualifier: Vec<u8>,
    ts: i64,
    value: Vec<u8>,
}

trait Store {
    fn write(&mut self, cells: &[CellIn]) -> Result<()>;
    /// The newest version of (row, qualifier): present or not.
    fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool>;
    /// The first `n` rows (tall-narrow: one cell each) under `prefix`.
    fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize>;
    /// Up to `n` rows (tall-narrow: one cell each) from `start` on.
    fn scan_from(&self, start: &[u8], n: usize) -> Result<usize>;
    /// The first `n` columns of a wide row.
    fn wide(&self, row: &[u8], n: usize) -> Result<usize>;
    /// Flush and compact so reads hit files.
    fn settle(&mut self) -> Result<()>;
    fn disk_bytes(&self) -> u64;
}

fn kv_key(row: &[u8], qualifier: &[u8], ts: i64) -> Vec<u8> {
    let mut k = Vec::with_capacity(row.len() + qualifier.len() + 10);
    k.extend_from_slice(row);
    k.extend_from_slice(b"cf");
    k.extend_from_slice(qualifier);
    k.extend_from_slice(&(u64::MAX - ts as u64).to_be_bytes());
    k
}

fn dir_bytes(p: &std::path::Path) -> u64 {
    std::fs::read_dir(p)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

mod ferro {
    use super::*;
    use ferrobase_engine::filter::ColumnCountGetFilter;
    use ferrobase_engine::{
        ColumnFamilyDescriptor, Compression, Engine, EngineOptions, Get, Put, Scan, Table,
        TableDescriptor, TableName,
    };

    pub struct Ferro {
        engine: Engine,
        table: Table,
        dir: tempfile::TempDir,
    }

    impl Ferro {
        pub fn open() -> Result<Ferro> {
            let dir = tempfile::tempdir_in(".")?;
            let engine = Engine::open(dir.path(), EngineOptions::default())?;
            let mut cf = ColumnFamilyDescriptor::new("cf");
            cf.compression = Compression::Lz4;
            cf.max_versions = 1;
            engine
                .admin()
                .create_table(TableDescriptor::new(TableName::parse("t")?).with_family(cf))?;
            let table = engine.table("t")?;
            Ok(Ferro { engine, table, dir })
        }
    }

    impl Store for Ferro {
        fn write(&mut self, cells: &[CellIn]) -> Result<()> {
            let puts = cells
                .iter()
                .map(|c| {
                    Put::new(c.row.clone()).add_column_ts(
                        "cf",
                        c.qualifier.clone(),
                        c.ts,
                        c.value.clone(),
                    )
                })
                .collect();
            Ok(self.table.put_all(puts)?)
        }
        fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
            Ok(!self
                .table
                .get(&Get::new(row).add_column("cf", qualifier))?
                .is_empty())
        }
        fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
            Ok(self
                .table
                .scanner(&Scan::new().with_row_prefix(prefix).limit(n))?
                .count())
        }
        fn scan_from(&self, start: &[u8], n: usize) -> Result<usize> {
            Ok(self
                .table
                .scanner(&Scan::new().with_start_row(start).limit(n))?
                .count())
        }
        fn wide(&self, row: &[u8], n: usize) -> Result<usize> {
            let g = Get::new(row).filter(Box::new(ColumnCountGetFilter::new(n as u64)));
            Ok(self.table.get(&g)?.cells.len())
        }
        fn settle(&mut self) -> Result<()> {
            Ok(self.engine.admin().major_compact("t")?)
        }
        fn disk_bytes(&self) -> u64 {
            dir_bytes(self.dir.path())
        }
    }
}

mod fj {
    use super::*;
    use fjall::config::BlockSizePolicy;
    use fjall::{Database, Keyspace, KeyspaceCreateOptions};

    pub struct Fjall {
        db: Database,
        ks: Keyspace,
        dir: tempfile::TempDir,
    }

    impl Fjall {
        pub fn open() -> Result<Fjall> {
            let dir = tempfile::tempdir_in(".")?;
            let db = Database::builder(dir.path()).cache_size(256 << 20).open()?;
            let ks = db.keyspace("t", || {
                KeyspaceCreateOptions::default().data_block_size_policy(BlockSizePolicy::all(65536))
            })?;
            Ok(Fjall { db, ks, dir })
        }
    }

    impl Store for Fjall {
        fn write(&mut self, cells: &[CellIn]) -> Result<()> {
            let mut b = self.db.batch();
            for c in cells {
                b.insert(
                    &self.ks,
                    kv_key(&c.row, &c.qualifier, c.ts),
                    c.value.clone(),
                );
            }
            Ok(b.commit()?)
        }
        fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
            let mut p = row.to_vec();
            p.extend_from_slice(b"cf");
            p.extend_from_slice(qualifier);
            Ok(self.ks.prefix(p).next().is_some())
        }
        fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
            let mut c = 0;
            for kv in self.ks.prefix(prefix).take(n) {
                kv.into_inner()?;
                c += 1;
            }
            Ok(c)
        }
        fn scan_from(&self, start: &[u8], n: usize) -> Result<usize> {
            let mut c = 0;
            for kv in self.ks.range(start.to_vec()..).take(n) {
                kv.into_inner()?;
                c += 1;
            }
            Ok(c)
        }
        fn wide(&self, row: &[u8], n: usize) -> Result<usize> {
            let mut p = row.to_vec();
            p.extend_from_slice(b"cf");
            let mut c = 0;
            for kv in self.ks.prefix(p).take(n) {
                kv.into_inner()?;
                c += 1;
            }
            Ok(c)
        }
        fn settle(&mut self) -> Result<()> {
            self.ks.rotate_memtable_and_wait()?;
            Ok(self.ks.major_compact()?)
        }
        fn disk_bytes(&self) -> u64 {
            dir_bytes(self.dir.path())
        }
    }
}

#[cfg(feature = "rocksdb")]
mod rocks {
    use super::*;

    pub struct Rocks {
        db: rocksdb::DB,
        dir: tempfile::TempDir,
    }

    impl Rocks {
        pub fn open() -> Result<Rocks> {
            let dir = tempfile::tempdir_in(".")?;
            let mut o = rocksdb::Options::default();
            o.create_if_missing(true);
            o.set_compression_type(rocksdb::DBCompressionType::Lz4);
            o.set_max_background_jobs(2);
            let mut t = rocksdb::BlockBasedOptions::default();
            t.set_block_size(65536);
            t.set_bloom_filter(10.0, false);
            t.set_block_cache(&rocksdb::Cache::new_lru_cache(256 << 20));
            o.set_block_based_table_factory(&t);
            let db = rocksdb::DB::open(&o, dir.path())?;
            Ok(Rocks { db, dir })
        }
    }

    impl Store for Rocks {
        fn write(&mut self, cells: &[CellIn]) -> Result<()> {
            let mut b = rocksdb::WriteBatch::default();
            for c in cells {
                b.put(kv_key(&c.row, &c.qualifier, c.ts), &c.value);
            }
            Ok(self.db.write(b)?)
        }
        fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
            let mut p = row.to_vec();
            p.extend_from_slice(b"cf");
            p.extend_from_slice(qualifier);
            let mut it = self.db.prefix_iterator(&p);
            Ok(matches!(it.next(), Some(Ok((k, _))) if k.starts_with(&p)))
        }
        fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize> {
            Ok(self
                .db
                .prefix_iterator(prefix)
                .take(n)
                .filter_map(|r| r.ok())
                .filter(|(k, _)| k.starts_with(prefix))
                .count())
        }
        fn scan_from(&self, start: &[u8], n: usize) -> Result<usize> {
            let it = self.db.iterator(rocksdb::IteratorMode::From(
                start,
                rocksdb::Direction::Forward,
            ));
            Ok(it.take(n).filter_map(|r| r.ok()).count())
        }
        fn wide(&self, row: &[u8], n: usize) -> Result<usize> {
            let mut p = row.to_vec();
            p.extend_from_slice(b"cf");
            self.scan_prefix(&p, n)
        }
        fn settle(&mut self) -> Result<()> {
            self.db.flush()?;
            self.db.compact_range::<&[u8], &[u8]>(None, None);
            Ok(())
        }
        fn disk_bytes(&self) -> u64 {
            dir_bytes(self.dir.path())
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// YCSB's Zipfian generator (Gray et al.), constant 0.99, over [0, n).
struct Zipf {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    rng: Rng,
}

impl Zipf {
    fn new(n: u64, seed: u64) -> Zipf {
        let theta = 0.99;
        let zeta = |n: u64| (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum::<f64>();
        let zetan = zeta(n);
        let zeta2 = zeta(2);
        Zipf {
            n,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
            rng: Rng(seed),
        }
    }

    fn next(&mut self) -> u64 {
        let u = (self.rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let uz = u * self.zetan;
        let v = if uz < 1.0 {
            0
        } else if uz < 1.0 + 0.5f64.powf(self.theta) {
            1
        } else {
            (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        };
        // Scramble so hot keys are spread over the key space, as YCSB does.
        (v.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7) % self.n
    }
}

fn value(i: u64) -> Vec<u8> {
    let mut r = Rng(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    (0..1024)
        .map(|_| b"abcdefghijklmnop"[(r.next() % 16) as usize])
        .collect()
}

const WORKLOADS: &[&str] = &[
    "load tall-narrow (1000-cell batches)",
    "get hit",
    "get absent",
    "newest 100 of a user (scan)",
    "newest 100 columns of a wide row",
    "YCSB A (50 % read, 50 % update)",
    "YCSB B (95 % read, 5 % update)",
    "YCSB C (100 % read)",
    "YCSB E (95 % scan 1-100, 5 % insert)",
    "write amplification (bytes written/in)",
    "space amplification (disk/logical)",
];

/// Bytes this process has passed to write(2) so far (`wchar` in /proc/self/io).
fn bytes_written() -> u64 {
    std::fs::read_to_string("/proc/self/io")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("wchar:"))
                .and_then(|l| l[6..].trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs every workload once on a fresh store; returns ops/s per workload (space amp as a ratio).
fn run(store: &mut dyn Store, cells: u64) -> Result<Vec<f64>> {
    let users = (cells / 1000).max(1);
    let base = 1_600_000_000_000i64;
    let mut out = Vec::new();
    // Load: tall-narrow rows uid(8) + reversed ts(8), empty qualifier.
    let written_before = bytes_written();
    let start = Instant::now();
    let mut batch = Vec::with_capacity(1000);
    let mut logical = 0u64;
    for i in 0..cells {
        let u = i % users;
        let ts = base + (i / users) as i64 * 1000;
        let mut row = format!("{u:08}").into_bytes();
        row.extend_from_slice(&(i64::MAX - ts).to_be_bytes());
        let v = value(i);
        logical += (row.len() + 2 + v.len()) as u64;
        batch.push(CellIn {
            row,
            qualifier: Vec::new(),
            ts,
            value: v,
        });
        if batch.len() == 1000 {
            store.write(&batch)?;
            batch.clear();
        }
    }
    store.write(&batch)?;
    out.push(cells as f64 / start.elapsed().as_secs_f64());
    // Wide rows for the last query: 100 users × 1000 columns of 100 bytes.
    let wide_users = 100u64;
    for u in 0..wide_users {
        let cells: Vec<CellIn> = (0..1000i64)
            .map(|j| CellIn {
                row: format!("w{u:07}").into_bytes(),
                qualifier: (i64::MAX - (base + j)).to_be_bytes().to_vec(),
                ts: base + j,
                value: value(j as u64)[..100].to_vec(),
            })
            .collect();
        store.write(&cells)?;
    }
    store.settle()?;
    let write_amp =
        (bytes_written() - written_before) as f64 / (logical + wide_users * 1000 * 110) as f64;
    let mut rng = Rng(7);
    let n = 50_000.min(cells as usize);
    let time = |f: &mut dyn FnMut(u64) -> Result<()>, n: usize| -> Result<f64> {
        let start = Instant::now();
        for i in 0..n {
            f(i as u64)?;
        }
        Ok(n as f64 / start.elapsed().as_secs_f64())
    };
    let keys: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let i = rng.next() % cells;
            let u = i % users;
            let ts = base + (i / users) as i64 * 1000;
            let mut row = format!("{u:08}").into_bytes();
            row.extend_from_slice(&(i64::MAX - ts).to_be_bytes());
            row
        })
        .collect();
    out.push(time(
        &mut |i| {
            anyhow::ensure!(store.get(&keys[i as usize], b"")?, "missing key");
            Ok(())
        },
        n,
    )?);
    out.push(time(
        &mut |i| {
            let mut k = keys[i as usize].clone();
            k.push(b'x');
            anyhow::ensure!(!store.get(&k, b"")?, "phantom key");
            Ok(())
        },
        n,
    )?);
    let scans = 5000.min(users as usize * 10);
    out.push(time(
        &mut |i| {
            let u = (i * 7919) % users;
            let got = store.scan_prefix(format!("{u:08}").as_bytes(), 100)?;
            anyhow::ensure!(
                got == 100.min((cells / users) as usize),
                "scan returned {got}"
            );
            Ok(())
        },
        scans,
    )?);
    out.push(time(
        &mut |i| {
            let got = store.wide(format!("w{:07}", i % wide_users).as_bytes(), 100)?;
            anyhow::ensure!(got == 100, "wide returned {got}");
            Ok(())
        },
        2000,
    )?);
    // YCSB over the loaded keys (zipf 0.99).
    let key_of = |i: u64| {
        let u = i % users;
        let ts = base + (i / users) as i64 * 1000;
        let mut row = format!("{u:08}").into_bytes();
        row.extend_from_slice(&(i64::MAX - ts).to_be_bytes());
        (row, ts)
    };
    let ycsb_ops = 20_000usize;
    for (read_pct, scan) in [(50u64, false), (95, false), (100, false), (95, true)] {
        let mut z = Zipf::new(cells, 11 + read_pct);
        let mut r = Rng(5 + read_pct);
        let mut next_insert = cells;
        let start = Instant::now();
        for _ in 0..ycsb_ops {
            let i = z.next();
            let (row, ts) = key_of(i);
            if r.next() % 100 < read_pct {
                if scan {
                    let n = 1 + (r.next() % 100) as usize;
                    store.scan_from(&row, n)?;
                } else {
                    anyhow::ensure!(store.get(&row, b"")?, "missing key");
                }
            } else if scan {
                let (row, ts) = key_of(next_insert);
                next_insert += 1;
                store.write(&[CellIn {
                    row,
                    qualifier: Vec::new(),
                    ts,
                    value: value(next_insert),
                }])?;
            } else {
                store.write(&[CellIn {
                    row,
                    qualifier: Vec::new(),
                    ts: ts + 1,
                    value: value(i + 1),
                }])?;
            }
        }
        out.push(ycsb_ops as f64 / start.elapsed().as_secs_f64());
    }
    out.push(write_amp);
    out.push(store.disk_bytes() as f64 / (logical + wide_users * 1000 * 110) as f64);
    Ok(out)
}

fn main() -> Result<()> {
    let mut cells: u64 = 200_000;
    let mut reps = 3;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cells" => cells = it.next().unwrap_or(&"200000".into()).parse()?,
            "--reps" => reps = it.next().unwrap_or(&"3".into()).parse()?,
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    type Opener = fn() -> Result<Box<dyn Store>>;
    #[allow(
        unused_mut,
        reason = "RocksDB joins the list only with the rocksdb feature"
    )]
    let mut engines: Vec<(&str, Opener)> = vec![
        ("ferrobase", || Ok(Box::new(ferro::Ferro::open()?))),
        ("fjall", || Ok(Box::new(fj::Fjall::open()?))),
    ];
    #[cfg(feature = "rocksdb")]
    engines.push(("rocksdb", || Ok(Box::new(rocks::Rocks::open()?))));
    println!("peer benchmark: {cells} tall-narrow cells of 1 KiB + 100 wide rows of 1000 columns, {reps} repetitions, engines alternated");
    println!("settings: LZ4, 64 KiB blocks, 256 MiB block cache, bloom 10 bits/key where configurable, WAL/journal not fsynced, 1 thread");
    let mut results: Vec<Vec<Vec<f64>>> = vec![Vec::new(); engines.len()];
    for _ in 0..reps {
        for (i, (_, open)) in engines.iter().enumerate() {
            let mut s = open()?;
            results[i].push(run(s.as_mut(), cells)?);
        }
    }
    let median = |v: &mut Vec<f64>| -> (f64, f64, f64) {
        v.sort_by(|a, b| a.total_cmp(b));
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    print!("| {:<40} |", "workload (ops/s, or a ratio)");
    for (name, _) in &engines {
        print!(" {:>26} |", name);
    }
    println!(" {:>12} |", "ferrobase / best peer");
    for (w, wname) in WORKLOADS.iter().enumerate() {
        print!("| {:<40} |", wname);
        let mut meds = Vec::new();
        for r in &results {
            let mut v: Vec<f64> = r.iter().map(|x| x[w]).collect();
            let (m, lo, hi) = median(&mut v);
            meds.push(m);
            if w >= WORKLOADS.len() - 2 {
                print!(" {:>26} |", format!("{m:.2} ({lo:.2}–{hi:.2})"));
            } else {
                print!(" {:>26} |", format!("{m:.0} ({lo:.0}–{hi:.0})"));
            }
        }
        let ours = meds[0];
        let ratio = if w >= WORKLOADS.len() - 2 {
            // Lower is better for amplification: best peer / ours.
            meds[1..].iter().cloned().fold(f64::INFINITY, f64::min) / ours
        } else {
            ours / meds[1..].iter().cloned().fold(0.0, f64::max)
        };
        println!(" {:>12} |", format!("{ratio:.2}x"));
    }
    Ok(())
}
