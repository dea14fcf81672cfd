//! `ferrobase study families`: article 004's schema advice measured on article 2's file table —
//! the family attributes (BLOCKSIZE, BLOOMFILTER NONE/ROW/ROWCOL, COMPRESSION, BLOCKCACHE,
//! IN_MEMORY), the number of families, the key's length and binary against text keys.
//!
//! Every variant loads the same files (`user + date + file` keys, a name and a category) in
//! four flushes — four files per store, as between compactions, so bloom filters have files to
//! skip — and is then read warm: gets of present rows, gets of absent rows (a user past the
//! last), gets of one column, and a full scan.

use super::chart::{write_bar_svg, BarPanel, Unit};
use super::measure::{latencies, median_f64, micros, quantile};
use super::report::{sig, thousands, Report, Table as MdTable};
use super::{scratch_dir, Load, StudyOptions};
use crate::bench::Rng;
use anyhow::{ensure, Result};
use ferrobase_engine::{
    BloomType, ColumnFamilyDescriptor, Compression, Engine, EngineOptions, Get, Metrics, Put, Scan,
    Table, TableDescriptor, TableName,
};
use std::time::Instant;

/// Sizes of one run.
#[derive(Debug, Clone)]
struct Config {
    /// Files (rows) per variant.
    rows: u64,
    /// Gets of each kind per variant.
    gets: usize,
    /// Full scans per variant.
    scans: usize,
    /// Fresh loads per variant; figures are medians over them.
    reps: usize,
}

impl Config {
    fn new(quick: bool) -> Config {
        if quick {
            Config {
                rows: 10_000,
                gets: 200,
                scans: 1,
                reps: 1,
            }
        } else {
            Config {
                rows: 200_000,
                gets: 2_000,
                scans: 3,
                reps: 3,
            }
        }
    }
}

/// How a variant lays out its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyForm {
    /// Article 2's text key: `user(6) + date(8) + file(6)` digits, 20 bytes.
    Text,
    /// The same fields as big-endian u32s: 12 bytes.
    Binary,
    /// A 32-hex-digit user id (an MD5 as text) instead of the 6 digits: 46 bytes.
    Long,
}

/// One table design: a name, its families' attributes and its key form.
struct Variant {
    name: &'static str,
    what: &'static str,
    key: KeyForm,
    /// One family holds name and category (`f`), or three (`n`, `c`, `s`) hold name,
    /// category and a size column one each.
    three_families: bool,
    family: fn(ColumnFamilyDescriptor) -> ColumnFamilyDescriptor,
}

fn same(f: ColumnFamilyDescriptor) -> ColumnFamilyDescriptor {
    f
}

const VARIANTS: &[Variant] = &[
    Variant {
        name: "default",
        what:
            "HBase's defaults: BLOCKSIZE 64 KiB, BLOOMFILTER ROW, no compression, BLOCKCACHE true",
        key: KeyForm::Text,
        three_families: false,
        family: same,
    },
    Variant {
        name: "BLOCKSIZE 8 KiB",
        what: "smaller blocks: less read per get, a larger index",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            block_size: 8 << 10,
            ..f
        },
    },
    Variant {
        name: "BLOCKSIZE 256 KiB",
        what: "larger blocks: scans read fewer, gets read more",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            block_size: 256 << 10,
            ..f
        },
    },
    Variant {
        name: "BLOOMFILTER NONE",
        what: "no bloom filter: a get looks into every file",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            bloom_filter: BloomType::None,
            ..f
        },
    },
    Variant {
        name: "BLOOMFILTER ROWCOL",
        what: "keyed by row and column: skips files for gets of named columns",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            bloom_filter: BloomType::RowCol,
            ..f
        },
    },
    Variant {
        name: "COMPRESSION GZ",
        what: "deflate",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            compression: Compression::Gz,
            ..f
        },
    },
    Variant {
        name: "COMPRESSION SNAPPY",
        what: "snappy (the article's SNAPPY; LZO is not built)",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            compression: Compression::Snappy,
            ..f
        },
    },
    Variant {
        name: "COMPRESSION LZ4",
        what: "lz4",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            compression: Compression::Lz4,
            ..f
        },
    },
    Variant {
        name: "COMPRESSION ZSTD",
        what: "zstd level 3",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            compression: Compression::Zstd,
            ..f
        },
    },
    Variant {
        name: "BLOCKCACHE false",
        what: "every data block read from its file (the OS page cache here)",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            block_cache: false,
            ..f
        },
    },
    Variant {
        name: "IN_MEMORY true",
        what: "the block cache's in-memory priority",
        key: KeyForm::Text,
        three_families: false,
        family: |f| ColumnFamilyDescriptor {
            in_memory: true,
            ..f
        },
    },
    Variant {
        name: "binary key",
        what: "user, date, file as big-endian u32s: 12 bytes instead of 20",
        key: KeyForm::Binary,
        three_families: false,
        family: same,
    },
    Variant {
        name: "long key",
        what: "a 32-hex-digit user id: 46 bytes instead of 20",
        key: KeyForm::Long,
        three_families: false,
        family: same,
    },
    Variant {
        name: "three families",
        what: "name, category and size in families n, c, s instead of one family f",
        key: KeyForm::Text,
        three_families: true,
        family: same,
    },
];

