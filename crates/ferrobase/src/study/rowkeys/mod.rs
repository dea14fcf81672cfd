//! `ferrobase study rowkeys`: sequential, salted, hashed and reversed row keys for a stream of
//! events written in time order into a table pre-split into N regions — where the writes go
//! (the hot spot), the write throughput, and what the spreading costs a time-range scan and a
//! point get.

mod designs;

use super::chart::{write_svg, HeatGrid, Layout, Panel, Series, XAxis};
use super::measure::{latencies, median_f64, micros, quantile};
use super::report::{sig, thousands, Report, Table};
use super::{scratch_dir, Load, StudyOptions};
use crate::bench::Rng;
use anyhow::{ensure, Result};
use designs::{Design, Keys};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Metrics, Put, Scan, TableDescriptor, TableName,
};
use std::collections::BTreeMap;
use std::time::Instant;

/// Timestamp of the first event (ms); one event every 7 ms, so every last digit occurs.
const BASE_TS: u64 = 1_700_000_000_000;
const STEP_MS: u64 = 7;
const FAMILY: &str = "cf";

#[derive(Debug, Clone)]
struct Config {
    /// Events written (in time order).
    events: u64,
    /// Regions of the pre-split table, and salt buckets.
    regions: usize,
    /// Time slices of the hot-spot picture.
    slices: usize,
    /// Fresh loads; figures are medians over them.
    reps: usize,
    /// Point gets per load.
    gets: usize,
    /// Range scans per load (the reversed design's full scans: at most 5).
    ranges: usize,
    /// Events in a range scan's time window.
    window: u64,
}

impl Config {
    fn new(quick: bool) -> Config {
        if quick {
            Config {
                events: 20_000,
                regions: 8,
                slices: 10,
                reps: 1,
                gets: 200,
                ranges: 20,
                window: 100,
            }
        } else {
            Config {
                events: 1_000_000,
                regions: 8,
                slices: 20,
                reps: 3,
                gets: 2_000,
                ranges: 100,
                window: 1_000,
            }
        }
    }
}

fn event_ts(i: u64) -> u64 {
    BASE_TS + i * STEP_MS
}

/// Every figure of one design: name -> one value per repetition.
type Samples = BTreeMap<&'static str, Vec<f64>>;

/// Runs the study and writes `rowkeys.md`, `rowkeys.csv` and `rowkeys.svg`.
pub fn run(opts: &StudyOptions) -> Result<()> {
    run_with(opts, &Config::new(opts.quick))
}

