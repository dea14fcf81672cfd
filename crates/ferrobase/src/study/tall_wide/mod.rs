//! `ferrobase study tall-wide`: article 1's promised comparison of tall-narrow and wide rows as
//! the records per user grow. Every size holds about the same number of records in all (fewer
//! users as each has more), so the tables stay a few hundred MB.

mod regions;
mod workload;

use super::chart::{write_svg, Layout, Panel, Series, XAxis};
use super::measure::{latencies, median_f64, micros, quantile};
use super::report::{sig, thousands, Report, Table};
use super::{scratch_dir, Load, StudyOptions};
use crate::bench::Rng;
use anyhow::Result;
use ferrobase_engine::{Engine, EngineOptions, Metrics};
use std::collections::BTreeMap;
use workload::{create_table, expect, load, record_ts, Design, Keys, Queries, ReadOutcome};

/// Sizes and repetitions of one run.
#[derive(Debug, Clone)]
struct Config {
    /// Records per user, one table pair per size.
    sizes: Vec<u64>,
    /// Records in each table (users = total / size).
    total: u64,
    /// Fresh loads per size; every figure is the median over them.
    reps: usize,
    /// Point queries per run (gets, newest-N, ranges), each of a random user and record.
    queries: usize,
    /// N of the newest-N query.
    newest: usize,
    /// Records in the time-range query's window (one an hour at a record a minute).
    window: u64,
    /// `batch` of the batched wide-row read.
    batch: usize,
    /// The region experiment: users, records per user, split size in bytes.
    region_users: u64,
    region_records: u64,
    region_split: u64,
}

impl Config {
    fn new(quick: bool) -> Config {
        if quick {
            Config {
                sizes: vec![10, 100, 1_000, 10_000],
                total: 20_000,
                reps: 1,
                queries: 200,
                newest: 10,
                window: 60,
                batch: 1000,
                region_users: 4,
                region_records: 10_000,
                region_split: 256 << 10,
            }
        } else {
            Config {
                sizes: vec![10, 100, 1_000, 10_000, 100_000],
                total: 1_000_000,
                reps: 3,
                queries: 2_000,
                newest: 10,
                window: 60,
                batch: 1000,
                region_users: 10,
                region_records: 100_000,
                region_split: 4 << 20,
            }
        }
    }
}

/// Every figure of one size: metric name -> one value per repetition.
type Samples = BTreeMap<&'static str, Vec<f64>>;

/// Runs the study and writes `tall-wide.md` and `tall-wide.svg` into the output directory.
pub fn run(opts: &StudyOptions) -> Result<()> {
    let mut cfg = Config::new(opts.quick);
    if let Some(sizes) = &opts.sizes {
        cfg.sizes = sizes.clone();
    }
    run_with(opts, &cfg)
}

fn run_with(opts: &StudyOptions, cfg: &Config) -> Result<()> {
    let load = Load::start();
    let mut results: Vec<(u64, Samples)> = Vec::new();
    for &size in &cfg.sizes {
        let mut samples = Samples::new();
        for rep in 0..cfg.reps {
            measure_size(cfg, size, rep, &mut samples)?;
        }
        results.push((size, samples));
        // Partial output after every size: a run stopped on a busy machine keeps what it
        // measured.
        if results.len() < cfg.sizes.len() {
            write_outputs(opts, cfg, &results, None, &load)?;
        }
    }
    let dir = scratch_dir()?;
    let regions = regions::run(
        dir.path(),
        cfg.region_users,
        cfg.region_records,
        cfg.region_split,
    )?;
    drop(dir);
    write_outputs(opts, cfg, &results, Some(&regions), &load)
}

