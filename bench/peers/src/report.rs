//! Collects the children's result lines and prints the markdown tables.

use crate::workload::{Scale, COLD_CACHE};
use std::collections::BTreeMap;

/// One workload's figures from one run.
#[derive(Clone, Copy, Default)]
struct Figures {
    ops: f64,
    p50: f64,
    p99: f64,
    p999: f64,
}

/// What one child printed.
pub struct Run {
    engine: String,
    order: Vec<String>,
    ops: BTreeMap<String, Figures>,
    values: BTreeMap<String, f64>,
    notes: BTreeMap<String, String>,
}

impl Run {
    pub fn new(engine: &str) -> Run {
        Run {
            engine: engine.to_string(),
            order: Vec::new(),
            ops: BTreeMap::new(),
            values: BTreeMap::new(),
            notes: BTreeMap::new(),
        }
    }

    /// Takes one line of a child's output: `R name ops p50 p99 p999`, `V name value` or
    /// `N name text`; anything else is passed through to stderr.
    pub fn add_line(&mut self, line: &str) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
        match f.first() {
            Some(&"R") if f.len() == 6 => {
                self.order.push(f[1].to_string());
                let fig = Figures {
                    ops: num(2),
                    p50: num(3),
                    p99: num(4),
                    p999: num(5),
                };
                self.ops.insert(f[1].to_string(), fig);
            }
            Some(&"V") if f.len() == 3 => {
                self.order.push(f[1].to_string());
                self.values.insert(f[1].to_string(), num(2));
            }
            Some(&"N") if f.len() == 3 => {
                self.notes.insert(f[1].to_string(), f[2].to_string());
            }
            _ => eprintln!("{line}"),
        }
    }
}

/// (median, min, max).
fn median(mut v: Vec<f64>) -> Option<(f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    Some((v[v.len() / 2], v[0], v[v.len() - 1]))
}

fn fmt_range(m: (f64, f64, f64), decimals: usize) -> String {
    format!("{:.d$} ({:.d$}–{:.d$})", m.0, m.1, m.2, d = decimals)
}

fn header(columns: &[String]) {
    println!("| {} |", columns.join(" | "));
    let rule: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                "-".repeat(c.len().max(3))
            } else {
                format!("{}:", "-".repeat(c.len().max(3) - 1))
            }
        })
        .collect();
    println!("| {} |", rule.join(" | "));
}

/// Prints the settings, the throughput table with ratios, the latency table and the values.
pub fn print(engines: &[String], runs: &[Run], scale: Scale, reps: usize) {
    let Some(first) = runs.first() else {
        return;
    };
    println!(
        "{} cells of 1 KiB (tall-narrow: {} users) + 100 wide rows of 1000 columns of 100 B; \
         {} cells of 100 B; {} repetitions, engines alternated, each run a process of its own; \
         median (min–max).\n",
        scale.cells,
        (scale.cells / 1000).max(1),
        scale.small_cells,
        reps
    );
    let limit = scale.memory_limit.map_or(String::new(), |l| {
        format!(
            " Each engine's process ran in a memory cgroup of {} MiB, its page cache included.",
            l >> 20
        )
    });
    println!(
        "Settings: {}; block cache {} MiB ({} MiB in the cold rows, page cache emptied by {} \
         before each cold row). One client thread except the fsync row.{limit}\n",
        crate::store::SETTINGS_LINE.replace(
            "{selection}",
            if crate::ferro::HBASE_SELECTION.load(std::sync::atomic::Ordering::Relaxed) {
                "HBase's exploring selection"
            } else {
                "size tiers: minor compactions merge 5-10 files of at most 2x each other's size"
            }
        ),
        scale.warm_cache >> 20,
        COLD_CACHE >> 20,
        first
            .notes
            .get("page cache")
            .map(String::as_str)
            .unwrap_or("-")
    );
    let per_engine = |name: &str, pick: &dyn Fn(&Run) -> Option<f64>| -> Option<(f64, f64, f64)> {
        median(
            runs.iter()
                .filter(|r| r.engine == name)
                .filter_map(pick)
                .collect(),
        )
    };
    let throughput: Vec<&String> = first
        .order
        .iter()
        .filter(|w| first.ops.contains_key(*w))
        .collect();
    ratio_table(
        engines,
        ["workload (ops/s; loads: cells/s)", "ferrobase / best peer"],
        &throughput,
        &|e, w| per_engine(e, &|r| r.ops.get(w).map(|f| f.ops)),
        &|_| 0,
        true,
    );
    println!();
    let mut cols = vec!["latency per call, µs (median run)".to_string()];
    cols.extend(engines.iter().map(|e| format!("{e} p50 / p99 / p999")));
    header(&cols);
    for &w in &throughput {
        let mut row = vec![w.clone()];
        for e in engines {
            let pick =
                |f: fn(&Figures) -> f64| per_engine(e, &|r| r.ops.get(w).map(f)).map(|m| m.0);
            row.push(match (pick(|f| f.p50), pick(|f| f.p99), pick(|f| f.p999)) {
                (Some(a), Some(b), Some(c)) => format!("{a:.1} / {b:.1} / {c:.1}"),
                _ => "-".into(),
            });
        }
        println!("| {} |", row.join(" | "));
    }
    println!();
    let values: Vec<&String> = first
        .order
        .iter()
        .filter(|w| first.values.contains_key(*w))
        .collect();
    ratio_table(
        engines,
        ["measure (lower is better)", "best peer / ferrobase"],
        &values,
        &|e, w| per_engine(e, &|r| r.values.get(w).copied()),
        // Space amplification sits within 1–2 % of 1: a third decimal tells the engines apart.
        &|w| match w {
            _ if w.contains("RSS") => 0,
            _ if w.contains("space") => 3,
            _ => 2,
        },
        false,
    );
}

type Median = Option<(f64, f64, f64)>;

/// One table: a row per name, each engine's median (min–max), and ferrobase's ratio to the
/// best peer (`higher_is_better`: ours / best, else best / ours).
fn ratio_table(
    engines: &[String],
    titles: [&str; 2],
    names: &[&String],
    median_of: &dyn Fn(&str, &str) -> Median,
    decimals: &dyn Fn(&str) -> usize,
    higher_is_better: bool,
) {
    let mut cols = vec![titles[0].to_string()];
    cols.extend(engines.iter().cloned());
    if engines.len() > 1 {
        cols.push(titles[1].into());
    }
    header(&cols);
    for w in names {
        let meds: Vec<Median> = engines.iter().map(|e| median_of(e, w)).collect();
        let mut row = vec![w.to_string()];
        row.extend(
            meds.iter()
                .map(|m| m.map(|m| fmt_range(m, decimals(w))).unwrap_or("-".into())),
        );
        if engines.len() > 1 {
            let peers = meds[1..].iter().flatten().map(|m| m.0);
            let (best, ours) = match meds[0] {
                Some(m) if higher_is_better => (peers.fold(0.0, f64::max), m.0),
                Some(m) => (peers.fold(f64::INFINITY, f64::min), m.0),
                None => (0.0, 0.0),
            };
            let ratio = if higher_is_better {
                ours / best
            } else {
                best / ours
            };
            let d = decimals(w).max(2);
            row.push(if ratio.is_finite() && ratio > 0.0 {
                format!("**{ratio:.d$}×**")
            } else {
                "-".into()
            });
        }
        println!("| {} |", row.join(" | "));
    }
}
