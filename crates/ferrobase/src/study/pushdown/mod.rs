//! `ferrobase study pushdown`: filter pushdown against key design for article 2's file search.
//! N users × M files, and two queries — article 2's (one user, one month, name and category
//! prefixes) and "one date, any user" — under four designs (and d's read path with checks):
//!
//! | design | tables | one user, one month | one date, any user |
//! |--------|--------|---------------------|--------------------|
//! | a: composite key | `files` keyed `user:u32dec6, date:dec8, file:u32dec6` (the app's) | the app's range scan + `SingleColumnValueFilter`s | the app's `FuzzyRowFilter` scan + SCVFs |
//! | b: id-only key | `files_by_id` keyed `file:u32dec6`, user and date as columns | full scan, SCVFs on user, date, name, category | full scan, SCVFs |
//! | c: index table | b's table + `files_idx` keyed `user + date + file` (no copies) | index range scan, then a get (with the name/category SCVFs) per hit | `FuzzyRowFilter` on the index, then gets |
//! | d: date-first index | a's table + the app's `files_by_date` keyed `date + user + file`, copies of name and category, written by the app's writer | a's scan | range scan of the date on the index + SCVFs on the copies, answered from the index alone |
//! | e: d, hits checked | d | a's scan | d's scan, then the app's `find_by_index` check: a get of every hit's data row |
//!
//! Per query: rows examined, blocks and block bytes touched (the engine's metrics), cells
//! returned, reads issued, latency. All designs must return the same files. Per design: load
//! time, bytes written (WAL and flush) and bytes on disk.
//!
//! Every query is measured twice in the same run: on the embedded engine, and through
//! `ferrobase serve`'s Thrift1 gateway (the same server, started in this process on the same
//! engine and reached over loopback TCP by `ferrobase-client`, scanners fetching 1 000 rows a
//! `scannerGetList`), so the engine's counters hold for both paths and the difference is the
//! gateway's: serialization, a round trip per call, a scanner per scan. The paths take turns
//! run by run, so both see the block cache and the machine in the same state.

mod data;
mod designs;
mod gateway;
mod results;
mod salted;

use super::{scratch_dir, StudyOptions};
use crate::bench::Rng;
use anyhow::Result;
use data::{generate, matches, Config};
use designs::Study;
use gateway::{Gateway, Via};
use std::collections::BTreeSet;

const DATA_TABLE: &str = "files";
const FAMILY: &str = "info";
const ID_TABLE: &str = "files_by_id";
const ID_KEY: &str = "file:u32dec6";
const INDEX_TABLE: &str = "files_idx";
const INDEX_FAMILY: &str = "i";
const INDEX_KEY: &str = "user:u32dec6, date:dec8, file:u32dec6";
/// Article 2's conditions.
const NAME_PREFIX: &str = "中国好声音";
const CATEGORY_PREFIX: &str = "综艺";
const MONTH: (u32, u32) = (20120901, 20120930);
const ONE_DATE: u32 = 20120914;

/// The bars' short labels, by query and design (the chart's footer spells them out): on
/// "one date, any user" design a is read by FuzzyRowFilter, and d, e and a/re of "one user, one
/// month" read a's range.
const BAR_KEYS: [[&str; 6]; 2] = [
    ["a", "b", "c", "d (= a)", "e (= a)", "a/re (= a)"],
    ["a fuzzy", "b", "c", "d", "e", "a/re"],
];

const DESIGNS: [(&str, &str); 6] = [
    (
        "a: composite key",
        "`user:u32dec6, date:dec8, file:u32dec6`",
    ),
    ("b: id-only key", "`file:u32dec6` + columns user, date"),
    ("c: index table", "b + index `user, date, file` → get"),
    (
        "d: date-first index",
        "a + index `date, user, file` with copies of name, category",
    ),
    ("e: d, hits checked", "d, a get of each hit's data row"),
    (
        "a, RowFilter regex",
        "a; the date plan HBase's Thrift1 can take",
    ),
];

/// Design d's index read with the app's consistency check (e) answers query 2 only; for query 1
/// it is a's scan, as d's.
const CHECKED: usize = 4;
/// Design a with the date query as a `RowFilter` regular expression, as `file-search on-date`
/// plans it through Apache HBase's Thrift1 gateway (no `FuzzyRowFilter` in its filter
/// language): query 2 only.
const REGEX: usize = 5;

#[derive(Debug, Clone, Default)]
pub(super) struct Cost {
    examined: f64,
    blocks: f64,
    bytes: f64,
    cells: f64,
    results: f64,
    reads: f64,
    p50_us: f64,
    runs: usize,
}