/// Writes `tall-wide.md`, `.csv` and `.svg` from the sizes measured so far (`regions`: the
/// region experiment, run last; `None` in a partial report).
fn write_outputs(
    opts: &StudyOptions,
    cfg: &Config,
    results: &[(u64, Samples)],
    regions: Option<&[regions::RegionOutcome]>,
    load: &Load,
) -> Result<()> {
    let mut report = Report::default();
    report.text(&format!(
        "## Tall-narrow vs wide rows: measured results\n\n\
         `ferrobase study tall-wide{}`: {} records per table at every size, values of 38 bytes \
         (a URL), written in time order in batches of 1000 puts, SYNC_WAL without fsync; \
         family at HBase's defaults (64 KiB blocks, ROW bloom, no compression); flushed and \
         major-compacted before the reads, which are warm (the block cache, 256 MiB, holds the \
         table). Each figure is the median of {} fresh load(s); a latency is each load's p50 \
         over {} queries of random users and records (full-history reads: fewer, {} records \
         read in all at least). {} cores.",
        if opts.quick { " --quick" } else { "" },
        thousands(cfg.total),
        cfg.reps,
        thousands(cfg.queries as u64),
        thousands(cfg.queries as u64 * 100),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    ));
    report.text(&format!("Measured under {}.", load.line()));
    if regions.is_none() {
        report.text(&format!(
            "**Partial report**: {} of {} sizes measured so far ({} records per user); the run \
             goes on (or was stopped).",
            results.len(),
            cfg.sizes.len(),
            results
                .iter()
                .map(|(s, _)| thousands(*s))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    write_samples(&opts.out.join("tall-wide.csv"), results)?;
    let med = |s: &Samples, k: &str| median_f64(s.get(k).map_or(&[][..], |v| v.as_slice()));

    let mut t = Table::new(&[
        ">records/user",
        ">users",
        ">write tall rec/s (min–max)",
        ">write wide rec/s (min–max)",
        ">disk tall MiB",
        ">disk wide MiB",
        ">wide row KiB",
        ">64 KiB blocks per wide row",
    ]);
    for (size, s) in results {
        let users = cfg.total / size;
        let row_kib = med(s, "disk.wide") / users as f64 / 1024.0;
        t.row(vec![
            thousands(*size),
            thousands(users),
            spread(s, "write.tall"),
            spread(s, "write.wide"),
            sig(med(s, "disk.tall") / (1 << 20) as f64, 3),
            sig(med(s, "disk.wide") / (1 << 20) as f64, 3),
            sig(row_kib, 3),
            sig((row_kib / 64.0).max(1.0), 3),
        ]);
    }
    report.text("### Writes and size on disk");
    report.table(&t);

    let mut t = Table::new(&[
        ">records/user",
        ">newest 10 tall",
        ">newest 10 wide (CountGet)",
        ">newest 10 wide (Pagination)",
        ">one record tall",
        ">one record wide",
        &format!(">{}-record range tall", cfg.window),
        &format!(">{}-record range wide", cfg.window),
        ">history tall",
        ">history wide",
        &format!(">history wide batch {}", cfg.batch),
    ]);
    for (size, s) in results {
        let mut row = vec![thousands(*size)];
        for k in [
            "newest.tall",
            "newest.wide",
            "newest.wide_page",
            "at.tall",
            "at.wide",
            "range.tall",
            "range.wide",
            "history.tall",
            "history.wide",
            "history.wide_batch",
        ] {
            row.push(sig(med(s, k), 3));
        }
        t.row(row);
    }
    report.text("### Read latency, p50 µs");
    report.table(&t);

    let mut t = Table::new(&[
        ">records/user",
        ">newest 10 tall",
        ">newest 10 wide",
        ">one record tall",
        ">one record wide",
        ">range tall",
        ">range wide",
    ]);
    for (size, s) in results {
        let mut row = vec![thousands(*size)];
        for k in [
            "blocks.newest.tall",
            "blocks.newest.wide",
            "blocks.at.tall",
            "blocks.at.wide",
            "blocks.range.tall",
            "blocks.range.wide",
        ] {
            row.push(sig(med(s, k), 3));
        }
        t.row(row);
    }
    report.text("### Blocks touched per query (block-cache hits plus data blocks read from files)");
    report.table(&t);

    let mut t = Table::new(&[
        ">records/user",
        ">tall (one row)",
        ">wide, no batch",
        &format!(">wide, batch {}", cfg.batch),
    ]);
    for (size, s) in results {
        t.row(vec![
            thousands(*size),
            thousands(med(s, "result.tall") as u64),
            thousands(med(s, "result.wide") as u64),
            thousands(med(s, "result.wide_batch") as u64),
        ]);
    }
    report.text(
        "### Memory while reading a user's whole history: the largest single result, bytes\n\n\
         A result is what the region server assembles and the client receives at once (cells' \
         heap size); without `batch` a wide row is one result however wide it is.",
    );
    report.table(&t);

    if let Some(regions) = regions {
        let mut t = Table::new(&[
            "design",
            ">regions",
            ">largest region MiB",
            ">smallest region MiB",
            ">largest / split size",
        ]);
        for r in regions {
            t.row(vec![
                r.design.table().to_string(),
                r.regions.to_string(),
                sig(r.largest as f64 / (1 << 20) as f64, 3),
                sig(r.smallest as f64 / (1 << 20) as f64, 3),
                format!("{}×", sig(r.largest as f64 / cfg.region_split as f64, 3)),
            ]);
        }
        report.text(&format!(
            "### A row larger than a region\n\n{} users × {} records each, regions split past {} \
         MiB, compacted until no region splits any more. A region splits only between rows.",
            cfg.region_users,
            thousands(cfg.region_records),
            sig(cfg.region_split as f64 / (1 << 20) as f64, 3),
        ));
        report.table(&t);
    }

    let patterns: [(&str, &str, &str, bool); 6] = [
        ("write throughput", "write.tall", "write.wide", true),
        ("newest 10", "newest.tall", "newest.wide", false),
        ("one record by timestamp", "at.tall", "at.wide", false),
        ("time range (one hour)", "range.tall", "range.wide", false),
        ("full history", "history.tall", "history.wide", false),
        (
            "full history, batch",
            "history.tall",
            "history.wide_batch",
            false,
        ),
    ];
    let mut header = vec!["access pattern".to_string()];
    header.extend(results.iter().map(|(s, _)| format!(">{}", thousands(*s))));
    header.push("wide ≥ 1.5× slower from".into());
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&header_refs);
    let samples = |s: &Samples, k: &str| s.get(k).cloned().unwrap_or_default();
    for (name, tall, wide, higher_is_better) in patterns {
        let mut row = vec![name.to_string()];
        let mut cost = Vec::new();
        for (size, s) in results {
            let c = WideCost::of(&samples(s, tall), &samples(s, wide), higher_is_better);
            row.push(c.cell());
            cost.push((*size, c));
        }
        row.push(verdict(&cost, results.last().map_or(0, |r| r.0)));
        t.row(row);
    }
    report.text(
        "### Cost of the wide row relative to tall-narrow (wide time / tall time), by records per user\n\n\
         Each cell: the ratio of the medians, then [the lowest – the highest ratio any pair of runs \
         gives]. A verdict (\"wide ≥ 1.5× slower from N\") needs, at N and at every larger size, a \
         median ratio of at least 1.5 and ranges of the two designs that do not overlap; where a \
         size meets the threshold but a larger one does not, or the ranges overlap, there is no \
         verdict and the column says so.",
    );
    report.table(&t);

    let svg = opts.out.join("tall-wide.svg");
    chart(&svg, cfg, results, vec![load.line()])?;
    report.text("![tall-narrow vs wide rows](tall-wide.svg)");
    report.write(&opts.out.join("tall-wide.md"))?;
    eprintln!(
        "wrote {}, tall-wide.csv and {}",
        opts.out.join("tall-wide.md").display(),
        svg.display()
    );
    Ok(())
}

/// Loads both designs at `size` records per user into a fresh engine and measures every query.
fn measure_size(cfg: &Config, size: u64, rep: usize, samples: &mut Samples) -> Result<()> {
    let users = (cfg.total / size).max(1);
    let dir = scratch_dir()?;
    let engine = Engine::open(dir.path(), EngineOptions::default())?;
    let keys = Keys::new()?;
    let mut put = |k: &'static str, v: f64| samples.entry(k).or_default().push(v);
    for design in Design::BOTH {
        let t = create_table(&engine, design)?;
        let took = load(&t, &keys, design, users, size)?;
        engine.admin().flush(design.table())?;
        engine.admin().major_compact(design.table())?;
        let disk: u64 = engine
            .admin()
            .regions(design.table())?
            .iter()
            .map(|r| r.file_bytes)
            .sum();
        let (write, disk_key) = match design {
            Design::Tall => ("write.tall", "disk.tall"),
            Design::Wide => ("write.wide", "disk.wide"),
        };
        put(write, (users * size) as f64 / took.as_secs_f64());
        put(disk_key, disk as f64);

        let q = Queries {
            table: &t,
            keys: &keys,
            design,
        };
        let tall = design == Design::Tall;
        let name = |tall_name: &'static str, wide_name: &'static str| {
            if tall {
                tall_name
            } else {
                wide_name
            }
        };
        let n = cfg.newest.min(size as usize);
        let seed = 0x9e37_79b9_7f4a_7c15 ^ (rep as u64) << 32 ^ size;
        // Each query kind walks the same users and records in both designs.
        let (lat, blocks) = timed(&engine, cfg.queries, seed, users, size, |u, _| {
            expect("newest", q.newest(u, n, false)?, n)
        })?;
        put(
            name("newest.tall", "newest.wide"),
            micros(quantile(&lat, 0.5)),
        );
        put(name("blocks.newest.tall", "blocks.newest.wide"), blocks);
        if !tall {
            let (lat, _) = timed(&engine, cfg.queries, seed, users, size, |u, _| {
                expect("newest (pagination)", q.newest(u, n, true)?, n)
            })?;
            put("newest.wide_page", micros(quantile(&lat, 0.5)));
        }
        let (lat, blocks) = timed(&engine, cfg.queries, seed, users, size, |u, j| {
            expect("one record", q.at(u, record_ts(j))?, 1)
        })?;
        put(name("at.tall", "at.wide"), micros(quantile(&lat, 0.5)));
        put(name("blocks.at.tall", "blocks.at.wide"), blocks);
        let w = cfg.window.min(size);
        let first = (size - w) / 2;
        let (lat, blocks) = timed(&engine, cfg.queries, seed, users, size, |u, _| {
            let got = q.range(u, record_ts(first), record_ts(first + w - 1))?;
            expect("range", got, w as usize)
        })?;
        put(
            name("range.tall", "range.wide"),
            micros(quantile(&lat, 0.5)),
        );
        put(name("blocks.range.tall", "blocks.range.wide"), blocks);

        let full_reads = (cfg.queries as u64 * 100 / size).clamp(5, cfg.queries as u64) as usize;
        let variants: &[(Option<usize>, &'static str, &'static str)] = if tall {
            &[(None, "history.tall", "result.tall")]
        } else {
            &[
                (None, "history.wide", "result.wide"),
                (Some(cfg.batch), "history.wide_batch", "result.wide_batch"),
            ]
        };
        for &(batch, lat_key, result_key) in variants {
            let mut largest = 0usize;
            let (lat, _) = timed(&engine, full_reads, seed, users, size, |u, _| {
                let got: ReadOutcome = q.history(u, batch)?;
                largest = largest.max(got.largest_result);
                expect("history", got, size as usize)
            })?;
            put(lat_key, micros(quantile(&lat, 0.5)));
            put(result_key, largest as f64);
        }
    }
    engine.close();
    drop(dir);
    eprintln!(
        "tall-wide: {size} records/user, load {} of {} measured",
        rep + 1,
        cfg.reps
    );
    Ok(())
}

/// A figure's median and, over several repetitions, its range: `450 000 (350 000–790 000)`.
fn spread(s: &Samples, key: &str) -> String {
    let v = s.get(key).map_or(&[][..], |v| v.as_slice());
    let med = thousands(median_f64(v) as u64);
    if v.len() < 2 {
        return med;
    }
    let lo = v.iter().copied().fold(f64::MAX, f64::min);
    let hi = v.iter().copied().fold(f64::MIN, f64::max);
    format!("{med} ({}–{})", thousands(lo as u64), thousands(hi as u64))
}

/// Every repetition's value of every figure, one line per size and figure
/// (`records_per_user,figure,value1,value2,...`), so the tables and chart can be checked.
fn write_samples(path: &std::path::Path, results: &[(u64, Samples)]) -> Result<()> {
    let mut csv = String::from("records_per_user,figure,values...\n");
    for (size, samples) in results {
        for (k, v) in samples {
            let values: Vec<String> = v.iter().map(|x| format!("{x:.3}")).collect();
            csv.push_str(&format!("{size},{k},{}\n", values.join(",")));
        }
    }
    std::fs::write(path, csv)?;
    Ok(())
}

/// Runs `ops` queries `f(user, record)` over random users and records (the same ones for the
/// same seed); returns their latencies and the blocks each touched on average.
fn timed(
    engine: &Engine,
    ops: usize,
    seed: u64,
    users: u64,
    size: u64,
    mut f: impl FnMut(u64, u64) -> Result<()>,
) -> Result<(Vec<std::time::Duration>, f64)> {
    let m = engine.metrics();
    let touched = || Metrics::get(&m.block_cache_hits) + Metrics::get(&m.data_blocks_read);
    let mut rng = Rng(seed | 1);
    let before = touched();
    let lat = latencies(ops, |_| {
        let u = rng.next() % users;
        let j = rng.next() % size;
        f(u, j)
    })?;
    Ok((lat, (touched() - before) as f64 / ops.max(1) as f64))
}

fn chart(
    path: &std::path::Path,
    cfg: &Config,
    results: &[(u64, Samples)],
    footer: Vec<String>,
) -> Result<()> {
    let values = |s: &Samples, key: &str| s.get(key).cloned().unwrap_or_default();
    let series = |label: &str, key: &str| Series {
        label: label.to_string(),
        points: results
            .iter()
            .map(|(size, s)| (*size as f64, median_f64(&values(s, key))))
            .collect(),
        // Min–max of the loads behind each median.
        ranges: results
            .iter()
            .map(|(_, s)| {
                let v = values(s, key);
                let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (lo, hi)
            })
            .collect(),
    };
    let panel = |title: &str, y: &str, series: Vec<Series>| Panel {
        title: title.into(),
        y_label: y.into(),
        log_y: true,
        legend: true,
        series,
        heat: None,
    };
    let panels = [
        panel(
            "write throughput",
            "records/s",
            vec![series("tall", "write.tall"), series("wide", "write.wide")],
        ),
        panel(
            &format!("newest {} (p50)", cfg.newest),
            "µs",
            vec![
                series("tall: scan + limit", "newest.tall"),
                series("wide: ColumnCountGetFilter", "newest.wide"),
                series("wide: ColumnPaginationFilter", "newest.wide_page"),
            ],
        ),
        panel(
            "one record by timestamp (p50)",
            "µs",
            vec![series("tall", "at.tall"), series("wide", "at.wide")],
        ),
        panel(
            &format!("{}-record time range (p50)", cfg.window),
            "µs",
            vec![series("tall", "range.tall"), series("wide", "range.wide")],
        ),
        panel(
            "a user's full history (p50)",
            "µs",
            vec![
                series("tall", "history.tall"),
                series("wide", "history.wide"),
                series(&format!("wide, batch {}", cfg.batch), "history.wide_batch"),
            ],
        ),
        panel(
            "largest single result, full history",
            "bytes",
            vec![
                series("tall", "result.tall"),
                series("wide", "result.wide"),
                series(&format!("wide, batch {}", cfg.batch), "result.wide_batch"),
            ],
        ),
    ];
    let x = XAxis {
        label: "records per user".into(),
        log: true,
    };
    let layout = Layout {
        columns: 2,
        shared_y: false,
        footer,
    };
    write_svg(path, &x, &panels, &layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_study_writes_its_tables_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = Config::new(true);
        cfg.sizes = vec![10, 100];
        cfg.total = 1_000;
        cfg.queries = 20;
        cfg.region_users = 2;
        cfg.region_records = 2_000;
        cfg.region_split = 32 << 10;
        let opts = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            sizes: None,
        };
        run_with(&opts, &cfg).unwrap();
        let md = std::fs::read_to_string(dir.path().join("tall-wide.md")).unwrap();
        assert!(md.contains("### Read latency, p50 µs"), "{md}");
        assert!(md.contains("| wide "), "{md}");
        let svg = std::fs::read_to_string(dir.path().join("tall-wide.svg")).unwrap();
        assert!(svg.contains("newest 10") && svg.contains("load average"));
        assert!(md.contains("Measured under load average"), "{md}");
        let problems =
            crate::study::chart::render_check::text_problems(&dir.path().join("tall-wide.svg"));
        assert!(problems.is_empty(), "{problems:#?}");
    }
}

/// The wide design's cost relative to tall-narrow at one size, from each design's runs.
#[derive(Debug, Clone, Copy, PartialEq)]
struct WideCost {
    /// The ratio of the medians (> 1: wide is slower).
    median: f64,
    /// The lowest and highest ratio a pair of runs gives.
    low: f64,
    high: f64,
}

impl WideCost {
    /// The cost from tall's and wide's runs: times (lower is better) or, with
    /// `higher_is_better`, throughputs.
    fn of(tall: &[f64], wide: &[f64], higher_is_better: bool) -> WideCost {
        let range = |v: &[f64]| {
            v.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                    (lo.min(x), hi.max(x))
                })
        };
        let ((tl, th), (wl, wh)) = (range(tall), range(wide));
        let (tm, wm) = (median_f64(tall), median_f64(wide));
        if higher_is_better {
            WideCost {
                median: tm / wm,
                low: tl / wh,
                high: th / wl,
            }
        } else {
            WideCost {
                median: wm / tm,
                low: wl / th,
                high: wh / tl,
            }
        }
    }

    /// Wide is at least 1.5× slower by the medians, and slower in every pair of runs (the two
    /// designs' ranges do not overlap).
    fn slower(&self) -> bool {
        self.median >= 1.5 && self.low > 1.0
    }

    fn cell(&self) -> String {
        format!("{:.2}× [{:.2}–{:.2}]", self.median, self.low, self.high)
    }
}