fn run_with(opts: &StudyOptions, cfg: &Config) -> Result<()> {
    let load = Load::start();
    let mut report = Report::default();
    report.text(&format!(
        "## Sequential, salted, hashed and reversed row keys: measured results\n\n\
         `ferrobase study rowkeys{}`: {} events (one every {STEP_MS} ms, 40-byte values) written \
         in time order in batches of 1000 puts into a table pre-split into {} regions at the \
         quantiles of its own keys (the split a schema designer would choose knowing the key \
         distribution); family at HBase's defaults. Figures are medians of {} fresh load(s); \
         latencies are each load's p50 over {} point gets and {} range scans of {} consecutive \
         events (the reversed design: 5 full scans). {} cores.",
        if opts.quick { " --quick" } else { "" },
        thousands(cfg.events),
        cfg.regions,
        cfg.reps,
        thousands(cfg.gets as u64),
        cfg.ranges,
        thousands(cfg.window),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    ));
    let mut results = Vec::new();
    for design in Design::ALL {
        let keys = Keys::new(design, cfg.regions)?;
        let mut samples = Samples::new();
        let mut picture = Vec::new();
        for rep in 0..cfg.reps {
            picture = measure(cfg, &keys, rep, &mut samples)?;
        }
        results.push((design, keys, samples, picture));
    }

    let med = |s: &Samples, k: &str| median_f64(s.get(k).map_or(&[][..], |v| v.as_slice()));
    let mut t = Table::new(&[
        "design",
        "key schema",
        ">write rec/s",
        ">busiest region's share of a slice's writes",
        ">regions written per slice",
        ">largest region's share of bytes",
        ">range p50 µs",
        ">scans per range",
        ">rows examined per range",
        ">point get p50 µs",
    ]);
    for (design, keys, s, picture) in &results {
        let shares: Vec<f64> = picture
            .iter()
            .map(|slice| {
                let total: u64 = slice.iter().sum();
                *slice.iter().max().unwrap_or(&0) as f64 / total.max(1) as f64
            })
            .collect();
        let written: Vec<f64> = picture
            .iter()
            .map(|slice| slice.iter().filter(|&&n| n > 0).count() as f64)
            .collect();
        t.row(vec![
            design.name().into(),
            format!("`{}`", keys.design.schema_text(cfg.regions)),
            thousands(med(s, "write") as u64),
            format!("{:.0} %", median_f64(&shares) * 100.0),
            sig(median_f64(&written), 2),
            format!("{:.0} %", med(s, "bytes_share") * 100.0),
            sig(med(s, "range"), 3),
            sig(med(s, "scans"), 3),
            thousands(med(s, "examined") as u64),
            sig(med(s, "get"), 3),
        ]);
    }
    report.text("### Writes, hot spot and reads");
    report.table(&t);

    let mut csv = String::from("design,figure,values...\n");
    for (design, _, s, picture) in &results {
        for (k, v) in s {
            let v: Vec<String> = v.iter().map(|x| format!("{x:.3}")).collect();
            csv.push_str(&format!("{},{k},{}\n", design.name(), v.join(",")));
        }
        for (i, slice) in picture.iter().enumerate() {
            let v: Vec<String> = slice.iter().map(u64::to_string).collect();
            csv.push_str(&format!(
                "{},slice{},{}\n",
                design.name(),
                i + 1,
                v.join(",")
            ));
        }
    }
    std::fs::write(opts.out.join("rowkeys.csv"), csv)?;

    // The reversed design spreads its writes evenly: eight lines would lie on one another, so
    // it is drawn as the console draws a key-range heat map (time slice × region).
    let panels: Vec<Panel> = results
        .iter()
        .map(|(design, _, _, picture)| {
            let heat = (*design == Design::Reversed).then(|| HeatGrid {
                row_label: "region (key range)".into(),
                columns: picture
                    .iter()
                    .map(|counts| counts.iter().map(|&n| n as f64).collect())
                    .collect(),
            });
            Panel {
                title: format!("{}: writes per region per time slice", design.name()),
                y_label: "writes".into(),
                log_y: false,
                legend: true,
                series: if heat.is_some() {
                    Vec::new()
                } else {
                    (0..cfg.regions)
                        .map(|r| Series {
                            label: format!("region {}", r + 1),
                            points: picture
                                .iter()
                                .enumerate()
                                .map(|(slice, counts)| ((slice + 1) as f64, counts[r] as f64))
                                .collect(),
                            ranges: Vec::new(),
                        })
                        .collect()
                },
                heat,
            }
        })
        .collect();
    let x = XAxis {
        label: "time slice (writes in time order)".into(),
        log: false,
    };
    // One y scale for all four designs, so the hot spot's height reads against the spread.
    let layout = Layout {
        columns: 2,
        shared_y: true,
        footer: vec![
            "Each line is one region's writes per slice of the stream (exact counts, not \
             timed)."
                .into(),
            "Reversed: a cell per region and slice, its colour the writes on the lines' scale \
             (an even spread: 1/8 of a slice in every cell)."
                .into(),
            load.line(),
        ],
    };
    report.text(&format!("Measured under {}.", load.line()));
    write_svg(&opts.out.join("rowkeys.svg"), &x, &panels, &layout)?;
    report.text("![writes per region over time](rowkeys.svg)");
    report.write(&opts.out.join("rowkeys.md"))?;
    eprintln!("wrote {}", opts.out.join("rowkeys.md").display());
    Ok(())
}