/// Reads one figure out of a variant's [`Figures`].
type Figure = fn(&Figures) -> f64;

/// One variant's figures of one load.
#[derive(Debug, Clone, Default)]
struct Figures {
    write_rows_s: f64,
    disk_mib: f64,
    files: f64,
    get_us: f64,
    get_blocks: f64,
    absent_us: f64,
    absent_blocks: f64,
    column_us: f64,
    column_blocks: f64,
    scan_ms: f64,
}

/// The row key of file `i` (user `i % users`, a date, file `i`) in `form`; an `absent` key has
/// the same user and date and a file number no row has (`i + 500 000`), so it falls inside
/// every file's key range and only a bloom filter (or reading a block) tells it is not there.
fn key(form: KeyForm, i: u64, absent: bool) -> Vec<u8> {
    let users = 2_000;
    let user = (i % users) + 1;
    let date = 20_120_101 + (i * 7 % 28) as u32;
    let file = (i + if absent { 500_000 } else { 0 }) as u32;
    match form {
        KeyForm::Text => format!("{user:06}{date:08}{file:06}").into_bytes(),
        KeyForm::Binary => {
            let mut k = Vec::with_capacity(12);
            k.extend_from_slice(&(user as u32).to_be_bytes());
            k.extend_from_slice(&date.to_be_bytes());
            k.extend_from_slice(&file.to_be_bytes());
            k
        }
        KeyForm::Long => {
            let id = format!(
                "{:016x}{:016x}",
                user.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                user
            );
            format!("{id}{date:08}{file:06}").into_bytes()
        }
    }
}