/// The verdict of one access pattern over the sizes measured (ascending): the smallest size
/// from which every size is [`WideCost::slower`], else why there is none.
fn verdict(cost: &[(u64, WideCost)], largest: u64) -> String {
    let from = (0..cost.len())
        .find(|&i| cost[i..].iter().all(|(_, c)| c.slower()))
        .map(|i| cost[i].0);
    match from {
        Some(size) => format!("{} records/user", thousands(size)),
        None if cost.iter().any(|(_, c)| c.median >= 1.5) => {
            let sizes: Vec<String> = cost
                .iter()
                .filter(|(_, c)| c.median >= 1.5)
                .map(|(s, _)| thousands(*s))
                .collect();
            format!(
                "no verdict: ≥ 1.5× at {} only (a larger size disagrees or the ranges overlap)",
                sizes.join(", ")
            )
        }
        None => format!("never up to {}", thousands(largest)),
    }
}

#[cfg(test)]
mod verdict_tests {
    use super::*;

    fn cost(median: f64, low: f64) -> WideCost {
        WideCost {
            median,
            low,
            high: median * 1.2,
        }
    }

    #[test]
    fn a_verdict_needs_every_larger_size_to_agree() {
        // The committed run's write throughput: 3.02× at 1,000, then 0.65× and 0.84×.
        let c = [
            (10, cost(0.87, 0.8)),
            (1_000, cost(3.02, 2.0)),
            (10_000, cost(0.65, 0.5)),
            (100_000, cost(0.84, 0.7)),
        ];
        assert_eq!(
            verdict(&c, 100_000),
            "no verdict: ≥ 1.5× at 1 000 only (a larger size disagrees or the ranges overlap)"
        );
        let c = [
            (10, cost(1.0, 0.9)),
            (1_000, cost(1.6, 1.2)),
            (10_000, cost(2.0, 1.5)),
        ];
        assert_eq!(verdict(&c, 10_000), "1 000 records/user");
        // Overlapping ranges (some pair of runs has wide faster): no verdict there.
        let c = [(1_000, cost(1.6, 0.9)), (10_000, cost(2.0, 1.5))];
        assert_eq!(verdict(&c, 10_000), "10 000 records/user");
        let c = [(1_000, cost(0.9, 0.8))];
        assert_eq!(verdict(&c, 1_000), "never up to 1 000");
    }