/// Loads the events under `keys` into a fresh pre-split table, measures, and returns the
/// writes each region took in each time slice.
fn measure(cfg: &Config, keys: &Keys, rep: usize, samples: &mut Samples) -> Result<Vec<Vec<u64>>> {
    let rows: Vec<Vec<u8>> = (0..cfg.events)
        .map(|i| keys.row(event_ts(i), i as u32))
        .collect::<Result<_>>()?;
    let mut sorted = rows.clone();
    sorted.sort_unstable();
    let splits: Vec<Vec<u8>> = (1..cfg.regions)
        .map(|r| sorted[r * sorted.len() / cfg.regions].clone())
        .collect();
    drop(sorted);
    // The region of each row, as the engine routes it: the number of split keys <= the row.
    let region_of: Vec<usize> = rows
        .iter()
        .map(|k| splits.partition_point(|s| s.as_slice() <= k.as_slice()))
        .collect();
    let mut picture = vec![vec![0u64; cfg.regions]; cfg.slices];
    for (i, r) in region_of.iter().enumerate() {
        picture[i * cfg.slices / rows.len()][*r] += 1;
    }

    let dir = scratch_dir()?;
    let engine = Engine::open(dir.path(), EngineOptions::default())?;
    let name = keys.design.name();
    let desc = TableDescriptor::new(TableName::parse(name)?)
        .with_family(ColumnFamilyDescriptor::new(FAMILY));
    engine.admin().create_table_with_splits(desc, &splits)?;
    let t = engine.table(name)?;
    let start = Instant::now();
    for (chunk_no, chunk) in rows.chunks(1000).enumerate() {
        let puts = chunk
            .iter()
            .enumerate()
            .map(|(j, row)| {
                let i = chunk_no * 1000 + j;
                Put::new(row.clone()).add_column(
                    FAMILY,
                    "v",
                    format!("event {i:010} payload-abcdefghij"),
                )
            })
            .collect();
        t.put_all(puts)?;
    }
    let took = start.elapsed();
    engine.admin().flush(name)?;
    samples
        .entry("write")
        .or_default()
        .push(cfg.events as f64 / took.as_secs_f64());

    // The engine's view: every region holds the rows routed to it; bytes per region.
    let regions = engine.admin().regions(name)?;
    ensure!(regions.len() == cfg.regions, "{} regions", regions.len());
    if rep == 0 {
        for (r, info) in regions.iter().enumerate() {
            let scan = Scan::new()
                .with_start_row(info.start.clone())
                .with_stop_row(info.end.clone());
            let n = t.scanner(&scan)?.count() as u64;
            let expected: u64 = picture.iter().map(|s| s[r]).sum();
            ensure!(
                n == expected,
                "{name} region {r}: {n} rows, routed {expected}"
            );
        }
    }
    let bytes: Vec<u64> = regions.iter().map(|r| r.file_bytes).collect();
    let total: u64 = bytes.iter().sum();
    samples
        .entry("bytes_share")
        .or_default()
        .push(*bytes.iter().max().unwrap_or(&0) as f64 / total.max(1) as f64);

    let mut rng = Rng(0x5851_f42d_4c95_7f2d ^ rep as u64);
    let lat = latencies(cfg.gets, |_| {
        let i = rng.next() % cfg.events;
        let got = keys.get(&t, event_ts(i), i as u32)?;
        ensure!(!got.is_empty(), "{name}: event {i} not found");
        Ok(())
    })?;
    samples
        .entry("get")
        .or_default()
        .push(micros(quantile(&lat, 0.5)));

    let ranges = if keys.design == Design::Reversed {
        cfg.ranges.min(5)
    } else {
        cfg.ranges
    };
    let examined = || Metrics::get(&engine.metrics().rows_examined);
    let before = examined();
    let mut scans = 0;
    let lat = latencies(ranges, |_| {
        let first = rng.next() % (cfg.events - cfg.window);
        let (from, to) = (event_ts(first), event_ts(first + cfg.window - 1));
        let (got, n) = keys.range(&t, from, to)?;
        scans = n;
        ensure!(
            got.len() as u64 == cfg.window,
            "{name}: range returned {} rows",
            got.len()
        );
        Ok(())
    })?;
    samples
        .entry("range")
        .or_default()
        .push(micros(quantile(&lat, 0.5)));
    samples.entry("scans").or_default().push(scans as f64);
    samples
        .entry("examined")
        .or_default()
        .push((examined() - before) as f64 / ranges as f64);
    engine.close();
    eprintln!("rowkeys: {name}, load {} of {} measured", rep + 1, cfg.reps);
    Ok(picture)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_study_writes_its_table_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = Config::new(true);
        cfg.events = 4_000;
        cfg.gets = 20;
        cfg.ranges = 3;
        let opts = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            sizes: None,
        };
        run_with(&opts, &cfg).unwrap();
        let md = std::fs::read_to_string(dir.path().join("rowkeys.md")).unwrap();
        assert!(md.contains("| salted "), "{md}");
        let svg = std::fs::read_to_string(dir.path().join("rowkeys.svg")).unwrap();
        assert!(svg.contains("region 8"));
        // Reversed is a heat map: a cell per region and slice, and its colour scale.
        assert!(svg.contains("region (key range)"), "{svg}");
        assert!(svg.contains("writes per slice"), "{svg}");
        let problems =
            crate::study::chart::render_check::text_problems(&dir.path().join("rowkeys.svg"));
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