/// Loads `variant` into a fresh table of `engine` in four flushes; returns its figures after
/// the reads.
fn measure(engine: &Engine, cfg: &Config, variant: &Variant, rep: usize) -> Result<Figures> {
    let name = format!(
        "v{}",
        VARIANTS
            .iter()
            .position(|v| v.name == variant.name)
            .unwrap_or(0)
    );
    let families: &[&str] = if variant.three_families {
        &["n", "c", "s"]
    } else {
        &["f"]
    };
    let mut desc = TableDescriptor::new(TableName::parse(&name)?);
    for f in families {
        desc = desc.with_family((variant.family)(ColumnFamilyDescriptor::new(*f)));
    }
    engine.admin().create_table(desc)?;
    let t = engine.table(&name)?;
    let column = |which: usize| -> (&str, &str) {
        let q = ["name", "category", "size"][which];
        if variant.three_families {
            (families[which], q)
        } else {
            ("f", q)
        }
    };
    let mut fig = Figures::default();
    let start = Instant::now();
    let per_flush = cfg.rows.div_ceil(4);
    let mut i = 0;
    while i < cfg.rows {
        let end = (i + per_flush).min(cfg.rows);
        let mut puts = Vec::with_capacity(1000);
        for j in i..end {
            let (nf, nq) = column(0);
            let (cf, cq) = column(1);
            let (sf, sq) = column(2);
            puts.push(
                Put::new(key(variant.key, j, false))
                    .add_column(nf, nq, format!("中国好声音第{}期 精彩花絮", j % 97))
                    .add_column(cf, cq, ["综艺", "花絮", "电影", "音乐"][(j % 4) as usize])
                    .add_column(sf, sq, (j * 7919 % 100_000).to_string()),
            );
            if puts.len() == 1000 {
                t.put_all(std::mem::take(&mut puts))?;
            }
        }
        t.put_all(puts)?;
        engine.admin().flush(&name)?;
        i = end;
    }
    fig.write_rows_s = cfg.rows as f64 / start.elapsed().as_secs_f64();
    let regions = engine.admin().regions(&name)?;
    fig.disk_mib = regions.iter().map(|r| r.file_bytes).sum::<u64>() as f64 / (1 << 20) as f64;
    fig.files = regions.iter().map(|r| r.file_count as f64).sum();

    let m = engine.metrics();
    let touched = || Metrics::get(&m.block_cache_hits) + Metrics::get(&m.data_blocks_read);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ rep as u64);
    let timed = |rng: &mut Rng, f: &dyn Fn(&Table, u64) -> Result<()>| -> Result<(f64, f64)> {
        // One warm-up pass over the same keys, then the measured one.
        let seed = rng.next();
        let mut r = Rng(seed | 1);
        for _ in 0..cfg.gets {
            f(&t, r.next() % cfg.rows)?;
        }
        let mut r = Rng(seed | 1);
        let before = touched();
        let lat = latencies(cfg.gets, |_| f(&t, r.next() % cfg.rows))?;
        Ok((
            micros(quantile(&lat, 0.5)),
            (touched() - before) as f64 / cfg.gets as f64,
        ))
    };
    (fig.get_us, fig.get_blocks) = timed(&mut rng, &|t, i| {
        let r = t.get(&Get::new(key(variant.key, i, false)))?;
        ensure!(
            r.cells.len() == 3,
            "{name}: row {i} has {} cells",
            r.cells.len()
        );
        Ok(())
    })?;
    (fig.absent_us, fig.absent_blocks) = timed(&mut rng, &|t, i| {
        let r = t.get(&Get::new(key(variant.key, i, true)))?;
        debug_assert!(i < 500_000, "absent keys need i below 500 000");
        ensure!(r.cells.is_empty(), "{name}: absent row {i} found");
        Ok(())
    })?;
    let (cf, cq) = column(1);
    (fig.column_us, fig.column_blocks) = timed(&mut rng, &|t, i| {
        let r = t.get(&Get::new(key(variant.key, i, false)).add_column(cf, cq))?;
        ensure!(r.cells.len() == 1, "{name}: column of row {i}");
        Ok(())
    })?;
    let mut scans = Vec::new();
    for _ in 0..=cfg.scans {
        let t0 = Instant::now();
        let n = t.scanner(&Scan::new())?.count() as u64;
        ensure!(n == cfg.rows, "{name}: scan found {n} rows");
        scans.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    scans.remove(0); // the warm-up
    fig.scan_ms = median_f64(&scans);
    engine.admin().disable(&name)?;
    engine.admin().delete_table(&name)?;
    Ok(fig)
}

/// Runs the study and writes `families.md`, `families.csv` and `families.svg`.
pub fn run(opts: &StudyOptions) -> Result<()> {
    run_with(opts, &Config::new(opts.quick))
}