    #[test]
    fn noisy_overlapping_samples_declare_no_crossover() {
        // Write throughput of three loads per size on a busy machine: wide's medians fall
        // behind by 1.6–2× from 1,000 records, but every size has a load where wide wrote as
        // fast as tall or faster (the ranges overlap): no verdict at any size.
        let tall: [[f64; 3]; 4] = [
            [500e3, 900e3, 300e3],
            [480e3, 850e3, 350e3],
            [800e3, 820e3, 260e3],
            [760e3, 900e3, 310e3],
        ];
        let wide: [[f64; 3]; 4] = [
            [520e3, 870e3, 330e3],
            [300e3, 860e3, 200e3],
            [400e3, 500e3, 840e3],
            [380e3, 470e3, 910e3],
        ];
        let cost: Vec<(u64, WideCost)> = [10, 100, 1_000, 10_000]
            .into_iter()
            .zip(tall.iter().zip(&wide))
            .map(|(size, (t, w))| (size, WideCost::of(t, w, true)))
            .collect();
        assert!(
            cost[2].1.median >= 1.5 && cost[3].1.median >= 1.5,
            "{cost:?}"
        );
        let v = verdict(&cost, 10_000);
        assert!(v.starts_with("no verdict"), "{v}");
        // The same medians with tight, disjoint ranges do give one.
        let tight: Vec<(u64, WideCost)> = [10, 100, 1_000, 10_000]
            .into_iter()
            .zip([1.0, 1.1, 1.6, 1.9])
            .map(|(size, r)| {
                let t = [800e3, 810e3, 820e3];
                let w = t.map(|x| x / r);
                (size, WideCost::of(&t, &w, true))
            })
            .collect();
        assert_eq!(verdict(&tight, 10_000), "1 000 records/user");
    }

    #[test]
    fn costs_come_from_the_runs_ranges() {
        // Throughput: tall 100–120, wide 50–60: wide slower, 100/60 to 120/50.
        let c = WideCost::of(&[100.0, 110.0, 120.0], &[50.0, 55.0, 60.0], true);
        assert!((c.median - 2.0).abs() < 1e-9);
        assert!((c.low - 100.0 / 60.0).abs() < 1e-9 && (c.high - 2.4).abs() < 1e-9);
        assert!(c.slower());
        // Times overlapping: tall 10–20, wide 15–25.
        let c = WideCost::of(&[10.0, 15.0, 20.0], &[15.0, 20.0, 25.0], false);
        assert!(!c.slower());
    }
}