/// Runs the study and writes `pushdown-results.md` (`pushdown.md` is the hand-written analysis), `pushdown.csv` and `pushdown.svg`.
pub fn run(opts: &StudyOptions) -> Result<()> {
    run_with(opts, &Config::new(opts.quick))
}

fn run_with(opts: &StudyOptions, cfg: &Config) -> Result<()> {
    let machine = super::Load::start();
    let files = generate(cfg);
    let dir = scratch_dir()?;
    let (mut study, loads) = Study::load(dir.path(), &files)?;
    study.gateway = Some(Gateway::start(&study.engine)?);
    eprintln!("pushdown: {} files loaded", files.len());

    let by_user = |u: Option<u32>| -> BTreeSet<u32> {
        files
            .iter()
            .filter(|f| u.is_none_or(|u| f.user == u) && f.date >= MONTH.0 && f.date <= MONTH.1)
            .filter(|f| matches(f))
            .map(|f| f.id)
            .collect()
    };
    let on_date = |_: Option<u32>| -> BTreeSet<u32> {
        files
            .iter()
            .filter(|f| f.date == ONE_DATE && matches(f))
            .map(|f| f.id)
            .collect()
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let users: Vec<u32> = (0..=cfg.queries)
        .map(|_| (rng.next() % u64::from(cfg.users)) as u32 + 1)
        .collect();
    // One untimed pass over every query on both paths first: the first pass after the load
    // ran slower than later ones whichever path took it.
    for via in [Via::Embedded, Via::Thrift] {
        for d in 0..DESIGNS.len() {
            study.answer(via, d, Some(users[0]), MONTH)?;
            study.answer(via, d, None, (ONE_DATE, ONE_DATE))?;
        }
    }
    const VIAS: [Via; 2] = [Via::Embedded, Via::Thrift];
    let mut both: Vec<(Via, usize, usize, Cost)> = Vec::new();
    for (d, design) in DESIGNS.iter().enumerate() {
        let runs = if d == 1 { cfg.full_scans } else { cfg.queries };
        if d != CHECKED && d != REGEX {
            let c = study.measure(&VIAS, d, runs, |i| Some(users[i]), MONTH, by_user)?;
            both.extend(VIAS.iter().zip(c).map(|(v, c)| (*v, 0, d, c)));
        }
        let dates = (ONE_DATE, ONE_DATE);
        let c = study.measure(&VIAS, d, cfg.full_scans, |_| None, dates, on_date)?;
        both.extend(VIAS.iter().zip(c).map(|(v, c)| (*v, 1, d, c)));
        eprintln!("pushdown: design {} measured", design.0);
    }
    both.sort_by_key(|(via, q, d, _)| (*via, *q, *d));
    let salted_load = salted::load(&study.engine, &files)?;
    let (unsalted, salted_cost) =
        salted::measure(&study.engine, &study.app, &files, ONE_DATE, cfg.queries)?;
    eprintln!("pushdown: the salted date-first index measured");
    if let Some(g) = study.gateway.take() {
        g.stop()?;
    }
    study.engine.close();
    results::write(
        opts,
        cfg,
        &machine,
        &files,
        &results::Measured {
            both,
            loads,
            salted_load,
            unsalted,
            salted: salted_cost,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_study_writes_its_table_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = Config::new(true);
        cfg.users = 20;
        cfg.queries = 3;
        cfg.full_scans = 2;
        let opts = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            sizes: None,
        };
        run_with(&opts, &cfg).unwrap();
        let md = std::fs::read_to_string(dir.path().join("pushdown-results.md")).unwrap();
        assert!(
            md.contains("| one date, any user  | c: index table"),
            "{md}"
        );
        let svg = std::fs::read_to_string(dir.path().join("pushdown.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("b: file-id key"));
        assert!(svg.contains("load average") && svg.contains("MiB written"));
        // The salted index's bar beside d's (three one-date panels, two write panels).
        assert_eq!(svg.matches(">\nd salt\n<").count(), 5, "{svg}");
        let problems =
            crate::study::chart::render_check::text_problems(&dir.path().join("pushdown.svg"));
        assert!(problems.is_empty(), "{problems:#?}");
        // Every design was measured through the gateway too, finding the same files.
        assert!(
            md.contains("### The same queries through `ferrobase serve`"),
            "{md}"
        );
        assert!(
            md.contains("| one date, any user  | e: d, hits checked"),
            "{md}"
        );
        let csv = std::fs::read_to_string(dir.path().join("pushdown.csv")).unwrap();
        assert_eq!(
            csv.matches("\"Thrift (ferrobase serve)\"").count(),
            10,
            "{csv}"
        );
        assert_eq!(csv.matches("\"embedded\"").count(), 10, "{csv}");
    }
}