fn run_with(opts: &StudyOptions, cfg: &Config) -> Result<()> {
    let load = Load::start();
    let mut all: Vec<Vec<Figures>> = vec![Vec::new(); VARIANTS.len()];
    for rep in 0..cfg.reps {
        // A fresh engine per repetition; the variants take turns within it.
        let dir = scratch_dir()?;
        let engine = Engine::open(dir.path(), EngineOptions::default())?;
        for (v, variant) in VARIANTS.iter().enumerate() {
            all[v].push(measure(&engine, cfg, variant, rep)?);
        }
        engine.close();
        eprintln!("families: load {} of {} measured", rep + 1, cfg.reps);
    }
    let med = |v: usize, f: Figure| median_f64(&all[v].iter().map(f).collect::<Vec<_>>());
    let range = |v: usize, f: Figure| {
        let x: Vec<f64> = all[v].iter().map(f).collect();
        let lo = x.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if x.len() < 2 {
            sig(med(v, f), 3)
        } else {
            format!("{} ({}–{})", sig(med(v, f), 3), sig(lo, 3), sig(hi, 3))
        }
    };

    let mut report = Report::default();
    report.text(&format!(
        "## Family attributes, families and keys (article 004): measured results\n\n\
         `ferrobase study families{}`: {} rows of article 2's file table (key `user(6) + \
         date(8) + file(6)`, a name, a category and a size: 3 cells, about 80 bytes a row), \
         written in batches of 1000 and flushed four times (four files, no compaction: as a \
         store is between compactions), in one engine per load where the variants take turns. \
         Then, warm: {} gets of present rows, of absent rows and of one \
         named column (absent: a file number no row has, inside every file's key range), each p50 with the blocks it touched (block-cache hits plus blocks read \
         from files), and full scans. Each figure is the median of {} load(s) (min–max when \
         more). Measured under {}.",
        if opts.quick { " --quick" } else { "" },
        thousands(cfg.rows),
        thousands(cfg.gets as u64),
        cfg.reps,
        load.line(),
    ));
    let mut t = MdTable::new(&[
        "variant",
        "what",
        ">write rows/s",
        ">MiB on disk",
        ">get µs",
        ">blocks/get",
        ">absent get µs",
        ">blocks/absent get",
        ">one-column get µs",
        ">blocks/column get",
        ">full scan ms",
    ]);
    for (v, variant) in VARIANTS.iter().enumerate() {
        t.row(vec![
            variant.name.into(),
            variant.what.into(),
            range(v, |f| f.write_rows_s),
            sig(med(v, |f| f.disk_mib), 3),
            range(v, |f| f.get_us),
            sig(med(v, |f| f.get_blocks), 3),
            range(v, |f| f.absent_us),
            sig(med(v, |f| f.absent_blocks), 3),
            range(v, |f| f.column_us),
            sig(med(v, |f| f.column_blocks), 3),
            range(v, |f| f.scan_ms),
        ]);
    }
    report.table(&t);

    let mut csv = String::from("variant,figure,values...\n");
    let figures: [(&str, Figure); 10] = [
        ("write_rows_s", |f| f.write_rows_s),
        ("disk_mib", |f| f.disk_mib),
        ("files", |f| f.files),
        ("get_us", |f| f.get_us),
        ("get_blocks", |f| f.get_blocks),
        ("absent_us", |f| f.absent_us),
        ("absent_blocks", |f| f.absent_blocks),
        ("column_us", |f| f.column_us),
        ("column_blocks", |f| f.column_blocks),
        ("scan_ms", |f| f.scan_ms),
    ];
    for (v, variant) in VARIANTS.iter().enumerate() {
        for (name, f) in figures {
            let values: Vec<String> = all[v].iter().map(|x| format!("{:.3}", f(x))).collect();
            csv.push_str(&format!(
                "\"{}\",{name},{}\n",
                variant.name,
                values.join(",")
            ));
        }
    }
    std::fs::write(opts.out.join("families.csv"), csv)?;

    // Bars keyed by number; the footer names them.
    let bars = |f: Figure| -> Vec<(String, f64)> {
        (0..VARIANTS.len())
            .map(|v| ((v + 1).to_string(), med(v, f)))
            .collect()
    };
    let panels = [
        (
            "MiB on disk",
            "MiB",
            Unit::Count,
            (|f: &Figures| f.disk_mib) as Figure,
        ),
        ("write throughput", "rows/s", Unit::Count, |f| {
            f.write_rows_s
        }),
        ("get of a present row, p50", "latency", Unit::Micros, |f| {
            f.get_us
        }),
        ("get of an absent row, p50", "latency", Unit::Micros, |f| {
            f.absent_us
        }),
        (
            "blocks touched per absent get",
            "blocks",
            Unit::Count,
            |f| f.absent_blocks,
        ),
        ("full scan", "latency", Unit::Micros, |f| f.scan_ms * 1e3),
    ]
    .map(|(title, y, unit, f)| BarPanel {
        title: title.into(),
        y_label: y.into(),
        unit,
        bars: bars(f),
    });
    let names: Vec<String> = VARIANTS
        .iter()
        .enumerate()
        .map(|(v, x)| format!("{}: {}", v + 1, x.name))
        .collect();
    let footer = vec![names[..7].join(" · "), names[7..].join(" · "), load.line()];
    write_bar_svg(&opts.out.join("families.svg"), &panels, 3, &footer)?;
    report.text("![family attributes, families and keys](families.svg)");
    report.write(&opts.out.join("families.md"))?;
    eprintln!("wrote {}", opts.out.join("families.md").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_the_lengths_the_variants_name() {
        assert_eq!(key(KeyForm::Text, 7, false).len(), 20);
        assert_eq!(key(KeyForm::Binary, 7, false).len(), 12);
        assert_eq!(key(KeyForm::Long, 7, false).len(), 46);
        assert_ne!(key(KeyForm::Text, 7, false), key(KeyForm::Text, 7, true));
    }

    #[test]
    fn quick_study_writes_its_table_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config {
            rows: 2_000,
            gets: 20,
            scans: 1,
            reps: 1,
        };
        let opts = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            sizes: None,
        };
        run_with(&opts, &cfg).unwrap();
        let md = std::fs::read_to_string(dir.path().join("families.md")).unwrap();
        for v in VARIANTS {
            assert!(md.contains(&format!("| {} ", v.name)), "{}\n{md}", v.name);
        }
        let problems =
            super::super::chart::render_check::text_problems(&dir.path().join("families.svg"));
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
